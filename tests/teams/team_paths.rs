//! Every kind of path change git can merge, merged by a team member and by git side by side: a
//! folder becoming a link or a file and back, delete/modify both ways, rename/modify, mode changes,
//! binary files, links. The team merge never fails with an error: it merges where git merges (to
//! the same tree) and conflicts where git conflicts; where git follows a rename the team merge
//! reports a conflict instead (it does not detect renames while merging), never a wrong result.
//! Conflicts leave the project untouched.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::common::write;
use sidekicks::runtime::teams::{GitWorktreeProvider, IsolationProvider, merge};

type Ops = fn(&Path);

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@x", "-c", "init.defaultBranch=main"])
        .args(args)
        .output()
        .unwrap()
}

fn link(root: &Path, rel: &str, target: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    std::os::unix::fs::symlink(target, path).unwrap();
}

fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let text = std::fs::read_to_string(root.join(rel)).unwrap();
    assert!(text.contains(from), "{rel} has no {from:?}");
    std::fs::write(root.join(rel), text.replacen(from, to, 1)).unwrap();
}

const TEXT: &str = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";

fn base(root: &Path) {
    write(root, "lib/src/a.rs", TEXT);
    write(root, "lib/src/b.rs", "fn b() {}\n");
    write(root, "shared/a.rs", "shared\n");
    write(root, "x.txt", TEXT);
    write(root, "y.txt", TEXT);
    write(root, "doc.txt", TEXT);
    write(root, "tool.sh", TEXT);
    std::fs::write(root.join("blob.bin"), b"\0\x01\x02binary").unwrap();
    link(root, "current", "x.txt");
}

/// The tree below `root` without `.git`: files (content, executable) and links.
fn tree(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if rel == ".git" {
                continue;
            } else if meta.file_type().is_symlink() {
                out.insert(rel, format!("link {}", std::fs::read_link(&path).unwrap().display()));
            } else if meta.is_dir() {
                stack.push(path);
            } else {
                let x = meta.permissions().mode() & 0o111 != 0;
                out.insert(
                    rel,
                    format!(
                        "{} {}",
                        if x { "x" } else { "-" },
                        String::from_utf8_lossy(&std::fs::read(&path).unwrap())
                    ),
                );
            }
        }
    }
    out
}

/// git's verdict: the merged tree, or None for a conflict.
fn git_merge(dir: &Path, main: Ops, member: Ops) -> Option<BTreeMap<String, String>> {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    base(dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
    git(dir, &["checkout", "-qb", "member"]);
    member(dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "member"]);
    git(dir, &["checkout", "-q", "main"]);
    main(dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "main"]);
    let out = git(dir, &["merge", "--no-edit", "-q", "member"]);
    match out.status.code() {
        Some(0) => Some(tree(dir)),
        Some(1) => None,
        other => panic!("git merge: {other:?} {}", String::from_utf8_lossy(&out.stderr)),
    }
}

/// The team's verdict, the same way; on a conflict, checks the project was left as it was.
fn team_merge(dir: &Path, main: Ops, member: Ops) -> Option<BTreeMap<String, String>> {
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    git(&project, &["init", "-q"]);
    base(&project);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "base"]);
    let copy = GitWorktreeProvider.create(&project, &dir.join("copy"), &dir.join("state"), "m1", "Mia").unwrap();
    member(&copy.copy);
    main(&project);
    let before = tree(&project);
    let report = merge(&copy, None).expect("a merge never fails with an error");
    if report.conflicts.is_empty() {
        Some(tree(&project))
    } else {
        assert_eq!(tree(&project), before, "a conflict leaves the project untouched");
        None
    }
}

fn untouched(_: &Path) {}

