//! Edit in place (issue 48, item 4): Edit turns the person's message into a text field where it
//! stands, with "Save and send" and Cancel; what it was stays reachable with "‹ 1 / 2 ›" on the
//! message (the runtime keeps the versions: `AgentCommand::Edit`, `ShowVersion`). The text being
//! edited is the window's own, kept in egui's memory per agent.

use egui::RichText;

use super::i18n::{Key, tr};
use super::message_actions::MessageActions;
use crate::app::{AgentCommand, AgentView, Command};
use crate::model::config::Language;
use crate::model::conversation::MessageId;

fn key(agent: &AgentView) -> egui::Id {
    egui::Id::unique(("editing-message", agent.config.name.as_str()))
}

/// Starts editing message `id` of `agent` with `text`.
pub fn start(ui: &egui::Ui, agent: &AgentView, id: MessageId, text: String) {
    ui.data_mut(|d| d.insert_temp(key(agent), (id, text)));
}

/// The message of `agent` being edited, if any.
fn editing(ui: &egui::Ui, agent: &AgentView) -> Option<(MessageId, String)> {
    ui.data(|d| d.get_temp::<(MessageId, String)>(key(agent)))
}

/// While message `index` is edited: its text field and buttons in place of its text; true when
/// drawn (the message's parts are not drawn then).
pub fn edit_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    index: usize,
    actions: &mut MessageActions,
) -> bool {
    let message = &agent.conversation.messages[index];
    let Some((id, mut text)) = editing(ui, agent) else { return false };
    if message.id.as_ref() != Some(&id) {
        return false;
    }
    let field = ui.add(
        egui::TextEdit::multiline(&mut text)
            .id(egui::Id::unique(("edit-field", agent.config.name.as_str())))
            .desired_rows(2)
            .desired_width(f32::INFINITY),
    );
    let escape = field.has_focus() && ui.input(|i| i.key_pressed(egui::Key::Escape));
    let busy = agent.state == crate::app::AgentState::Busy;
    let mut done = escape;
    ui.horizontal(|ui| {
        let save = egui::Button::new(tr(lang, Key::SaveAndSend));
        let hint = tr(lang, if busy { Key::EditWhileBusy } else { Key::SaveAndSendHint });
        let clicked = ui.add_enabled(!busy && !text.trim().is_empty(), save).on_hover_text(hint).clicked();
        if clicked {
            let edit = AgentCommand::Edit { message: id.clone(), text: text.trim().to_string() };
            actions.commands.push(Command::Agent(agent.config.name.clone().into(), edit));
            done = true;
        }
        if ui.button(tr(lang, Key::Cancel)).clicked() {
            done = true;
        }
        if busy {
            ui.label(RichText::new(tr(lang, Key::EditWhileBusy)).small().weak());
        }
    });
    ui.data_mut(|d| {
        if done {
            d.remove::<(MessageId, String)>(key(agent));
        } else {
            d.insert_temp(key(agent), (id, text));
        }
    });
    true
}

/// "‹ 2 / 3 ›" on a message of the person that was edited: each version reachable (right to
/// left: next, the count, previous).
pub fn versions_ui(ui: &mut egui::Ui, agent: &AgentView, index: usize, actions: &mut MessageActions) {
    let message = &agent.conversation.messages[index];
    let (count, at) = message.version();
    let Some(id) = message.id.clone().filter(|_| count > 1) else { return };
    let idle = agent.state != crate::app::AgentState::Busy;
    let mut show = |version: usize| {
        let command = AgentCommand::ShowVersion { message: id.clone(), version };
        actions.commands.push(Command::Agent(agent.config.name.clone().into(), command));
    };
    if ui.add_enabled(idle && at + 1 < count, egui::Button::new("›").small()).clicked() {
        show(at + 1);
    }
    ui.label(RichText::new(format!("{} / {count}", at + 1)).small());
    if ui.add_enabled(idle && at > 0, egui::Button::new("‹").small()).clicked() {
        show(at - 1);
    }
}
