//! The conversation with the selected agent: its messages (only the visible ones are laid out),
//! permission cards about no known tool call, the crash report, a jump to the latest message
//! while streaming, and the composer. Messages sent while the agent answers show as queued.

use egui::{Key as EguiKey, Modifiers, RichText};
use egui_commonmark::CommonMarkCache;

use super::i18n::{Key, crash_text, tr, trf};
use super::message::{MessageActions, message_ui};
use super::message_list::MessageList;
use super::theme::error_color;
use crate::app::AgentCommand;
use crate::app::WorkspaceCommand;
use crate::app::{AgentState, AgentView, Command, Request};
use crate::model::config::Language;
use crate::model::conversation::Delivery;

/// Asks the composer shown next to take the keyboard.
pub fn focus_composer(ctx: &egui::Context) {
    ctx.data_mut(|d| d.insert_temp(egui::Id::unique("focus-composer"), true));
}

/// The widest the conversation and its composer get (about 100 characters of body text): on a
/// wide window they are a column in the middle, not lines 200 characters long.
pub const COLUMN: f32 = 860.0;

/// Draws `add` in the reading column: centred, at most [`COLUMN`] wide.
pub fn column<R>(ui: &mut egui::Ui, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    let width = ui.available_width();
    if width <= COLUMN {
        return add(ui);
    }
    ui.horizontal(|ui| {
        ui.add_space((width - COLUMN) / 2.0);
        ui.vertical(|ui| {
            ui.set_width(COLUMN);
            add(ui)
        })
        .inner
    })
    .inner
}

/// The messages and the composer; returns what they ask for.
pub fn conversation_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    draft: &mut String,
    list: &mut MessageList,
    markdown: &mut CommonMarkCache,
    find: &mut Option<super::find_bar::FindBar>,
) -> Vec<Request> {
    let mut actions = MessageActions::default();
    let mut requests = Vec::new();
    let mut found = None;
    egui::Panel::top("threads").show(ui, |ui| {
        requests.extend(super::threads_bar::threads_bar_ui(ui, lang, agent).into_iter().map(Request::from));
        found = super::find_bar::find_bar_ui(ui, lang, find, &agent.conversation.messages, list);
    });
    egui::Panel::bottom("composer").show(ui, |ui| {
        column(ui, |ui| {
            pinned_plan_ui(ui, lang, agent);
            requests.extend(super::settings::session::settings_ui(ui, lang, agent).into_iter().map(Request::from));
            let sent = composer_ui(ui, lang, agent, draft);
            // What the person sends shows at the bottom, wherever the list was scrolled to.
            if sent.iter().any(|r| matches!(r, Request::Command(Command::Agent(_, AgentCommand::Prompt { .. })))) {
                list.jump_to_bottom();
            }
            requests.extend(sent);
        });
    });
    let view = agent;
    let messages = &view.conversation.messages;
    // The last item holds what follows the messages.
    let count = messages.len() + 1;
    let output = list.show(ui, count, |ui, index| {
        column(ui, |ui| {
            let framed = found.as_ref().and_then(|f| {
                if f.current == Some(index) {
                    Some(egui::Stroke::new(2.0, super::theme::warning_color()))
                } else {
                    f.matches
                        .binary_search(&index)
                        .is_ok()
                        .then(|| egui::Stroke::new(1.0, ui.visuals().weak_text_color()))
                }
            });
            if let (true, Some(stroke), Some(found)) = (index < messages.len(), framed, &found) {
                egui::Frame::new().stroke(stroke).inner_margin(4.0).corner_radius(4.0).show(ui, |ui| {
                    let marked = Some(found.query.as_str());
                    super::message::marked_message_ui(ui, lang, markdown, view, index, &mut actions, marked);
                });
            } else if index < messages.len() {
                message_ui(ui, lang, markdown, view, index, &mut actions);
            } else {
                tail_ui(ui, lang, view, &mut actions);
            }
        })
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
    if let Some(index) = actions.resend {
        requests.push(Request::SendAgain { agent: agent.config.name.clone(), index });
    }
    if actions.cancel_restore {
        requests.push(Request::CancelRestore { agent: agent.config.name.clone() });
    }
    if actions.attach_transcript {
        requests.push(Request::AttachTranscript { agent: agent.config.name.clone(), attach: true });
    }
    // A message to edit and send again: into the composer, which takes the keyboard.
    if let Some(text) = actions.draft.take() {
        *draft = text;
        focus_composer(ui.ctx());
        // Typing goes after the text (it went in front, the cursor at its start).
        ui.data_mut(|d| d.insert_temp(egui::Id::unique("composer-cursor-end"), true));
    }
    requests.extend(actions.commands.into_iter().map(Request::from));
    requests
}

/// While a turn runs, its plan stays in view above the composer, however far the answer scrolls.
fn pinned_plan_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) {
    if agent.state != AgentState::Busy {
        return;
    }
    let Some(last) =
        agent.conversation.messages.iter().rev().find(|m| m.role == crate::model::conversation::Role::Agent)
    else {
        return;
    };
    if last.end.is_some() {
        return;
    }
    let plan = last.parts.iter().rev().find_map(|p| match p {
        crate::model::conversation::Part::Plan(items) if !items.is_empty() => Some(items),
        _ => None,
    });
    let Some(items) = plan else { return };
    egui::Frame::group(ui.style()).corner_radius(super::theme::RADIUS).show(ui, |ui| {
        ui.set_width(ui.available_width());
        egui::ScrollArea::vertical().id_salt("pinned-plan").max_height(140.0).show(ui, |ui| {
            super::message::plan_ui(ui, lang, items);
        });
    });
}

/// A conversation with nothing in it yet teaches what to do: a few things to ask (a click puts
/// one in the composer), the agent's own commands, and the keys that help.
fn empty_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, actions: &mut MessageActions) {
    ui.add_space(super::theme::TURN_GAP);
    ui.label(RichText::new(tr(lang, Key::EmptyConversation)).strong());
    ui.add_space(super::theme::GAP);
    ui.label(RichText::new(tr(lang, Key::TryAsking)).weak());
    // The demo agent answers those with a greeting: its own `help` lists what it shows.
    if agent.config.args.first().is_some_and(|a| a == "demo-agent") {
        if ui.link(crate::i18n::quoted(lang, "help")).clicked() {
            actions.draft = Some("help".to_string());
        }
        ui.label(RichText::new(tr(lang, Key::TryDemoHelp)).small().weak());
    }
    for key in [Key::TryExplain, Key::TryPlan, Key::TryFix] {
        let text = tr(lang, key);
        if ui.link(crate::i18n::quoted(lang, text)).clicked() {
            actions.draft = Some(text.to_string());
        }
    }
    if !agent.commands.is_empty() {
        ui.add_space(super::theme::GAP);
        let names: Vec<String> = agent.commands.iter().take(6).map(|c| format!("/{}", c.name)).collect();
        ui.label(RichText::new(trf(lang, Key::TryCommands, &[("commands", &names.join("  "))])).weak());
    }
    ui.add_space(super::theme::GAP);
    for key in [Key::TipSlash, Key::TipMention, Key::TipPalette, Key::TipStop] {
        ui.label(RichText::new(tr(lang, key)).small().weak());
    }
}

