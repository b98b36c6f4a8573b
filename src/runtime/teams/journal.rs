//! Applying a merge to the main folder all or nothing. Every new version is first written next to
//! its target as a hidden temporary file (their list is recorded first, in `merge.staging`); the
//! filesystem is synced; then the journal (`merge.journal`: each path and its temporary file, or
//! "delete") is written and renamed into place — the commit point; then the temporary files are
//! renamed over their targets and deleted paths removed; then the journal is removed. After a
//! crash, [`recover`] finishes a merge whose journal exists (renames are idempotent: the temporary
//! files left are renamed, deletions repeated) and otherwise removes the staged files, so the main
//! folder is either entirely before or entirely after the merge.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{TeamError, checked};
use crate::model::merge::Side;

const STAGING: &str = "merge.staging";
const JOURNAL: &str = "merge.journal";

/// One path to change: its new content, or [`Side::Absent`] to remove it.
#[derive(Clone, Debug)]
pub struct Step {
    /// The path in the main folder.
    pub path: String,
    /// What it becomes.
    pub side: Side,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    path: String,
    /// The temporary file (relative to the main folder) to rename over `path`; none: remove it.
    temp: Option<String>,
}

/// What [`recover`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// No interrupted merge.
    Nothing,
    /// A merge interrupted before its commit point: its staged files were removed.
    RolledBack,
    /// A merge interrupted after its commit point: it was finished.
    Finished,
}

fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), TeamError> {
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).map_err(|e| TeamError::io(&tmp, e))?;
    f.write_all(bytes).and_then(|_| f.sync_all()).map_err(|e| TeamError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| TeamError::io(path, e))?;
    if let Some(dir) = path.parent() {
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// Refuses a path whose folders in `root` include a symbolic link (a write would leave the folder).
fn inside(root: &Path, rel: &str) -> Result<PathBuf, TeamError> {
    let rel = checked(rel)?;
    let mut at = root.to_path_buf();
    let mut parts = rel.split('/').peekable();
    while let Some(part) = parts.next() {
        at.push(part);
        if parts.peek().is_some() && std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(TeamError::BadPath(rel.into()));
        }
    }
    Ok(at)
}

fn temp_for(rel: &str, id: &str) -> String {
    match rel.rsplit_once('/') {
        Some((dir, name)) => format!("{dir}/.{name}.sidekicks-{id}"),
        None => format!(".{rel}.sidekicks-{id}"),
    }
}

/// Writes a staged file (its folders exist and were checked).
fn stage(path: &Path, side: &Side) -> Result<(), TeamError> {
    match side {
        Side::File { content, executable } => {
            use std::os::unix::fs::OpenOptionsExt;
            let mode = if *executable { 0o755 } else { 0o644 };
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(mode)
                .open(path)
                .map_err(|e| TeamError::io(path, e))?;
            f.write_all(content).map_err(|e| TeamError::io(path, e))?;
            // The exact mode, whatever the umask.
            f.set_permissions(std::fs::Permissions::from_mode(mode)).map_err(|e| TeamError::io(path, e))
        }
        Side::Symlink { target } => {
            let _ = std::fs::remove_file(path);
            std::os::unix::fs::symlink(target, path).map_err(|e| TeamError::io(path, e))
        }
        Side::Absent => Ok(()),
    }
}

/// Checks paths below a root, remembering the folders already checked (and made).
struct Folders<'a> {
    root: &'a Path,
    known: std::collections::HashSet<PathBuf>,
}

impl<'a> Folders<'a> {
    fn new(root: &'a Path) -> Self {
        Self { root, known: Default::default() }
    }

    /// The full path of `rel`, refusing symbolic links among its folders.
    fn path(&mut self, rel: &str) -> Result<PathBuf, TeamError> {
        let parent = Path::new(checked(rel)?).parent().unwrap_or(Path::new(""));
        if !self.known.contains(parent) {
            inside(self.root, rel)?;
            self.known.insert(parent.to_path_buf());
        }
        Ok(self.root.join(rel))
    }

    /// Makes the folders of `rel` (once per folder).
    fn make(&mut self, rel: &str) -> Result<PathBuf, TeamError> {
        let path = self.path(rel)?;
        if let Some(parent) = path.parent()
            && self.known.insert(parent.join(".made"))
        {
            std::fs::create_dir_all(parent).map_err(|e| TeamError::io(parent, e))?;
        }
        Ok(path)
    }
}

fn sync_filesystem(root: &Path) {
    if let Ok(dir) = std::fs::File::open(root) {
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs on an open descriptor; no memory is passed.
        unsafe { libc::syncfs(dir.as_raw_fd()) };
    }
}

