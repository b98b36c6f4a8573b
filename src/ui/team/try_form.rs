//! "Try with several agents…" (best of N, issue 47): the new-team form in another mode — how
//! many attempts of each agent (one agent may try twice), and the task every attempt gets. The
//! runtime makes the team and gives every member the task (`TeamCommand::Try`); the team page
//! then compares the attempts (`compare.rs`).

use egui::RichText;

use super::view::{NewTeamForm, common_rows, kept_there};
use crate::app::{AppState, Command};
use crate::model::config::Language;
use crate::protocol::teams::{TeamCommand, TeamError};
use crate::ui::i18n::{Key, team_error_text, tr, trf};
use crate::ui::theme::error_color;

/// The most attempts of one agent.
const MOST: usize = 4;

/// The try form; returns the commands to send.
pub fn try_ui(ui: &mut egui::Ui, lang: Language, state: &AppState, form: &mut NewTeamForm) -> Vec<Command> {
    let mut commands = Vec::new();
    ui.horizontal(|ui| {
        ui.heading(tr(lang, Key::TryTitle));
        if ui.small_button(tr(lang, Key::NewTeam)).clicked() {
            form.try_task = None;
        }
    });
    ui.label(RichText::new(tr(lang, Key::TryHint)).weak());
    ui.add_space(6.0);
    egui::Grid::new("try-team").num_columns(2).spacing([12.0, 8.0]).show(ui, |ui| {
        common_rows(ui, lang, form, &mut commands);
        ui.label(tr(lang, Key::TryAttempts));
        ui.vertical(|ui| attempts_ui(ui, lang, state, form));
        ui.end_row();
        ui.label(tr(lang, Key::TryTask));
        let task = form.try_task.get_or_insert_with(String::new);
        ui.add(egui::TextEdit::multiline(task).desired_rows(3).desired_width(420.0));
        ui.end_row();
    });
    ui.add_space(8.0);
    let agents: Vec<String> =
        form.attempts.iter().flat_map(|(agent, n)| std::iter::repeat_n(agent.clone(), *n)).collect();
    let task = form.try_task.clone().unwrap_or_default();
    super::view::prepare_ahead(form, agents.len(), &mut commands);
    if state.teams.creating {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(tr(lang, Key::CreatingTeam));
        });
    } else {
        let missing: Vec<&str> = [
            (form.name.trim().is_empty(), Key::TeamNeedsName),
            (form.project.trim().is_empty(), Key::TeamNeedsProject),
            (agents.len() < 2, Key::TryNeedsTwo),
            (task.trim().is_empty(), Key::TryNeedsTask),
        ]
        .into_iter()
        .filter(|(m, _)| *m)
        .map(|(_, key)| tr(lang, key))
        .collect();
        let taken = super::view::name_taken(state, &form.name);
        let start = ui.add_enabled(missing.is_empty() && !taken, egui::Button::new(tr(lang, Key::TryStart)));
        if taken {
            let taken = TeamError::NameTaken(form.name.trim().to_string());
            ui.label(RichText::new(team_error_text(lang, &taken)).small().color(crate::ui::theme::warning_color()));
        } else if !missing.is_empty() {
            ui.label(RichText::new(trf(lang, Key::TeamNeeds, &[("what", &missing.join(", "))])).small().weak());
        }
        if start.clicked() {
            super::view::made_ahead_taken(form);
            commands.push(Command::Team(Box::new(TeamCommand::Try {
                name: form.name.trim().to_string(),
                project: form.project.trim().into(),
                provider: form.provider,
                agents,
                task: task.trim().to_string(),
            })));
        }
    }
    // Below the button, which it would otherwise move under the mouse.
    super::view::ahead_note(ui, lang, state, form);
    if let Some(e) = &state.teams.create_error {
        ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
    }
    commands
}

/// Each agent that can try, with how many attempts of it (0 to [`MOST`]).
fn attempts_ui(ui: &mut egui::Ui, lang: Language, state: &AppState, form: &mut NewTeamForm) {
    for agent in state.agents.iter().filter(|a| state.teams.team_of(&a.config.name).is_none()) {
        let name = agent.config.name.clone();
        let there = kept_there(lang, agent);
        let n = form.attempts.get(&name).copied().unwrap_or(0);
        ui.horizontal(|ui| {
            if ui.add_enabled(n > 0, egui::Button::new("−").small()).clicked() {
                form.attempts.insert(name.clone(), n - 1);
            }
            ui.label(RichText::new(n.to_string()).monospace());
            if ui.add_enabled(n < MOST, egui::Button::new("+").small()).clicked() {
                // The project is where the first agent chosen works, until changed.
                if form.project.trim().is_empty() {
                    form.project = agent.config.workspace.display().to_string();
                }
                form.attempts.insert(name.clone(), n + 1);
            }
            ui.label(&name);
            if let Some(there) = &there {
                ui.label(RichText::new(there).small().weak());
            }
        });
    }
}
