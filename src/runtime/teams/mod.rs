//! Teams: each member works in its own isolated copy of the project (an `IsolationProvider` makes
//! it and remembers its base), and the merge layer (`merge.rs`, one implementation for every
//! provider) brings the member's work back into the project file by file, all or nothing.
//!
//! Everything here is blocking file and process work: callers run it on a blocking thread.

pub mod container;
mod copy;
mod deps;
pub mod discarded;
mod export;
pub mod far;
#[cfg(unix)]
pub mod journal;
pub mod lock;
mod merge;
pub mod migrate;
mod names;
pub mod picks;
pub mod radar;
pub mod reap;
pub mod recipe;
pub mod review;
pub mod scratch;
mod sides;
mod spare;
mod team;
pub mod there;
mod undo;
mod worktree;

use std::path::Path;

pub use copy::CopyProvider;

pub use crate::model::merge::{ConflictKind, Side};
pub use crate::protocol::teams::{
    Change, ChangeKind, MemberCopy, MemberRecord, MergeReport, ProviderKind, TeamError, TeamRecord, Unavailable,
};
pub use deps::{DEFAULT_DEPENDENCIES, dependency_folders};
pub use export::commit_as_branch;
pub use far::{FarProvider, obstacles_mine, read_mine, write_mine};
pub use merge::{ConflictText, merge, merge_as_recipe_says, merge_checked};
pub use sides::{MAX_FILE, read_side};
pub use spare::prepare as prepare_spares;
pub use team::{Places, add_members, add_members_at, create_team, create_team_at, reattach_team};
pub use undo::{undo_merge, undoable};
pub use worktree::GitWorktreeProvider;
// (For the spares made ahead: `spare` and `worktree` do not import each other.)
use worktree::add_worktree;

impl ProviderKind {
    /// The provider of this kind.
    pub fn provider(self) -> Box<dyn IsolationProvider> {
        match self {
            ProviderKind::GitWorktree => Box::new(GitWorktreeProvider),
            ProviderKind::Copy => Box::new(CopyProvider { clone: false }),
            ProviderKind::Clone => Box::new(CopyProvider { clone: true }),
        }
    }
}

/// How dependency folders (`node_modules`, `target`, …) reach a member's copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dependencies {
    /// Linked to the project's: ready at once, shared (a member's install changes the project's).
    Shared,
    /// Cloned: ready at once, the member's own.
    Isolated,
}

/// What a provider offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Creating a copy takes about as long as listing the project, not copying it.
    pub instant: bool,
    /// Dependency folders are there when the copy is made, so the member can build and test at once.
    pub dependencies_ready: bool,
    /// How dependency folders are shared.
    pub dependencies: Dependencies,
    /// The provider keeps a process running for the copy.
    pub resident_process: bool,
}

impl MemberCopy {
    /// Saves the record in the state folder.
    pub fn save(&self) -> Result<(), TeamError> {
        let text = serde_json::to_vec_pretty(self).map_err(|e| TeamError::io(&self.state, e.to_string()))?;
        std::fs::write(self.state.join("member.json"), text).map_err(|e| TeamError::io(&self.state, e))
    }

    /// Loads the record from a state folder.
    pub fn load(state: &Path) -> Result<Self, TeamError> {
        let text = std::fs::read(state.join("member.json")).map_err(|e| TeamError::io(state, e))?;
        serde_json::from_slice(&text).map_err(|e| TeamError::io(state, e.to_string()))
    }

    /// An error unless the copy's folder is still there.
    pub fn ensure_copy(&self) -> Result<(), TeamError> {
        // A far copy is checked there, by the copy service.
        if self.far.is_some() || self.copy.is_dir() {
            Ok(())
        } else {
            Err(TeamError::CopyGone(self.copy.display().to_string()))
        }
    }

    /// Its provider.
    pub fn provider(&self) -> Box<dyn IsolationProvider> {
        match self.far {
            Some(_) => Box::new(FarProvider),
            None => self.provider.provider(),
        }
    }
}

impl TeamError {
    fn io(path: &Path, e: impl ToString) -> Self {
        TeamError::Io { path: path.display().to_string(), message: e.to_string() }
    }
}

/// Makes and keeps isolated copies.
pub trait IsolationProvider: Send + Sync {
    /// Which kind this is.
    fn kind(&self) -> ProviderKind;
    /// What it offers.
    fn capabilities(&self) -> Capabilities;
    /// Whether it can work for `project` (and why not).
    fn available(&self, project: &Path) -> Result<(), TeamError>;
    /// Makes the copy of `project` at `copy` for member `name`, keeping its state (base) in
    /// `state`, and records the base.
    fn create(&self, project: &Path, copy: &Path, state: &Path, id: &str, name: &str) -> Result<MemberCopy, TeamError>;
    /// The paths the member changed against its base (before rebased paths and renames are
    /// sorted out: see [`changes`]).
    fn changed_paths(&self, member: &MemberCopy) -> Result<Vec<String>, TeamError>;
    /// The changed paths with what each was in the base (without rebased paths), in one go, for
    /// a provider that can do it faster than [`changed_paths`](Self::changed_paths) then
    /// [`read_original_bases`](Self::read_original_bases); `None` where it cannot.
    fn changed_with_bases(&self, _member: &MemberCopy) -> Option<Result<Vec<(String, Side)>, TeamError>> {
        None
    }
    /// What each path was in the base (without rebased paths: see [`read_bases`]).
    fn read_original_bases(&self, member: &MemberCopy, paths: &[String]) -> Result<Vec<Side>, TeamError>;
    /// Checks the copy after an app restart and repairs what can be (a moved worktree).
    fn reattach(&self, member: &MemberCopy) -> Result<(), TeamError>;
    /// Frees everything: the copy, its registration, the state.
    fn discard(&self, member: &MemberCopy) -> Result<(), TeamError>;
}

