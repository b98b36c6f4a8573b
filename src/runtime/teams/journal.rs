//! Applying a merge to a folder all or nothing, durable without flushing the whole disk.
//!
//! 1. Nothing is written until every step is known to be possible ([`obstacles`]: a write below a
//!    link or a file that stays, or over a folder that keeps content, is refused up front; the
//!    merge layer turns those into conflicts).
//! 2. The list of temporary files is written and made durable (`merge.staging`).
//! 3. Every new version is written as a hidden temporary file next to its target, or in the
//!    nearest folder that exists when its own folder is still to be made (a file becoming a
//!    folder). Only these files and their folders are made durable: writeback of all of them is
//!    started, then each is `fdatasync`ed (the filesystem's journal commits them together), then
//!    each folder holding one is synced — no `syncfs`, so other programs' unwritten data is not
//!    flushed with ours.
//! 4. The journal (`merge.journal`: each path and its temporary file, or "delete") is written and
//!    renamed into place: the commit point.
//! 5. Deleted paths are removed (and folders they leave empty), folders are made, emptied folders
//!    that become files are removed, temporary files are renamed over their targets.
//! 6. The journal is removed. Should the renames not reach the disk before a power loss, neither
//!    does this removal (the filesystem's metadata journal keeps their order), and recovery replays
//!    them.
//!
//! After a crash, [`recover`] finishes a merge whose journal exists (every step of 5 is idempotent)
//! and otherwise removes the staged files, so the folder is either entirely before or entirely
//! after the merge.

use std::collections::{BTreeSet, HashSet};
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
    /// The path in the folder.
    pub path: String,
    /// What it becomes.
    pub side: Side,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    path: String,
    /// The temporary file (relative to the folder) to rename over `path`; none: remove it.
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

/// What is at a path, without following a final link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Missing,
    Folder,
    Other,
}

fn kind(path: &Path) -> Kind {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Kind::Folder,
        Ok(_) => Kind::Other,
        Err(_) => Kind::Missing,
    }
}

/// The folders of `rel`, shortest first (`a`, `a/b` for `a/b/c`).
fn folders_of(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(|(i, _)| &rel[..i])
}

fn sync_dir(dir: &Path) -> Result<(), TeamError> {
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| TeamError::io(dir, e))
}

fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), TeamError> {
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).map_err(|e| TeamError::io(&tmp, e))?;
    f.write_all(bytes).and_then(|_| f.sync_all()).map_err(|e| TeamError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| TeamError::io(path, e))?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// The steps of `steps` that cannot be applied to `root` (their paths): a write below something
/// that is not a folder and is not removed by the same steps (a link, a file), or over a folder
/// that still holds files the steps do not remove.
pub fn obstacles(root: &Path, steps: &[Step]) -> Vec<String> {
    let deleted: HashSet<&str> =
        steps.iter().filter(|s| matches!(s.side, Side::Absent)).map(|s| s.path.as_str()).collect();
    let mut blocked = Vec::new();
    for step in steps.iter().filter(|s| !matches!(s.side, Side::Absent)) {
        let mut ok = true;
        for folder in folders_of(&step.path) {
            match kind(&root.join(folder)) {
                Kind::Folder => continue,
                Kind::Missing => break,
                Kind::Other => {
                    ok = deleted.contains(folder);
                    break;
                }
            }
        }
        if ok && kind(&root.join(&step.path)) == Kind::Folder {
            ok = emptied_by(&root.join(&step.path), &step.path, &deleted);
        }
        if !ok {
            blocked.push(step.path.clone());
        }
    }
    blocked
}

/// True when every file and link below the folder `dir` (at `rel`) is in `deleted`.
fn emptied_by(dir: &Path, rel: &str, deleted: &HashSet<&str>) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().all(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        let child = format!("{rel}/{name}");
        match entry.file_type() {
            Ok(t) if t.is_dir() => emptied_by(&entry.path(), &child, deleted),
            _ => deleted.contains(child.as_str()),
        }
    })
}

