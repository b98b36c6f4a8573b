//! Reviewing a member's work: every changed file with its diff against the member's base, and the
//! per-hunk and per-file decisions. Accepting a hunk merges the base plus that hunk into the
//! project with the same three-way merge as a whole merge (and the same undo); the hunk becomes
//! part of the member's base, so it leaves the review. Rejecting a hunk or a file writes the
//! member's copy without it (through the copy's journal). A hunk is named by its content as the
//! person saw it: if the file changed since, the decision is refused rather than applied to
//! other lines.

use super::journal::{self, Step};
use super::lock::ProjectLock;
use super::{Change, ChangeKind, MemberCopy, MergeReport, TeamError, changes, read_bases, read_mine, read_side};
use crate::model::merge::{Outcome, Side, decide, holds_markers};
use crate::model::review::{Hunk, apply_hunks, diff, reviewable_text};
use crate::protocol::teams::ReviewFile;
use crate::runtime::copies::wire::Call;

fn text(side: &Side) -> Option<&str> {
    match side {
        Side::Absent => Some(""),
        Side::File { content, .. } => reviewable_text(content),
        Side::Symlink { .. } => None,
    }
}

/// Every changed file of the member with its diff (none for binary, links and huge files).
pub fn review(member: &MemberCopy) -> Result<Vec<ReviewFile>, TeamError> {
    let list = changes(member)?;
    let from: Vec<String> = list
        .iter()
        .map(|c| match &c.kind {
            ChangeKind::Renamed { from } => from.clone(),
            _ => c.path.clone(),
        })
        .collect();
    let bases = read_bases(member, &from)?;
    let mut out = Vec::with_capacity(list.len());
    for (change, base) in list.into_iter().zip(bases) {
        let mine = read_mine(member, &change.path)?;
        let diff = match (text(&base), text(&mine)) {
            (Some(old), Some(new)) => Some(diff(old, new)),
            _ => None,
        };
        out.push(ReviewFile { change, diff });
    }
    Ok(out)
}

/// The base and member versions of a modified text file, and the indices of `shown` among its hunks.
pub(super) fn locate_all(
    member: &MemberCopy,
    path: &str,
    shown: &[Hunk],
) -> Result<(Side, Side, String, String, Vec<usize>), TeamError> {
    // An added file is one hunk from nothing (its base is absent).
    let base = read_bases(member, &[path.to_string()])?.pop().unwrap_or(Side::Absent);
    let mine = read_mine(member, path)?;
    let stale = || TeamError::ReviewStale(path.into());
    let old = match &base {
        Side::Absent => String::new(),
        Side::File { content, .. } => String::from_utf8(content.clone()).map_err(|_| stale())?,
        Side::Symlink { .. } => return Err(stale()),
    };
    let Side::File { content: new, .. } = &mine else { return Err(stale()) };
    let new = String::from_utf8(new.clone()).map_err(|_| stale())?;
    if shown.is_empty() {
        return Err(stale());
    }
    let hunks = diff(&old, &new).hunks;
    let at = shown
        .iter()
        .map(|h| hunks.iter().position(|x| x == h).ok_or_else(|| TeamError::ReviewStale(path.into())))
        .collect::<Result<Vec<usize>, _>>()?;
    Ok((base, mine, old, new, at))
}

/// The base and member versions of a modified text file, and the index of `shown` among its hunks.
fn locate(member: &MemberCopy, path: &str, shown: &Hunk) -> Result<(Side, Side, String, String, usize), TeamError> {
    let base = read_bases(member, &[path.to_string()])?.pop().unwrap_or(Side::Absent);
    let mine = read_mine(member, path)?;
    let (Side::File { content: old, .. }, Side::File { content: new, .. }) = (&base, &mine) else {
        return Err(TeamError::ReviewStale(path.into()));
    };
    let (Ok(old), Ok(new)) = (String::from_utf8(old.clone()), String::from_utf8(new.clone())) else {
        return Err(TeamError::ReviewStale(path.into()));
    };
    let i =
        diff(&old, &new).hunks.iter().position(|h| h == shown).ok_or_else(|| TeamError::ReviewStale(path.into()))?;
    Ok((base, mine, old, new, i))
}

pub(super) fn file_like(mine: &Side, text: String) -> Side {
    let executable = matches!(mine, Side::File { executable: true, .. });
    Side::File { content: text.into_bytes(), executable }
}

