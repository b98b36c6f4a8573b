//! The merge layer, one implementation for every provider: for each path the member changed, a
//! three-way decision between its base, the main folder now and the member's copy now
//! (`model::merge::decide`). Without conflicts, every result is applied to the main folder at once
//! through the journal. With any conflict, the main folder is left untouched: text conflicts get
//! their markers written into the member's copy, a file the member deleted but the main folder
//! changed is put back in the member's copy (so nothing is lost without the member deciding), and
//! every conflicted path is rebased on the main folder's version, so resubmitting after resolving
//! merges cleanly. Members merge one after another, each against the then-current main folder.

use std::collections::HashMap;

use super::journal::{self, Step};
use super::lock::ProjectLock;
use super::sides::Rebased;
use super::{MemberCopy, MergeReport, TeamError, changes, read_bases, read_mine, read_side, rebase_paths};
use crate::model::merge::{ConflictKind, Outcome, Side, decide, holds_markers};

/// Asked about a merge's steps before they are applied: an error stops the merge; a text is what
/// the check wrote.
pub type PreMergeCheck<'a> = dyn Fn(&[Step]) -> Result<Option<String>, TeamError> + 'a;

/// Merges the member's changes (all, or the `selected` paths) into the main folder.
pub fn merge(member: &MemberCopy, selected: Option<&[String]>) -> Result<MergeReport, TeamError> {
    merge_checked(member, selected, &|_| Ok(None))
}

/// [`merge`] as the project's team recipe says: its check first in a scratch copy when it asks
/// for one (a recipe a member wrote and the person has not accepted stops the merge). What every
/// door merges with: the team service, and `sidekicks team-merge`.
pub fn merge_as_recipe_says(member: &MemberCopy, selected: Option<&[String]>) -> Result<MergeReport, TeamError> {
    use crate::model::recipe::CheckPlace;
    // A project on another machine merges there, by this same function (ADR 0039).
    let call = crate::runtime::copies::wire::Call::Merge { selected: selected.map(<[String]>::to_vec) };
    if let Some(merged) = super::there::call::<MergeReport>(member, call) {
        let merged = merged?;
        super::undo::note_there(member, !merged.applied.is_empty(), !merged.conflicts.is_empty())?;
        return Ok(merged);
    }
    let recipe = super::recipe::load(&member.project)?;
    match recipe.as_ref().and_then(|r| r.check.as_ref().map(|c| (r, c))) {
        Some((recipe, check)) if check.place == CheckPlace::Scratch => merge_checked(member, selected, &|steps| {
            super::scratch::check(member, recipe, &check.command, steps).map(Some)
        }),
        _ => merge(member, selected),
    }
}

