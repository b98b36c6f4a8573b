//! One message of a conversation: who wrote it (and whether it is queued or was not sent), then
//! its parts — Markdown text, folded thoughts, tool cards with the permission cards about them,
//! plans, notices — and how the turn ended.

use egui::RichText;
use egui_commonmark::{CommonMarkCache, CommonMarkViewer};

use super::big_text::{PLAIN_OVER, big_text_ui};
use super::i18n::{Key, tr, trf, turn_end_text};
pub use super::message_actions::MessageActions;
use super::permission_card::{answered_ui, permission_card_ui};
use super::theme::{self, error_color, warning_color};
use super::tool_card::tool_card_ui;
use crate::app::AgentCommand;
use crate::app::{AgentView, Command};
use crate::model::config::Language;
use crate::model::conversation::{Delivery, Notice, Part, Role, TurnEnd};
use crate::model::tool::{PlanItem, PlanStatus};
use crate::protocol::checkpoints::CheckpointCommand;

/// Draws `message` of `agent`.
pub fn message_ui(
    ui: &mut egui::Ui,
    lang: Language,
    markdown: &mut CommonMarkCache,
    agent: &AgentView,
    index: usize,
    actions: &mut MessageActions,
) {
    marked_message_ui(ui, lang, markdown, agent, index, actions, None);
}

/// Draws `message` of `agent`, the words of `marked` (the find bar's) marked in its text. The
/// person's messages are blocks of their own (the agent's answers are the page), a turn starts
/// with a rule, and each message has its actions: copy; for the person's, edit (into the composer)
/// and, while queued, cancel; for the last answer, retry.
pub fn marked_message_ui(
    ui: &mut egui::Ui,
    lang: Language,
    markdown: &mut CommonMarkCache,
    agent: &AgentView,
    index: usize,
    actions: &mut MessageActions,
    marked: Option<&str>,
) {
    let message = &agent.conversation.messages[index];
    match message.role {
        Role::User => {
            if index > 0 {
                ui.add_space(theme::TURN_GAP);
                ui.separator();
            }
            ui.add_space(theme::GAP);
            theme::user_frame(ui.visuals()).show(ui, |ui| {
                ui.set_width(ui.available_width());
                user_header_ui(ui, lang, agent, index, actions);
                if !super::edit_message::edit_ui(ui, lang, agent, index, actions) {
                    parts_ui(ui, lang, markdown, agent, index, actions, marked);
                }
            });
        }
        Role::Agent => {
            ui.add_space(theme::GAP);
            ui.horizontal(|ui| {
                theme::avatar(ui, &agent.config.name, agent.place);
                let name = ui.label(RichText::new(&agent.config.name).strong().color(theme::member_color(agent.place)));
                time_on_hover(&name, lang, message.at);
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    answer_actions_ui(ui, lang, agent, index, actions);
                });
            });
            parts_ui(ui, lang, markdown, agent, index, actions, marked);
        }
        Role::System => {
            ui.add_space(theme::GAP);
            parts_ui(ui, lang, markdown, agent, index, actions, marked);
        }
    }
}

/// "You" (or "Sidekicks" for its own messages), where the message stands, and its actions.
fn user_header_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, index: usize, actions: &mut MessageActions) {
    let message = &agent.conversation.messages[index];
    ui.horizontal(|ui| {
        let by_sidekicks = message.id.as_ref().is_some_and(|id| id.is_by_sidekicks());
        let who = ui.label(RichText::new(tr(lang, if by_sidekicks { Key::BySidekicks } else { Key::You })).strong());
        time_on_hover(&who, lang, message.at);
        match message.delivery {
            Delivery::Sent => {}
            Delivery::Queued => {
                ui.label(RichText::new(tr(lang, Key::Queued)).small().italics().color(warning_color()));
            }
            Delivery::NotSent => {
                ui.label(RichText::new(tr(lang, Key::NotSent)).small().italics().color(error_color()));
            }
            Delivery::Resent => {
                ui.label(RichText::new(tr(lang, Key::Resent)).small().italics().weak());
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let text = message.text();
            let queued = message.delivery == Delivery::Queued;
            let take_back = |actions: &mut MessageActions| {
                if let Some(id) = message.id.clone() {
                    actions
                        .commands
                        .push(Command::Agent(agent.config.name.clone().into(), AgentCommand::Unqueue { id }));
                }
            };
            if queued && small_action(ui, tr(lang, Key::CancelQueued)).clicked() {
                take_back(actions);
            }
            if message.delivery == Delivery::NotSent && small_action(ui, tr(lang, Key::SendAgain)).clicked() {
                actions.resend = Some(index);
            }
            if !by_sidekicks
                && small_action(ui, tr(lang, Key::EditMessage)).on_hover_text(tr(lang, Key::EditHint)).clicked()
            {
                // A queued message is taken back to the composer; a sent one is edited in place.
                match (queued, message.id.clone()) {
                    (false, Some(id)) if message.delivery != Delivery::NotSent => {
                        super::edit_message::start(ui, agent, id, text.clone());
                    }
                    _ => {
                        if queued {
                            take_back(actions);
                        }
                        actions.draft = Some(text.clone());
                    }
                }
            }
            super::edit_message::versions_ui(ui, agent, index, actions);
            copy_ui(ui, lang, (agent, index), text);
            super::turn_actions::turn_buttons_ui(ui, lang, agent, index, actions);
        });
    });
    super::turn_actions::restore_confirm_ui(ui, lang, agent, index, actions);
}

