//! Checkpoints: the state of an agent's workspace before each of its turns, to go back to.
//!
//! In a folder at the top of a git repository with a commit, a checkpoint is a commit of the
//! working tree — tracked files as they are and new files git does not ignore — made with a private
//! index (the person's index, branch and files are not touched) and kept by a hidden ref
//! `refs/sidekicks/checkpoints/<commit>`. Anywhere else it is a snapshot: a list of the files
//! (not ignored, outside dependency folders) with the hash of each, their contents kept once each
//! in Sidekicks' data folder; a file whose size and time did not change since the last snapshot is
//! not read again.
//!
//! A restore first records the present (so it can be undone), then writes back every file that
//! differs and deletes those the checkpoint did not have. Ignored files and dependency folders are
//! never touched.
//!
//! Everything here is blocking file and process work: callers run it on a blocking thread.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::runtime::git;

pub mod review;

/// Where snapshots are kept and how many checkpoints are kept.
#[derive(Clone, Debug)]
pub struct Checkpoints {
    /// Snapshots' folder (`<data>/checkpoints`).
    pub root: PathBuf,
    /// The most checkpoints kept per workspace (older ones are pruned first).
    pub keep: usize,
    /// Checkpoints older than this are pruned (seconds).
    pub max_age: u64,
    /// Outside git, files larger than this (bytes) are listed but not kept: a restore leaves
    /// them as they are.
    pub max_file: u64,
}

/// The default of [`Checkpoints::max_file`].
pub const MAX_FILE: u64 = 64 * 1024 * 1024;

/// One checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Its id: `g` for a commit or `s` for a snapshot, the time it was made in nanoseconds (20
    /// digits: ids sort as their times), `-`, the commit or the snapshot's hash.
    pub id: String,
    /// When it was made (Unix seconds).
    pub at: u64,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// git failed.
    #[error("git {command} failed: {message}")]
    Git {
        /// The git command.
        command: String,
        /// What it said.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// No checkpoint has this id here.
    #[error("no checkpoint {0} in this workspace")]
    Unknown(String),
}

/// An I/O error about `path`.
pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> CheckpointError {
    CheckpointError::Io { path: path.display().to_string(), message: e.to_string() }
}

impl From<crate::runtime::teams::TeamError> for CheckpointError {
    fn from(e: crate::runtime::teams::TeamError) -> Self {
        match e {
            crate::runtime::teams::TeamError::Git { command, message } => CheckpointError::Git { command, message },
            other => CheckpointError::Io { path: String::new(), message: other.to_string() },
        }
    }
}

const REFS: &str = "refs/sidekicks/checkpoints/";

/// The time now in nanoseconds, 20 digits, later than any this process gave before.
fn stamp() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let previous = LAST.fetch_max(now, Ordering::Relaxed);
    let ns = if previous >= now { LAST.fetch_add(1, Ordering::Relaxed) + 1 } else { now };
    format!("{ns:020}")
}

/// A checkpoint from its id's name part (`<ns>-<hash>`) and kind.
fn named(kind: char, name: &str) -> Checkpoint {
    let ns: u64 = name.split('-').next().and_then(|t| t.parse().ok()).unwrap_or(0);
    Checkpoint { id: format!("{kind}{name}"), at: ns / 1_000_000_000 }
}

/// The commit or snapshot hash of a checkpoint id, and whether it is a commit.
fn parts(id: &str) -> Option<(bool, &str, &str)> {
    let git = id.starts_with('g');
    let name = id.get(1..)?;
    let (_, hash) = name.split_once('-')?;
    Some((git, name, hash))
}

/// How a workspace is checkpointed.
enum Kind {
    /// A git repository's top folder whose HEAD is this commit.
    Git { head: git::snapshot::Head },
    /// Snapshots.
    Files,
}

fn kind(workspace: &Path) -> Kind {
    match git::snapshot::head(workspace) {
        Ok(head) => Kind::Git { head },
        Err(_) => Kind::Files,
    }
}