/// Applies `steps` to the main folder `root`, all or nothing, journaled in `state`.
pub fn apply(root: &Path, state: &Path, id: &str, steps: &[Step]) -> Result<(), TeamError> {
    recover(root, state)?;
    let entries: Vec<Entry> = steps
        .iter()
        .map(|s| Entry { path: s.path.clone(), temp: (!matches!(s.side, Side::Absent)).then(|| temp_for(&s.path, id)) })
        .collect();
    let mut folders = Folders::new(root);
    for entry in &entries {
        let target = folders.path(&entry.path)?;
        if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
            return Err(TeamError::io(&target, "is a folder in the project; a file cannot replace it"));
        }
    }
    let t0 = std::time::Instant::now();
    let temps: Vec<&String> = entries.iter().filter_map(|e| e.temp.as_ref()).collect();
    let list = serde_json::to_vec(&temps).map_err(|e| TeamError::io(state, e.to_string()))?;
    write_durably(&state.join(STAGING), &list)?;
    // Two writers: file creation, not the processor, is what costs here.
    let work: Vec<(&Step, &Entry)> = steps.iter().zip(&entries).collect();
    let staged: Result<(), TeamError> = std::thread::scope(|scope| {
        let handles: Vec<_> = work
            .chunks(work.len().div_ceil(2).max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    let mut folders = Folders::new(root);
                    for (step, entry) in chunk {
                        if let Some(temp) = &entry.temp {
                            folders.make(temp).and_then(|path| stage(&path, &step.side))?;
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| h.join().expect("staging thread"))
    });
    if let Err(e) = staged {
        recover(root, state)?;
        return Err(e);
    }
    let t = std::time::Instant::now();
    sync_filesystem(root);
    tracing::debug!("journal: staged {} files in {:?}, synced in {:?}", temps.len(), t - t0, t.elapsed());
    let journal = serde_json::to_vec(&entries).map_err(|e| TeamError::io(state, e.to_string()))?;
    write_durably(&state.join(JOURNAL), &journal)?;
    let _ = std::fs::remove_file(state.join(STAGING));
    let t = std::time::Instant::now();
    let done = finish(root, state, &entries);
    tracing::debug!("journal: finished in {:?}", t.elapsed());
    done
}

/// Renames the staged files over their targets and removes the deleted paths (idempotent).
fn finish(root: &Path, state: &Path, entries: &[Entry]) -> Result<(), TeamError> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = entries
            .chunks(entries.len().div_ceil(2).max(1))
            .map(|chunk| scope.spawn(move || finish_some(root, chunk)))
            .collect();
        handles.into_iter().try_for_each(|h| h.join().expect("renaming thread"))
    })?;
    // No second sync: should the renames not reach the disk before a power loss, neither does the
    // journal's removal, and recovery replays them.
    std::fs::remove_file(state.join(JOURNAL)).map_err(|e| TeamError::io(state, e))
}

fn finish_some(root: &Path, entries: &[Entry]) -> Result<(), TeamError> {
    let mut folders = Folders::new(root);
    for entry in entries {
        let target = folders.path(&entry.path)?;
        match &entry.temp {
            Some(temp) => {
                let staged = folders.path(temp)?;
                match std::fs::rename(&staged, &target) {
                    // Already renamed (a recovery running again).
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    other => other.map_err(|e| TeamError::io(&target, e))?,
                }
            }
            None => match std::fs::remove_file(&target) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(TeamError::io(&target, e)),
                _ => {}
            },
        }
    }
    Ok(())
}

/// Finishes or rolls back a merge of `root` interrupted by a crash (see the module's text).
pub fn recover(root: &Path, state: &Path) -> Result<Recovery, TeamError> {
    if let Ok(text) = std::fs::read(state.join(JOURNAL)) {
        let entries: Vec<Entry> = serde_json::from_slice(&text).map_err(|e| TeamError::io(state, e.to_string()))?;
        finish(root, state, &entries)?;
        let _ = std::fs::remove_file(state.join(STAGING));
        return Ok(Recovery::Finished);
    }
    if let Ok(text) = std::fs::read(state.join(STAGING)) {
        let temps: Vec<String> = serde_json::from_slice(&text).unwrap_or_default();
        for temp in temps {
            if let Ok(path) = inside(root, &temp) {
                let _ = std::fs::remove_file(path);
            }
        }
        std::fs::remove_file(state.join(STAGING)).map_err(|e| TeamError::io(state, e))?;
        return Ok(Recovery::RolledBack);
    }
    Ok(Recovery::Nothing)
}
