//! Work kept from discarded members: the notice on the team page right after a discard ("Bob:
//! work not merged kept (3 files). Restore discarded work"), and the list of all kept work on the
//! new-team page, each with Restore and Delete for good.

use egui::RichText;

use crate::app::{AppState, Command};
use crate::model::config::Language;
use crate::protocol::teams::{DiscardedWork, TeamCommand};
use crate::ui::i18n::{Key, team_error_text, tr, trf};
use crate::ui::theme::error_color;

fn members_text(work: &DiscardedWork) -> (String, String) {
    let names: Vec<&str> = work.members.iter().map(|(a, _)| a.as_str()).collect();
    let count: usize = work.members.iter().map(|(_, n)| n).sum();
    (names.join(", "), count.to_string())
}

fn restore_button(ui: &mut egui::Ui, lang: Language, state: &AppState, work: &DiscardedWork) -> Option<Command> {
    if state.teams.restoring.as_ref() == Some(&work.id) {
        ui.spinner();
        ui.label(tr(lang, Key::RestoringWork));
        return None;
    }
    let enabled = state.teams.restoring.is_none();
    let button = ui.add_enabled(enabled, egui::Button::new(tr(lang, Key::RestoreDiscarded)));
    button
        .on_hover_text(tr(lang, Key::RestoreDiscardedHint))
        .clicked()
        .then(|| Command::Team(Box::new(TeamCommand::RestoreDiscarded { id: work.id.clone() })))
}

fn error_ui(ui: &mut egui::Ui, lang: Language, state: &AppState) {
    if let Some(e) = &state.teams.discard_error {
        ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
    }
}

/// On team `team`'s page: what its last discard kept, with "Restore discarded work".
pub fn kept_notice(ui: &mut egui::Ui, lang: Language, state: &AppState, team: &str) -> Option<Command> {
    error_ui(ui, lang, state);
    let work = state.teams.last_kept.as_ref().filter(|w| w.team == team)?;
    let (members, count) = members_text(work);
    ui.horizontal(|ui| {
        ui.label(trf(lang, Key::WorkKept, &[("members", &members), ("count", &count)]));
        restore_button(ui, lang, state, work)
    })
    .inner
}

/// On the new-team page: every kept work, newest first.
pub fn list_ui(ui: &mut egui::Ui, lang: Language, state: &AppState) -> Vec<Command> {
    let mut commands = Vec::new();
    if state.teams.discarded.is_empty() && state.teams.discard_error.is_none() {
        return commands;
    }
    ui.add_space(16.0);
    ui.heading(tr(lang, Key::DiscardedWorkTitle));
    error_ui(ui, lang, state);
    let (now, offset) = (crate::model::when::now(), crate::model::when::utc_offset());
    for work in &state.teams.discarded {
        let (members, count) = members_text(work);
        let who = trf(lang, Key::WorkKept, &[("members", &members), ("count", &count)]);
        let date = crate::model::when::text(lang, work.at, now, offset);
        let line = trf(lang, Key::DiscardedWorkLine, &[("team", &work.team_name), ("members", &who), ("date", &date)]);
        ui.horizontal(|ui| {
            ui.label(line).on_hover_text(work.project.display().to_string());
            commands.extend(restore_button(ui, lang, state, work));
            if ui.button(tr(lang, Key::ForgetDiscarded)).clicked() {
                commands.push(Command::Team(Box::new(TeamCommand::ForgetDiscarded { id: work.id.clone() })));
            }
        });
    }
    commands
}

/// On the new-team page: folders of teams that are gone, found at start, with "Remove them".
pub fn leftovers_ui(ui: &mut egui::Ui, lang: Language, state: &AppState) -> Option<Command> {
    let leftovers = &state.teams.leftovers;
    if leftovers.is_empty() {
        return None;
    }
    ui.add_space(16.0);
    ui.heading(tr(lang, Key::LeftoversTitle));
    ui.label(RichText::new(tr(lang, Key::LeftoversHint)).weak());
    for l in leftovers {
        let project = l.project.as_ref().map_or_else(|| "?".to_string(), |p| p.display().to_string());
        let size = crate::i18n::size_text(lang, l.bytes as usize);
        let key = if l.stored { Key::LeftoverVanished } else { Key::LeftoverOrphan };
        let members = l.members.join(", ");
        let line = trf(
            lang,
            key,
            &[("folder", &l.dir.display().to_string()), ("members", &members), ("project", &project), ("size", &size)],
        );
        ui.label(line);
        if !l.containers.is_empty() {
            let names = l.containers.join(", ");
            ui.label(RichText::new(trf(lang, Key::LeftoverContainers, &[("names", &names)])).weak());
        }
    }
    if state.teams.reaping {
        ui.spinner();
        return None;
    }
    ui.button(tr(lang, Key::RemoveLeftovers))
        .clicked()
        .then(|| Command::Team(Box::new(TeamCommand::Reap { ids: leftovers.iter().map(|l| l.id.clone()).collect() })))
}
