//! The conversation with the selected agent: messages made of parts (text, folded thoughts,
//! tool cards, plans, notices), permission cards under the tool call they concern, the crash
//! report, and the composer. Messages sent while the agent answers show as queued.

use egui::{Key as EguiKey, Modifiers, RichText};

use super::i18n::{Key, crash_text, tr, trf, turn_end_text};
use super::permission_card::permission_card_ui;
use super::theme::{ERROR, WARNING};
use super::tool_card::tool_card_ui;
use crate::app::{AgentState, AgentView, Command};
use crate::model::config::Language;
use crate::model::conversation::{Delivery, Message, Notice, Part, Role, TurnEnd, transcript};

/// Longest transcript sent to an agent that forgot the conversation.
const TRANSCRIPT_CHARS: usize = 12_000;
use crate::model::tool::{PlanItem, PlanStatus};

/// The messages and the composer; returns the commands to send.
pub fn conversation_ui(ui: &mut egui::Ui, lang: Language, agent: &mut AgentView, draft: &mut String) -> Vec<Command> {
    let mut commands = Vec::new();
    egui::Panel::bottom("composer").show(ui, |ui| {
        commands.extend(composer_ui(ui, lang, agent, draft));
    });
    let mut attach = false;
    let view = &*agent;
    egui::ScrollArea::vertical().stick_to_bottom(true).auto_shrink([false, false]).show(ui, |ui| {
        let agent = view;
        if agent.conversation.messages.is_empty() {
            ui.label(RichText::new(tr(lang, Key::EmptyConversation)).weak());
        }
        let mut shown_cards = std::collections::HashSet::new();
        for (index, message) in agent.conversation.messages.iter().enumerate() {
            ui.add_space(6.0);
            ui.push_id(index, |ui| message_ui(ui, lang, agent, message, &mut shown_cards, &mut commands, &mut attach));
        }
        // Requests about a tool call that is not in the conversation.
        for card in agent.permissions.iter().filter(|c| !shown_cards.contains(&c.request.id)) {
            commands.extend(permission_card_ui(ui, lang, &agent.config.name, &agent.config.runtime, card));
        }
        if let AgentState::Crashed(report) = &agent.state {
            ui.add_space(8.0);
            crash_ui(ui, lang, report);
        }
    });
    if attach {
        agent.attach_transcript = true;
    }
    commands
}

fn message_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    message: &Message,
    shown_cards: &mut std::collections::HashSet<u64>,
    commands: &mut Vec<Command>,
    attach: &mut bool,
) {
    let name = &agent.config.name;
    match message.role {
        Role::User => {
            ui.horizontal(|ui| {
                ui.label(RichText::new(tr(lang, Key::You)).strong());
                match message.delivery {
                    Delivery::Sent => {}
                    Delivery::Queued => {
                        ui.label(RichText::new(tr(lang, Key::Queued)).small().italics().color(WARNING));
                    }
                    Delivery::NotSent => {
                        ui.label(RichText::new(tr(lang, Key::NotSent)).small().italics().color(ERROR));
                    }
                }
            });
        }
        Role::Agent => {
            ui.label(RichText::new(name).strong());
        }
        Role::System => {}
    }
    for (i, part) in message.parts.iter().enumerate() {
        match part {
            Part::Text(text) => {
                ui.label(text);
            }
            Part::Thought(text) => {
                egui::CollapsingHeader::new(RichText::new(tr(lang, Key::Thinking)).weak())
                    .id_salt(("thought", i))
                    .show(ui, |ui| ui.label(RichText::new(text).italics().weak()));
            }
            Part::Tool(call) => {
                tool_card_ui(ui, lang, call);
                for card in agent.permissions.iter().filter(|c| c.request.tool.id == call.id) {
                    shown_cards.insert(card.request.id);
                    commands.extend(permission_card_ui(ui, lang, name, &agent.config.runtime, card));
                }
            }
            Part::Plan(items) => plan_ui(ui, lang, items),
            Part::Notice(notice) => match notice_ui(ui, lang, name, notice, agent.attach_transcript) {
                Some(NoticeAction::Command(command)) => commands.push(command),
                Some(NoticeAction::AttachTranscript) => *attach = true,
                None => {}
            },
        }
    }
    if let Some(end) = &message.end {
        let text = turn_end_text(lang, end);
        if !text.is_empty() {
            let color = if matches!(end, TurnEnd::Failed { .. }) { ERROR } else { ui.visuals().weak_text_color() };
            ui.label(RichText::new(text).italics().color(color));
        }
    }
}

