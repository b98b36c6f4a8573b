//! `sidekicks team-merge STATE` on issue 14's case (the member replaced a folder by a link while the
//! project edited a file in it, and both edited two other files on the same line): exit 1 with
//! every conflict listed and every marker written; 0 for a clean merge; 2 for an error, with the
//! member's copy and state folder left exactly as they were (no half-marked conflicts).

use std::path::Path;
use std::process::Command;

use sidekicks::runtime::teams::{CopyProvider, IsolationProvider, MemberCopy};

use crate::common;
use common::BIN;

const TEXT: &str = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";

fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let text = std::fs::read_to_string(root.join(rel)).unwrap();
    std::fs::write(root.join(rel), text.replacen(from, to, 1)).unwrap();
}

/// The project, and a member whose copy conflicts with it in three ways.
fn scenario(dir: &Path) -> MemberCopy {
    let project = dir.join("project");
    // One time for every file (as a fast write often gives them): the copy's scan must not take
    // `lib/src/a.rs` through the member's link for `shared/a.rs`, alike in size and time (it did
    // under load, and a conflict went unlisted).
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for rel in ["lib/src/a.rs", "lib/src/b.rs", "shared/a.rs", "x.txt", "y.txt"] {
        std::fs::create_dir_all(project.join(rel).parent().unwrap()).unwrap();
        std::fs::write(project.join(rel), TEXT).unwrap();
        std::fs::File::options().write(true).open(project.join(rel)).unwrap().set_modified(when).unwrap();
    }
    let member =
        CopyProvider { clone: false }.create(&project, &dir.join("copy"), &dir.join("state"), "m1", "Mia").unwrap();
    std::fs::remove_dir_all(member.copy.join("lib/src")).unwrap();
    std::os::unix::fs::symlink("../shared", member.copy.join("lib/src")).unwrap();
    edit(&member.copy, "x.txt", "five", "5 (member)");
    edit(&member.copy, "y.txt", "two", "2 (member)");
    edit(&project, "lib/src/a.rs", "three", "THREE");
    edit(&project, "x.txt", "five", "5 (main)");
    edit(&project, "y.txt", "two", "2 (main)");
    member
}

fn run(state: &Path) -> (i32, String, String) {
    let out = Command::new(BIN).arg("team-merge").arg(state).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

#[test]
fn conflicts_exit_1_with_every_marker_written() {
    let dir = tempfile::tempdir().unwrap();
    let member = scenario(dir.path());
    let project_before = [read(&member.project, "x.txt"), read(&member.project, "lib/src/a.rs")];
    let (code, out, err) = run(&member.state);
    assert_eq!(code, 1, "{out}{err}");
    for path in ["lib/src/a.rs", "x.txt", "y.txt"] {
        assert!(out.contains(path), "{path} listed: {out}");
    }
    for rel in ["x.txt", "y.txt"] {
        let text = read(&member.copy, rel);
        assert!(text.contains("<<<<<<< main\n") && text.contains(">>>>>>> Mia\n"), "{rel}: {text}");
    }
    assert!(std::fs::symlink_metadata(member.copy.join("lib/src")).unwrap().file_type().is_symlink());
    assert_eq!(read(&member.copy, "shared/a.rs"), TEXT, "nothing written through the link");
    assert_eq!([read(&member.project, "x.txt"), read(&member.project, "lib/src/a.rs")], project_before);
    assert!(member.state.join("rebased.json").is_file(), "the conflicts are recorded");
}

#[test]
fn a_failure_part_way_exits_2_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let member = scenario(dir.path());
    // The member copy's journal cannot be written: its staging list's place is taken by a folder.
    std::fs::create_dir_all(member.state.join("member-journal/merge.staging/taken")).unwrap();
    let copy_before = [read(&member.copy, "x.txt"), read(&member.copy, "y.txt")];
    let (code, out, err) = run(&member.state);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("error"), "{err}");
    assert_eq!([read(&member.copy, "x.txt"), read(&member.copy, "y.txt")], copy_before, "no half-marked conflicts");
    assert!(!member.state.join("rebased.json").exists(), "the state folder is as it was");
    // Once the obstacle is gone, the same merge reports its conflicts.
    std::fs::remove_dir_all(member.state.join("member-journal/merge.staging")).unwrap();
    assert_eq!(run(&member.state).0, 1);
}