/// Merges the base plus hunk `shown` of `path` into the project; the hunk joins the member's base.
pub fn accept_hunk(member: &MemberCopy, path: &str, shown: &Hunk) -> Result<MergeReport, TeamError> {
    accept_hunks(member, path, std::slice::from_ref(shown))
}

/// Merges the base plus hunks `shown` of `path` into the project; they join the member's base.
pub fn accept_hunks(member: &MemberCopy, path: &str, shown: &[Hunk]) -> Result<MergeReport, TeamError> {
    let call = || Call::AcceptHunks { path: path.into(), hunks: shown.to_vec() };
    if let Some(merged) = super::there::call::<MergeReport>(member, call()) {
        let merged = merged?;
        super::undo::note_there(member, !merged.applied.is_empty(), !merged.conflicts.is_empty())?;
        return Ok(merged);
    }
    let _lock = ProjectLock::acquire(&member.project, &format!("merging a change of {}", member.name))?;
    accept_hunks_locked(member, path, shown)
}

/// [`accept_hunks`], the project's lock held by the caller.
pub(super) fn accept_hunks_locked(member: &MemberCopy, path: &str, shown: &[Hunk]) -> Result<MergeReport, TeamError> {
    journal::recover(&member.project, &member.state)?;
    let (base, mine, old, new, at) = locate_all(member, path, shown)?;
    let partial = file_like(&mine, apply_hunks(&old, &new, |j| at.contains(&j)));
    let main = read_side(&member.project, path)?;
    if holds_markers(&partial) && !holds_markers(&main) {
        return Err(TeamError::StillConflicted(vec![path.into()]));
    }
    super::undo::forget_if_of(member)?;
    let mut report = MergeReport::default();
    match decide(&base, &main, &partial, &member.name) {
        Outcome::Unchanged => report.unchanged.push(path.into()),
        Outcome::Apply(side) => {
            let steps = [Step { path: path.into(), side }];
            if let Some(blocked) = journal::obstacles(&member.project, &steps).pop() {
                return Err(TeamError::HunkConflicts(blocked));
            }
            super::undo::record(member, &steps, &[(path.into(), main)])?;
            super::merge::note_recipe(member, &steps)?;
            let id = format!("hunk-{}-{}", member.id, std::process::id());
            journal::apply(&member.project, &member.state, &id, &steps)?;
            report.applied.push(path.into());
        }
        Outcome::Conflict { .. } => return Err(TeamError::HunkConflicts(path.into())),
    }
    super::rebase_paths(member, &[(path.into(), partial)])?;
    Ok(report)
}

/// Writes `steps` into the member's copy, all or nothing.
pub(crate) fn write_copy(member: &MemberCopy, steps: &[Step]) -> Result<(), TeamError> {
    super::write_mine(member, "reject", steps)
}

/// Takes hunk `shown` of `path` out of the member's copy.
pub fn reject_hunk(member: &MemberCopy, path: &str, shown: &Hunk) -> Result<(), TeamError> {
    if let Some(done) = super::there::call::<()>(member, Call::RejectHunk { path: path.into(), hunk: shown.clone() }) {
        return done;
    }
    let _lock = ProjectLock::acquire(&member.project, &format!("taking a change out of {}'s copy", member.name))?;
    let (_, mine, old, new, i) = locate(member, path, shown)?;
    let side = file_like(&mine, apply_hunks(&old, &new, |j| j != i));
    write_copy(member, &[Step { path: path.into(), side }])
}

/// Puts the member's copy of the files of `changes` back as in its base (both ends of a rename).
pub fn reject_files(member: &MemberCopy, changes: &[Change]) -> Result<(), TeamError> {
    if let Some(done) = super::there::call::<()>(member, Call::RejectFiles { changes: changes.to_vec() }) {
        return done;
    }
    let _lock = ProjectLock::acquire(&member.project, &format!("taking files out of {}'s copy", member.name))?;
    let paths: Vec<String> = changes.iter().flat_map(Change::paths).collect();
    let bases = read_bases(member, &paths)?;
    let steps: Vec<Step> = paths.into_iter().zip(bases).map(|(path, side)| Step { path, side }).collect();
    write_copy(member, &steps)
}
