//! One message of a conversation: who wrote it (and whether it is queued or was not sent), then
//! its parts — Markdown text, folded thoughts, tool cards with the permission cards about them,
//! plans, notices — and how the turn ended.

use egui::RichText;
use egui_commonmark::{CommonMarkCache, CommonMarkViewer};

use super::big_text::{PLAIN_OVER, big_text_ui};
use super::i18n::{Key, tr, trf, turn_end_text};
use super::permission_card::permission_card_ui;
use super::theme::{ERROR, WARNING};
use super::tool_card::tool_card_ui;
use crate::app::{AgentView, Command};
use crate::model::config::Language;
use crate::model::conversation::{Delivery, Notice, Part, Role, TurnEnd};
use crate::model::tool::{PlanItem, PlanStatus};

/// What drawing a message asked for.
#[derive(Default)]
pub struct MessageActions {
    /// Commands for the runtime.
    pub commands: Vec<Command>,
    /// The person wants a transcript sent with the next message.
    pub attach_transcript: bool,
}

/// Draws `message` of `agent`.
pub fn message_ui(
    ui: &mut egui::Ui,
    lang: Language,
    markdown: &mut CommonMarkCache,
    agent: &AgentView,
    index: usize,
    actions: &mut MessageActions,
) {
    let message = &agent.conversation.messages[index];
    ui.add_space(6.0);
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
            // Too long to lay out whole each frame: plain text, in pieces, folded.
            Part::Text(text) if text.len() > PLAIN_OVER => {
                big_text_ui(ui, lang, egui::Id::unique(("big", agent.config.name.as_str(), index, i)), text);
            }
            // What the person typed is shown as typed; the agent writes Markdown.
            Part::Text(text) if message.role == Role::User => {
                ui.label(text);
            }
            Part::Text(text) => {
                CommonMarkViewer::new().show(ui, markdown, text);
            }
            Part::Thought(text) => {
                egui::CollapsingHeader::new(RichText::new(tr(lang, Key::Thinking)).weak())
                    .id_salt(("thought", i))
                    .show(ui, |ui| {
                        if text.len() > PLAIN_OVER {
                            big_text_ui(
                                ui,
                                lang,
                                egui::Id::unique(("big-thought", agent.config.name.as_str(), index, i)),
                                text,
                            );
                        } else {
                            ui.label(RichText::new(text).italics().weak());
                        }
                    });
            }
            Part::Tool(call) => {
                tool_card_ui(ui, lang, call, &agent.terminals);
                let cards =
                    agent.permissions.iter().filter(|c| c.message == Some(index) && c.request.tool.id == call.id);
                for card in cards {
                    actions.commands.extend(permission_card_ui(ui, lang, name, &agent.config.runtime, card));
                }
            }
            Part::Plan(items) => plan_ui(ui, lang, items),
            Part::Notice(notice) => notice_ui(ui, lang, name, notice, agent.attach_transcript, actions),
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

fn notice_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &str,
    notice: &Notice,
    attached: bool,
    actions: &mut MessageActions,
) {
    egui::Frame::group(ui.style()).show(ui, |ui| match notice {
        Notice::NewSession => {
            ui.label(RichText::new(trf(lang, Key::NoticeNewSession, &[("agent", agent)])).italics());
        }
        Notice::Loop { failures } => {
            ui.horizontal_wrapped(|ui| {
                let count = failures.to_string();
                ui.label(
                    RichText::new(trf(lang, Key::NoticeLoop, &[("agent", agent), ("count", &count)])).color(WARNING),
                );
                if ui.button(tr(lang, Key::StopTurn)).clicked() {
                    actions.commands.push(Command::Cancel { agent: agent.to_string() });
                }
            });
        }
        Notice::TranscriptOffer => {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(trf(lang, Key::NoticeTranscript, &[("agent", agent)])).italics());
                if !attached && ui.button(tr(lang, Key::SendTranscript)).clicked() {
                    actions.attach_transcript = true;
                }
            });
        }
        Notice::Unresponsive => {
            ui.label(RichText::new(trf(lang, Key::NoticeUnresponsive, &[("agent", agent)])).color(WARNING));
        }
        Notice::SettingRefused { setting, message } => {
            let words =
                trf(lang, Key::NoticeSettingRefused, &[("agent", agent), ("setting", setting), ("message", message)]);
            ui.label(RichText::new(words).color(WARNING));
        }
        Notice::AgentExited { message } => {
            ui.label(
                RichText::new(trf(lang, Key::NoticeExited, &[("agent", agent), ("message", message)])).color(ERROR),
            );
        }
    });
}
