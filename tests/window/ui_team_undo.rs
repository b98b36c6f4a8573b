//! Nothing lost, on the team page (egui_kittest, a real git project, a demo agent): a merge is
//! undone with one click and the project's file is back as it was; discarding a member with work
//! not merged says so, keeps the work, and "Restore discarded work" brings the member back with
//! its file; a whole team discarded is listed on the new-team page and restored from there.

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{click_when_enabled, enabled, make_team, runtime, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(30);

#[test]
fn a_merge_is_undone_and_discarded_work_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("notes.txt"), "first\nsecond\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    let copy = make_team(&mut h, "T", &project, &["ada"], &home).remove(0);
    h.get_all_by_label("T").next().unwrap().click();
    std::fs::write(copy.join("notes.txt"), "first\nsecond\nada's line\n").unwrap();
    step_until(&mut h, LONG, "her change", |h| h.query_by_label("notes.txt").is_some());

    // Merge, then undo: the project's file is back, her change is listed again.
    click_when_enabled(&mut h, "Merge all");
    step_until(&mut h, LONG, "the merge", |h| h.query_by_label_contains("Merged: 1 file applied").is_some());
    assert_eq!(std::fs::read_to_string(project.join("notes.txt")).unwrap(), "first\nsecond\nada's line\n");
    // Nothing left to merge: "Merge all" is not offered beside "All merged" (a merge of 0 files
    // took the Undo away).
    step_until(&mut h, LONG, "no changes", |h| h.query_by_label_contains("All merged").is_some());
    assert!(!enabled(&h, "Merge all"), "Merge all with nothing to merge");
    assert!(enabled(&h, "Undo merge"));
    click_when_enabled(&mut h, "Undo merge");
    step_until(&mut h, LONG, "undone", |h| {
        h.query_by_label_contains("Merge undone: 1 file put back as it was").is_some()
    });
    assert_eq!(std::fs::read(project.join("notes.txt")).unwrap(), b"first\nsecond\n");
    step_until(&mut h, LONG, "her change again", |h| h.query_by_label("notes.txt").is_some());
    assert!(h.query_by_label("Undo merge").is_none(), "an undone merge cannot be undone again");

    // Discard her copy: the question says her work is kept; it is, and comes back.
    click_when_enabled(&mut h, "Discard");
    step_until(&mut h, LONG, "the question", |h| {
        h.query_by_label_contains("Its 1 changed file not merged is kept").is_some()
    });
    h.get_all_by_label("Discard").last().unwrap().click();
    step_until(&mut h, LONG, "ada's member gone", |h| h.state().state.agent("ada · T").is_none());
    assert!(!copy.exists());
    step_until(&mut h, LONG, "the kept work", |h| {
        h.query_by_label("ada · T: work not merged kept (1 file).").is_some()
    });
    click_when_enabled(&mut h, "Restore discarded work");
    step_until(&mut h, LONG, "ada's member in a copy again", |h| {
        h.state().state.agent("ada · T").is_some_and(|a| a.config.workspace != home)
    });
    let copy = h.state().state.agent("ada · T").unwrap().config.workspace.clone();
    assert_eq!(std::fs::read(copy.join("notes.txt")).unwrap(), b"first\nsecond\nada's line\n");
    step_until(&mut h, LONG, "her change listed", |h| h.query_by_label("notes.txt").is_some());

    // The whole team: its kept work is on the new-team page, restored from there.
    click_when_enabled(&mut h, "Discard the team");
    h.get_all_by_label("Discard the team").last().unwrap().click();
    step_until(&mut h, LONG, "the team gone", |h| h.state().state.teams.teams.is_empty());
    step_until(&mut h, LONG, "the list of discarded work", |h| h.query_by_label("Discarded work").is_some());
    click_when_enabled(&mut h, "Restore discarded work");
    step_until(&mut h, LONG, "the team again", |h| h.state().state.teams.teams.len() == 1);
    step_until(&mut h, LONG, "ada's member in a copy again", |h| {
        h.state().state.agent("ada · T").is_some_and(|a| a.config.workspace != home)
    });
    let copy = h.state().state.agent("ada · T").unwrap().config.workspace.clone();
    assert_eq!(std::fs::read(copy.join("notes.txt")).unwrap(), b"first\nsecond\nada's line\n");
    assert!(h.state().state.teams.discarded.is_empty());
    h.state_mut().shutdown();
}

/// A recipe a member's work brought into the project (issue 45): its check is not run after the
/// merge; the page says whose it is and offers "Accept recipe"; accepted, it is the person's.
#[test]
fn a_recipe_a_member_wrote_waits_on_the_page_for_the_person() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("notes.txt"), "first\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    let copy = make_team(&mut h, "R", &project, &["ada"], &home).remove(0);
    h.get_all_by_label("R").next().unwrap().click();
    let ran = dir.path().join("ran");
    std::fs::create_dir_all(copy.join(".sidekicks")).unwrap();
    let recipe = format!("[check]\ncommand = \"echo ran >> {}\"\n", ran.display());
    std::fs::write(copy.join(".sidekicks/team.toml"), recipe).unwrap();
    step_until(&mut h, LONG, "her recipe", |h| h.query_by_label(".sidekicks/team.toml").is_some());
    click_when_enabled(&mut h, "Merge all");
    step_until(&mut h, LONG, "the refusal", |h| enabled(h, "Accept recipe"));
    assert!(h.query_by_label_contains("was written by ada · R's merged work").is_some());
    // What accepting it would let run is shown before the click.
    assert!(h.query_by_label(&format!("check: echo ran >> {}", ran.display())).is_some());
    assert!(!ran.exists(), "a member's check ran");
    h.get_by_label("Accept recipe").click();
    h.step();
    let accepted = |h: &Harness<'static, SidekicksApp>| h.state().state.teams.teams[0].recipe_accepted.clone();
    step_until(&mut h, LONG, "accepted", |h| accepted(h).is_some());
    assert!(matches!(accepted(&h), Some(Ok(Some(_)))), "{:?}", accepted(&h));
    step_until(&mut h, LONG, "accepted", |h| h.query_by_label_contains("is accepted").is_some());
    assert!(h.query_by_label("Accept recipe").is_none());
}
