//! The compare page of best of N (issue 47): the attempts side by side — each member's state,
//! changes, the recipe's check run in its copy, time, tokens and cost where its agent reports
//! them, permissions asked — with "Merge all of it" per attempt, and hunks to take from several
//! attempts at once (`TeamCommand::TakeHunks`: two that meet are refused, nothing written).

use egui::RichText;

use crate::app::Command;
use crate::app::teams_state::{CopyCheck, TeamState};
use crate::model::config::Language;
use crate::model::member_name::in_team as short_name;
use crate::model::review::{Hunk, LineKind};
use crate::protocol::teams::compare::Attempt;
use crate::protocol::teams::{FilePatch, Pick, ReviewFile, TeamCommand};
use crate::ui::i18n::{Key, team_error_text, tr, trf};
use crate::ui::theme::{error_color, ok_color};

/// What the compare page remembers between frames.
#[derive(Default)]
pub struct CompareView {
    /// The team it is about.
    team: String,
    /// The chosen hunks: member, file, the hunk itself (an attempt read again keeps a choice
    /// whose hunk is still there, wherever it now stands in the list).
    picks: Vec<(String, String, Hunk)>,
}

/// The task the team's members were all given by the person, when it is best of N (two members
/// or more whose latest tasks are the person's same words).
pub fn tried(team: &TeamState) -> Option<String> {
    let latest: Vec<&crate::protocol::teams::Task> =
        team.info.members.iter().filter_map(|(name, _)| team.task_of(name)).filter(|t| t.by.is_none()).collect();
    let first = latest.first()?;
    (latest.len() >= 2 && latest.iter().all(|t| t.text == first.text)).then(|| first.text.clone())
}

/// The attempts of `team` (best of N at `task`), compared; pushes what it asks.
pub fn attempts_ui(
    ui: &mut egui::Ui,
    lang: Language,
    team: &TeamState,
    task: &str,
    view: &mut CompareView,
    commands: &mut Vec<Command>,
) {
    let id = team.info.record.id.clone();
    if view.team != id {
        *view = CompareView { team: id.clone(), ..Default::default() };
    }
    let members: Vec<(String, String)> = team
        .info
        .members
        .iter()
        .filter_map(|(name, m)| m.as_ref().ok().map(|m| (name.clone(), m.agent.clone())))
        .collect();
    // Each attempt is read once it ended (its files and hunks), and again when its copy changed.
    for (name, _) in &members {
        let ended = team.task_of(name).is_some_and(|t| t.state.finished());
        if ended && !team.attempts.contains_key(name) && !team.attempts_pending.contains(name) {
            let review = TeamCommand::Review { team: id.clone(), member: name.clone() };
            commands.push(Command::Team(Box::new(review)));
        }
    }
    let first_line = task.lines().next().unwrap_or_default();
    ui.heading(trf(lang, Key::AttemptsTitle, &[("task", first_line)]));
    ui.horizontal(|ui| {
        if ui.button(tr(lang, Key::RunChecks)).clicked() {
            for (name, _) in &members {
                commands
                    .push(Command::Team(Box::new(TeamCommand::CheckCopy { team: id.clone(), member: name.clone() })));
            }
        }
        if ui.button(tr(lang, Key::ReadAttemptsAgain)).clicked() {
            for (name, _) in &members {
                commands.push(Command::Team(Box::new(TeamCommand::Review { team: id.clone(), member: name.clone() })));
            }
        }
    });
    let attempts: Vec<Attempt> = members
        .iter()
        .map(|(name, agent)| {
            let files = files_of(team, name);
            let check = match team.copy_checks.get(name) {
                Some(CopyCheck::Ran(result, _)) => Some(result.clone()),
                _ => None,
            };
            Attempt::of(name, agent, &files, &team.tasks, check)
        })
        .collect();
    grid_ui(ui, lang, team, &attempts, commands);
    ui.add_space(6.0);
    egui::CollapsingHeader::new(tr(lang, Key::PickHunks)).id_salt("pick-hunks").default_open(true).show(ui, |ui| {
        picks_ui(ui, lang, team, &members, view, commands);
    });
    ui.separator();
}

