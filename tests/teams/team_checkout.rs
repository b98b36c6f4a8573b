//! A worktree member's files and index written by Sidekicks itself (ADR 0027) are what git's own
//! checkout writes: the same files, modes and links, an index git reads as its own (`git fsck`
//! checks its checksum and order, `git status` finds nothing, `git write-tree` from its cache tree
//! gives the commit's tree, also after one file is staged) — on a made project with awkward names
//! and on real repositories (this project's own, and `SIDEKICKS_MERGE_CORPUS`'s when named). What
//! is left to git (a `post-checkout` hook, line-end attributes in a subfolder, a setting in an
//! included config file, a submodule) is checked out by git, hook run and lines converted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use sidekicks::runtime::teams::{GitWorktreeProvider, IsolationProvider, MemberCopy};

use crate::common;
use crate::common::{git, write};

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git").arg("-C").arg(dir).args(args).output().unwrap()
}

fn member(main: &Path, dir: &Path, id: &str) -> MemberCopy {
    GitWorktreeProvider.create(main, &dir.join(format!("{id}-copy")), &dir.join(format!("{id}-state")), id, id).unwrap()
}

/// Every file under `root` but `.git`: its kind and mode, and its bytes or its link's target.
fn files(root: &Path) -> BTreeMap<String, (String, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(root.join(&rel)).unwrap() {
            let entry = entry.unwrap();
            let name = rel.join(entry.file_name());
            if name == Path::new(".git") {
                continue;
            }
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            let key = name.to_string_lossy().into_owned();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(entry.path()).unwrap();
                out.insert(key, ("link".into(), target.to_string_lossy().as_bytes().to_vec()));
            } else if meta.is_dir() {
                out.insert(key, ("folder".into(), Vec::new()));
                stack.push(name);
            } else {
                let exec = meta.permissions().mode() & 0o111 != 0;
                out.insert(key, (format!("file exec={exec}"), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    out
}

/// `copy`'s index is git's: checksum and order (`fsck`), nothing changed (`status`), the same
/// entries as git's own checkout `reference`, and a cache tree that gives the commit's tree, also
/// after a file is staged (each subtree's record is used then).
fn assert_index_is_gits(copy: &Path, reference: &Path, origin: &str) {
    let fsck = run(copy, &["fsck", "--no-dangling", "--no-progress", "--connectivity-only"]);
    let complaint = String::from_utf8_lossy(&fsck.stderr);
    assert!(fsck.status.success() && complaint.trim().is_empty(), "{origin}: {complaint}");
    assert_eq!(git(copy, &["status", "--porcelain", "--untracked-files=all"]), "", "{origin}: status");
    assert_eq!(git(copy, &["ls-files", "-s"]), git(reference, &["ls-files", "-s"]), "{origin}: entries");
    let tree = git(copy, &["rev-parse", "HEAD^{tree}"]);
    assert_eq!(git(copy, &["write-tree"]), tree, "{origin}: cache tree");
    assert_eq!(files(copy), files(reference), "{origin}: files");
}

/// Stages one change deep in `copy` and checks that `write-tree` (which reuses every subtree the
/// change did not touch) gives what a fresh index of the same files gives.
fn assert_subtrees_right(copy: &Path, path: &str) {
    std::fs::write(copy.join(path), "staged change\n").unwrap();
    git(copy, &["add", path]);
    let from_cache = git(copy, &["write-tree"]);
    // (Outside the copy, or `add -A` would add it.)
    let fresh = copy.with_extension("fresh-index");
    let out =
        Command::new("git").arg("-C").arg(copy).env("GIT_INDEX_FILE", &fresh).args(["add", "-A"]).output().unwrap();
    assert!(out.status.success());
    let out =
        Command::new("git").arg("-C").arg(copy).env("GIT_INDEX_FILE", &fresh).args(["write-tree"]).output().unwrap();
    std::fs::remove_file(&fresh).unwrap();
    assert_eq!(from_cache, String::from_utf8_lossy(&out.stdout), "subtrees of the cache tree after staging {path}");
}

/// An empty repository at `dir/main`.
fn repository(dir: &Path) -> PathBuf {
    let main = dir.join("main");
    std::fs::create_dir(&main).unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    git(&main, &["config", "user.email", "t@example.com"]);
    git(&main, &["config", "user.name", "T"]);
    main
}

#[test]
fn the_checkout_written_here_is_the_one_git_writes() {
    let dir = tempfile::tempdir().unwrap();
    let main = repository(dir.path());
    // Names whose order differs between trees and the index ("a.txt" < "a/" < "a0"), deep
    // folders, an empty file, a script, links (to a file, to a folder, dangling), non-ASCII.
    for (path, text) in [
        ("a.txt", "a\n"),
        ("a/b.txt", "b\n"),
        ("a/b/c/d/e/f.txt", "deep\n"),
        ("a-b", "dash\n"),
        ("a0", "zero\n"),
        ("empty", ""),
        ("é/ü.txt", "accents\n"),
        ("src/mod/lib.rs", "fn main() {}\n"),
        ("src/mod.rs", "mod mod;\n"),
        ("run.sh", "#!/bin/sh\necho hi\n"),
    ] {
        write(&main, path, text);
    }
    let long = format!("long/{}", "x".repeat(200));
    write(&main, &long, "a long name\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(main.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("a.txt", main.join("link")).unwrap();
    std::os::unix::fs::symlink("src/mod", main.join("folder-link")).unwrap();
    std::os::unix::fs::symlink("nowhere", main.join("dangling")).unwrap();
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-q", "-m", "start"]);

    let m = member(&main, dir.path(), "one");
    assert!(GitWorktreeProvider::checks_out_itself(&main), "nothing here asks for git's checkout");
    let reference = dir.path().join("reference");
    git(&main, &["worktree", "add", "--detach", "-q", &reference.to_string_lossy(), "HEAD"]);
    assert_index_is_gits(&m.copy, &reference, "made project");
    assert!(GitWorktreeProvider::scans_from_its_index(&m), "the change scan reads the index written here");
    assert_subtrees_right(&m.copy, "a/b/c/d/e/f.txt");

    // A project with uncommitted work: its base is checked out over HEAD's files.
    write(&main, "a/b.txt", "uncommitted\n");
    write(&main, "new/file.txt", "new\n");
    let dirty = member(&main, dir.path(), "two");
    assert_eq!(std::fs::read_to_string(dirty.copy.join("a/b.txt")).unwrap(), "uncommitted\n");
    assert_eq!(git(&dirty.copy, &["status", "--porcelain"]), "");
    assert_eq!(git(&dirty.copy, &["write-tree"]), git(&dirty.copy, &["rev-parse", "HEAD^{tree}"]));
}

#[test]
fn what_is_left_to_git_is_checked_out_by_git() {
    let dir = tempfile::tempdir().unwrap();
    let main = repository(dir.path());
    write(&main, "a.txt", "a\n");
    write(&main, "docs/.gitattributes", "*.txt eol=crlf\n");
    write(&main, "docs/read.txt", "one\ntwo\n");
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-q", "-m", "start"]);
    // Line ends asked in a subfolder's attributes: git writes them.
    assert!(!GitWorktreeProvider::checks_out_itself(&main));
    let m = member(&main, dir.path(), "crlf");
    assert_eq!(std::fs::read(m.copy.join("docs/read.txt")).unwrap(), b"one\r\ntwo\r\n");
    assert_eq!(git(&m.copy, &["status", "--porcelain"]), "");

    // A post-checkout hook: git's checkout, which runs it in the new copy.
    git(&main, &["rm", "-q", "docs/.gitattributes"]);
    git(&main, &["commit", "-q", "-m", "no attributes"]);
    assert!(GitWorktreeProvider::checks_out_itself(&main));
    let hook = main.join(".git/hooks/post-checkout");
    std::fs::write(&hook, "#!/bin/sh\necho ran > hook-ran\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(!GitWorktreeProvider::checks_out_itself(&main));
    let hooked = member(&main, dir.path(), "hook");
    assert_eq!(std::fs::read_to_string(hooked.copy.join("hook-ran")).unwrap(), "ran\n");
    std::fs::remove_file(&hook).unwrap();

    // A setting git reads from an included file (any of git's config scopes counts): CRLF lines
    // written by git.
    let extra = dir.path().join("extra.gitconfig");
    std::fs::write(&extra, "[core]\n\tautocrlf = true\n").unwrap();
    git(&main, &["config", "include.path", &extra.to_string_lossy()]);
    assert!(!GitWorktreeProvider::checks_out_itself(&main));
    let converted = member(&main, dir.path(), "autocrlf");
    assert_eq!(std::fs::read(converted.copy.join("docs/read.txt")).unwrap(), b"one\r\ntwo\r\n");
    git(&main, &["config", "--unset", "include.path"]);
    assert!(GitWorktreeProvider::checks_out_itself(&main));

    // A submodule (a gitlink entry): git's checkout, which makes its empty folder.
    let head = git(&main, &["rev-parse", "HEAD"]);
    git(&main, &["update-index", "--add", "--cacheinfo", &format!("160000,{},sub", head.trim())]);
    git(&main, &["commit", "-q", "-m", "a submodule"]);
    // (As a submodule not brought in: its empty folder.)
    std::fs::create_dir(main.join("sub")).unwrap();
    assert!(!GitWorktreeProvider::checks_out_itself(&main));
    let sub = member(&main, dir.path(), "sub");
    assert!(sub.copy.join("sub").is_dir());
    assert_eq!(git(&sub.copy, &["ls-files", "-s", "sub"]).split_whitespace().next(), Some("160000"));
}

#[test]
fn real_repositories_check_out_as_git_does() {
    let own = Path::new(env!("CARGO_MANIFEST_DIR"));
    for repo in common::history::own_and_corpus_repositories() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("project");
        git(dir.path(), &["clone", "-q", &repo.to_string_lossy(), &main.to_string_lossy()]);
        let itself = GitWorktreeProvider::checks_out_itself(&main);
        println!("{}: checked out {}", repo.display(), if itself { "here" } else { "by git" });
        let m = member(&main, dir.path(), "real");
        let reference = dir.path().join("reference");
        git(&main, &["worktree", "add", "--detach", "-q", &reference.to_string_lossy(), "HEAD"]);
        assert_index_is_gits(&m.copy, &reference, &repo.display().to_string());
        if repo == own {
            assert!(itself, "this project's own files are written here");
        }
    }
}

/// A file that cannot be written (its object is missing from the repository) fails the member's
/// creation in words, and nothing of it is kept: no worktree entry, no copy, no ref.
#[test]
fn a_checkout_that_fails_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let main = repository(dir.path());
    write(&main, "kept.txt", "kept\n");
    write(&main, "lost.txt", "this object goes missing\n");
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-q", "-m", "start"]);
    let lost = git(&main, &["rev-parse", "HEAD:lost.txt"]);
    let lost = lost.trim();
    std::fs::remove_file(main.join(".git/objects").join(&lost[..2]).join(&lost[2..])).unwrap();
    // The project's file differs from the commit's: the base (a snapshot of the project's files,
    // made while the copy is checked out) would otherwise write the missing object again.
    write(&main, "lost.txt", "changed in the project\n");
    assert!(GitWorktreeProvider::checks_out_itself(&main), "the trees are all there");
    let copy = dir.path().join("m-copy");
    let e = GitWorktreeProvider.create(&main, &copy, &dir.path().join("m-state"), "m", "m").unwrap_err();
    assert!(e.to_string().contains(lost), "the error names the missing object: {e}");
    assert!(!copy.exists(), "no copy kept");
    assert_eq!(git(&main, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1);
    assert_eq!(git(&main, &["for-each-ref", "refs/sidekicks"]), "");
}
