//! Giving a member a task from the team's page (issue 47): "Assign a task…" opens a line under
//! the member; Enter or "Assign" sends it (`TeamCommand::Assign`, by the person), Esc or Cancel
//! closes it. The task then shows under the member as it goes.

use crate::app::Command;
use crate::model::config::Language;
use crate::protocol::teams::{Task, TeamCommand};
use crate::ui::i18n::{Key, tr};

/// The task being written: for which (team, member), and its text.
pub type Assigning = Option<((String, String), String)>;

/// The button and, when open for `agent` of `team`, the line to write the task in; gives the
/// command to send once the person assigns it.
pub fn assign_ui(ui: &mut egui::Ui, lang: Language, open: &mut Assigning, team: &str, agent: &str) -> Option<Command> {
    let key = (team.to_string(), agent.to_string());
    let Some((_, text)) = open.as_mut().filter(|(k, _)| *k == key) else {
        if ui.button(tr(lang, Key::AssignTask)).on_hover_text(tr(lang, Key::AssignTaskHint)).clicked() {
            *open = Some((key, String::new()));
        }
        return None;
    };
    let mut send = false;
    let mut close = false;
    ui.horizontal(|ui| {
        let field = ui.add(
            egui::TextEdit::singleline(text)
                .hint_text(tr(lang, Key::AssignTaskHint))
                .desired_width(ui.available_width() - 160.0),
        );
        if !field.has_focus() && text.is_empty() {
            field.request_focus();
        }
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let ready = !text.trim().is_empty();
        send = ui.add_enabled(ready, egui::Button::new(tr(lang, Key::Assign))).clicked() || (entered && ready);
        close = ui.button(tr(lang, Key::Cancel)).clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape));
    });
    if !send {
        if close {
            *open = None;
        }
        return None;
    }
    let text = text.trim().to_string();
    *open = None;
    let assign = TeamCommand::Assign { team: key.0, member: key.1, text, by: None, id: Task::new_id() };
    Some(Command::Team(Box::new(assign)))
}
