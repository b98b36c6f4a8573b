//! The selected agent: a header (name, state, where it runs, Start/Stop/Restart, tabs), its
//! conversation streamed as plain text, a crash report when it crashed, and the composer.

use egui::{Key as EguiKey, Modifiers, RichText};

use super::Tab;
use super::i18n::{Key, crash_text, state_text, tr, trf, turn_end_text, where_text};
use super::theme::{ERROR, state_dot};
use crate::app::{AgentState, AgentView, Command};
use crate::model::config::Language;
use crate::model::conversation::{Role, TurnEnd};

/// The header; returns the commands its buttons asked for.
pub fn agent_header_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, tab: &mut Tab) -> Vec<Command> {
    let mut commands = Vec::new();
    let name = agent.config.name.clone();
    ui.horizontal(|ui| {
        ui.heading(&name);
        state_dot(ui, &agent.state, state_text(lang, &agent.state));
        ui.label(state_text(lang, &agent.state));
        ui.label(RichText::new(where_text(lang, &agent.config.runtime)).weak());
        ui.separator();
        let running = matches!(
            agent.state,
            AgentState::Starting | AgentState::Idle | AgentState::Busy
        );
        if ui
            .add_enabled(!running, egui::Button::new(tr(lang, Key::Start)))
            .clicked()
        {
            commands.push(Command::Start { agent: name.clone() });
        }
        if ui
            .add_enabled(running, egui::Button::new(tr(lang, Key::Stop)))
            .clicked()
        {
            commands.push(Command::Stop { agent: name.clone() });
        }
        if ui.button(tr(lang, Key::Restart)).clicked() {
            commands.push(Command::Restart { agent: name.clone() });
        }
        ui.separator();
        ui.selectable_value(tab, Tab::Conversation, tr(lang, Key::Conversation));
        ui.selectable_value(tab, Tab::Log, tr(lang, Key::Log));
    });
    ui.separator();
    commands
}

/// The messages and the composer; returns the commands to send.
pub fn conversation_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &mut AgentView,
    draft: &mut String,
) -> Vec<Command> {
    let mut commands = Vec::new();
    egui::Panel::bottom("composer").show(ui, |ui| {
        if let Some(c) = composer_ui(ui, lang, agent, draft) {
            commands.push(c);
        }
    });
    egui::ScrollArea::vertical()
        .stick_to_bottom(true)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            if agent.conversation.messages.is_empty() {
                ui.label(RichText::new(tr(lang, Key::EmptyConversation)).weak());
            }
            for message in &agent.conversation.messages {
                let who = match message.role {
                    Role::User => tr(lang, Key::You).to_string(),
                    Role::Agent => agent.config.name.clone(),
                    Role::System => tr(lang, Key::System).to_string(),
                };
                ui.add_space(6.0);
                ui.label(RichText::new(who).strong());
                if !message.thought.is_empty() {
                    egui::CollapsingHeader::new(tr(lang, Key::Thinking))
                        .id_salt(message as *const _ as usize)
                        .show(ui, |ui| {
                            ui.label(RichText::new(&message.thought).italics().weak())
                        });
                }
                if !message.text.is_empty() {
                    ui.label(&message.text);
                }
                if let Some(end) = &message.end {
                    let text = turn_end_text(lang, end);
                    if !text.is_empty() {
                        let color = if matches!(end, TurnEnd::Failed { .. }) {
                            ERROR
                        } else {
                            ui.visuals().weak_text_color()
                        };
                        ui.label(RichText::new(text).italics().color(color));
                    }
                }
            }
            if let AgentState::Crashed(report) = &agent.state {
                ui.add_space(8.0);
                crash_ui(ui, lang, report);
            }
        });
    commands
}

fn crash_ui(ui: &mut egui::Ui, lang: Language, report: &crate::app::CrashReport) {
    egui::Frame::group(ui.style())
        .stroke(egui::Stroke::new(1.0, ERROR))
        .show(ui, |ui| {
            ui.label(RichText::new(crash_text(lang, &report.reason)).color(ERROR));
            if !report.stderr_tail.is_empty() {
                ui.label(RichText::new(tr(lang, Key::LastStderr)).weak());
                ui.label(RichText::new(report.stderr_tail.join("\n")).monospace());
            }
        });
}

/// The text box: Enter sends, Shift+Enter adds a line.
fn composer_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &mut AgentView,
    draft: &mut String,
) -> Option<Command> {
    let name = agent.config.name.clone();
    let id = ui.make_persistent_id(("composer", &name));
    let focused = ui.memory(|m| m.has_focus(id));
    let enter = focused && ui.input_mut(|i| i.consume_key(Modifiers::NONE, EguiKey::Enter));
    let mut send = false;
    let mut cancel = false;
    ui.add_space(4.0);
    ui.horizontal(|ui| {
        let busy = agent.state == AgentState::Busy;
        let button_width = 90.0;
        ui.add(
            egui::TextEdit::multiline(draft)
                .id(id)
                .desired_rows(2)
                .desired_width(ui.available_width() - button_width)
                .hint_text(trf(lang, Key::ComposerHint, &[("agent", &name)])),
        );
        ui.vertical(|ui| {
            send = ui.button(tr(lang, Key::Send)).clicked() || enter;
            if busy && ui.button(tr(lang, Key::Cancel)).clicked() {
                cancel = true;
            }
        });
    });
    ui.add_space(4.0);
    if cancel {
        return Some(Command::Cancel { agent: name });
    }
    let text = draft.trim().to_string();
    if send && !text.is_empty() {
        draft.clear();
        agent.conversation.push_user(text.clone());
        return Some(Command::Prompt { agent: name, text });
    }
    None
}
