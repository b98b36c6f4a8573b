//! One writer at a time per project, across processes (issue 33): two `sidekicks team-merge`
//! processes started together for two members who edited different lines of the same 1,500
//! files both land (before the project's lock, one member's edits were lost in 5 of 6 tries);
//! a merge started while another process holds the project's lock says who holds it, waits,
//! and merges once it is let go.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use sidekicks::runtime::teams::lock::ProjectLock;
use sidekicks::runtime::teams::{CopyProvider, IsolationProvider, MemberCopy};

use crate::common;
use common::BIN;

const FILES: usize = 1500;

fn text(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn original() -> String {
    text(&["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])
}

fn project(dir: &Path, files: usize) -> std::path::PathBuf {
    let project = dir.join("project");
    for i in 0..files {
        let path = project.join(format!("src/m{}/f{i}.txt", i % 30));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, original()).unwrap();
    }
    project
}

fn member(dir: &Path, project: &Path, name: &str) -> MemberCopy {
    CopyProvider { clone: false }
        .create(project, &dir.join(format!("copy-{name}")), &dir.join(format!("state-{name}")), name, name)
        .unwrap()
}

/// Replaces line `from` by `to` in every file of the copy.
fn edit_all(member: &MemberCopy, files: usize, from: &str, to: &str) {
    for i in 0..files {
        let path = member.copy.join(format!("src/m{}/f{i}.txt", i % 30));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen(&format!("{from}\n"), &format!("{to}\n"), 1)).unwrap();
    }
}

fn merge_process(state: &Path) -> std::process::Child {
    Command::new(BIN).arg("team-merge").arg(state).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

#[test]
fn two_merges_at_once_both_land() {
    let dir = tempfile::tempdir().unwrap();
    let project = project(dir.path(), FILES);
    let (ada, bob) = (member(dir.path(), &project, "Ada"), member(dir.path(), &project, "Bob"));
    edit_all(&ada, FILES, "two", "2 (Ada)");
    edit_all(&bob, FILES, "seven", "7 (Bob)");
    let children = [merge_process(&ada.state), merge_process(&bob.state)];
    for child in children {
        let out = child.wait_with_output().unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(said.contains(&format!("merged: {FILES} applied")), "{said}");
    }
    let both = text(&["one", "2 (Ada)", "three", "four", "five", "six", "7 (Bob)", "eight", "nine"]);
    let lost: Vec<usize> = (0..FILES)
        .filter(|i| std::fs::read_to_string(project.join(format!("src/m{}/f{i}.txt", i % 30))).unwrap() != both)
        .collect();
    assert!(lost.is_empty(), "{} of {FILES} files lost an edit, e.g. f{}", lost.len(), lost[0]);
}

#[test]
fn a_merge_waits_for_the_lock_and_says_who_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let project = project(dir.path(), 3);
    let ada = member(dir.path(), &project, "Ada");
    edit_all(&ada, 3, "two", "2 (Ada)");
    let held = ProjectLock::acquire(&project, "merging Bob's work").unwrap();
    let mut child = merge_process(&ada.state);
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("busy: ") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "it ended without saying it waits");
    }
    assert!(line.starts_with("busy: merging Bob's work (process "), "{line}");
    // It waits: nothing of the project changed while the lock is held.
    assert_eq!(std::fs::read_to_string(project.join("src/m0/f0.txt")).unwrap(), original());
    assert!(child.try_wait().unwrap().is_none(), "the merge waits for the lock");
    drop(held);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(std::fs::read_to_string(project.join("src/m0/f0.txt")).unwrap().contains("2 (Ada)"));
}
