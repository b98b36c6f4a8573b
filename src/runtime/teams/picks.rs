//! Best of N's merge of hunks chosen from several members' attempts (issue 47): every chosen
//! hunk is first tried in memory — each against the project as it is, then each pair one after
//! the other, with the merge itself — and only when none conflicts are they merged, member by
//! member and file by file (`review::accept_hunks`, with its undo). Two chosen hunks that change
//! the same or adjacent lines are told as a conflict naming both members, and nothing is written.
//! The project's lock is held from the trial to the last merge.

use super::lock::ProjectLock;
use super::review::{accept_hunks_locked, file_like, locate_all};
use super::{MemberCopy, MergeReport, TeamError, read_side};
use crate::model::merge::{Outcome, Side, decide};
use crate::model::review::{Hunk, apply_hunks};

/// One member's chosen hunks of one file, tried: the member, its base, its base with the hunks.
struct Tried<'a> {
    member: &'a MemberCopy,
    path: &'a str,
    hunks: Vec<Hunk>,
    base: Side,
    partial: Side,
}

/// Merges `picks` (member, file, hunk as the person saw it) into the project, or nothing when
/// two of them (or one and the project) conflict. Gives each member's report.
pub fn take_hunks(picks: &[(MemberCopy, String, Hunk)]) -> Result<Vec<(String, MergeReport)>, TeamError> {
    let mut tried: Vec<Tried<'_>> = Vec::new();
    for (member, path, hunk) in picks {
        match tried.iter_mut().find(|t| t.member.name == member.name && t.path == path) {
            Some(t) => t.hunks.push(hunk.clone()),
            None => {
                tried.push(Tried { member, path, hunks: vec![hunk.clone()], base: Side::Absent, partial: Side::Absent })
            }
        }
    }
    // One lock over the trial and the merges: no other merge comes between them.
    let Some(first) = tried.first() else { return Ok(Vec::new()) };
    // A project on another machine takes them there (ADR 0039).
    if let Some(taken) = super::there::take_hunks(&first.member.project, picks) {
        // The undo offered here is of the last member whose changes were applied there (as there).
        let reports = taken?;
        for (name, report) in &reports {
            if let Some((member, _, _)) = picks.iter().find(|(m, _, _)| m.name == *name) {
                super::undo::note_there(member, !report.applied.is_empty(), false)?;
            }
        }
        return Ok(reports);
    }
    let _lock = ProjectLock::acquire(&first.member.project, "merging hunks chosen from several attempts")?;
    for t in &mut tried {
        let (base, mine, old, new, at) = locate_all(t.member, t.path, &t.hunks)?;
        t.partial = file_like(&mine, apply_hunks(&old, &new, |j| at.contains(&j)));
        t.base = base;
    }
    check(&tried)?;
    let mut reports: Vec<(String, MergeReport)> = Vec::new();
    for t in &tried {
        let report = accept_hunks_locked(t.member, t.path, &t.hunks)?;
        match reports.iter_mut().find(|(m, _)| *m == t.member.name) {
            Some((_, r)) => {
                r.applied.extend(report.applied);
                r.unchanged.extend(report.unchanged);
            }
            None => reports.push((t.member.name.clone(), report)),
        }
    }
    Ok(reports)
}

/// Refuses picks that conflict: one with the project as it is, or two with each other.
fn check(tried: &[Tried<'_>]) -> Result<(), TeamError> {
    let merged = |into: &Side, t: &Tried<'_>| match decide(&t.base, into, &t.partial, &t.member.name) {
        Outcome::Unchanged => Some(into.clone()),
        Outcome::Apply(side) => Some(side),
        Outcome::Conflict { .. } => None,
    };
    for (i, a) in tried.iter().enumerate() {
        let project = a.member.project.clone();
        let main = read_side(&project, a.path)?;
        let Some(after) = merged(&main, a) else { return Err(TeamError::HunkConflicts(a.path.to_string())) };
        for b in tried[i + 1..].iter().filter(|b| b.path == a.path) {
            if merged(&main, b).is_none() {
                return Err(TeamError::HunkConflicts(b.path.to_string()));
            }
            if merged(&after, b).is_none() {
                return Err(TeamError::PicksOverlap {
                    path: a.path.to_string(),
                    first: a.member.name.clone(),
                    second: b.member.name.clone(),
                });
            }
        }
    }
    Ok(())
}