/// [`merge`], with `check` asked about the steps before they are applied: an error stops the
/// merge (nothing applied); its text, if any, is kept in the report (`checked`).
///
/// The stages, in order: hold the project's lock; list the paths; read their three sides;
/// decide each; on conflicts write them into the member's copy and stop; else check, record
/// for undo, apply through the journal, and record what was merged as the member's new base.
pub fn merge_checked(
    member: &MemberCopy,
    selected: Option<&[String]>,
    check: &PreMergeCheck,
) -> Result<MergeReport, TeamError> {
    super::there::not_yet(member, "a merge with a check of its own")?;
    let started = std::time::Instant::now();
    let lap = |what: &str| tracing::debug!("merge of {}: {what} after {:?}", member.name, started.elapsed());
    // Nobody else writes the project from the moment its files are read until they are written.
    let _lock = ProjectLock::acquire(&member.project, &format!("merging {}'s work", member.name))?;
    journal::recover(&member.project, &member.state)?;
    let listed = list_paths(member, selected).map_err(nothing_merged)?;
    let (paths, unreadable_names) = unreadable_names(member, listed);
    lap("changes listed");
    let sides = read_sides(member, paths).map_err(nothing_merged)?;
    lap("sides read");
    let mut plan = decide_all(member, sides)?;
    lap("decided");
    // A merge that applies files ends the chance to undo the one before (`undo::record`), and so
    // do conflicts of the member whose merge it was (written into its copy); another member's
    // conflicts, and an attempt that applies nothing, leave it.
    if !plan.conflicted.is_empty() {
        super::undo::forget_if_of(member)?;
    }
    if !plan.conflicted.is_empty() {
        let mut report = MergeReport { refused: plan.report.refused, unreadable_names, ..MergeReport::default() };
        report.conflicts = write_conflicts(member, plan.conflicted, &plan.sides).map_err(nothing_merged)?;
        return Ok(report);
    }
    let mut report = MergeReport { unreadable_names, ..plan.report };
    if !plan.steps.is_empty() {
        report.checked = check(&plan.steps)?;
        let before: Vec<(String, Side)> =
            plan.steps.iter().map(|s| (s.path.clone(), plan.sides[&s.path].0.clone())).collect();
        super::undo::record(member, &plan.steps, &before)?;
    }
    note_recipe(member, &plan.steps)?;
    let id = format!("{}-{}", member.id, std::process::id());
    journal::apply(&member.project, &member.state, &id, &plan.steps)?;
    lap("applied");
    // What was merged is the member's new base: its change list shows only work not merged yet.
    rebase_paths(member, &std::mem::take(&mut plan.settled))?;
    lap("rebased");
    Ok(report)
}

/// A far copy that could not be reached before anything was written into the project: said so.
fn nothing_merged(e: TeamError) -> TeamError {
    match e {
        TeamError::Far { place, message } => {
            TeamError::Far { place, message: format!("{message}; nothing was merged, the project is as it was") }
        }
        other => other,
    }
}

/// A recipe among `steps` is the member's: recorded before it is written, so that it is not used
/// until the person accepts it (`recipe::load`).
pub(super) fn note_recipe(member: &MemberCopy, steps: &[Step]) -> Result<(), TeamError> {
    let recipe = steps.iter().find(|s| s.path == crate::model::recipe::RECIPE_PATH);
    match recipe.map(|s| &s.side) {
        Some(Side::File { content, .. }) => super::recipe::note_member_recipe(&member.project, content, &member.name),
        _ => Ok(()),
    }
}

/// The paths whose names are not UTF-8 taken out of `paths`: git's listings and the walk give
/// them with U+FFFD for the bytes, a name no file has, so they would be read as absent and left
/// behind without a word. They are reported instead (`MergeReport::unreadable_names`).
fn unreadable_names(member: &MemberCopy, paths: Vec<String>) -> (Vec<String>, Vec<String>) {
    // A far copy's names arrive as text: one with U+FFFD was not UTF-8 there.
    let here = member.far.is_none();
    paths
        .into_iter()
        .partition(|p| !p.contains('\u{FFFD}') || (here && std::fs::symlink_metadata(member.copy.join(p)).is_ok()))
}

