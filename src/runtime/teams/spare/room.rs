//! Whether the disk has room for a spare (ADR 0040, 0043): a discarded member's worktree is kept,
//! and a copy made ahead, only while the file system of the teams folder keeps its last tenth
//! (at most 10 GiB of it) free with it there. A copy made ahead is counted as the project's tracked files,
//! as its index lists their sizes (the project is not walked); a discarded worktree is on the
//! disk already (keeping it only leaves it there).

use std::path::Path;

/// Spares leave free at least 1/`KEEP_FREE` of the file system, or `KEEP_FREE_MOST` bytes.
const KEEP_FREE: u64 = 10;
const KEEP_FREE_MOST: u64 = 10 << 30;

/// True when `bytes` more on the file system of `teams_dir` leave its last tenth free.
pub(super) fn room_for(teams_dir: &Path, bytes: u64) -> bool {
    // The teams folder may not be made yet: its file system is its nearest folder's.
    let Some(there) = teams_dir.ancestors().find(|p| p.exists()) else { return false };
    let Ok(fs) = rustix::fs::statvfs(there) else { return false };
    let block = fs.f_frsize.max(1);
    fits(bytes, fs.f_bavail.saturating_mul(block), fs.f_blocks.saturating_mul(block))
}

/// The bytes of a copy of `project`: its tracked files' sizes as its index has them (0 when its
/// index is of a form not read here).
pub(super) fn copy_bytes(project: &Path) -> u64 {
    let dir = match crate::runtime::git::index::git_dirs(project) {
        // The project is itself a linked worktree: its own index.
        Some((dir, _)) => dir,
        None => project.join(".git"),
    };
    crate::runtime::git::index::tracked_bytes(&dir.join("index")).unwrap_or(0)
}

/// True when `need` bytes taken from `free` leave 1/`KEEP_FREE` of `total` (or
/// `KEEP_FREE_MOST`).
fn fits(need: u64, free: u64, total: u64) -> bool {
    need <= free && free - need >= (total / KEEP_FREE).min(KEEP_FREE_MOST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spare_leaves_the_last_tenth_of_the_disk_free() {
        const G: u64 = 1 << 30;
        assert!(fits(G, 50 * G, 50 * G));
        assert!(fits(2 * G, 8 * G, 50 * G), "6 of 50 left");
        assert!(!fits(2 * G, 6 * G, 50 * G), "4 of 50 left");
        assert!(fits(0, 5 * G, 50 * G) && !fits(0, 5 * G - 1, 50 * G));
        // A large disk: its last 10 GiB.
        assert!(fits(10 * G, 20 * G, 1000 * G) && !fits(11 * G, 20 * G, 1000 * G));
        assert!(!fits(2 * G, G, 2 * G), "more than is free");
    }

    #[test]
    fn a_copy_is_counted_as_its_projects_tracked_files() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::write(project.join("a.txt"), vec![b'a'; 1000]).unwrap();
        std::fs::write(project.join("src/b.txt"), vec![b'b'; 234]).unwrap();
        std::fs::write(project.join("untracked.txt"), vec![b'u'; 5000]).unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git").arg("-C").arg(&project).args(args).output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        };
        git(&["init", "-q"]);
        git(&["add", "a.txt", "src/b.txt"]);
        assert_eq!(copy_bytes(&project), 1234);
        // No disk has room for everything.
        assert!(!room_for(dir.path(), u64::MAX));
        assert!(!room_for(&dir.path().join("not/made/yet"), u64::MAX));
    }
}