/// After the messages: an empty-conversation hint, permission requests about a tool call that is
/// not in the conversation, and the crash report.
fn tail_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, actions: &mut MessageActions) {
    if agent.conversation.messages.is_empty() {
        empty_ui(ui, lang, agent, actions);
    }
    // Answered ones stay after the message they came with (drawn with it).
    let len = agent.conversation.messages.len();
    let cards = agent.permissions.iter().filter(|c| c.message.is_none() && (c.answer.is_none() || c.after >= len));
    super::message::cards_ui(ui, lang, agent, cards.collect(), actions);
    for card in &agent.elicitations {
        actions.commands.extend(super::elicitation_card::elicitation_card_ui(ui, lang, &agent.config.name, card));
    }
    if let AgentState::Crashed(report) = &agent.state {
        ui.add_space(8.0);
        egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.0, error_color())).show(ui, |ui| {
            ui.label(RichText::new(crash_text(lang, &report.reason)).color(error_color()));
            use crate::app::{CrashReason, SpawnFailure, SshFault};
            if matches!(report.reason, CrashReason::Disconnected { .. })
                && ui.button(tr(lang, Key::Reconnect)).clicked()
            {
                actions.commands.push(Command::Agent(agent.config.name.clone().into(), AgentCommand::Restart));
            }
            // The command to run in a terminal about a host key, ready to paste.
            if let CrashReason::Spawn(SpawnFailure::Ssh {
                fault: SshFault::HostKeyUnknown { command, .. } | SshFault::HostKeyChanged { command },
                ..
            }) = &report.reason
                && ui.button(tr(lang, Key::CopyCommand)).clicked()
            {
                ui.ctx().copy_text(command.clone());
            }
            if !report.stdout_tail.is_empty() {
                ui.label(RichText::new(tr(lang, Key::LastStdout)).weak());
                ui.label(RichText::new(report.stdout_tail.join("\n")).monospace());
            }
            if !report.stderr_tail.is_empty() {
                ui.label(RichText::new(tr(lang, Key::LastStderr)).weak());
                ui.label(RichText::new(report.stderr_tail.join("\n")).monospace());
            }
        });
    }
    ui.add_space(8.0);
}

