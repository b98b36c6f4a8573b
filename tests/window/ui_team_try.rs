//! Best of N in the window (issue 47): "Try with several agents…" — one attempt each of two demo
//! agents, one task — then the compare page: the attempts side by side, the check run in each
//! copy, two hunks that meet refused (nothing written), and hunks from two attempts merged.

use std::time::Duration;

use egui_kittest::kittest::{NodeT, Queryable};

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(60);

#[test]
fn two_attempts_are_compared_and_hunks_from_both_are_merged() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("notes.txt"), "first\nsecond\nthird\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let demo: &[&str] = &["demo-agent"];
    let config = config_text("", &[("ada", BIN, demo), ("bob", BIN, demo)], &home);
    let rt = runtime();
    let mut h = window(&config, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bob").is_some());

    // The form: a name, the project, one attempt of each agent, the task.
    h.get_by_label("Try with several agents…").click();
    h.step();
    h.step();
    h.get_all_by_role(egui::accesskit::Role::TextInput).next().unwrap().type_text("best");
    h.step();
    // The project first (else the first agent chosen puts its folder there).
    h.get_all_by_role(egui::accesskit::Role::TextInput).nth(1).unwrap().click();
    h.step();
    h.get_all_by_role(egui::accesskit::Role::TextInput).nth(1).unwrap().type_text(project.to_str().unwrap());
    h.step();
    h.get_all_by_label("+").next().unwrap().click();
    h.step();
    h.get_all_by_label("+").nth(1).unwrap().click();
    h.step();
    h.get_by_role(egui::accesskit::Role::MultilineTextInput).click();
    h.step();
    h.get_by_role(egui::accesskit::Role::MultilineTextInput).type_text("files: an idea");
    h.step();
    h.get_by_label("Start the attempts").click();
    // The team opens on its compare page; both attempts end and are read.
    step_until(&mut h, LONG, "the attempts", |h| {
        let team = h.state().state.teams.teams.first();
        team.is_some_and(|t| t.attempts.len() == 2)
            && h.query_by_label_contains("Attempts at “files: an idea”").is_some()
    });
    let team = h.state().state.teams.teams[0].clone();
    assert_eq!(team.info.members.len(), 2);
    assert!(team.tasks.iter().all(|t| t.text == "files: an idea" && t.by.is_none()), "{:?}", team.tasks);
    assert_eq!(h.get_all_by_label("files: 1, lines +3 −0").count(), 2, "each attempt's changes");
    h.get_by_label("Run the check in each copy").click();
    step_until(&mut h, LONG, "the checks", |h| h.query_all_by_label("no check in the recipe").count() == 2);

    // Both change the first line: chosen together, refused, nothing written.
    let copy = |i: usize| team.info.members[i].1.as_ref().unwrap().copy.clone();
    std::fs::write(copy(0).join("notes.txt"), "first (ada)\nsecond\nthird\n").unwrap();
    std::fs::write(copy(1).join("notes.txt"), "first (bob)\nsecond\nthird\n").unwrap();
    let hunk = "notes.txt @@ -1,3 +1,3 @@ (+1 −1)";
    h.get_by_label("Read the changes again").click();
    step_until(&mut h, LONG, "the hunks", |h| h.query_all_by_label(hunk).count() == 2);
    choose(&mut h, hunk, 0, "Merge the chosen hunks (1)");
    choose(&mut h, hunk, 1, "Merge the chosen hunks (2)");
    merge_chosen(&mut h);
    let refused = "ada's and bob's chosen changes touch the same lines of notes.txt";
    step_until(&mut h, LONG, "refused", |h| h.query_by_label_contains(refused).is_some());
    assert_eq!(std::fs::read_to_string(project.join("notes.txt")).unwrap(), "first\nsecond\nthird\n");

    // Bob's change moves to the last line: both taken.
    std::fs::write(copy(1).join("notes.txt"), "first\nsecond\nthird (bob)\n").unwrap();
    h.get_by_label("Read the changes again").click();
    step_until(&mut h, LONG, "bob's new hunk", |h| {
        h.state().state.teams.teams[0].attempts.get(&team.info.members[1].0).is_some_and(|r| {
            r.as_ref().is_ok_and(|f| {
                f.iter().any(|f| f.diff.as_ref().is_some_and(|d| d.hunks.iter().any(|h| h.old.end == 3)))
            })
        })
    });
    choose(&mut h, hunk, 0, "Merge the chosen hunks (1)");
    choose(&mut h, hunk, 1, "Merge the chosen hunks (2)");
    merge_chosen(&mut h);
    step_until(&mut h, LONG, "merged", |h| {
        h.query_by_label_contains("Merged: ada (notes.txt); bob (notes.txt)").is_some()
    });
    assert_eq!(std::fs::read_to_string(project.join("notes.txt")).unwrap(), "first (ada)\nsecond\nthird (bob)\n");
}

/// Ticks the `i`th box labelled `label` until `chosen` (the merge button's new count) shows: a
/// click on a frame whose layout then moves can miss its box, and while an attempt is read again
/// (its copy changed) its boxes are not drawn — waited for, not clicked blindly.
fn choose(h: &mut egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>, label: &str, i: usize, chosen: &str) {
    let deadline = std::time::Instant::now() + LONG;
    while std::time::Instant::now() < deadline {
        if h.query_by_label(chosen).is_some() {
            return;
        }
        // Only with both attempts' boxes drawn (one read again draws none: the `i`th box would
        // then be the other attempt's).
        let boxes: Vec<_> = h.query_all_by_label(label).collect();
        if boxes.len() == 2 {
            boxes[i].click();
        }
        for _ in 0..4 {
            h.step();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{chosen} never showed");
}

/// Presses "Merge the chosen hunks (2)" until it is taken (the choices then clear): while an
/// attempt is read again (its copy changed under it) the button waits, disabled.
fn merge_chosen(h: &mut egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>) {
    let label = "Merge the chosen hunks (2)";
    let deadline = std::time::Instant::now() + LONG;
    while let Some(button) = h.query_by_label(label) {
        assert!(std::time::Instant::now() < deadline, "{label} was never taken");
        if !button.accesskit_node().is_disabled() {
            button.click();
        }
        h.step();
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}