/// Stage 1: the paths to merge, sorted.
fn list_paths(member: &MemberCopy, selected: Option<&[String]>) -> Result<Vec<String>, TeamError> {
    let mut paths: Vec<String> = match selected {
        // Everything: the provider's list of changed paths is enough (no kinds, no renames).
        None => {
            let mut all = member.provider().changed_paths(member)?;
            all.extend(Rebased::load(&member.state)?.paths());
            all
        }
        // A selection: a rename's two ends go together.
        Some(selected) => changes(member)?
            .iter()
            .filter(|c| c.paths().iter().any(|p| selected.contains(p)))
            .flat_map(|c| c.paths())
            .collect(),
    };
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// One path's three sides: base, main folder, member's copy; and whether its base was rebased
/// (after a merge or a conflict).
struct Sides {
    path: String,
    base: Side,
    main: Side,
    mine: Side,
    rebased: bool,
}

/// Stage 2: each path's three sides, read (on two threads when there are many).
fn read_sides(member: &MemberCopy, paths: Vec<String>) -> Result<Vec<Sides>, TeamError> {
    let rebased = Rebased::load(&member.state)?;
    let bases = read_bases(member, &paths)?;
    let work: Vec<(String, Side)> = paths.into_iter().zip(bases).collect();
    let read: Vec<Result<Vec<Sides>, TeamError>> =
        crate::runtime::halves::halves(&work, crate::runtime::halves::FEW_FILES, |chunk| {
            chunk
                .iter()
                .map(|(path, base)| {
                    Ok(Sides {
                        main: read_side(&member.project, path)?,
                        mine: read_mine(member, path)?,
                        rebased: rebased.has(path),
                        base: base.clone(),
                        path: path.clone(),
                    })
                })
                .collect()
        });
    Ok(read.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().flatten().collect())
}

/// What the decisions add up to.
#[derive(Default)]
struct Plan {
    /// Applied, unchanged and refused paths.
    report: MergeReport,
    /// What the main folder gets.
    steps: Vec<Step>,
    /// Paths whose member version becomes their base once applied.
    settled: Vec<(String, Side)>,
    /// Conflicts, with the text with markers where there is one.
    conflicted: Vec<(String, ConflictKind, Option<Vec<u8>>)>,
    /// Each path's main and member versions.
    sides: HashMap<String, (Side, Side)>,
}

/// Stage 3: each path decided (three-way merges on two threads when there are many), and the
/// steps checked against the folders of the main folder.
fn decide_all(member: &MemberCopy, sides: Vec<Sides>) -> Result<Plan, TeamError> {
    // `None`: a conflict not resolved yet. Its markers are not merged (as git refuses unmerged
    // paths); the rest of the work is.
    let decide_one = |s: &Sides| {
        let unresolved = s.rebased && holds_markers(&s.mine) && !holds_markers(&s.main);
        (!unresolved).then(|| decide(&s.base, &s.main, &s.mine, &member.name))
    };
    let outcomes: Vec<Option<Outcome>> =
        crate::runtime::halves::halves(&sides, crate::runtime::halves::FEW_FILES, |chunk| {
            chunk.iter().map(decide_one).collect::<Vec<_>>()
        })
        .into_iter()
        .flatten()
        .collect();
    let mut plan = Plan::default();
    for (s, outcome) in sides.into_iter().zip(outcomes) {
        match outcome {
            None => plan.report.refused.push(s.path.clone()),
            Some(Outcome::Unchanged) => {
                plan.report.unchanged.push(s.path.clone());
                if s.main == s.mine {
                    plan.settled.push((s.path.clone(), s.mine.clone()));
                }
            }
            Some(Outcome::Apply(side)) => {
                plan.report.applied.push(s.path.clone());
                plan.steps.push(Step { path: s.path.clone(), side });
                plan.settled.push((s.path.clone(), s.mine.clone()));
            }
            Some(Outcome::Conflict { kind, markers }) => plan.conflicted.push((s.path.clone(), kind, markers)),
        }
        plan.sides.insert(s.path, (s.main, s.mine));
    }
    // A result that would land in a folder that keeps other files, or below a link or file that
    // stays: a folder and a file meet there, as git says.
    for path in journal::obstacles(&member.project, &plan.steps) {
        plan.conflicted.push((path, ConflictKind::Folder, None));
    }
    Ok(plan)
}

/// Tells the member's copy about the conflicts, all or nothing: text conflicts get their markers,
/// a file the member deleted but the main folder changed is put back (unless the member put a
/// link or file where its folder was: then it is a folder conflict), and every conflicted path is
/// rebased on the main folder's version so that resubmitting after resolving merges cleanly.
fn write_conflicts(
    member: &MemberCopy,
    mut conflicted: Vec<(String, ConflictKind, Option<Vec<u8>>)>,
    sides: &HashMap<String, (Side, Side)>,
) -> Result<Vec<(String, ConflictKind)>, TeamError> {
    conflicted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut steps = Vec::new();
    let mut rebased = Vec::new();
    for (path, kind, markers) in &mut conflicted {
        let (main, mine) = &sides[path.as_str()];
        match (*kind, markers.take()) {
            (ConflictKind::Text, Some(markers)) => {
                let executable = matches!(mine, Side::File { executable: true, .. });
                steps.push(Step { path: path.clone(), side: Side::File { content: markers, executable } });
            }
            (ConflictKind::MemberDeleted, _) => steps.push(Step { path: path.clone(), side: main.clone() }),
            _ => {}
        }
        rebased.push((path.clone(), main.clone()));
    }
    for path in super::obstacles_mine(member, &steps)? {
        steps.retain(|s| s.path != path);
        for (p, kind, _) in conflicted.iter_mut() {
            if *p == path {
                *kind = ConflictKind::Folder;
            }
        }
    }
    // The state first, put back as it was should the copy not take the markers.
    let saved = super::sides::Rebased::snapshot(&member.state)?;
    rebase_paths(member, &rebased)?;
    if let Err(e) = super::write_mine(member, "conflict", &steps) {
        saved.restore(&member.state)?;
        return Err(e);
    }
    Ok(conflicted.into_iter().map(|(path, kind, _)| (path, kind)).collect())
}

/// The message that tells a member about the conflicts of its merge (in its conversation), and
/// about the files still holding the markers of an earlier one.
pub struct ConflictText<'a>(&'a MergeReport);

