//! A worktree member's change scan read from its index (no git process) finds what git's own scan
//! finds, for every kind of change, with real git making the project, the worktree and the
//! agent's staging; where the index no longer holds the base, or the repository asks for git's
//! ways (a nested repository, a filter in `.gitattributes`), the scan is git's.

use std::path::Path;
use std::process::Command;

use sidekicks::runtime::teams::{GitWorktreeProvider, IsolationProvider, MemberCopy, Side, read_bases, read_side};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project with ignored files and folders, a link, a script, a file kept in an ignored folder
/// (`git add -f`), uncommitted changes and a linked dependency folder.
fn project(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.email", "t@example.com"]);
    git(dir, &["config", "user.name", "T"]);
    write(dir, ".gitignore", "node_modules/\n*.log\nbuild/\n");
    write(dir, "a.txt", "one\ntwo\nthree\n");
    write(dir, "same.txt", "12345\n");
    write(dir, "run.sh", "echo hi\n");
    write(dir, "gone.txt", "bye\n");
    write(dir, "moved.txt", "moving\n");
    write(dir, "becomes-folder", "a file\n");
    write(dir, "touched.txt", "touched, not changed\n");
    write(dir, "build/kept.txt", "kept in an ignored folder\n");
    std::os::unix::fs::symlink("a.txt", dir.join("link")).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["add", "-f", "build/kept.txt"]);
    git(dir, &["commit", "-q", "-m", "start"]);
    write(dir, "a.txt", "one\ntwo\nthree\nuncommitted\n");
    write(dir, "node_modules/dep/index.js", "module.exports = 1;\n");
}

/// What changed, as `changes` sees it: the paths whose content is not their base's.
fn changed(m: &MemberCopy, found: Vec<(String, Side)>) -> Vec<(String, Side)> {
    let mut found: Vec<(String, Side)> =
        found.into_iter().filter(|(p, base)| read_side(&m.copy, p).unwrap() != *base).collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn by_index(m: &MemberCopy) -> Vec<(String, Side)> {
    changed(m, GitWorktreeProvider.changed_with_bases(m).unwrap().unwrap())
}

/// Git's scan, path by path: `git diff --name-only` and `ls-files --others`, then each base.
fn by_git(m: &MemberCopy) -> Vec<(String, Side)> {
    let mut paths = GitWorktreeProvider.changed_paths(m).unwrap();
    paths.sort();
    paths.dedup();
    let bases = read_bases(m, &paths).unwrap();
    changed(m, paths.into_iter().zip(bases).collect())
}

#[test]
fn the_scan_from_the_index_finds_what_git_finds() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    std::fs::create_dir(&main).unwrap();
    project(&main);
    let m = GitWorktreeProvider.create(&main, &dir.path().join("m"), &dir.path().join("s"), "m1", "Mia").unwrap();
    let c = &m.copy;
    assert!(GitWorktreeProvider::scans_from_its_index(&m), "a new member's index holds its base");
    assert_eq!(by_index(&m), Vec::new(), "nothing changed yet");

    write(c, "a.txt", "one\nTWO\nthree\nuncommitted\n");
    write(c, "same.txt", "54321\n");
    std::fs::set_permissions(c.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(c.join("gone.txt")).unwrap();
    std::fs::rename(c.join("moved.txt"), c.join("sub/moved.txt")).unwrap_or_else(|_| {
        std::fs::create_dir_all(c.join("sub")).unwrap();
        std::fs::rename(c.join("moved.txt"), c.join("sub/moved.txt")).unwrap();
    });
    std::fs::remove_file(c.join("becomes-folder")).unwrap();
    write(c, "becomes-folder/inside.txt", "now a folder\n");
    write(c, "touched.txt", "touched, not changed\n");
    std::fs::remove_file(c.join("link")).unwrap();
    std::os::unix::fs::symlink("same.txt", c.join("link")).unwrap();
    std::os::unix::fs::symlink("a.txt", c.join("new-link")).unwrap();
    write(c, "deep/new/folder/fresh.txt", "fresh\n");
    write(c, ".hidden", "a dotfile\n");
    write(c, "build/kept.txt", "changed in an ignored folder\n");
    write(c, "build/out.o", "ignored\n");
    write(c, "debug.log", "ignored\n");
    write(c, "deep/trace.log", "ignored\n");

    assert!(GitWorktreeProvider::scans_from_its_index(&m), "edits alone keep the index as it was");
    let found = by_index(&m);
    assert_eq!(found, by_git(&m));
    let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            ".hidden",
            "a.txt",
            "becomes-folder",
            "becomes-folder/inside.txt",
            "build/kept.txt",
            "deep/new/folder/fresh.txt",
            "gone.txt",
            "link",
            "moved.txt",
            "new-link",
            "run.sh",
            "same.txt",
            "sub/moved.txt"
        ]
    );
    assert_eq!(found[1].1, Side::File { content: b"one\ntwo\nthree\nuncommitted\n".to_vec(), executable: false });

    // The agent stages a file: the index is no longer the base, git scans.
    write(c, "staged.txt", "staged\n");
    git(c, &["add", "staged.txt"]);
    assert!(!GitWorktreeProvider::scans_from_its_index(&m));
    let found = by_index(&m);
    assert_eq!(found, by_git(&m));
    assert!(found.iter().any(|(p, _)| p == "staged.txt"));
    GitWorktreeProvider.discard(&m).unwrap();
}

#[test]
fn a_nested_repository_or_a_filter_leaves_the_scan_to_git() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    std::fs::create_dir(&main).unwrap();
    project(&main);
    let provider = GitWorktreeProvider;
    let m = provider.create(&main, &dir.path().join("m"), &dir.path().join("s"), "m1", "Mia").unwrap();
    write(&m.copy, "vendor/lib/x.txt", "x\n");
    git(&m.copy.join("vendor/lib"), &["init", "-q"]);
    assert!(!GitWorktreeProvider::scans_from_its_index(&m), "a nested repository is git's to list");
    assert_eq!(by_index(&m), by_git(&m));
    std::fs::remove_dir_all(m.copy.join("vendor")).unwrap();
    assert!(GitWorktreeProvider::scans_from_its_index(&m));
    provider.discard(&m).unwrap();

    write(&main, ".gitattributes", "*.bin filter=lfs\n");
    git(&main, &["add", ".gitattributes"]);
    git(&main, &["commit", "-q", "-m", "attributes"]);
    let m = provider.create(&main, &dir.path().join("m2"), &dir.path().join("s2"), "m2", "Max").unwrap();
    assert!(!GitWorktreeProvider::scans_from_its_index(&m), "a filter is git's to apply");
    write(&m.copy, "a.txt", "changed\n");
    assert_eq!(by_index(&m), by_git(&m));
    provider.discard(&m).unwrap();
}