/// Which answer of message `index` is shown: one of its earlier ones (`Some(k)`), or the latest.
fn shown_answer(ui: &egui::Ui, agent: &AgentView, index: usize) -> Option<usize> {
    let earlier = agent.conversation.messages[index].earlier.len();
    let id = egui::Id::unique(("answer-shown", agent.config.name.as_str(), index));
    ui.data(|d| d.get_temp::<usize>(id)).filter(|k| *k < earlier)
}

/// The parts of message `index` as shown (an earlier answer the person went back to).
fn shown_parts<'a>(ui: &egui::Ui, agent: &'a AgentView, index: usize) -> &'a [Part] {
    let message = &agent.conversation.messages[index];
    match shown_answer(ui, agent, index) {
        Some(k) => &message.earlier[k],
        None => &message.parts,
    }
}

/// "‹ 1 / 2 ›" on an answer retried: each answer stays reachable.
fn answers_ui(ui: &mut egui::Ui, agent: &AgentView, index: usize) {
    let earlier = agent.conversation.messages[index].earlier.len();
    if earlier == 0 {
        return;
    }
    let id = egui::Id::unique(("answer-shown", agent.config.name.as_str(), index));
    let shown = shown_answer(ui, agent, index).unwrap_or(earlier);
    // Right to left: next, the count, then previous.
    if ui.add_enabled(shown < earlier, egui::Button::new("›").small()).clicked() {
        ui.data_mut(|d| d.insert_temp(id, shown + 1));
    }
    ui.label(RichText::new(format!("{} / {}", shown + 1, earlier + 1)).small());
    if ui.add_enabled(shown > 0, egui::Button::new("‹").small()).clicked() {
        ui.data_mut(|d| d.insert_temp(id, shown - 1));
    }
}

/// Copy, and Retry on the last answer once its turn ended (the person's last message again).
fn answer_actions_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, index: usize, actions: &mut MessageActions) {
    let messages = &agent.conversation.messages;
    let message = &messages[index];
    let last_answer = messages.iter().rposition(|m| m.role == Role::Agent) == Some(index);
    let asked = messages[..index].iter().rev().find(|m| m.role == Role::User && m.delivery == Delivery::Sent);
    if last_answer
        && message.end.is_some()
        && agent.state != crate::app::AgentState::Busy
        && let Some(asked) = asked
        && !asked.id.as_ref().is_some_and(|id| id.is_by_sidekicks())
        && small_action(ui, tr(lang, Key::Retry)).on_hover_text(tr(lang, Key::RetryHint)).clicked()
    {
        // The new answer replaces this one, which stays reachable (‹ ›); an older stored
        // message without an id is sent again as a new one.
        let agent_name = agent.config.name.clone();
        actions.commands.push(match asked.id.clone() {
            Some(question) => Command::Agent(agent_name.into(), AgentCommand::Retry { question }),
            None => Command::prompt(agent_name, asked.text()),
        });
    }
    answers_ui(ui, agent, index);
    let text: String = shown_parts(ui, agent, index)
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    if !text.is_empty() {
        copy_ui(ui, lang, (agent, index), text);
    }
}

