//! "Restore" on a turn, through the window (egui_kittest) against the demo agent: its turn writes
//! a file through Sidekicks; Restore brings the workspace back byte for byte (in a git project and
//! in a plain folder); Undo brings the agent's work back; the checkpoint survives a restart.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::model::conversation::Role;
use sidekicks::runtime::store::Store;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(30);

/// Every file under `dir` but `.git`, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            } else if path.is_dir() {
                stack.push(path);
            } else {
                all.insert(path.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&path).unwrap());
            }
        }
    }
    all
}

/// Waits for a restore's confirmation ("Restore N files") and presses it.
fn confirm_restore(h: &mut egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>) {
    let is_confirm = |label: &str| {
        label.strip_prefix("Restore ").and_then(|l| l.split(' ').next()).is_some_and(|n| n.parse::<u32>().is_ok())
    };
    step_until(h, LONG, "the restore's confirmation", |h| {
        h.query_all_by_label_contains("Restore ").any(|n| n.accesskit_node().label().is_some_and(|l| is_confirm(&l)))
    });
    let node =
        h.query_all_by_label_contains("Restore ").find(|n| n.accesskit_node().label().is_some_and(|l| is_confirm(&l)));
    node.unwrap().click();
    h.step();
}

/// The demo agent writes `notes/demo.md` in `project`; Restore, then Undo, through the window.
fn restore_and_undo(project: &Path, config_dir: &Path) {
    std::fs::write(project.join("readme.txt"), "the person's file\n").unwrap();
    std::fs::create_dir_all(project.join("notes")).unwrap();
    std::fs::write(project.join("notes/demo.md"), "the person's notes\n").unwrap();
    let before = files(project);
    let rt = runtime();
    let db = config_dir.join("db/sidekicks.db");
    let text = config_text("", &[("demo", BIN, &["demo-agent"])], project);
    {
        let mut h = window(&text, config_dir, &rt, Some(Store::open(&db).unwrap()));
        step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
        send(&mut h, "files");
        step_until(&mut h, LONG, "the turn", |h| {
            h.state().state.agent("demo").unwrap().conversation.messages.iter().any(|m| m.end.is_some())
        });
        let after = files(project);
        assert_ne!(after, before, "the turn wrote notes/demo.md");
        let asked = h.state().state.agent("demo").unwrap().conversation.messages.iter().find(|m| m.role == Role::User);
        assert!(asked.unwrap().checkpoint.is_some(), "the message carries its checkpoint");

        h.get_by_label("Restore").click();
        confirm_restore(&mut h);
        step_until(&mut h, LONG, "restored", |h| h.query_by_label_contains("is back as it was").is_some());
        assert_eq!(files(project), before, "byte-identical to before the turn");

        h.get_by_label("Undo").click();
        // The restore's notice now says it was undone (a second notice said "back as it was
        // before that turn", the opposite of what happened).
        step_until(&mut h, LONG, "undone", |h| h.query_by_label_contains("Restore undone").is_some());
        assert!(h.query_by_label_contains("as it was before that turn").is_none());
        assert!(h.query_by_label("Undo").is_none(), "nothing more to undo");
        assert_eq!(files(project), after, "the agent's work is back, byte for byte");
        h.state_mut().shutdown();
    }
    // After a restart: the same one notice; the turn can still be restored.
    let mut h = window(&text, config_dir, &rt, Some(Store::open(&db).unwrap()));
    step_until(&mut h, LONG, "the history", |h| h.query_by_label("Restore").is_some());
    assert_eq!(h.query_all_by_label_contains("Restore undone").count(), 1);
    assert!(h.query_by_label_contains("as it was before that turn").is_none());
    h.get_by_label("Restore").click();
    confirm_restore(&mut h);
    step_until(&mut h, LONG, "restored again", |h| h.query_by_label_contains("as it was before that turn").is_some());
    assert_eq!(files(project), before);
    h.state_mut().shutdown();
}

