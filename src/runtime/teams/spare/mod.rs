//! Copies kept for the next team (issue 50; ADR 0040). Making a member's git worktree writes
//! every file of the project (a 3,600-file project: about 0.6 s on ext4, most of it the kernel
//! making inodes). A discarded member's worktree is kept instead, in the teams folder's
//! `.spare/PROJECT/` (at most [`SPARES`] per project, for a day, while the disk keeps its last
//! tenth free: `room`), and the next member of a team of that project gets it back, made again
//! at its base: only the files that differ are written, what the last member left is cleaned away.
//!
//! A spare was a member's: it is input. It is never given to another project (its folder is named
//! after the project's canonical path and its worktree must be one of that project's); git runs
//! on it with the project's own git folders named (`GIT_DIR`, `GIT_COMMON_DIR`, `GIT_WORK_TREE`),
//! never as the copy's `.git` says, and that `.git` is written again; `checkout --force` and
//! `clean -ffdx` leave exactly the commit's files (git follows no link while it does so) — unless
//! the spare is exactly the commit already (`git::exact`, the index's `stat`s compared as git
//! would: a spare made ahead and never used), when nothing is run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::Digest as _;

use super::{MemberCopy, ProviderKind, TeamError};

mod ready;
mod room;
use crate::runtime::git::snapshot::git;

/// The most spares kept per project.
pub const SPARES: usize = 8;

/// How long a spare is kept.
const KEPT_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// The spare folder of `project` in `teams_dir`.
fn folder(teams_dir: &Path, project: &Path) -> PathBuf {
    let canonical = project.canonicalize().unwrap_or_else(|_| project.to_path_buf());
    let digest = sha2::Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let key: String = digest[..10].iter().map(|b| format!("{b:02x}")).collect();
    teams_dir.join(".spare").join(key)
}

/// The teams folder of a copy and its state made as a team's are (`TEAMS/ID/MEMBER`, its state
/// `TEAMS/ID/.state/MEMBER`); `None` for copies made anywhere else (by a program using the
/// library): they are never kept, nor given a spare.
fn teams_dir_of<'a>(copy: &'a Path, state: &Path) -> Option<&'a Path> {
    let team = copy.parent()?;
    (state.parent()? == team.join(".state")).then_some(())?;
    team.parent()
}

/// The spares in `dir`, oldest first; those kept longer than a day are removed first.
fn spares(project: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    found.sort();
    let now = std::time::SystemTime::now();
    let (old, young): (Vec<_>, Vec<_>) =
        found.into_iter().partition(|(t, _)| now.duration_since(*t).unwrap_or_default() > KEPT_FOR);
    if !old.is_empty() {
        for (_, path) in &old {
            let _ = std::fs::remove_dir_all(path);
        }
        let _ = git(project, &["worktree", "prune"], &[]);
    }
    young.into_iter().map(|(_, p)| p).collect()
}

/// Keeps a discarded member's worktree for the next team of its project: `true` when kept (its
/// copy is then moved away), `false` when it is to be removed as usual.
pub(super) fn keep(member: &MemberCopy) -> bool {
    if member.provider != ProviderKind::GitWorktree || member.container.is_some() || member.far.is_some() {
        return false;
    }
    let Some(teams_dir) = teams_dir_of(&member.copy, &member.state) else { return false };
    let dir = folder(teams_dir, &member.project);
    // Kept, it stays on the disk: only while the disk keeps its last tenth free.
    let full = spares(&member.project, &dir).len() >= SPARES || !room::room_for(teams_dir, 0);
    if full || std::fs::create_dir_all(&dir).is_err() {
        return false;
    }
    let to = dir.join(&member.id);
    let moved = git(&member.project, &["worktree", "move", &member.copy.to_string_lossy(), &to.to_string_lossy()], &[]);
    // Its date says when it was kept.
    moved.is_ok() && std::fs::File::open(&to).and_then(|f| f.set_modified(std::time::SystemTime::now())).is_ok()
}

/// Gives `copy` a spare worktree of `project`, made again at the project's HEAD: `true` when
/// one was taken, `false` when there is none (a new worktree is made then). A preparation of
/// this project's spares under way in this process ends first, with the copy it is making.
pub(super) fn take(project: &Path, copy: &Path, state: &Path) -> bool {
    let Some(teams_dir) = teams_dir_of(copy, state) else { return false };
    let dir = folder(teams_dir, project);
    ready::stop(&dir);
    let spares = spares(project, &dir);
    if spares.is_empty() {
        return false;
    }
    let Ok(head) = crate::runtime::git::snapshot::head(project) else { return false };
    let head = head.commit;
    for spare in spares.into_iter().rev() {
        let moved = git(project, &["worktree", "move", &spare.to_string_lossy(), &copy.to_string_lossy()], &[]);
        if moved.is_ok() && made_again(project, copy, &head).is_ok() {
            return true;
        }
        // Not usable: removed, and the next one tried.
        let at = if moved.is_ok() { copy } else { spare.as_path() };
        let _ = git(project, &["worktree", "remove", "--force", &at.to_string_lossy()], &[]);
        let _ = std::fs::remove_dir_all(at);
        let _ = git(project, &["worktree", "prune"], &[]);
    }
    false
}