/// The attempts side by side: a row per measure, a column per member.
fn grid_ui(ui: &mut egui::Ui, lang: Language, team: &TeamState, attempts: &[Attempt], commands: &mut Vec<Command>) {
    let id = team.info.record.id.clone();
    egui::ScrollArea::horizontal().id_salt("attempts").show(ui, |ui| {
        egui::Grid::new("attempts-grid").striped(true).spacing([18.0, 6.0]).show(ui, |ui| {
            ui.label("");
            for a in attempts {
                ui.label(RichText::new(short_name(&a.member)).strong());
            }
            ui.end_row();
            let none = tr(lang, Key::NotReported).to_string();
            row(ui, tr(lang, Key::RowState), attempts, |a| {
                a.task.as_ref().map_or(none.clone(), |t| super::task::state_text(lang, &t.state))
            });
            ui.label(tr(lang, Key::RowAnswer));
            for a in attempts {
                let answer = a.task.as_ref().and_then(|t| t.answer.clone()).unwrap_or_default();
                let first: String = answer.lines().next().unwrap_or_default().chars().take(48).collect();
                let shown = if first.len() < answer.len() { format!("{first}…") } else { first };
                ui.label(RichText::new(shown).weak()).on_hover_text(answer);
            }
            ui.end_row();
            row(ui, tr(lang, Key::RowChanges), attempts, |a| {
                let files = a.files.to_string();
                let (added, removed) = (a.added.to_string(), a.removed.to_string());
                trf(lang, Key::AttemptChanges, &[("files", &files), ("added", &added), ("removed", &removed)])
            });
            ui.label(tr(lang, Key::RowCheck));
            for a in attempts {
                let (words, color) = check_words(lang, team.copy_checks.get(&a.member));
                let shown = ui.label(RichText::new(words).color(color.unwrap_or(ui.visuals().text_color())));
                if let Some(CopyCheck::Ran(_, tail)) = team.copy_checks.get(&a.member)
                    && !tail.is_empty()
                {
                    shown.on_hover_text(RichText::new(tail).monospace());
                }
            }
            ui.end_row();
            let none = tr(lang, Key::NotReported).to_string();
            row(ui, tr(lang, Key::RowTime), attempts, |a| {
                a.seconds().map_or(none.clone(), |s| {
                    let text = format!("{s:.1} s");
                    if lang == Language::Fr { text.replace('.', ",") } else { text }
                })
            });
            row(ui, tr(lang, Key::RowTokens), attempts, |a| {
                a.task.as_ref().and_then(|t| t.work.tokens).map_or(none.clone(), |t| t.to_string())
            });
            row(ui, tr(lang, Key::RowCost), attempts, |a| a.cost().map_or(none.clone(), |c| c.text()));
            row(ui, tr(lang, Key::RowPermissions), attempts, |a| {
                let work = a.task.as_ref().map(|t| t.work.clone()).unwrap_or_default();
                let (asked, allowed) = (work.asked.to_string(), work.allowed.to_string());
                trf(lang, Key::AttemptPermissions, &[("asked", &asked), ("allowed", &allowed)])
            });
            ui.label("");
            for a in attempts {
                let busy = team.busy.contains(&a.member);
                let merge = ui.add_enabled(a.files > 0 && !busy, egui::Button::new(tr(lang, Key::MergeAttempt)));
                if merge.clicked() {
                    let merge = TeamCommand::Merge { team: id.clone(), member: a.member.clone(), selected: None };
                    commands.push(Command::Team(Box::new(merge)));
                }
            }
            ui.end_row();
        });
    });
}

/// A row of the grid: its label, then one cell per attempt.
fn row(ui: &mut egui::Ui, label: &str, attempts: &[Attempt], cell: impl Fn(&Attempt) -> String) {
    ui.label(label);
    for a in attempts {
        ui.label(cell(a));
    }
    ui.end_row();
}

/// A member's attempt as files with line counts (from its files read for review).
fn files_of(team: &TeamState, member: &str) -> Vec<FilePatch> {
    let Some(Ok(files)) = team.attempts.get(member) else { return Vec::new() };
    files
        .iter()
        .map(|f| {
            let (added, removed) = f.diff.as_ref().map_or((0, 0), |d| (d.added, d.removed));
            FilePatch { path: f.change.path.clone(), added, removed, ..Default::default() }
        })
        .collect()
}