fn plan_ui(ui: &mut egui::Ui, lang: Language, items: &[PlanItem]) {
    ui.label(RichText::new(tr(lang, Key::Plan)).strong());
    for item in items {
        let mark = match item.status {
            PlanStatus::Pending => "[ ]",
            PlanStatus::InProgress => "[~]",
            PlanStatus::Completed => "[x]",
        };
        let text = RichText::new(format!("{mark} {}", item.content));
        ui.label(if item.status == PlanStatus::Completed { text.weak() } else { text });
    }
}

/// What a button of a notice asks for.
enum NoticeAction {
    Command(Command),
    AttachTranscript,
}

fn notice_ui(ui: &mut egui::Ui, lang: Language, agent: &str, notice: &Notice, attached: bool) -> Option<NoticeAction> {
    let mut command = None;
    let frame = egui::Frame::group(ui.style());
    frame.show(ui, |ui| match notice {
        Notice::NewSession => {
            ui.label(RichText::new(trf(lang, Key::NoticeNewSession, &[("agent", agent)])).italics());
        }
        Notice::Loop { failures } => {
            ui.horizontal(|ui| {
                let count = failures.to_string();
                ui.label(
                    RichText::new(trf(lang, Key::NoticeLoop, &[("agent", agent), ("count", &count)])).color(WARNING),
                );
                if ui.button(tr(lang, Key::Cancel)).clicked() {
                    command = Some(NoticeAction::Command(Command::Cancel { agent: agent.to_string() }));
                }
            });
        }
        Notice::TranscriptOffer => {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(trf(lang, Key::NoticeTranscript, &[("agent", agent)])).italics());
                if !attached && ui.button(tr(lang, Key::SendTranscript)).clicked() {
                    command = Some(NoticeAction::AttachTranscript);
                }
            });
        }
        Notice::AgentExited { message } => {
            ui.label(
                RichText::new(trf(lang, Key::NoticeExited, &[("agent", agent), ("message", message)])).color(ERROR),
            );
        }
    });
    command
}

fn crash_ui(ui: &mut egui::Ui, lang: Language, report: &crate::app::CrashReport) {
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.0, ERROR)).show(ui, |ui| {
        ui.label(RichText::new(crash_text(lang, &report.reason)).color(ERROR));
        if !report.stderr_tail.is_empty() {
            ui.label(RichText::new(tr(lang, Key::LastStderr)).weak());
            ui.label(RichText::new(report.stderr_tail.join("\n")).monospace());
        }
    });
}

/// The text box: Enter sends, Shift+Enter adds a line. While the agent answers, a message is
/// queued; Cancel stops the turn.
fn composer_ui(ui: &mut egui::Ui, lang: Language, agent: &mut AgentView, draft: &mut String) -> Option<Command> {
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
    if agent.attach_transcript {
        ui.horizontal(|ui| {
            ui.label(RichText::new(tr(lang, Key::TranscriptAttached)).small().italics());
            if ui.small_button(tr(lang, Key::DontSendTranscript)).clicked() {
                agent.attach_transcript = false;
            }
        });
    }
    ui.add_space(4.0);
    if cancel {
        return Some(Command::Cancel { agent: name });
    }
    let text = draft.trim().to_string();
    if send && !text.is_empty() {
        draft.clear();
        // The runtime echoes it back (as queued until its turn starts), so history and view agree.
        let context = std::mem::take(&mut agent.attach_transcript)
            .then(|| transcript(&agent.conversation.messages, TRANSCRIPT_CHARS));
        return Some(Command::Prompt { agent: name, text, context });
    }
    None
}