/// (name, main's changes, member's changes, git follows a rename here)
const CASES: &[(&str, Ops, Ops, bool)] = &[
    (
        "member replaces a folder by a link, project edits inside it, both edit two files alike",
        |r| {
            edit(r, "lib/src/a.rs", "three", "THREE");
            edit(r, "x.txt", "five", "5 (main)");
            edit(r, "y.txt", "two", "2 (main)");
        },
        |r| {
            std::fs::remove_dir_all(r.join("lib/src")).unwrap();
            link(r, "lib/src", "../shared");
            edit(r, "x.txt", "five", "5 (member)");
            edit(r, "y.txt", "two", "2 (member)");
        },
        false,
    ),
    (
        "member replaces a folder by a link",
        untouched,
        |r| {
            std::fs::remove_dir_all(r.join("lib/src")).unwrap();
            link(r, "lib/src", "../shared");
        },
        false,
    ),
    (
        "member replaces a folder by a file",
        untouched,
        |r| {
            std::fs::remove_dir_all(r.join("lib/src")).unwrap();
            write(r, "lib/src", "now a file\n");
        },
        false,
    ),
    (
        "member replaces a folder by a file, project adds a file in it",
        |r| write(r, "lib/src/c.rs", "new\n"),
        |r| {
            std::fs::remove_dir_all(r.join("lib/src")).unwrap();
            write(r, "lib/src", "now a file\n");
        },
        false,
    ),
    (
        "member replaces a file by a folder",
        untouched,
        |r| {
            std::fs::remove_file(r.join("doc.txt")).unwrap();
            write(r, "doc.txt/index.md", "a folder now\n");
        },
        false,
    ),
    (
        "member replaces a link by a folder",
        untouched,
        |r| {
            std::fs::remove_file(r.join("current")).unwrap();
            write(r, "current/x.txt", "a folder now\n");
        },
        false,
    ),
    (
        "project replaces a folder by a link, member edits inside it",
        |r| {
            std::fs::remove_dir_all(r.join("lib/src")).unwrap();
            link(r, "lib/src", "../shared");
        },
        |r| edit(r, "lib/src/a.rs", "three", "THREE"),
        false,
    ),
    (
        "member replaces a file by a link, project edits the file",
        |r| edit(r, "doc.txt", "one", "ONE"),
        |r| {
            std::fs::remove_file(r.join("doc.txt")).unwrap();
            link(r, "doc.txt", "x.txt");
        },
        false,
    ),
    (
        "member deletes a file the project edits",
        |r| edit(r, "doc.txt", "one", "ONE"),
        |r| {
            std::fs::remove_file(r.join("doc.txt")).unwrap();
        },
        false,
    ),
    (
        "member edits a file the project deletes",
        |r| std::fs::remove_file(r.join("doc.txt")).unwrap(),
        |r| edit(r, "doc.txt", "one", "ONE"),
        false,
    ),
    (
        "member deletes a folder's files, project untouched",
        untouched,
        |r| {
            std::fs::remove_dir_all(r.join("lib")).unwrap();
        },
        false,
    ),
    (
        "member renames a file the project edits",
        |r| edit(r, "doc.txt", "nine", "NINE"),
        |r| {
            std::fs::rename(r.join("doc.txt"), r.join("docs.txt")).unwrap();
        },
        true,
    ),
    (
        "member makes a file executable, project edits it",
        |r| edit(r, "tool.sh", "one", "ONE"),
        |r| {
            std::fs::set_permissions(r.join("tool.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        },
        false,
    ),
    (
        "both change a binary file",
        |r| std::fs::write(r.join("blob.bin"), b"\0main").unwrap(),
        |r| std::fs::write(r.join("blob.bin"), b"\0member").unwrap(),
        false,
    ),
    ("member changes a binary file", untouched, |r| std::fs::write(r.join("blob.bin"), b"\0member").unwrap(), false),
    ("both point a link elsewhere", |r| link(r, "current", "y.txt"), |r| link(r, "current", "doc.txt"), false),
    (
        "member points a link elsewhere, project edits its target",
        |r| edit(r, "x.txt", "one", "ONE"),
        |r| link(r, "current", "doc.txt"),
        false,
    ),
    (
        "both edit the same lines",
        |r| edit(r, "x.txt", "four", "4 main"),
        |r| edit(r, "x.txt", "four", "4 member"),
        false,
    ),
    (
        "both edit different lines",
        |r| edit(r, "x.txt", "two", "2 main"),
        |r| edit(r, "x.txt", "nine", "9 member"),
        false,
    ),
];

#[test]
fn path_changes_merge_as_git_merges_them() {
    let mut verdicts = Vec::new();
    for (n, (name, main, member, rename)) in CASES.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let expected = git_merge(&dir.path().join("git"), *main, *member);
        let ours = team_merge(&dir.path().join("team"), *main, *member);
        if *rename {
            assert!(expected.is_some(), "case {n} ({name}): git follows the rename");
            assert_eq!(ours, None, "case {n} ({name}): a rename the project edited is a conflict");
        } else {
            assert_eq!(
                ours.is_some(),
                expected.is_some(),
                "case {n} ({name}): git {} ",
                if expected.is_some() { "merges" } else { "conflicts" }
            );
            assert_eq!(ours, expected, "case {n} ({name})");
        }
        verdicts.push(format!("{name}: {}", if expected.is_some() { "merged" } else { "conflict" }));
    }
    println!("{}", verdicts.join("\n"));
    let merged = verdicts.iter().filter(|v| v.ends_with("merged")).count();
    assert!(merged >= 8 && verdicts.len() - merged >= 8, "both verdicts exercised: {verdicts:#?}");
}
