//! Crash safety of merges: a merge of 1,000 changed files runs in its own process
//! (`sidekicks team-merge`) and is killed with SIGKILL at times spread over its length; the next
//! start (reattaching the team recovers) leaves the main folder entirely as before or entirely as after — never a mix —
//! and the kills are shown to have landed in the middle of merges.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use sidekicks::runtime::teams::journal::{Recovery, recover};
use sidekicks::runtime::teams::{
    CopyProvider, IsolationProvider, MemberCopy, MemberRecord, ProviderKind, TeamRecord, reattach_team,
};

use crate::common;
use common::BIN;

const FILES: usize = 1000;

fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    (0..FILES)
        .map(|i| {
            let rel = format!("src/m{}/f{i}.txt", i % 20);
            (rel.clone(), std::fs::read_to_string(dir.join(&rel)).unwrap_or_default())
        })
        .collect()
}

/// A project of 1,000 files and a member that changed every one of them.
fn scenario(dir: &Path, n: usize) -> (MemberCopy, BTreeMap<String, String>, BTreeMap<String, String>) {
    let main = dir.join(format!("project{n}"));
    for i in 0..FILES {
        let path = main.join(format!("src/m{}/f{i}.txt", i % 20));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("file {i}\nline two\nline three\n").repeat(20)).unwrap();
    }
    let member = CopyProvider { clone: false }
        .create(&main, &dir.join(format!("copy{n}")), &dir.join(format!("state{n}")), &format!("c{n}"), "Eve")
        .unwrap();
    let before = snapshot(&main);
    for i in 0..FILES {
        let path = member.copy.join(format!("src/m{}/f{i}.txt", i % 20));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("line two", &format!("line two, changed by Eve ({i})"), 1)).unwrap();
    }
    let after = snapshot(&member.copy);
    (member, before, after)
}

fn run_merge(member: &MemberCopy) -> std::process::Child {
    Command::new(BIN).arg("team-merge").arg(&member.state).stdout(std::process::Stdio::null()).spawn().unwrap()
}

#[test]
fn a_merge_killed_at_any_moment_is_all_before_or_all_after() {
    let dir = tempfile::tempdir().unwrap();
    // How long an uninterrupted merge takes here.
    let (member, _, after) = scenario(dir.path(), 0);
    let start = Instant::now();
    assert!(run_merge(&member).wait().unwrap().success());
    let length = start.elapsed();
    assert_eq!(snapshot(&member.project), after);

    let (mut before_count, mut after_count, mut interrupted) = (0, 0, 0);
    for n in 1..=12 {
        let (member, before, after) = scenario(dir.path(), n);
        let mut child = run_merge(&member);
        std::thread::sleep(length.mul_f64(n as f64 / 13.0));
        let _ = child.kill();
        let _ = child.wait();
        // What the kill interrupted, then the next start's recovery.
        let mid_merge = ["merge.staging", "merge.journal"].iter().any(|f| member.state.join(f).exists());
        // The next start reattaches the team, which finishes or rolls back the merge.
        let record = TeamRecord {
            id: format!("t{n}"),
            name: "crash".into(),
            project: member.project.clone(),
            provider: ProviderKind::Copy,
            members: vec![MemberRecord { agent: "Eve".into(), state: member.state.clone(), from: "Eve".into() }],
            lead: None,
        };
        let reattached = reattach_team(&record);
        assert!(reattached[0].1.is_ok(), "attempt {n}: {:?}", reattached[0].1);
        assert!(!["merge.staging", "merge.journal"].iter().any(|f| member.state.join(f).exists()), "attempt {n}");
        assert_eq!(recover(&member.project, &member.state).unwrap(), Recovery::Nothing);
        interrupted += usize::from(mid_merge);
        let now = snapshot(&member.project);
        if now == before {
            before_count += 1;
        } else if now == after {
            after_count += 1;
        } else {
            let mixed = now.iter().filter(|(k, v)| before[*k] != **v).count();
            panic!("attempt {n}: {mixed} of {FILES} files changed: a half-applied merge");
        }
        // No staged file is left behind.
        let leftovers = walk(&member.project).into_iter().filter(|p| p.contains(".sidekicks-")).count();
        assert_eq!(leftovers, 0, "attempt {n}");
    }
    println!("merge of {FILES} files: {length:?}; {before_count} before, {after_count} after, {interrupted} mid-merge");
    assert!(interrupted >= 2, "the kills should land in the middle of merges ({interrupted} did)");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path.display().to_string());
        }
    }
    out
}