fn check_words(lang: Language, check: Option<&CopyCheck>) -> (String, Option<egui::Color32>) {
    match check {
        None => (tr(lang, Key::CheckNotRun).to_string(), None),
        Some(CopyCheck::Running) => (tr(lang, Key::CopyCheckRunning).to_string(), None),
        Some(CopyCheck::None) => (tr(lang, Key::CheckNone).to_string(), None),
        Some(CopyCheck::Ran(Ok(()), _)) => (tr(lang, Key::CopyCheckPassed).to_string(), Some(ok_color())),
        Some(CopyCheck::Ran(Err(why), _)) => (trf(lang, Key::CheckFailedShort, &[("why", why)]), Some(error_color())),
    }
}

/// Each attempt's hunks side by side, each with a box to choose it; "Merge the chosen hunks".
fn picks_ui(
    ui: &mut egui::Ui,
    lang: Language,
    team: &TeamState,
    members: &[(String, String)],
    view: &mut CompareView,
    commands: &mut Vec<Command>,
) {
    let columns = members.len().max(1);
    ui.columns(columns, |cols| {
        for (i, (name, _)) in members.iter().enumerate() {
            let ui = &mut cols[i];
            ui.label(RichText::new(short_name(name)).strong());
            match team.attempts.get(name) {
                None => {
                    ui.spinner();
                }
                Some(Err(e)) => {
                    ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
                }
                Some(Ok(files)) => hunks_ui(ui, lang, name, files, &mut view.picks),
            }
        }
    });
    // A choice whose hunk left its attempt (read again since) is dropped; one whose attempt is
    // being read waits for it, and the merge with it.
    view.picks.retain(|(member, path, hunk)| match team.attempts.get(member) {
        None => true,
        Some(Err(_)) => false,
        Some(Ok(files)) => {
            files.iter().any(|f| f.change.path == *path && f.diff.as_ref().is_some_and(|d| d.hunks.contains(hunk)))
        }
    });
    let chosen = view.picks.len();
    let ready = view.picks.iter().all(|(member, ..)| matches!(team.attempts.get(member), Some(Ok(_))));
    let merge = ui.add_enabled(
        chosen > 0 && ready,
        egui::Button::new(trf(lang, Key::MergeChosen, &[("n", &chosen.to_string())])),
    );
    if merge.clicked() {
        let picks: Vec<Pick> = view
            .picks
            .iter()
            .map(|(member, path, hunk)| Pick { member: member.clone(), path: path.clone(), hunk: hunk.clone() })
            .collect();
        commands.push(Command::Team(Box::new(TeamCommand::TakeHunks { team: team.info.record.id.clone(), picks })));
        view.picks.clear();
    }
    match &team.taken {
        Some(Ok(reports)) => {
            let list: Vec<String> =
                reports.iter().map(|(m, r)| format!("{} ({})", short_name(m), r.applied.join(", "))).collect();
            ui.label(RichText::new(trf(lang, Key::HunksMerged, &[("list", &list.join("; "))])).color(ok_color()));
        }
        Some(Err(e)) => {
            ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
        }
        None => {}
    }
}

/// One attempt's files and hunks, each hunk with its box and its first lines.
fn hunks_ui(
    ui: &mut egui::Ui,
    lang: Language,
    member: &str,
    files: &[ReviewFile],
    picks: &mut Vec<(String, String, Hunk)>,
) {
    let mut any = false;
    for file in files {
        let Some(diff) = &file.diff else { continue };
        for hunk in &diff.hunks {
            any = true;
            let key = (member.to_string(), file.change.path.clone(), hunk.clone());
            let mut on = picks.contains(&key);
            let (added, removed) = hunk.counts();
            let label = format!("{} {} (+{added} −{removed})", file.change.path, hunk.header());
            if ui.checkbox(&mut on, label).changed() {
                if on {
                    picks.push(key);
                } else {
                    picks.retain(|k| *k != key);
                }
            }
            for line in hunk.lines.iter().filter(|l| l.kind != LineKind::Context).take(6) {
                let (sign, color) = match line.kind {
                    LineKind::Added => ("+", ok_color()),
                    _ => ("−", error_color()),
                };
                let text: String = line.text.trim_end().chars().take(80).collect();
                ui.label(RichText::new(format!("{sign} {text}")).monospace().small().color(color));
            }
        }
    }
    if !any {
        ui.label(RichText::new(tr(lang, Key::NoHunks)).weak());
    }
}
