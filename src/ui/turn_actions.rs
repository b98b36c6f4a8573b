//! A turn's Changes and Restore (issue 48, item 3): shown only on a turn that changed files (once
//! the runtime counted them when the turn ended; before that, where the turn may have), and a
//! restore asks first, naming the files it would put back.

use egui::RichText;

use super::i18n::{Key, tr, trf};
use super::message_actions::MessageActions;
use super::theme::{error_color, warning_color};
use crate::app::{AgentView, Command};
use crate::model::config::Language;
use crate::protocol::checkpoints::CheckpointCommand;

/// Restore and Changes on the person's message `index` (right to left in its header), where its
/// turn changed files.
pub fn turn_buttons_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    index: usize,
    actions: &mut MessageActions,
) {
    let message = &agent.conversation.messages[index];
    let Some(checkpoint) = &message.checkpoint else { return };
    // Counted when the turn ended; before (or in a history older than the count), the turn's
    // tool calls are the guess — not while it runs (they showed, then went: a flicker).
    let changed = match message.changed {
        Some(files) => files > 0,
        None => turn_ended(agent, index) && agent.conversation.turn_may_change(index),
    };
    if !changed {
        return;
    }
    let name = agent.config.name.clone();
    // Not while a turn runs: the agent would be writing over what comes back.
    let idle = agent.state != crate::app::AgentState::Busy;
    let button = egui::Button::new(RichText::new(tr(lang, Key::RestoreTurn)).small()).frame(false);
    let hint = tr(lang, if idle { Key::RestoreTurnHint } else { Key::RestoreTurnBusy });
    if ui.add_enabled(idle, button).on_hover_text(hint).on_disabled_hover_text(hint).clicked() {
        let ask = CheckpointCommand::AskRestore { agent: name.clone(), checkpoint: checkpoint.clone() };
        actions.commands.push(Command::Checkpoint(ask));
    }
    let review = egui::Button::new(RichText::new(tr(lang, Key::ReviewTurn)).small()).frame(false);
    if ui.add(review).on_hover_text(tr(lang, Key::ReviewTurnHint)).clicked() {
        let review = CheckpointCommand::Review { agent: name, checkpoint: checkpoint.clone() };
        actions.commands.push(Command::Checkpoint(review));
    }
}

/// Under message `index`, when its Restore was pressed: what the restore would put back, and
/// Restore N files / Cancel (or that there is nothing to restore, or why it cannot run).
pub fn restore_confirm_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    index: usize,
    actions: &mut MessageActions,
) {
    let message = &agent.conversation.messages[index];
    let Some((checkpoint, asked)) = &agent.restore_asked else { return };
    if message.checkpoint.as_ref() != Some(checkpoint) {
        return;
    }
    ui.horizontal_wrapped(|ui| match asked {
        None => {
            ui.spinner();
            ui.label(RichText::new(tr(lang, Key::RestoreReading)).small());
        }
        Some(Ok(files)) if files.is_empty() => {
            ui.label(RichText::new(tr(lang, Key::RestoreNothing)).small());
            if ui.small_button(tr(lang, Key::Close)).clicked() {
                actions.cancel_restore = true;
            }
        }
        Some(Ok(files)) => {
            let mut list: Vec<&str> = files.iter().take(5).map(String::as_str).collect();
            let more = files.len().saturating_sub(list.len());
            let rest = trf(lang, Key::AndMore, &[("count", &more.to_string())]);
            if more > 0 {
                list.push(&rest);
            }
            let key = if files.len() == 1 { Key::RestoreAskOne } else { Key::RestoreAskMany };
            let words = trf(lang, key, &[("count", &files.len().to_string()), ("list", &list.join(", "))]);
            ui.label(RichText::new(words).small().color(warning_color()));
            let key = if files.len() == 1 { Key::RestoreConfirmOne } else { Key::RestoreConfirmMany };
            let confirm = trf(lang, key, &[("count", &files.len().to_string())]);
            if ui.small_button(confirm).clicked() {
                let restore =
                    CheckpointCommand::Restore { agent: agent.config.name.clone(), checkpoint: checkpoint.clone() };
                actions.commands.push(Command::Checkpoint(restore));
            }
            if ui.small_button(tr(lang, Key::Cancel)).clicked() {
                actions.cancel_restore = true;
            }
        }
        Some(Err(e)) => {
            ui.label(RichText::new(trf(lang, Key::RestoreCannot, &[("error", e)])).small().color(error_color()));
            if ui.small_button(tr(lang, Key::Close)).clicked() {
                actions.cancel_restore = true;
            }
        }
    });
}

/// Whether the turn of the person's message `index` ended (an answer after it says how).
fn turn_ended(agent: &AgentView, index: usize) -> bool {
    use crate::model::conversation::Role;
    let messages = &agent.conversation.messages;
    messages[index + 1..].iter().take_while(|m| m.role != Role::User).any(|m| m.role == Role::Agent && m.end.is_some())
}
