//! A member's work on the team page: its last merge (what it brought, its conflicts while its
//! copy still holds them, Undo), and its changed files with the diff asked for.

use egui::RichText;

use crate::app::teams_state::TeamState;
use crate::i18n::conflict_text;
use crate::model::config::Language;
use crate::model::merge::ConflictKind;
use crate::model::tool::FileDiff;
use crate::protocol::teams::TeamCommand;
use crate::ui::i18n::{Key, team_error_text, tr, trf};
use crate::ui::theme::{error_color, ok_color};

/// "Undo merge"; true when clicked.
fn undo_merge_button(ui: &mut egui::Ui, lang: Language, busy: bool) -> bool {
    let button = ui.add_enabled(!busy, egui::Button::new(tr(lang, Key::UndoMerge)));
    button.on_hover_text(tr(lang, Key::UndoMergeHint)).clicked()
}

/// What the member's last merge and undo did, with Undo while it can be.
pub(super) fn merges_ui(
    ui: &mut egui::Ui,
    lang: Language,
    team: &TeamState,
    team_id: &str,
    agent: &String,
    busy: bool,
) -> Option<TeamCommand> {
    let mut asked = None;
    match team.merges.get(agent) {
        Some(Ok(report)) if report.conflicts.is_empty() => {
            let applied = report.applied.len().to_string();
            ui.horizontal(|ui| {
                let words = match report.applied.len() {
                    0 => RichText::new(tr(lang, Key::NothingMerged)).weak(),
                    _ => RichText::new(trf(lang, Key::MergedReport, &[("applied", &applied)])).color(ok_color()),
                };
                ui.label(words);
                let undoable = team.info.undoable.as_ref() == Some(agent);
                if undoable && undo_merge_button(ui, lang, busy) {
                    asked = Some(TeamCommand::UndoMerge { team: team_id.to_string(), member: agent.clone() });
                }
            });
            if !report.refused.is_empty() {
                let paths = report.refused.join(", ");
                let text = trf(lang, Key::StillConflicted, &[("member", agent), ("paths", &paths)]);
                ui.label(RichText::new(text).color(error_color()));
            }
            if !report.unreadable_names.is_empty() {
                let paths = report.unreadable_names.join(", ");
                ui.label(RichText::new(trf(lang, Key::NamesNotUtf8, &[("paths", &paths)])).color(error_color()));
            }
        }
        Some(Ok(report)) => {
            // Only the conflicts the member's copy still holds: resolved ones are said so.
            let open: Vec<&(String, ConflictKind)> =
                report.conflicts.iter().filter(|(path, kind)| still_open(team, agent, path, *kind)).collect();
            if open.is_empty() {
                ui.label(RichText::new(trf(lang, Key::ConflictsResolved, &[("member", agent)])).color(ok_color()));
            } else {
                ui.label(RichText::new(trf(lang, Key::ConflictsReport, &[("member", agent)])).color(error_color()));
            }
            for (path, kind) in open {
                ui.label(RichText::new(format!("  {path} — {}", conflict_text(lang, *kind))).color(error_color()));
            }
        }
        Some(Err(e)) => {
            ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
        }
        // After a restart the report is gone, but the last merge can still be undone.
        None if team.info.undoable.as_ref() == Some(agent) && undo_merge_button(ui, lang, busy) => {
            asked = Some(TeamCommand::UndoMerge { team: team_id.to_string(), member: agent.clone() });
        }
        None => {}
    }
    match team.undone.get(agent) {
        Some(Ok(paths)) => {
            let count = paths.len().to_string();
            ui.label(RichText::new(trf(lang, Key::MergeUndone, &[("count", &count)])).color(ok_color()));
        }
        Some(Err(e)) => {
            ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
        }
        None => {}
    }
    asked
}

/// The member's changed files (each chosen for a merge, or its diff asked for), and the diff shown.
pub(super) fn changes_ui(
    ui: &mut egui::Ui,
    lang: Language,
    team: &TeamState,
    team_id: &str,
    agent: &String,
    selected: &mut std::collections::BTreeSet<String>,
) -> Option<TeamCommand> {
    let mut asked = None;
    match team.changes.get(agent) {
        Some(Ok(changes)) if changes.is_empty() => {
            // After a merge that brought everything: not "no changes yet".
            let merged = matches!(team.merges.get(agent), Some(Ok(r)) if !r.applied.is_empty());
            ui.label(RichText::new(tr(lang, if merged { Key::AllMerged } else { Key::NoChanges })).weak());
        }
        Some(Ok(changes)) => {
            for change in changes {
                ui.horizontal(|ui| {
                    let mut on = selected.contains(&change.path);
                    if ui.checkbox(&mut on, "").changed() {
                        if on {
                            selected.insert(change.path.clone());
                        } else {
                            selected.remove(&change.path);
                        }
                    }
                    if ui.link(&change.path).clicked() {
                        let path = change.path.clone();
                        asked = Some(TeamCommand::Diff { team: team_id.to_string(), member: agent.clone(), path });
                    }
                    ui.label(RichText::new(crate::i18n::change_text(lang, &change.kind)).weak());
                });
            }
        }
        Some(Err(e)) => {
            ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
        }
        None => {}
    }
    if let Some((who, path, base, mine)) = &team.diff
        && who == agent
    {
        ui.separator();
        match mine {
            Some(new_text) => crate::ui::tool_card::diff_ui(
                ui,
                path,
                &FileDiff { path: path.clone(), old_text: base.clone(), new_text: new_text.clone() },
            ),
            None => {
                ui.label(format!("{path} {}", tr(lang, Key::NoDiff)));
            }
        }
    }
    asked
}

/// Whether a conflict of the member's last merge is still in its copy: a text conflict is gone
/// once the change list read after the merge shows the file without its markers; the other
/// kinds stay until the next merge decides.
fn still_open(team: &TeamState, agent: &str, path: &str, kind: ConflictKind) -> bool {
    if kind != ConflictKind::Text {
        return true;
    }
    match team.changes.get(agent) {
        Some(Ok(changes)) => changes.iter().any(|c| c.path == path && c.markers),
        _ => true,
    }
}

/// Whether the member has nothing to merge, review or commit (its change list read, empty).
pub(super) fn nothing_to_merge(team: &TeamState, agent: &str) -> bool {
    matches!(team.changes.get(agent), Some(Ok(c)) if c.is_empty())
}
