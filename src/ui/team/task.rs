//! A task as the team page and the team's channel show it: what the member was asked (by whom),
//! and where it is (assigned, working, done, merged, in conflict, failed).

use egui::RichText;

use crate::model::config::Language;
use crate::ui::i18n::{Key, tr, trf};
use crate::ui::theme::error_color;

/// Where a task is, in words.
pub fn state_text(lang: Language, state: &crate::protocol::teams::TaskState) -> String {
    use crate::protocol::teams::TaskState;
    match state {
        TaskState::Assigned => tr(lang, Key::TaskAssigned).to_string(),
        TaskState::Working => tr(lang, Key::TaskWorking).to_string(),
        TaskState::Done => tr(lang, Key::TaskDone).to_string(),
        TaskState::Merged => tr(lang, Key::TaskMerged).to_string(),
        TaskState::Conflict => tr(lang, Key::TaskConflict).to_string(),
        TaskState::Failed { why } => trf(lang, Key::TaskFailed, &[("why", why)]),
    }
}

/// A member's latest task: what it was asked (by whom), and where it is.
pub fn task_ui(ui: &mut egui::Ui, lang: Language, task: &crate::protocol::teams::Task) {
    use crate::protocol::teams::TaskState;
    let state = state_text(lang, &task.state);
    let text: String = task.text.lines().next().unwrap_or_default().chars().take(120).collect();
    let words = match &task.by {
        Some(by) => trf(lang, Key::MemberTaskBy, &[("by", by), ("text", &text), ("state", &state)]),
        None => trf(lang, Key::MemberTask, &[("text", &text), ("state", &state)]),
    };
    let color = match task.state {
        TaskState::Failed { .. } | TaskState::Conflict => error_color(),
        _ => ui.visuals().text_color(),
    };
    ui.label(RichText::new(words).color(color)).on_hover_text(&task.text);
}