impl Checkpoints {
    /// Records the state of `workspace` now, and forgets checkpoints past the count and age kept.
    pub fn record(&self, workspace: &Path) -> Result<Checkpoint, CheckpointError> {
        #[cfg(unix)]
        if let Some(done) = self.record_here(workspace) {
            return done;
        }
        match kind(workspace) {
            Kind::Git { head } => {
                // The checkpoints so far, the commit, then its ref made and the ones past the
                // count or age forgotten in one `update-ref` (the fewest git processes: each costs
                // milliseconds of the turn's start).
                let mut all = self.list_git(workspace)?;
                let (checkpoint, commit) = self.commit_git(workspace, &head)?;
                all.push(checkpoint.clone());
                all.sort_by(|a, b| a.id.cmp(&b.id));
                let mut input = format!("create {REFS}{} {commit}\n", &checkpoint.id[1..]);
                for c in self.past(&all) {
                    input.push_str(&format!("delete {REFS}{}\n", &c.id[1..]));
                }
                git::snapshot::git_with_input(workspace, &["update-ref", "--stdin"], input.as_bytes())?;
                Ok(checkpoint)
            }
            Kind::Files => {
                let checkpoint = snapshot::record(&self.folder(workspace), workspace, self.max_file)?;
                self.prune(workspace)?;
                Ok(checkpoint)
            }
        }
    }

    /// [`Checkpoints::record`] of a git workspace with no git process (`git::commit`): the
    /// checkpoints so far, the commit, its ref and the forgetting of those past the count or age
    /// kept; `None` when git must do it.
    #[cfg(unix)]
    fn record_here(&self, workspace: &Path) -> Option<Result<Checkpoint, CheckpointError>> {
        let repo = crate::runtime::git::commit::Repo::open(workspace)?;
        let head = repo.resolve("HEAD")?;
        let mut all: Vec<Checkpoint> =
            repo.refs(REFS)?.iter().filter(|l| l.contains('-')).map(|l| named('g', l)).collect();
        let folders = crate::runtime::teams::dependency_folders(workspace);
        let commit = repo.commit_worktree(workspace, &head, &message(workspace), &folders)?;
        let checkpoint = named('g', &format!("{}-{commit}", stamp()));
        all.push(checkpoint.clone());
        all.sort_by(|a, b| a.id.cmp(&b.id));
        let refs = || -> Result<(), String> {
            repo.create_ref(&format!("{REFS}{}", &checkpoint.id[1..]), &commit)?;
            for c in self.past(&all) {
                repo.delete_ref(&format!("{REFS}{}", &c.id[1..]))?;
            }
            Ok(())
        };
        Some(
            refs()
                .map(|()| checkpoint)
                .map_err(|message| CheckpointError::Git { command: "update-ref".into(), message }),
        )
    }

    /// A commit of `workspace` as it is now on top of `head` (no ref): the checkpoint it would be
    /// and the commit.
    fn commit_git(
        &self,
        workspace: &Path,
        head: &git::snapshot::Head,
    ) -> Result<(Checkpoint, String), CheckpointError> {
        let folders = crate::runtime::teams::dependency_folders(workspace);
        #[cfg(unix)]
        if let Some(repo) = crate::runtime::git::commit::Repo::open(workspace)
            && let Some(commit) = repo.commit_worktree(workspace, &head.commit, &message(workspace), &folders)
        {
            return Ok((named('g', &format!("{}-{commit}", stamp())), commit));
        }
        let index = match head.git_dir() {
            Some(dir) => private_index(dir),
            None => private_index(&git_dir(workspace)?),
        };
        let made = git::snapshot::commit(workspace, &index, &message(workspace), &folders, head, true);
        let _ = std::fs::remove_file(&index);
        let commit = made?;
        let name = format!("{}-{commit}", stamp());
        Ok((named('g', &name), commit))
    }

    fn record_only(&self, workspace: &Path, keep: bool) -> Result<Checkpoint, CheckpointError> {
        let checkpoint = match kind(workspace) {
            Kind::Git { head } => {
                let (checkpoint, commit) = self.commit_git(workspace, &head)?;
                if keep {
                    let name = &checkpoint.id[1..];
                    git::snapshot::git(workspace, &["update-ref", &format!("{REFS}{name}"), &commit], &[])?;
                }
                checkpoint
            }
            Kind::Files => snapshot::record(&self.folder(workspace), workspace, self.max_file)?,
        };
        Ok(checkpoint)
    }

    /// Makes `workspace` as it was at checkpoint `id`; returns the checkpoint of how it was just
    /// before (to undo the restore).
    pub fn restore(&self, workspace: &Path, id: &str) -> Result<Checkpoint, CheckpointError> {
        if !self.list(workspace)?.iter().any(|c| c.id == id) {
            return Err(CheckpointError::Unknown(id.to_string()));
        }
        // Not pruned before the restore: the checkpoint restored may be the oldest kept.
        let before = self.record_only(workspace, true)?;
        let unknown = || CheckpointError::Unknown(id.to_string());
        match (parts(id).ok_or_else(unknown)?, parts(&before.id).ok_or_else(unknown)?) {
            ((true, _, target), (true, _, now)) => restore_git(workspace, target, now)?,
            ((false, target, _), (false, now, _)) => {
                snapshot::restore(&self.folder(workspace), workspace, target, now)?
            }
            _ => return Err(unknown()),
        }
        self.prune(workspace)?;
        Ok(before)
    }