/// Copy, which says "Copied" for a moment once it did.
fn copy_ui(ui: &mut egui::Ui, lang: Language, (agent, index): (&AgentView, usize), text: String) {
    const SHOWN: f64 = 1.5;
    let id = egui::Id::unique(("copied", agent.config.name.as_str(), index));
    let now = ui.input(|i| i.time);
    let copied = ui.data(|d| d.get_temp::<f64>(id)).is_some_and(|at| now - at < SHOWN);
    let words = tr(lang, if copied { Key::Copied } else { Key::CopyMessage });
    if small_action(ui, words).clicked() {
        ui.ctx().copy_text(text);
        ui.data_mut(|d| d.insert_temp(id, now));
        ui.ctx().request_repaint_after(std::time::Duration::from_secs_f64(SHOWN));
    } else if copied {
        ui.ctx().request_repaint_after(std::time::Duration::from_secs_f64(SHOWN));
    }
}

/// When a message was written, shown while the pointer is over `response` (its author's name).
pub fn time_on_hover(response: &egui::Response, lang: Language, at: Option<u64>) {
    if let Some(at) = at {
        let offset = crate::model::when::utc_offset();
        response.clone().on_hover_text(crate::model::when::text(lang, at, crate::model::when::now(), offset));
    }
}

/// A quiet button for a message's actions.
fn small_action(ui: &mut egui::Ui, text: &str) -> egui::Response {
    ui.add(egui::Button::new(RichText::new(text).small().color(ui.visuals().weak_text_color())).frame(false))
}

/// The parts of message `index`: text, thoughts, tool cards with their permission cards, plans,
/// notices, images, resources; then how the turn ended.
fn parts_ui(
    ui: &mut egui::Ui,
    lang: Language,
    markdown: &mut CommonMarkCache,
    agent: &AgentView,
    index: usize,
    actions: &mut MessageActions,
    marked: Option<&str>,
) {
    let message = &agent.conversation.messages[index];
    // An answer retried: the one the person chose to see (the latest unless they went back).
    let parts = shown_parts(ui, agent, index);
    let mut i = 0;
    while i < parts.len() {
        // A long run of tool calls is folded: its cards would take seconds a frame.
        if matches!(parts[i], Part::Tool(_)) {
            let end = super::tool_run::run_end(parts, i);
            if end - i > super::tool_run::FOLD_OVER {
                let carded: std::collections::HashSet<&str> = agent
                    .permissions
                    .iter()
                    .filter(|c| c.message == Some(index))
                    .map(|c| c.request.tool.id.as_str())
                    .collect();
                let id = egui::Id::unique(("tool-run", agent.config.name.as_str(), index, i));
                super::tool_run::folded_ui(ui, lang, id, parts, i..end, &carded, |ui, call| {
                    tool_ui(ui, lang, agent, index, call, actions);
                });
                i = end;
                continue;
            }
        }
        part_ui(ui, lang, markdown, agent, (index, i, &parts[i]), actions, marked);
        i += 1;
    }
    // Answered cards about no call that came while this message was the last (live ones and
    // those of the last message are drawn after the conversation).
    let last = agent.conversation.messages.len();
    for card in agent
        .permissions
        .iter()
        .filter(|c| c.message.is_none() && c.answer.is_some() && c.after.max(1) == index + 1 && c.after < last)
    {
        actions.commands.extend(permission_card_ui(ui, lang, &agent.config.name, &agent.config.runtime, card));
    }
    if let Some(end) = &message.end {
        let text = turn_end_text(lang, end);
        if !text.is_empty() {
            let color =
                if matches!(end, TurnEnd::Failed { .. }) { error_color() } else { ui.visuals().weak_text_color() };
            ui.label(RichText::new(text).italics().color(color));
        }
    }
}

/// The most permission cards drawn in one place.
const CARDS_SHOWN: usize = 12;

/// Permission cards, at most [`CARDS_SHOWN`], those waiting first: an agent that asks a thousand
/// times made every frame lay out a thousand cards (40 s to show its turn's end); how many more
/// there are is said.
pub fn cards_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    cards: Vec<&crate::app::PermissionCard>,
    actions: &mut MessageActions,
) {
    let (waiting, answered): (Vec<&crate::app::PermissionCard>, Vec<_>) =
        cards.iter().partition(|c| c.answer.is_none());
    let room = CARDS_SHOWN.saturating_sub(waiting.len().min(CARDS_SHOWN));
    let shown = waiting.iter().take(CARDS_SHOWN).chain(answered.iter().skip(answered.len().saturating_sub(room)));
    for card in shown {
        actions.commands.extend(permission_card_ui(ui, lang, &agent.config.name, &agent.config.runtime, card));
    }
    let hidden = cards.len().saturating_sub(CARDS_SHOWN);
    if hidden > 0 {
        ui.label(RichText::new(trf(lang, Key::MoreCards, &[("count", &hidden.to_string())])).small().weak());
    }
}