/// Where the new version of `rel` is staged: next to it when its folder exists, else in the
/// nearest folder of it that does (its own folders are made at the commit).
fn temp_for(root: &Path, rel: &str, id: &str, n: usize) -> String {
    let mut nearest: Option<&str> = None;
    for folder in folders_of(rel) {
        if kind(&root.join(folder)) != Kind::Folder {
            return match nearest {
                Some(dir) => format!("{dir}/.sidekicks-{id}-{n}"),
                None => format!(".sidekicks-{id}-{n}"),
            };
        }
        nearest = Some(folder);
    }
    // Named after the file where the name allows (a person who sees one knows whose it is); a
    // name near the system's 255-byte limit gets a short one (a 250-byte name failed the merge).
    let (dir, name) = match rel.rsplit_once('/') {
        Some((dir, name)) => (Some(dir), name),
        None => (None, rel),
    };
    let staged = if name.len() + id.len() + 12 <= 255 {
        format!(".{name}.sidekicks-{id}")
    } else {
        format!(".sidekicks-{id}-{n}")
    };
    match dir {
        Some(dir) => format!("{dir}/{staged}"),
        None => staged,
    }
}

/// Writes a staged file and starts its writeback.
fn stage(path: &Path, side: &Side) -> Result<Option<std::fs::File>, TeamError> {
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
            f.set_permissions(std::fs::Permissions::from_mode(mode)).map_err(|e| TeamError::io(path, e))?;
            start_writeback(&f);
            Ok(Some(f))
        }
        Side::Symlink { target } => {
            let _ = std::fs::remove_file(path);
            std::os::unix::fs::symlink(target, path).map_err(|e| TeamError::io(path, e))?;
            Ok(None)
        }
        Side::Absent => Ok(None),
    }
}

