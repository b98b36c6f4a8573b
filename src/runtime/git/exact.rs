//! Whether a worktree is exactly a commit, told without git's processes: its HEAD names the
//! commit, its index holds the commit's tree (the cache tree's root), every tracked file's `stat`
//! is the index's (git's own comparison, ctime included, racy files counted as changed), and the
//! folder holds nothing else — no untracked or ignored file, no other folder. A spare worktree
//! that is exactly the project's HEAD is given to a team as it is (issue 50): `git checkout
//! --force` and `git clean -ffdx` would leave every file as it is. Anything else, and anything
//! this reader does not read as git would (`index::read_for_commit`), answers `false`: git makes it
//! so then.

use std::collections::HashSet;
use std::path::Path;

/// True when the worktree at `copy` (git folder `dir`, common folder `common`) is exactly
/// commit `head` (hex) and holds nothing else.
#[cfg(unix)]
pub(crate) fn is_commit(copy: &Path, dir: &Path, common: &Path, head: &str) -> bool {
    let at_head = std::fs::read_to_string(dir.join("HEAD")).is_ok_and(|h| h.trim_end() == head);
    if !at_head {
        return false;
    }
    let Some(read) = super::index::read_for_commit(copy, dir, common) else { return false };
    let tree = super::tree::commit_tree(&common.join("objects"), head);
    if tree.is_none() || read.root() != tree.as_deref() {
        return false;
    }
    if super::index::stat_changed(copy, &read).into_iter().any(|changed| changed) {
        return false;
    }
    let tracked: HashSet<&str> = read.index.entries.iter().map(|e| e.path.as_str()).collect();
    let folders: HashSet<&str> = tracked.iter().flat_map(|p| p.match_indices('/').map(|(at, _)| &p[..at])).collect();
    nothing_else(copy, "", &tracked, &folders)
}

#[cfg(not(unix))]
pub(crate) fn is_commit(_copy: &Path, _dir: &Path, _common: &Path, _head: &str) -> bool {
    false
}

/// True when folder `at` (`relative` to the worktree's top, "" for the top) holds only tracked
/// files and folders that hold some (links are not followed; the top's `.git` file is git's).
fn nothing_else(at: &Path, relative: &str, tracked: &HashSet<&str>, folders: &HashSet<&str>) -> bool {
    let Ok(entries) = std::fs::read_dir(at) else { return false };
    for entry in entries {
        let Ok(entry) = entry else { return false };
        let Ok(kind) = entry.file_type() else { return false };
        let name = entry.file_name();
        let Some(name) = name.to_str() else { return false };
        if relative.is_empty() && name == ".git" && kind.is_file() {
            continue;
        }
        let path = if relative.is_empty() { name.to_string() } else { format!("{relative}/{name}") };
        let fits = if kind.is_dir() {
            folders.contains(path.as_str()) && nothing_else(&entry.path(), &path, tracked, folders)
        } else {
            (kind.is_file() || kind.is_symlink()) && tracked.contains(path.as_str())
        };
        if !fits {
            return false;
        }
    }
    true
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A project of a few files and a worktree of it written here (`checkout::write`): (copy,
    /// its git folder, the common one, HEAD).
    fn worktree(root: &Path) -> (PathBuf, PathBuf, PathBuf, String) {
        let project = root.join("project");
        std::fs::create_dir_all(project.join("src/deep")).unwrap();
        std::fs::write(project.join("notes.txt"), "one\n").unwrap();
        std::fs::write(project.join("src/lib.rs"), "pub fn one() {}\n").unwrap();
        std::fs::write(project.join("src/deep/x.rs"), "// x\n").unwrap();
        std::fs::write(project.join(".gitignore"), "target/\n").unwrap();
        std::os::unix::fs::symlink("notes.txt", project.join("link")).unwrap();
        git(&project, &["init", "-q", "-b", "main"]);
        git(&project, &["add", "-A"]);
        git(&project, &["-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "-m", "start"]);
        let head = git(&project, &["rev-parse", "HEAD"]);
        let copy = root.join("copy");
        git(&project, &["worktree", "add", "--no-checkout", "--detach", "-q", copy.to_str().unwrap(), "HEAD"]);
        let (dir, common) = super::super::index::git_dirs(&copy).unwrap();
        super::super::checkout::write(&common.join("objects"), &head, &copy, &dir.join("index")).unwrap().unwrap();
        (copy, dir, common, head)
    }

    #[test]
    fn a_worktree_written_here_is_exactly_its_commit() {
        let root = tempfile::tempdir().unwrap();
        let (copy, dir, common, head) = worktree(root.path());
        assert!(is_commit(&copy, &dir, &common, &head));
        // git agrees, and its status leaves it so.
        assert_eq!(git(&copy, &["status", "--porcelain", "--ignored"]), "");
        assert!(is_commit(&copy, &dir, &common, &head));
    }

    #[test]
    fn anything_but_the_commit_is_not() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 8] = [
            ("an untracked file", |c| std::fs::write(c.join("new.txt"), "x").unwrap()),
            ("an ignored file", |c| {
                std::fs::create_dir(c.join("target")).unwrap();
                std::fs::write(c.join("target/out.o"), "x").unwrap();
            }),
            ("an empty folder", |c| std::fs::create_dir(c.join("src/empty")).unwrap()),
            ("a removed file", |c| std::fs::remove_file(c.join("src/deep/x.rs")).unwrap()),
            ("a file changed, its size and time kept", |c| {
                let path = c.join("notes.txt");
                let before = std::fs::metadata(&path).unwrap().modified().unwrap();
                std::fs::write(&path, "ONE\n").unwrap();
                std::fs::File::options().write(true).open(&path).unwrap().set_modified(before).unwrap();
            }),
            ("a folder made a link out", |c| {
                std::fs::rename(c.join("src/deep"), c.join("moved")).unwrap();
                std::os::unix::fs::symlink(c.join("moved"), c.join("src/deep")).unwrap();
            }),
            ("a link made a file", |c| {
                std::fs::remove_file(c.join("link")).unwrap();
                std::fs::write(c.join("link"), "notes.txt").unwrap();
            }),
            ("a nested git folder", |c| std::fs::create_dir(c.join("src/.git")).unwrap()),
        ];
        for (what, change) in changes {
            let root = tempfile::tempdir().unwrap();
            let (copy, dir, common, head) = worktree(root.path());
            change(&copy);
            assert!(!is_commit(&copy, &dir, &common, &head), "{what}");
        }
        // Another HEAD.
        let root = tempfile::tempdir().unwrap();
        let (copy, dir, common, head) = worktree(root.path());
        assert!(!is_commit(&copy, &dir, &common, &"0".repeat(40)));
        std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert!(!is_commit(&copy, &dir, &common, &head));
    }

    #[test]
    fn the_index_written_here_is_newer_than_its_files() {
        use std::os::unix::fs::MetadataExt;
        let root = tempfile::tempdir().unwrap();
        let (copy, dir, _, _) = worktree(root.path());
        let stamp = |p: &Path| {
            let m = std::fs::symlink_metadata(p).unwrap();
            (m.mtime(), m.mtime_nsec())
        };
        let index = stamp(&dir.join("index"));
        for file in ["notes.txt", "src/lib.rs", "src/deep/x.rs", ".gitignore", "link"] {
            assert!(stamp(&copy.join(file)) < index, "{file} is racy");
        }
    }
}