impl<'a> ConflictText<'a> {
    /// The message for `report`'s conflicts and refused paths.
    pub fn new(report: &'a MergeReport) -> Self {
        Self(report)
    }

    /// True when there is something to tell.
    pub fn needed(&self) -> bool {
        !self.0.conflicts.is_empty() || !self.0.refused.is_empty()
    }
}

impl std::fmt::Display for ConflictText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let MergeReport { conflicts, refused, applied, .. } = self.0;
        if conflicts.is_empty() {
            // Said as it is: nothing merged is not "merged, except".
            let head = match applied.is_empty() {
                true => "Nothing of your work was merged: these files still hold conflict markers:",
                false => {
                    "Your work was merged into the project, except these files, which still hold conflict markers:"
                }
            };
            writeln!(f, "{head}")?;
            for path in refused {
                writeln!(f, "- {path}")?;
            }
            return write!(
                f,
                "Please resolve them in your copy (keep what both sides intended, remove the markers), then say so: they will be merged again."
            );
        }
        writeln!(f, "Merging your work into the project found conflicts; nothing of it was applied yet.")?;
        for (path, kind) in conflicts {
            let what = match kind {
                ConflictKind::Text => "the project changed the same lines; the conflict markers are in your copy",
                ConflictKind::Binary => "the project changed this binary file too; check which version to keep",
                ConflictKind::TooLarge => "the project changed this large file too; check which version to keep",
                ConflictKind::MemberDeleted => {
                    "you deleted it but the project changed it; its new version is back in your copy — delete it again if it must go"
                }
                ConflictKind::MainDeleted => {
                    "you changed it but the project deleted it; delete it too, or keep it to bring it back"
                }
                ConflictKind::Folder => {
                    "a folder and a file (or link) meet here: one side made a folder where the other has a file or link, or changed a file inside a folder the other replaced; check which to keep"
                }
                ConflictKind::Kind => {
                    "the project changed it into something else (file or link) too; check which to keep"
                }
            };
            writeln!(f, "- {path}: {what}.")?;
        }
        for path in refused {
            writeln!(f, "- {path}: it still holds the conflict markers of the last merge.")?;
        }
        write!(
            f,
            "Please resolve these in your copy (keep what both sides intended, remove any markers), then say so: your work will be merged again."
        )
    }
}