/// Asks the kernel to start writing `file` out now, so the `fdatasync`s that follow wait on
/// writes already under way instead of starting them one by one.
fn start_writeback(file: &std::fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on an open descriptor; no memory is passed.
        unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Applies `steps` to the folder `root`, all or nothing, journaled in `state`.
pub fn apply(root: &Path, state: &Path, id: &str, steps: &[Step]) -> Result<(), TeamError> {
    recover(root, state)?;
    for step in steps {
        checked(&step.path)?;
    }
    if let Some(path) = obstacles(root, steps).into_iter().next() {
        return Err(TeamError::io(
            &root.join(&path),
            "is in the way (a folder with files, or a link or file above it)",
        ));
    }
    let entries: Vec<Entry> = steps
        .iter()
        .enumerate()
        .map(|(n, s)| Entry {
            path: s.path.clone(),
            temp: (!matches!(s.side, Side::Absent)).then(|| temp_for(root, &s.path, id, n)),
        })
        .collect();
    let t0 = std::time::Instant::now();
    let temps: Vec<&String> = entries.iter().filter_map(|e| e.temp.as_ref()).collect();
    let list = serde_json::to_vec(&temps).map_err(|e| TeamError::io(state, e.to_string()))?;
    write_durably(&state.join(STAGING), &list)?;
    if let Err(e) = stage_all(root, steps, &entries) {
        recover(root, state)?;
        return Err(e);
    }
    tracing::debug!("journal: staged and synced {} files in {:?}", temps.len(), t0.elapsed());
    let journal = serde_json::to_vec(&entries).map_err(|e| TeamError::io(state, e.to_string()))?;
    write_durably(&state.join(JOURNAL), &journal)?;
    let _ = std::fs::remove_file(state.join(STAGING));
    let t = std::time::Instant::now();
    let done = finish(root, state, &entries);
    tracing::debug!("journal: finished in {:?}", t.elapsed());
    done
}

/// Writes every staged file (on two threads when there are many: file creation, not the
/// processor, is what costs), then makes them and their folders durable.
fn stage_all(root: &Path, steps: &[Step], entries: &[Entry]) -> Result<(), TeamError> {
    let work: Vec<(&Step, &Entry)> = steps.iter().zip(entries).filter(|(_, e)| e.temp.is_some()).collect();
    let folders: BTreeSet<PathBuf> = work
        .iter()
        .filter_map(|(_, e)| e.temp.as_ref())
        .map(|t| root.join(t).parent().map(Path::to_path_buf).unwrap_or_else(|| root.to_path_buf()))
        .collect();
    let staged = crate::runtime::halves::halves(&work, crate::runtime::halves::FEW_FILES, |chunk| {
        let mut files = Vec::new();
        for (step, entry) in chunk {
            let path = root.join(entry.temp.as_deref().unwrap_or_default());
            files.extend(stage(&path, &step.side)?.map(|f| (path, f)));
        }
        for (path, file) in files {
            file.sync_data().map_err(|e| TeamError::io(&path, e))?;
        }
        Ok::<(), TeamError>(())
    });
    staged.into_iter().collect::<Result<(), TeamError>>()?;
    folders.iter().try_for_each(|dir| sync_dir(dir))
}

/// Carries out the journal's entries (idempotent: a recovery runs it again).
fn finish(root: &Path, state: &Path, entries: &[Entry]) -> Result<(), TeamError> {
    // Removals first: a file or link that becomes a folder must be gone before the folder is made.
    for entry in entries.iter().filter(|e| e.temp.is_none()) {
        let target = root.join(checked(&entry.path)?);
        // Never through a link: a path below a link is not this folder's.
        if folders_of(&entry.path).any(|f| kind(&root.join(f)) != Kind::Folder) {
            continue;
        }
        match std::fs::remove_file(&target) {
            Ok(()) => remove_emptied(root, &entry.path),
            // Already removed, or a folder now stands there (a recovery running again).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound || kind(&target) == Kind::Folder => {}
            Err(e) => return Err(TeamError::io(&target, e)),
        }
    }
    let writes: Vec<&Entry> = entries.iter().filter(|e| e.temp.is_some()).collect();
    let put_all = |chunk: &[&Entry]| chunk.iter().try_for_each(|e| put(root, e));
    crate::runtime::halves::halves(&writes, crate::runtime::halves::FEW_FILES, put_all)
        .into_iter()
        .collect::<Result<(), TeamError>>()?;
    std::fs::remove_file(state.join(JOURNAL)).map_err(|e| TeamError::io(state, e))
}

/// Renames one staged file over its target, making its folders and removing an emptied folder
/// that stands where it goes.
fn put(root: &Path, entry: &Entry) -> Result<(), TeamError> {
    let target = root.join(checked(&entry.path)?);
    let staged = root.join(checked(entry.temp.as_deref().unwrap_or_default())?);
    if std::fs::symlink_metadata(&staged).is_err() {
        // Already renamed (a recovery running again).
        return Ok(());
    }
    if let Some(parent) = target.parent()
        && kind(parent) != Kind::Folder
    {
        std::fs::create_dir_all(parent).map_err(|e| TeamError::io(parent, e))?;
    }
    if kind(&target) == Kind::Folder {
        remove_empty_folders(&target)?;
    }
    std::fs::rename(&staged, &target).map_err(|e| TeamError::io(&target, e))
}

/// Removes a folder that holds only (empty) folders.
fn remove_empty_folders(dir: &Path) -> Result<(), TeamError> {
    for entry in std::fs::read_dir(dir).map_err(|e| TeamError::io(dir, e))?.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            remove_empty_folders(&entry.path())?;
        }
    }
    std::fs::remove_dir(dir).map_err(|e| TeamError::io(dir, e))
}

/// After removing `rel`, removes the folders it leaves empty (as git does), up to the root.
fn remove_emptied(root: &Path, rel: &str) {
    let folders: Vec<&str> = folders_of(rel).collect();
    for folder in folders.iter().rev() {
        if std::fs::remove_dir(root.join(folder)).is_err() {
            break;
        }
    }
}

/// Whether a merge recorded in `state` was left unfinished (or is under way: hold the project's
/// lock to tell).
pub fn unfinished(state: &Path) -> bool {
    state.join(JOURNAL).exists() || state.join(STAGING).exists()
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
            if checked(&temp).is_ok() && folders_of(&temp).all(|f| kind(&root.join(f)) == Kind::Folder) {
                let _ = std::fs::remove_file(root.join(&temp));
            }
        }
        std::fs::remove_file(state.join(STAGING)).map_err(|e| TeamError::io(state, e))?;
        return Ok(Recovery::RolledBack);
    }
    Ok(Recovery::Nothing)
}