#[test]
fn a_clean_merge_exits_0_and_a_missing_state_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("x.txt"), TEXT).unwrap();
    let member = CopyProvider { clone: false }
        .create(&project, &dir.path().join("copy"), &dir.path().join("state"), "m1", "Mia")
        .unwrap();
    edit(&member.copy, "x.txt", "five", "5 (member)");
    let (code, out, _) = run(&member.state);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("merged"), "{out}");
    assert!(read(&project, "x.txt").contains("5 (member)"));
    let (code, _, err) = run(&dir.path().join("nowhere"));
    assert_eq!(code, 2);
    assert!(err.contains("error"), "{err}");
}

/// Issue 33: after a conflict the markers are in the member's copy; merging again before the
/// member resolved them merges the rest and refuses those paths, naming them; once resolved,
/// they merge.
#[test]
fn a_path_still_holding_the_markers_is_not_merged_until_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("x.txt"), TEXT).unwrap();
    let member = CopyProvider { clone: false }
        .create(&project, &dir.path().join("copy"), &dir.path().join("state"), "m1", "Mia")
        .unwrap();
    edit(&member.copy, "x.txt", "five", "5 (member)");
    edit(&project, "x.txt", "five", "5 (main)");
    let (code, out, _) = run(&member.state);
    assert_eq!(code, 1, "{out}");
    assert!(read(&member.copy, "x.txt").contains("<<<<<<< main\n"));
    // More work, the conflict left as it is.
    std::fs::write(member.copy.join("new.txt"), "new\n").unwrap();
    let (code, out, err) = run(&member.state);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("merged: 1 applied"), "{out}");
    assert!(out.contains("still holding conflict markers: 1\n  x.txt"), "{out}");
    assert_eq!(read(&project, "new.txt"), "new\n", "the rest merged");
    assert!(!read(&project, "x.txt").contains("<<<<<<<"), "no markers in the project");
    assert!(read(&project, "x.txt").contains("5 (main)"));
    // Resolved: it merges.
    let resolved = TEXT.replace("five", "5 (main and member)");
    std::fs::write(member.copy.join("x.txt"), &resolved).unwrap();
    let (code, out, _) = run(&member.state);
    assert_eq!(code, 0, "{out}");
    assert_eq!(read(&project, "x.txt"), resolved);
}

/// A git worktree member's merge reads the base's trees and blobs, the member's index and the
/// folders in this process: it starts no git process (issue 37: four per merge before).
#[test]
fn a_git_worktree_members_merge_starts_no_git_process() {
    use sidekicks::runtime::teams::GitWorktreeProvider;
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join("src/deep")).unwrap();
    for rel in ["src/deep/a.rs", "b.txt", "c.txt"] {
        std::fs::write(project.join(rel), TEXT).unwrap();
    }
    let git = |args: &[&str]| common::git(&project, args);
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"]);
    let member =
        GitWorktreeProvider.create(&project, &dir.path().join("copy"), &dir.path().join("state"), "m1", "Mia").unwrap();
    edit(&member.copy, "src/deep/a.rs", "three", "THREE (member)");
    std::fs::write(member.copy.join("new.txt"), "new\n").unwrap();
    std::fs::remove_file(member.copy.join("c.txt")).unwrap();
    edit(&project, "b.txt", "two", "2 (main)");
    // The agent committed part of its work, as agents do: its index no longer holds the base.
    common::git(&member.copy, &["add", "new.txt", "c.txt"]);
    common::git(&member.copy, &["-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qm", "agent's work"]);
    // A `git` first on the PATH that writes down each time it is started.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = dir.path().join("git-calls");
    let real = String::from_utf8(Command::new("sh").args(["-c", "command -v git"]).output().unwrap().stdout).unwrap();
    std::fs::write(bin.join("git"), format!("#!/bin/sh\necho \"$*\" >> {log:?}\nexec {} \"$@\"\n", real.trim()))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = Command::new(BIN).arg("team-merge").arg(&member.state).env("PATH", path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&project, "src/deep/a.rs"), TEXT.replacen("three", "THREE (member)", 1));
    assert_eq!(read(&project, "b.txt"), TEXT.replacen("two", "2 (main)", 1));
    assert_eq!(read(&project, "new.txt"), "new\n");
    assert!(!project.join("c.txt").exists());
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(calls, "", "git was started during the merge");
}
