//! A permission request as a card: what the agent wants in plain words, the command (with what
//! may destroy data flagged) or the file and its diff, the agent's options under our labels, and
//! always "Stop the agent". Once answered, one line says how.

use egui::RichText;

use super::i18n::{Key, ask_text, tr, trf};
use super::theme::{error_color, warning_color};
use super::tool_card::diff_ui;
use crate::app::AgentCommand;
use crate::app::{Command, PermissionCard};
use crate::model::config::{Language, RuntimeConfig};
use crate::model::permission::{Answered, Ask, OptionKind, PermissionAnswer, PermissionOption, ask};
use crate::model::tool::ToolCall;

/// Our own words for an option (the agent's for a kind we do not know).
fn option_label(lang: Language, option: &PermissionOption) -> String {
    let key = match option.kind {
        OptionKind::AllowOnce => Key::AllowOnce,
        OptionKind::AllowAlways => Key::AllowAlways,
        OptionKind::RejectAlways => Key::RejectAlways,
        OptionKind::RejectOnce => Key::RejectOnce,
        OptionKind::Other => return option.agent_label.clone(),
    };
    tr(lang, key).to_string()
}

fn answered_label(lang: Language, answered: &Answered) -> String {
    let key = match answered {
        Answered::Selected { kind: OptionKind::AllowOnce, .. } => Key::AnsweredAllowOnce,
        Answered::Selected { kind: OptionKind::AllowAlways, .. } => Key::AnsweredAllowAlways,
        Answered::Selected { kind: OptionKind::RejectAlways, .. } => Key::AnsweredRejectAlways,
        Answered::Selected { kind: OptionKind::RejectOnce, .. } => Key::AnsweredRejectOnce,
        Answered::Selected { kind: OptionKind::Other, label } => {
            return trf(lang, Key::AnsweredOther, &[("name", label)]);
        }
        Answered::Cancelled => Key::AnsweredCancelled,
    };
    tr(lang, key).to_string()
}

/// The line that says how a request about `call` was answered (a card once answered, or the
/// answer kept with the call in the history).
pub fn answered_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &str,
    runtime: &RuntimeConfig,
    call: &ToolCall,
    answered: &Answered,
) {
    let words = format!("{} — {}", ask_text(lang, agent, runtime, &ask(call)), answered_label(lang, answered));
    ui.label(RichText::new(words).small().weak());
}

/// Draws the card; returns the command its buttons asked for.
pub fn permission_card_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &str,
    runtime: &RuntimeConfig,
    card: &PermissionCard,
) -> Option<Command> {
    let what = ask(&card.request.tool);
    if let Some(answer) = &card.answer {
        answered_ui(ui, lang, agent, runtime, &card.request.tool, &Answered::of(&card.request, answer));
        return None;
    }
    let mut command = None;
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, warning_color())).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.label(RichText::new(ask_text(lang, agent, runtime, &what)).strong());
        match &what {
            Ask::RunCommand { command, dangers } => {
                ui.label(RichText::new(command).monospace());
                if !dangers.is_empty() {
                    ui.label(
                        RichText::new(trf(lang, Key::Danger, &[("what", &dangers.join(", "))])).color(error_color()),
                    );
                }
            }
            _ => {
                for diff in &card.request.tool.diffs {
                    diff_ui(ui, &diff.path, diff);
                }
            }
        }
        // An always/never is offered only for a request that names exactly what it will do.
        let exact = crate::model::permission::rule_key(&card.request.tool).is_some();
        let once_of = |kind: OptionKind| match kind {
            OptionKind::AllowAlways => Some(OptionKind::AllowOnce),
            OptionKind::RejectAlways => Some(OptionKind::RejectOnce),
            _ => None,
        };
        // (Kept when the agent offers no once option in its place: the runtime sends it as it is.)
        let offered =
            |kind: &&OptionKind| exact || once_of(**kind).is_none_or(|once| card.request.option(once).is_none());
        let hidden = !exact && card.request.options.iter().any(|o| o.kind.remembered().is_some());
        if hidden {
            ui.label(RichText::new(tr(lang, Key::NoAlways)).small().weak());
        }
        ui.horizontal_wrapped(|ui| {
            // Known kinds in our order, then those we do not know, by the agent's names.
            let known = OptionKind::ORDER.iter().filter(offered).filter_map(|k| card.request.option(*k));
            let other = card.request.options.iter().filter(|o| o.kind == OptionKind::Other);
            for option in known.chain(other) {
                let button = ui.button(option_label(lang, option)).on_hover_text(&option.agent_label);
                if button.clicked() {
                    let answer = PermissionAnswer::Selected { option_id: option.id.clone(), kind: option.kind };
                    command = Some(Command::Agent(
                        agent.into(),
                        AgentCommand::AnswerPermission { id: card.request.id, answer },
                    ));
                }
            }
            if ui.button(RichText::new(tr(lang, Key::StopAgent)).color(error_color())).clicked() {
                command = Some(Command::Agent(agent.into(), AgentCommand::Stop));
            }
        });
    });
    command
}