    /// The checkpoints of `workspace`, oldest first.
    pub fn list(&self, workspace: &Path) -> Result<Vec<Checkpoint>, CheckpointError> {
        let mut all = match kind(workspace) {
            Kind::Git { .. } => self.list_git(workspace)?,
            Kind::Files => snapshot::list(&self.folder(workspace))?,
        };
        all.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(all)
    }

    /// The checkpoints of a git workspace (their refs).
    fn list_git(&self, workspace: &Path) -> Result<Vec<Checkpoint>, CheckpointError> {
        let out = git::snapshot::git(workspace, &["for-each-ref", "--format=%(refname:lstrip=3)", REFS], &[])?;
        let mut all: Vec<Checkpoint> =
            String::from_utf8_lossy(&out).lines().filter(|l| l.contains('-')).map(|l| named('g', l.trim())).collect();
        all.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(all)
    }

    /// Of `all` (sorted, the newest last), those past the count or the age kept.
    fn past<'a>(&self, all: &'a [Checkpoint]) -> Vec<&'a Checkpoint> {
        let now = crate::model::when::now();
        let excess = all.len().saturating_sub(self.keep.max(1));
        let old = |c: &Checkpoint| now.saturating_sub(c.at) > self.max_age;
        all.iter()
            .take(all.len().saturating_sub(1))
            .enumerate()
            .filter(|(i, c)| *i < excess || old(c))
            .map(|(_, c)| c)
            .collect()
    }

    /// The paths that differ between checkpoint `id` and the workspace now.
    pub fn changed_since(&self, workspace: &Path, id: &str) -> Result<Vec<String>, CheckpointError> {
        // In this process when it can (each turn's count starts no git process).
        #[cfg(unix)]
        if let Some((true, _, then)) = parts(id)
            && let Some(repo) = crate::runtime::git::commit::Repo::open(workspace)
            && let Some(head) = repo.resolve("HEAD")
            && let Some(now) = repo.commit_worktree(
                workspace,
                &head,
                &message(workspace),
                &crate::runtime::teams::dependency_folders(workspace),
            )
        {
            return Ok(git_changes(workspace, then, &now)?.into_iter().map(|(_, p)| p).collect());
        }
        // A git commit of the present needs no ref: it is not a checkpoint to come back to.
        let now = self.record_only(workspace, false)?;
        let unknown = || CheckpointError::Unknown(id.to_string());
        match (parts(id).ok_or_else(unknown)?, parts(&now.id).ok_or_else(unknown)?) {
            ((true, _, then), (true, _, now)) => {
                Ok(git_changes(workspace, then, now)?.into_iter().map(|(_, p)| p).collect())
            }
            ((false, then, _), (false, now, _)) => snapshot::changed(&self.folder(workspace), then, now),
            _ => Err(unknown()),
        }
    }

    /// What `path` was at checkpoint `id`: its bytes (a link's target for a link), `None` when it
    /// was not there; an error when the checkpoint did not keep it (a file over the size kept).
    pub fn read_at(&self, workspace: &Path, id: &str, path: &str) -> Result<Option<Vec<u8>>, CheckpointError> {
        Ok(self.entry_at(workspace, id, path)?.map(|(bytes, _)| bytes))
    }

    /// [`Checkpoints::read_at`], and whether it was a symbolic link.
    pub fn entry_at(&self, workspace: &Path, id: &str, path: &str) -> Result<Option<(Vec<u8>, bool)>, CheckpointError> {
        let unknown = || CheckpointError::Unknown(id.to_string());
        match parts(id).ok_or_else(unknown)? {
            (true, _, commit) => {
                // `<mode> <type> <object>\t<path>`: mode 120000 is a link.
                let listed = git::snapshot::git(workspace, &["ls-tree", "-z", commit, "--", path], &[])?;
                if listed.is_empty() {
                    return Ok(None);
                }
                let link = listed.starts_with(b"120000 ");
                Ok(Some((
                    git::snapshot::git(workspace, &["cat-file", "blob", &format!("{commit}:{path}")], &[])?,
                    link,
                )))
            }
            (false, name, _) => snapshot::read(&self.folder(workspace), name, path),
        }
    }

    /// Forgets checkpoints past the count or age kept (the newest is always kept).
    fn prune(&self, workspace: &Path) -> Result<(), CheckpointError> {
        let all = self.list(workspace)?;
        let gone = self.past(&all);
        if gone.is_empty() {
            return Ok(());
        }
        match kind(workspace) {
            Kind::Git { .. } => {
                let mut input = String::new();
                for c in &gone {
                    input.push_str(&format!("delete {REFS}{}\n", &c.id[1..]));
                }
                git::snapshot::git_with_input(workspace, &["update-ref", "--stdin"], input.as_bytes())?;
            }
            Kind::Files => snapshot::forget(&self.folder(workspace), &gone)?,
        }
        Ok(())
    }

    /// The snapshot folder of `workspace`.
    fn folder(&self, workspace: &Path) -> PathBuf {
        let key = Sha256::digest(workspace.to_string_lossy().as_bytes());
        let key: String = key.iter().take(8).map(|b| format!("{b:02x}")).collect();
        self.root.join(key)
    }
}