/// The worktree at `copy` made exactly commit `head`: its `.git` written again, every file as
/// the commit has it, nothing else.
fn made_again(project: &Path, copy: &Path, head: &str) -> Result<(), TeamError> {
    let (dir, common) = crate::runtime::git::index::member_git_dirs(project, copy).ok_or_else(|| TeamError::Git {
        command: "worktree".into(),
        message: format!("{} is not a worktree of the project's repository", copy.display()),
    })?;
    let dot_git = copy.join(".git");
    match std::fs::symlink_metadata(&dot_git) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&dot_git).map_err(|e| TeamError::io(&dot_git, e))?,
        Ok(_) => std::fs::remove_file(&dot_git).map_err(|e| TeamError::io(&dot_git, e))?,
        Err(_) => {}
    }
    std::fs::write(&dot_git, format!("gitdir: {}\n", dir.display())).map_err(|e| TeamError::io(&dot_git, e))?;
    // A spare made ahead and never used is most of the time exactly HEAD already: told here,
    // without git's two processes (each reads every file's `stat`; issue 50).
    if crate::runtime::git::exact::is_commit(copy, &dir, &common, head) {
        return Ok(());
    }
    let env = [("GIT_DIR", dir.as_path()), ("GIT_COMMON_DIR", common.as_path()), ("GIT_WORK_TREE", copy)];
    git(copy, &["checkout", "--force", "--quiet", "--detach", head], &env)?;
    git(copy, &["clean", "-ffdxq", "-e", ".git"], &env)?;
    Ok(())
}

/// Makes spares of `project` in `teams_dir` until `wanted` of them are ready (at most
/// [`SPARES`]), one at a time, while the person is still writing the team's task: the team then
/// takes them instead of writing every file of the project (issue 50). Each is made as a new
/// member's worktree is, in a folder of its own, and becomes a spare only once complete (nothing
/// can take half a copy). Ends early when a team of the project takes spares (`take`). Returns
/// how many are ready; `None` when a preparation of that project is under way in this process
/// already (it now makes `wanted`, if more).
pub fn prepare(teams_dir: &Path, project: &Path, wanted: usize) -> Result<Option<usize>, TeamError> {
    let project = project.canonicalize().map_err(|e| TeamError::io(project, e))?;
    crate::runtime::git::snapshot::head(&project)?;
    let dir = folder(teams_dir, &project);
    let key = dir.file_name().map(|k| k.to_string_lossy().into_owned()).unwrap_or_default();
    let Some(preparing) = ready::Preparing::begin(&dir, wanted.min(SPARES)) else { return Ok(None) };
    let making = teams_dir.join(".spare").join(".making");
    ready::remove_abandoned(&project, &making, &key);
    let bytes = room::copy_bytes(&project);
    loop {
        let ready = spares(&project, &dir).len();
        // No copy made ahead takes the disk's last tenth.
        if ready >= preparing.wanted() || preparing.stopped() || !room::room_for(teams_dir, bytes) {
            return Ok(Some(ready));
        }
        let id = super::names::new_id();
        let at = making.join(format!("{key}-{id}"));
        std::fs::create_dir_all(&making).map_err(|e| TeamError::io(&making, e))?;
        std::fs::create_dir_all(&dir).map_err(|e| TeamError::io(&dir, e))?;
        super::add_worktree(&project, &at)?;
        let to = dir.join(&id);
        let moved = git(&project, &["worktree", "move", &at.to_string_lossy(), &to.to_string_lossy()], &[]);
        if let Err(e) = moved {
            let _ = git(&project, &["worktree", "remove", "--force", &at.to_string_lossy()], &[]);
            let _ = std::fs::remove_dir_all(&at);
            return Err(e);
        }
        let _ = std::fs::File::open(&to).and_then(|f| f.set_modified(std::time::SystemTime::now()));
    }
}

/// Removes every spare of `project` in `teams_dir` (the person removes what teams left).
pub(super) fn drop_all(teams_dir: &Path, project: &Path) {
    let dir = folder(teams_dir, project);
    ready::stop(&dir);
    if let Some(key) = dir.file_name() {
        let making = teams_dir.join(".spare").join(".making");
        ready::remove_abandoned_now(project, &making, &key.to_string_lossy());
    }
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    for spare in entries.flatten() {
        let at = spare.path();
        let _ = git(project, &["worktree", "remove", "--force", &at.to_string_lossy()], &[]);
        let _ = std::fs::remove_dir_all(&at);
    }
    let _ = std::fs::remove_dir(&dir);
    let _ = git(project, &["worktree", "prune"], &[]);
}
