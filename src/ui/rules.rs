//! The agent's remembered permission answers ("Always allow here" / "Never here"), each with a
//! Forget button.

use egui::RichText;

use super::i18n::{Key, tr, trf};
use super::theme::{error_color, ok_color};
use crate::app::AgentCommand;
use crate::app::{AgentView, Command};
use crate::model::config::Language;
use crate::model::permission::Decision;

/// Draws the rules of `agent`; returns the commands its buttons asked for.
pub fn rules_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) -> Vec<Command> {
    let mut commands = Vec::new();
    let workspace = agent.config.workspace.display().to_string();
    ui.label(
        RichText::new(trf(lang, Key::RulesIntro, &[("agent", &agent.config.name), ("workspace", &workspace)])).weak(),
    );
    ui.add_space(6.0);
    if agent.rules.is_empty() {
        ui.label(tr(lang, Key::NoRules));
        return commands;
    }
    egui::Grid::new("rules").striped(true).num_columns(3).show(ui, |ui| {
        for (key, decision) in &agent.rules {
            let (label, color) = match decision {
                Decision::Allow => (tr(lang, Key::AnsweredAllowAlways), ok_color()),
                Decision::Reject => (tr(lang, Key::AnsweredRejectAlways), error_color()),
            };
            ui.label(RichText::new(label).color(color));
            let (kind, target) = key.split_once(':').unwrap_or(("", key));
            ui.label(RichText::new(format!("{kind}  {target}")).monospace());
            if ui.button(tr(lang, Key::Forget)).clicked() {
                commands.push(Command::Agent(
                    agent.config.name.clone().into(),
                    AgentCommand::ForgetRule { key: key.clone() },
                ));
            }
            ui.end_row();
        }
    });
    commands
}
