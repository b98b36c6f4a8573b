//! Undoing the last merge of a team, until the next one. A merge that applied files records, in
//! the team's state folder (`.state/.last-merge/`), what each path of the project was before and
//! what it became, and the member's list of rebased paths as it was; a later merge of the team
//! that applies files, or any later attempt of the same member, removes the record (another
//! member's attempt that conflicts leaves it: it wrote nothing into the project). Undo checks that the project still holds what the merge wrote
//! (else it refuses, naming the paths the person changed since: nothing of theirs is overwritten),
//! puts the before versions back through the journal (all or nothing, crash-safe), and gives the
//! member its rebased list back, so its work shows as not merged again.

use std::path::{Path, PathBuf};

use super::journal::{self, Step};
use super::sides::Rebased;
use super::{MemberCopy, TeamError, TeamRecord, read_side};
use crate::model::merge::Side;

const MEMBER: &str = "member";
const REBASED_BEFORE: &str = "rebased-before.json";

/// The record's folder for the team whose member this is.
fn record_dir(member: &MemberCopy) -> PathBuf {
    member.state.parent().unwrap_or(&member.state).join(".last-merge")
}

/// What this side knows of a merge done there (ADR 0039), so that the team's undo is offered as
/// for a project here: a merge that wrote files is the one to undo; conflicts of the member end
/// the chance to undo its merge (as `forget_if_of` says). The merge's own record is there.
pub(super) fn note_there(member: &MemberCopy, wrote: bool, conflicted: bool) -> Result<(), TeamError> {
    if conflicted {
        return forget_if_of(member);
    }
    if !wrote {
        return Ok(());
    }
    let dir = record_dir(member);
    std::fs::create_dir_all(&dir).map_err(|e| TeamError::io(&dir, e))?;
    std::fs::write(dir.join(MEMBER), &member.name).map_err(|e| TeamError::io(&dir, e))
}

/// Forgets the team's last merge (a new merge attempt begins).
pub(super) fn forget(member: &MemberCopy) -> Result<(), TeamError> {
    let dir = record_dir(member);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(TeamError::io(&dir, e)),
        _ => Ok(()),
    }
}

/// Forgets the team's last merge if it was `member`'s (its new attempt begins).
pub(super) fn forget_if_of(member: &MemberCopy) -> Result<(), TeamError> {
    let whose = std::fs::read_to_string(record_dir(member).join(MEMBER)).ok();
    match whose {
        Some(name) if name == member.name => forget(member),
        _ => Ok(()),
    }
}

/// Records a merge about to be applied: `steps` with what their paths are in the project now
/// (`before`), and the member's rebased list before the merge rebases it.
pub(super) fn record(member: &MemberCopy, steps: &[Step], before: &[(String, Side)]) -> Result<(), TeamError> {
    forget(member)?;
    let dir = record_dir(member);
    let tmp = dir.with_extension("tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    for side in ["before", "after"] {
        std::fs::create_dir_all(tmp.join(side)).map_err(|e| TeamError::io(&tmp, e))?;
    }
    let mut was = Rebased::default();
    for (path, side) in before {
        was.set(path, side);
    }
    was.save(&tmp.join("before"))?;
    let mut became = Rebased::default();
    for step in steps {
        became.set(&step.path, &step.side);
    }
    became.save(&tmp.join("after"))?;
    if let Ok(text) = std::fs::read(member.state.join("rebased.json")) {
        std::fs::write(tmp.join(REBASED_BEFORE), text).map_err(|e| TeamError::io(&tmp, e))?;
    }
    std::fs::write(tmp.join(MEMBER), &member.name).map_err(|e| TeamError::io(&tmp, e))?;
    std::fs::rename(&tmp, &dir).map_err(|e| TeamError::io(&dir, e))
}

/// The member of `team` whose merge can still be undone (the team's last merge), if any.
pub fn undoable(team: &TeamRecord) -> Option<String> {
    let state: &Path = team.members.first()?.state.parent()?;
    let member = std::fs::read_to_string(state.join(".last-merge").join(MEMBER)).ok()?;
    team.members.iter().any(|m| m.agent == member).then_some(member)
}

/// Undoes the team's last merge, which must be `member`'s; returns the paths put back.
pub fn undo_merge(member: &MemberCopy) -> Result<Vec<String>, TeamError> {
    // A project on another machine is put back there (ADR 0039).
    if let Some(undone) = super::there::call::<Vec<String>>(member, crate::runtime::copies::wire::Call::Undo) {
        let undone = undone?;
        forget(member)?;
        return Ok(undone);
    }
    let _lock = super::lock::ProjectLock::acquire(&member.project, &format!("undoing the merge of {}", member.name))?;
    journal::recover(&member.project, &member.state)?;
    let dir = record_dir(member);
    if std::fs::read_to_string(dir.join(MEMBER)).ok().as_deref() != Some(member.name.as_str()) {
        return Err(TeamError::NothingToUndo);
    }
    let (after_dir, before_dir) = (dir.join("after"), dir.join("before"));
    let (after, before) = (Rebased::load(&after_dir)?, Rebased::load(&before_dir)?);
    let paths: Vec<String> = after.paths().collect();
    let mut changed = Vec::new();
    let mut steps = Vec::new();
    for path in &paths {
        if read_side(&member.project, path)? != after.read(&after_dir, path)? {
            changed.push(path.clone());
        }
        steps.push(Step { path: path.clone(), side: before.read(&before_dir, path)? });
    }
    if !changed.is_empty() {
        return Err(TeamError::ChangedSinceMerge(changed));
    }
    if let Some(path) = journal::obstacles(&member.project, &steps).into_iter().next() {
        return Err(TeamError::ChangedSinceMerge(vec![path]));
    }
    let id = format!("undo-{}-{}", member.id, std::process::id());
    journal::apply(&member.project, &member.state, &id, &steps)?;
    // The member's work is not merged any more: its bases are what they were before.
    let rebased = member.state.join("rebased.json");
    match std::fs::read(dir.join(REBASED_BEFORE)) {
        Ok(text) => {
            let tmp = member.state.join("rebased.json.tmp");
            std::fs::write(&tmp, text).map_err(|e| TeamError::io(&tmp, e))?;
            std::fs::rename(&tmp, &rebased).map_err(|e| TeamError::io(&rebased, e))?;
        }
        Err(_) => {
            let _ = std::fs::remove_file(&rebased);
        }
    }
    forget(member)?;
    Ok(paths)
}