/// A tool call's card, with its permission cards (or the answer kept from before a restart).
fn tool_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    index: usize,
    call: &crate::model::tool::ToolCall,
    actions: &mut MessageActions,
) {
    let name = &agent.config.name;
    tool_card_ui(ui, lang, call, &agent.terminals, &agent.config.workspace_path());
    let cards: Vec<&crate::app::PermissionCard> =
        agent.permissions.iter().filter(|c| c.message == Some(index) && c.request.tool.id == call.id).collect();
    let carded = !cards.is_empty();
    cards_ui(ui, lang, agent, cards, actions);
    // An answer from before a restart: kept with the call.
    if !carded && let Some(answered) = &call.answered {
        answered_ui(ui, lang, name, &agent.config.runtime, call, answered);
    }
}

/// Part `i` of message `index` (of the answer shown, for one retried).
fn part_ui(
    ui: &mut egui::Ui,
    lang: Language,
    markdown: &mut CommonMarkCache,
    agent: &AgentView,
    (index, i, part): (usize, usize, &Part),
    actions: &mut MessageActions,
    marked: Option<&str>,
) {
    let message = &agent.conversation.messages[index];
    let name = &agent.config.name;
    match part {
        // Too long to lay out whole each frame: plain text, in pieces, folded.
        Part::Text(text) if text.len() > PLAIN_OVER => {
            big_text_ui(ui, lang, egui::Id::unique(("big", agent.config.name.as_str(), index, i)), text);
        }
        // Nested past what layout can bear (ADR 0030): plain text, said once above it.
        Part::Text(text) if message.role != Role::User && !crate::model::markdown_bounds::fits(text) => {
            ui.label(RichText::new(tr(lang, Key::ShownPlain)).small().weak());
            ui.add(egui::Label::new(RichText::new(text.as_str()).monospace()).wrap());
        }
        // What the person typed is shown as typed; the agent writes Markdown.
        Part::Text(text) if message.role == Role::User => match marked {
            Some(query) => {
                ui.label(super::find_bar::marked_job(ui, text, query));
            }
            None => {
                ui.label(text);
            }
        },
        Part::Text(text) => match marked {
            Some(query) => {
                let id = egui::Id::unique(("find-md", agent.config.name.as_str(), index, i));
                super::find_bar::mark_markdown(ui, markdown, id, text, query);
                let mark = super::find_bar::MARK;
                CommonMarkViewer::new()
                    .search_match_color(mark)
                    .search_active_match_color(mark)
                    .show_with_id(id, ui, markdown, text);
            }
            None => {
                CommonMarkViewer::new().show(ui, markdown, text);
            }
        },
        Part::Thought(text) => {
            egui::CollapsingHeader::new(RichText::new(tr(lang, Key::Thinking)).weak()).id_salt(("thought", i)).show(
                ui,
                |ui| {
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
                },
            );
        }
        Part::Tool(call) => tool_ui(ui, lang, agent, index, call, actions),
        // While the turn runs, its plan is pinned above the composer: not twice.
        Part::Plan(_) if message.end.is_none() && agent.state == crate::app::AgentState::Busy => {}
        Part::Plan(items) => plan_ui(ui, lang, items),
        Part::Notice(notice) => {
            // Stop belongs to a turn still running (not to an answer of the past).
            let live = message.end.is_none() && agent.state == crate::app::AgentState::Busy;
            notice_ui(ui, lang, name, notice, (agent.attach_transcript, live), actions)
        }
        Part::Image(image) => super::attachments::image_ui(ui, lang, image),
        Part::Resource(resource) => {
            super::attachments::resource_ui(ui, lang, resource, (agent.config.name.as_str(), index, i));
        }
    }
}