/// The text box: Enter sends, Shift+Enter adds a line (or Ctrl+Enter sends, per the config). While the agent answers, a message is
/// queued; Stop ends the turn.
fn composer_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, draft: &mut String) -> Vec<Request> {
    let name = agent.config.name.clone();
    let mut requests = Vec::new();
    let id = ui.make_persistent_id(("composer", &name));
    take_focus(ui, id, draft);
    let focused = ui.memory(|m| m.has_focus(id));
    requests.extend(super::attach_bar::dropped_and_pasted(ui, agent, focused));
    // The `@` and `/` menus take their keys first (Enter completes a path or a name there).
    let paths = match &agent.composing.paths {
        Some(Ok(paths)) => paths.as_slice(),
        _ => &[],
    };
    let (mentioning, picked) = super::mention_menu::keys(ui, id, focused, draft, paths);
    requests.extend(ask_paths(ui, id, agent, mentioning));
    let mut picked = picked;
    let menu = mentioning || super::slash_menu::keys(ui, id, focused, draft, &agent.commands);
    // Tab stays in the composer (it moved to Send, where the next space sent the message).
    if focused && !menu {
        ui.input_mut(|i| i.consume_key(Modifiers::NONE, EguiKey::Tab));
    }
    let send_with = super::send_key::get(ui);
    let enter = focused && !menu && super::send_key::take(ui, send_with);
    // Esc in the composer stops the turn (the menus take it first to close).
    let escape = focused
        && !menu
        && agent.state == AgentState::Busy
        && ui.input_mut(|i| i.consume_key(Modifiers::NONE, EguiKey::Escape));
    let mut send = false;
    let mut stop = escape;
    requests.extend(notes_ui(ui, lang, agent, draft));
    ui.add_space(4.0);
    requests.extend(super::attach_bar::attach_bar_ui(ui, lang, agent));
    let searching = tr(lang, Key::ListingFiles);
    picked = picked.or(super::mention_menu::menu_ui(ui, id, focused, draft, agent.composing.paths.as_ref(), searching));
    if let Some((path, dir)) = picked
        && let Ok(path) = crate::model::rel_path::RelPath::new(&path)
    {
        let attachment = crate::protocol::attachments::Attachment::Mention { path, dir };
        requests
            .push(Request::Attachments { agent: name.clone(), op: crate::app::composing::AttachOp::Add(attachment) });
    }
    super::slash_menu::menu_ui(ui, id, focused, draft, &agent.commands);
    ui.horizontal(|ui| {
        let busy = agent.state == AgentState::Busy;
        // The text takes the column's width but for its buttons (Send, and Stop under it).
        let font = egui::TextStyle::Button.resolve(ui.style());
        let widest = [tr(lang, Key::Send), tr(lang, Key::StopTurn)]
            .iter()
            .map(|t| ui.painter().layout_no_wrap(t.to_string(), font.clone(), egui::Color32::WHITE).size().x)
            .fold(0.0, f32::max);
        let button_width = widest + 2.0 * ui.spacing().button_padding.x + ui.spacing().item_spacing.x + 2.0;
        ui.add(
            egui::TextEdit::multiline(draft)
                .id(id)
                .lock_focus(true)
                .desired_rows(2)
                .desired_width(ui.available_width() - button_width)
                .hint_text(trf(
                    lang,
                    Key::ComposerHint,
                    &[("agent", &name), ("keys", super::send_key::hint(lang, send_with))],
                )),
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
        requests.push(Command::Agent(name.into(), AgentCommand::Cancel).into());
        return requests;
    }
    let text = draft.trim().to_string();
    let attachments = agent.composing.pending.clone();
    if send && (!text.is_empty() || !attachments.is_empty()) {
        draft.clear();
        if !attachments.is_empty() {
            requests.push(Request::Attachments { agent: name.clone(), op: crate::app::composing::AttachOp::Clear });
        }
        // The runtime echoes it back (as queued until its turn starts), so history and view agree.
        // The runtime reads the transcript from the history and says it first.
        let with_transcript = agent.attach_transcript;
        if with_transcript || agent.threads.offered {
            requests.push(Request::AttachTranscript { agent: name.clone(), attach: false });
        }
        let prompt = AgentCommand::Prompt { text, context: None, with_transcript, id: None, attachments };
        requests.push(Command::Agent(name.into(), prompt).into());
    }
    requests
}

/// The composer takes the keyboard when nothing else has it (a conversation just opened) or when
/// asked (the palette), with its cursor at the end when asked.
fn take_focus(ui: &mut egui::Ui, id: egui::Id, draft: &str) {
    let asked = ui.data_mut(|d| d.remove_temp::<bool>(egui::Id::unique("focus-composer"))).unwrap_or(false);
    if asked || ui.memory(|m| m.focused().is_none()) {
        ui.memory_mut(|m| m.request_focus(id));
    }
    if ui.data_mut(|d| d.remove_temp::<bool>(egui::Id::unique("composer-cursor-end"))).unwrap_or(false) {
        let mut state = egui::text_edit::TextEditState::load(ui.ctx(), id).unwrap_or_default();
        let end = egui::text::CCursor::new(draft.chars().count());
        state.cursor.set_char_range(Some(egui::text::CCursorRange::one(end)));
        state.store(ui.ctx(), id);
    }
}

/// The workspace's paths for `@`: asked when `@` is typed and none are known, forgotten when the
/// menu closes (the workspace may have changed by the next `@`).
fn ask_paths(ui: &mut egui::Ui, id: egui::Id, agent: &AgentView, mentioning: bool) -> Vec<Request> {
    let name = agent.config.name.clone();
    let mut requests = Vec::new();
    if mentioning
        && agent.composing.paths.is_none()
        && !ui.data(|d| d.get_temp::<bool>(id.with("paths-asked"))).unwrap_or(false)
    {
        ui.data_mut(|d| d.insert_temp(id.with("paths-asked"), true));
        let op = crate::protocol::workspace::WorkspaceOp::Paths { limit: crate::app::composing::MENTION_PATHS };
        requests.push(Command::Workspace(WorkspaceCommand::Op { agent: name.clone(), op }).into());
    }
    if !mentioning && ui.data(|d| d.get_temp::<bool>(id.with("paths-asked"))).unwrap_or(false) {
        // Asked again the next time `@` is typed: the workspace may have changed.
        ui.data_mut(|d| d.insert_temp(id.with("paths-asked"), false));
        requests.push(Request::Attachments { agent: name.clone(), op: crate::app::composing::AttachOp::ForgetPaths });
    }
    requests
}

/// What the composer says above itself: a transcript offered or attached, the thread held by
/// another process, messages given back (Put back), what Stop would drop.
fn notes_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView, draft: &mut String) -> Vec<Request> {
    let name = agent.config.name.clone();
    let mut requests = Vec::new();
    if agent.threads.offered && !agent.attach_transcript {
        // Before the person writes: the agent does not remember this thread.
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(trf(lang, Key::NoticeTranscript, &[("agent", &name)])).small().italics());
            if ui.small_button(tr(lang, Key::SendTranscript)).clicked() {
                requests.push(Request::AttachTranscript { agent: name.clone(), attach: true });
            }
        });
    }
    if let Some((holder, waiting)) = &agent.threads.held_elsewhere {
        // Another Sidekicks answers in this thread: what was sent waits for it.
        ui.horizontal_wrapped(|ui| {
            ui.spinner();
            ui.label(RichText::new(trf(lang, Key::ThreadHeldElsewhere, &[("holder", holder)])).small().italics());
            let count = waiting.len().to_string();
            ui.label(RichText::new(trf(lang, Key::MessagesWaiting, &[("count", &count)])).small().weak());
        });
    }
    if !agent.threads.returned.is_empty() {
        ui.horizontal_wrapped(|ui| {
            let count = agent.threads.returned.len().to_string();
            ui.label(RichText::new(trf(lang, Key::MessagesReturned, &[("count", &count)])).small().italics());
            if ui.small_button(tr(lang, Key::PutBack)).clicked() {
                let back = agent.threads.returned.join("\n\n");
                *draft = if draft.trim().is_empty() { back } else { format!("{draft}\n\n{back}") };
                requests.push(Request::TakeReturned { agent: name.clone() });
            }
        });
    }
    if agent.attach_transcript {
        ui.horizontal(|ui| {
            ui.label(RichText::new(tr(lang, Key::TranscriptAttached)).small().italics());
            if ui.small_button(tr(lang, Key::DontSendTranscript)).clicked() {
                requests.push(Request::AttachTranscript { agent: name.clone(), attach: false });
            }
        });
    }
    // Stop drops the queue: said before it is pressed (on the button it wrapped over lines).
    let queued = agent.conversation.messages.iter().filter(|m| m.delivery == Delivery::Queued).count();
    if agent.state == AgentState::Busy && queued > 0 {
        let count = queued.to_string();
        ui.label(RichText::new(trf(lang, Key::StopDrops, &[("count", &count)])).small().italics());
    }
    requests
}