/// A checkpoint commit's message.
fn message(workspace: &Path) -> String {
    format!("Sidekicks: checkpoint of {}", workspace.display())
}

/// The repository's git folder, asked of git.
fn git_dir(workspace: &Path) -> Result<PathBuf, CheckpointError> {
    let out = git::snapshot::git(workspace, &["rev-parse", "--path-format=absolute", "--git-dir"], &[])?;
    Ok(PathBuf::from(String::from_utf8_lossy(&out).trim()))
}

/// A fresh file name for a private index in the git folder `dir`.
fn private_index(dir: &Path) -> PathBuf {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dir.join(format!("sidekicks-checkpoint-{}-{n}.index", std::process::id()))
}

/// The paths that differ between two commits, with git's status letter (A, M, D, T).
fn git_changes(workspace: &Path, from: &str, to: &str) -> Result<Vec<(char, String)>, CheckpointError> {
    // Read here (a turn's count of what it changed starts no git process), else git's diff.
    #[cfg(unix)]
    if let Some(objects) = crate::runtime::git::commit::Repo::open(workspace).and_then(|r| r.objects())
        && let Some(changes) = crate::runtime::git::tree::changed(&objects, from, to)
    {
        return Ok(changes);
    }
    let out =
        git::snapshot::git(workspace, &["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to], &[])?;
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
    let mut changes = Vec::new();
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        let status = status.first().map_or('M', |b| *b as char);
        changes.push((status, String::from_utf8_lossy(path).into_owned()));
    }
    Ok(changes)
}

/// Writes back the files of commit `target` that differ from commit `now` (the workspace as it
/// is) and deletes those `target` lacks.
fn restore_git(workspace: &Path, target: &str, now: &str) -> Result<(), CheckpointError> {
    let changes = git_changes(workspace, now, target)?;
    let (gone, written): (Vec<_>, Vec<_>) = changes.into_iter().partition(|(s, _)| *s == 'D');
    for (_, path) in &gone {
        remove(workspace, path)?;
    }
    if written.is_empty() {
        return Ok(());
    }
    // Written through a private index holding the target's tree: the person's is not touched.
    let index = private_index(&git_dir(workspace)?);
    let env = [("GIT_INDEX_FILE", index.as_path())];
    let done = git::snapshot::git(workspace, &["read-tree", target], &env).and_then(|_| {
        let mut input = Vec::new();
        for (_, path) in &written {
            // A file where a folder of the same name stands now (or the reverse) is replaced.
            let full = workspace.join(path);
            if full.is_dir() && !full.is_symlink() {
                let _ = std::fs::remove_dir_all(&full);
            }
            input.extend_from_slice(path.as_bytes());
            input.push(0);
        }
        git::snapshot::git_with_input_env(workspace, &["checkout-index", "-f", "-z", "--stdin"], &input, &env)
    });
    let _ = std::fs::remove_file(&index);
    done?;
    Ok(())
}

/// Deletes `path` of `workspace` and the folders it leaves empty.
fn remove(workspace: &Path, path: &str) -> Result<(), CheckpointError> {
    let full = workspace.join(path);
    match std::fs::remove_file(&full) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(&full, e)),
    }
    let mut dir = full.parent();
    while let Some(d) = dir {
        if d == workspace || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file renamed over it (never seen half written).
fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<(), CheckpointError> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    if path.is_dir() && !path.is_symlink() {
        std::fs::remove_dir_all(path).map_err(|e| io(path, e))?;
    }
    let tmp =
        path.with_file_name(format!(".{}.sidekicks-restore", path.file_name().unwrap_or_default().to_string_lossy()));
    let mut file = std::fs::File::create(&tmp).map_err(|e| io(&tmp, e))?;
    file.write_all(bytes).map_err(|e| io(&tmp, e))?;
    file.set_permissions(std::fs::Permissions::from_mode(mode)).map_err(|e| io(&tmp, e))?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(|e| io(path, e))
}

mod snapshot;