/// A plan as a checklist: how far it is, then each step with its mark (to do, under way, done).
pub fn plan_ui(ui: &mut egui::Ui, lang: Language, items: &[PlanItem]) {
    let done = items.iter().filter(|i| i.status == PlanStatus::Completed).count();
    ui.label(RichText::new(format!("{} {done}/{}", tr(lang, Key::Plan), items.len())).strong());
    for item in items {
        ui.horizontal(|ui| {
            step_mark(ui, item.status);
            let text = RichText::new(&item.content);
            ui.label(match item.status {
                PlanStatus::Completed => text.weak().strikethrough(),
                PlanStatus::InProgress => text.strong(),
                PlanStatus::Pending => text,
            });
        });
    }
}

/// The mark of a plan step, drawn (no font needed): a ring to do, a half-filled ring under way,
/// a filled disc done.
fn step_mark(ui: &mut egui::Ui, status: PlanStatus) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    let (center, r) = (rect.center(), 5.0);
    let painter = ui.painter();
    match status {
        PlanStatus::Pending => {
            painter.circle_stroke(center, r, egui::Stroke::new(1.2, ui.visuals().weak_text_color()));
        }
        PlanStatus::InProgress => {
            let blue = egui::Color32::from_rgb(80, 150, 240);
            painter.circle_stroke(center, r, egui::Stroke::new(1.2, blue));
            painter.circle_filled(center, r * 0.5, blue);
        }
        PlanStatus::Completed => {
            painter.circle_filled(center, r, theme::ok_color());
        }
    }
}

fn notice_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &str,
    notice: &Notice,
    (attached, live): (bool, bool),
    actions: &mut MessageActions,
) {
    egui::Frame::group(ui.style()).show(ui, |ui| match notice {
        Notice::NewSession => {
            ui.label(RichText::new(trf(lang, Key::NoticeNewSession, &[("agent", agent)])).italics());
        }
        Notice::EditRefused => {
            ui.label(RichText::new(trf(lang, Key::NoticeEditRefused, &[("agent", agent)])).color(warning_color()));
        }
        Notice::Loop { failures } => {
            ui.horizontal_wrapped(|ui| {
                let count = failures.to_string();
                ui.label(
                    RichText::new(trf(lang, Key::NoticeLoop, &[("agent", agent), ("count", &count)]))
                        .color(warning_color()),
                );
                if live && ui.button(tr(lang, Key::StopTurn)).clicked() {
                    actions.commands.push(Command::Agent(agent.into(), AgentCommand::Cancel));
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
        Notice::PolicyDenied { writes, what, by_allow_reject } => {
            let key = match (*writes, *by_allow_reject) {
                (true, false) => Key::PolicyDeniesWrites,
                (false, false) => Key::PolicyDeniesCommands,
                (true, true) => Key::AllowRejectDeniesWrites,
                (false, true) => Key::AllowRejectDeniesCommands,
            };
            ui.label(RichText::new(trf(lang, key, &[("agent", agent), ("what", what)])).color(warning_color()));
        }
        Notice::Unresponsive => {
            ui.label(RichText::new(trf(lang, Key::NoticeUnresponsive, &[("agent", agent)])).color(warning_color()));
        }
        Notice::SettingRefused { setting, message } => {
            let words =
                trf(lang, Key::NoticeSettingRefused, &[("agent", agent), ("setting", setting), ("message", message)]);
            ui.label(RichText::new(words).color(warning_color()));
        }
        Notice::ThreadFailed { message } => {
            ui.label(
                RichText::new(trf(lang, Key::NoticeThreadFailed, &[("agent", agent), ("message", message)]))
                    .color(warning_color()),
            );
        }
        Notice::AgentExited { message } => {
            ui.label(
                RichText::new(trf(lang, Key::NoticeExited, &[("agent", agent), ("message", message)]))
                    .color(error_color()),
            );
        }
        Notice::Restored { undo, .. } => {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(trf(lang, Key::NoticeRestored, &[("agent", agent)])).italics());
                if ui.button(tr(lang, Key::UndoRestore)).on_hover_text(tr(lang, Key::UndoRestoreHint)).clicked() {
                    let restore = CheckpointCommand::Restore { agent: agent.to_string(), checkpoint: undo.clone() };
                    actions.commands.push(Command::Checkpoint(restore));
                }
            });
        }
        Notice::RestoreUndone => {
            ui.label(RichText::new(trf(lang, Key::NoticeRestoreUndone, &[("agent", agent)])).italics());
        }
        Notice::RestoreFailed { message } => {
            ui.label(RichText::new(trf(lang, Key::NoticeRestoreFailed, &[("message", message)])).color(error_color()));
        }
    });
}