/// The bases of `paths`, with the paths rebased after a merge or a conflict.
pub fn read_bases(member: &MemberCopy, paths: &[String]) -> Result<Vec<Side>, TeamError> {
    let rebased = sides::Rebased::load(&member.state)?;
    let missing: Vec<String> = paths.iter().filter(|p| !rebased.has(p)).cloned().collect();
    let mut originals = member.provider().read_original_bases(member, &missing)?.into_iter();
    paths
        .iter()
        .map(|p| match rebased.has(p) {
            true => rebased.read(&member.state, p),
            false => Ok(originals.next().unwrap_or(Side::Absent)),
        })
        .collect()
}

/// Makes `side` the base of `path` (after it was merged, or after a conflict: the main folder's
/// version, so a resubmission merges cleanly).
pub fn rebase_paths(member: &MemberCopy, sides: &[(String, Side)]) -> Result<(), TeamError> {
    // A member whose project is there keeps its bases there (ADR 0039).
    if let Some(rebased) = there::rebase(member, sides) {
        return rebased;
    }
    let mut rebased = sides::Rebased::load(&member.state)?;
    for (path, side) in sides {
        rebased.set(path, side);
    }
    rebased.save(&member.state)
}

/// The member's changes against its base: kinds, renames (same content deleted at one path and
/// added at another), binary and symbolic-link flags. Sorted by path.
pub fn changes(member: &MemberCopy) -> Result<Vec<Change>, TeamError> {
    let provider = member.provider();
    let rebased = sides::Rebased::load(&member.state)?;
    let (paths, bases) = match provider.changed_with_bases(member) {
        Some(found) => {
            let mut originals: std::collections::HashMap<String, Side> = found?.into_iter().collect();
            let mut paths: Vec<String> = originals.keys().cloned().chain(rebased.paths()).collect();
            paths.sort();
            paths.dedup();
            let bases = paths
                .iter()
                .map(|p| match rebased.has(p) {
                    true => rebased.read(&member.state, p),
                    false => Ok(originals.remove(p).unwrap_or(Side::Absent)),
                })
                .collect::<Result<Vec<Side>, TeamError>>()?;
            (paths, bases)
        }
        None => {
            let mut paths = provider.changed_paths(member)?;
            paths.extend(rebased.paths());
            paths.sort();
            paths.dedup();
            let bases = read_bases(member, &paths)?;
            (paths, bases)
        }
    };
    let mut out = Vec::new();
    let mut added: Vec<(String, Side)> = Vec::new();
    let mut deleted: Vec<(String, Side)> = Vec::new();
    for (path, base) in paths.into_iter().zip(bases) {
        let mine = match read_mine(member, &path) {
            Ok(mine) => mine,
            // Listed without being read: its diff and merge say why they cannot be made.
            Err(TeamError::TooBig { .. }) => {
                let kind = if base == Side::Absent { ChangeKind::Added } else { ChangeKind::Modified };
                out.push(Change { binary: true, symlink: false, markers: false, path, kind });
                continue;
            }
            Err(e) => return Err(e),
        };
        if mine == base {
            continue;
        }
        let kind = match (&base, &mine) {
            (Side::Absent, _) => ChangeKind::Added,
            (_, Side::Absent) => ChangeKind::Deleted,
            (Side::File { content: a, .. }, Side::File { content: b, .. }) if a == b => ChangeKind::Mode,
            (Side::File { .. }, Side::File { .. }) | (Side::Symlink { .. }, Side::Symlink { .. }) => {
                ChangeKind::Modified
            }
            _ => ChangeKind::Type,
        };
        match kind {
            ChangeKind::Added => added.push((path.clone(), mine.clone())),
            ChangeKind::Deleted => deleted.push((path.clone(), base.clone())),
            _ => {}
        }
        out.push(Change {
            binary: matches!(&mine, Side::File { content, .. } if crate::model::merge::is_binary(content)),
            symlink: matches!(mine, Side::Symlink { .. }),
            markers: crate::model::merge::holds_markers(&mine),
            path,
            kind,
        });
    }
    // Renames: a deleted path whose content was added elsewhere.
    for (from, old) in deleted {
        if let Some(i) = added.iter().position(|(_, new)| *new == old) {
            let (to, _) = added.remove(i);
            out.retain(|c| c.path != from);
            if let Some(c) = out.iter_mut().find(|c| c.path == to) {
                c.kind = ChangeKind::Renamed { from };
            }
        }
    }
    Ok(out)
}

/// A relative path checked: no `..`, no absolute path, no empty component.
pub(crate) fn checked_path(path: &str) -> Result<(), TeamError> {
    checked(path).map(|_| ())
}

/// A relative path checked: no `..`, no absolute path, no empty component.
fn checked(path: &str) -> Result<&str, TeamError> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.split('/').any(|c| c.is_empty() || c == "." || c == "..")
        || path.contains('\0');
    if bad { Err(TeamError::BadPath(path.into())) } else { Ok(path) }
}
