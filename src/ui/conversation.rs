//! The conversation with the selected agent: its messages (only the visible ones are laid out),
//! permission cards about no known tool call, the crash report, a jump to the latest message
//! while streaming, and the composer. Messages sent while the agent answers show as queued.

use egui::{Key as EguiKey, Modifiers, RichText};
use egui_commonmark::CommonMarkCache;

use super::i18n::{Key, crash_text, tr, trf};
use super::message::{MessageActions, message_ui};
use super::message_list::MessageList;
use super::permission_card::permission_card_ui;
use super::theme::ERROR;
use crate::app::{AgentState, AgentView, Command, Request};
use crate::model::config::Language;
use crate::model::conversation::transcript;

/// Longest transcript sent to an agent that forgot the conversation.
const TRANSCRIPT_CHARS: usize = 12_000;

/// The messages and the composer; returns what they ask for.
pub fn conversation_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    draft: &mut String,
    list: &mut MessageList,
    markdown: &mut CommonMarkCache,
) -> Vec<Request> {
    let mut actions = MessageActions::default();
    let mut requests = Vec::new();
    egui::Panel::bottom("composer").show(ui, |ui| {
        requests.extend(super::session_settings::settings_ui(ui, lang, agent).into_iter().map(Request::from));
        requests.extend(composer_ui(ui, lang, agent, draft));
    });
    let view = agent;
    let messages = &view.conversation.messages;
    // The last item holds what follows the messages.
    let count = messages.len() + 1;
    let output = list.show(ui, count, |ui, index| {
        if index < messages.len() {
            message_ui(ui, lang, markdown, view, index, &mut actions);
        } else {
            tail_ui(ui, lang, view, &mut actions);
        }
    });
    if !output.at_bottom && view.conversation.is_streaming() {
        egui::Area::new(ui.scope_id().with("jump")).anchor(egui::Align2::RIGHT_BOTTOM, egui::vec2(-24.0, -96.0)).show(
            ui.ctx(),
            |ui| {
                if ui.button(tr(lang, Key::JumpToBottom)).clicked() {
                    list.jump_to_bottom();
                }
            },
        );
    }
    if actions.attach_transcript {
        requests.push(Request::AttachTranscript { agent: agent.config.name.clone(), attach: true });
    }
    requests.extend(actions.commands.into_iter().map(Request::from));
    requests
}

/// After the messages: an empty-conversation hint, permission requests about a tool call that is
/// not in the conversation, and the crash report.
fn tail_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, actions: &mut MessageActions) {
    if agent.conversation.messages.is_empty() {
        ui.label(RichText::new(tr(lang, Key::EmptyConversation)).weak());
    }
    for card in agent.permissions.iter().filter(|c| c.message.is_none()) {
        actions.commands.extend(permission_card_ui(ui, lang, &agent.config.name, &agent.config.runtime, card));
    }
    if let AgentState::Crashed(report) = &agent.state {
        ui.add_space(8.0);
        egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.0, ERROR)).show(ui, |ui| {
            ui.label(RichText::new(crash_text(lang, &report.reason)).color(ERROR));
            if !report.stderr_tail.is_empty() {
                ui.label(RichText::new(tr(lang, Key::LastStderr)).weak());
                ui.label(RichText::new(report.stderr_tail.join("\n")).monospace());
            }
        });
    }
    ui.add_space(8.0);
}

/// The text box: Enter sends, Shift+Enter adds a line. While the agent answers, a message is
/// queued; Stop ends the turn.
fn composer_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, draft: &mut String) -> Vec<Request> {
    let name = agent.config.name.clone();
    let mut requests = Vec::new();
    let id = ui.make_persistent_id(("composer", &name));
    // The composer has the keyboard when nothing else does (a conversation just opened).
    if ui.memory(|m| m.focused().is_none()) {
        ui.memory_mut(|m| m.request_focus(id));
    }
    let focused = ui.memory(|m| m.has_focus(id));
    // The `/` menu takes its keys first (Enter completes a command's name there).
    let menu = super::slash_menu::keys(ui, id, focused, draft, &agent.commands);
    let enter = focused && !menu && ui.input_mut(|i| i.consume_key(Modifiers::NONE, EguiKey::Enter));
    let mut send = false;
    let mut stop = false;
    if agent.attach_transcript {
        ui.horizontal(|ui| {
            ui.label(RichText::new(tr(lang, Key::TranscriptAttached)).small().italics());
            if ui.small_button(tr(lang, Key::DontSendTranscript)).clicked() {
                requests.push(Request::AttachTranscript { agent: name.clone(), attach: false });
            }
        });
    }
    ui.add_space(4.0);
    super::slash_menu::menu_ui(ui, id, focused, draft, &agent.commands);
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
            if busy && ui.button(tr(lang, Key::StopTurn)).clicked() {
                stop = true;
            }
        });
    });
    ui.add_space(4.0);
    if stop {
        requests.push(Command::Cancel { agent: name }.into());
        return requests;
    }
    let text = draft.trim().to_string();
    if send && !text.is_empty() {
        draft.clear();
        // The runtime echoes it back (as queued until its turn starts), so history and view agree.
        let context = agent.attach_transcript.then(|| transcript(&agent.conversation.messages, TRANSCRIPT_CHARS));
        if context.is_some() {
            requests.push(Request::AttachTranscript { agent: name.clone(), attach: false });
        }
        requests.push(Command::Prompt { agent: name, text, context, id: None }.into());
    }
    requests
}