#[test]
fn a_turn_in_a_git_project_is_restored_and_the_restore_undone() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    std::fs::write(project.join("committed.txt"), "committed\n").unwrap();
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "start"]);
    restore_and_undo(&project, dir.path());
}

#[test]
fn a_turn_in_a_plain_folder_is_restored_and_the_restore_undone() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    restore_and_undo(&project, dir.path());
}

#[test]
fn restore_waits_for_the_turn_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    // A turn that wrote a file: its Restore.
    send(&mut h, "files");
    step_until(&mut h, LONG, "the files turn counted", |h| {
        let demo = h.state().state.agent("demo").unwrap();
        demo.conversation.messages.first().is_some_and(|m| m.changed == Some(1))
            && demo.state == sidekicks::app::AgentState::Idle
    });
    send(&mut h, "wait");
    step_until(&mut h, LONG, "busy", |h| {
        h.state().state.agent("demo").unwrap().state == sidekicks::app::AgentState::Busy
    });
    // The running turn shows none yet (its count comes when it ends); the earlier one's waits.
    assert_eq!(h.query_all_by_label("Restore").count(), 1);
    assert!(h.get_by_label("Restore").accesskit_node().is_disabled(), "not while the turn runs");
    h.state_mut().send(sidekicks::app::Command::Agent("demo".into(), sidekicks::app::AgentCommand::Cancel));
    step_until(&mut h, LONG, "stopped", |h| {
        h.state().state.agent("demo").unwrap().state == sidekicks::app::AgentState::Idle
    });
    // Stopped, the turn changed nothing (it only counted): nothing to restore or review there.
    step_until(&mut h, LONG, "the wait turn counted", |h| {
        h.state().state.agent("demo").unwrap().conversation.messages.iter().filter(|m| m.changed.is_some()).count() == 2
    });
    assert_eq!(h.query_all_by_label("Restore").count(), 1);
    assert!(!h.get_by_label("Restore").accesskit_node().is_disabled(), "the earlier turn can be restored now");
    h.state_mut().shutdown();
}

/// Changes and Restore show only on turns that changed files, and a restore asks first, naming
/// what it puts back (issue 48, item 3): `diff` only shows a diff (nothing written), `files`
/// writes one file; Cancel changes nothing.
#[test]
fn restore_shows_on_turns_that_changed_files_and_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], &project), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    let ended = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>, n: usize| {
        let demo = h.state().state.agent("demo").unwrap();
        let counted = demo.conversation.messages.iter().filter(|m| m.changed.is_some()).count();
        counted == n && demo.state == sidekicks::app::AgentState::Idle
    };
    send(&mut h, "diff");
    step_until(&mut h, LONG, "the diff turn counted", |h| ended(h, 1));
    assert!(h.query_by_label("Restore").is_none(), "a turn that wrote nothing has no Restore");
    assert!(h.query_by_label("Changes").is_none(), "nor Changes");

    send(&mut h, "files");
    step_until(&mut h, LONG, "the files turn counted", |h| ended(h, 2));
    assert_eq!(h.query_all_by_label("Restore").count(), 1, "only on the turn that wrote");
    let before = files(&project);
    h.get_by_label("Restore").click();
    step_until(&mut h, LONG, "what it would put back", |h| {
        h.query_by_label_contains("back as it was before this turn: notes/").is_some()
    });
    h.get_by_label("Cancel").click();
    step_until(&mut h, LONG, "the question gone", |h| h.query_by_label_contains("before this turn: notes/").is_none());
    assert_eq!(files(&project), before, "Cancel changed nothing");
    h.get_by_label("Restore").click();
    confirm_restore(&mut h);
    step_until(&mut h, LONG, "restored", |h| h.query_by_label_contains("is back as it was").is_some());
    assert!(!project.join("notes/demo.md").exists(), "the file the turn wrote is gone");
    h.state_mut().shutdown();
}
