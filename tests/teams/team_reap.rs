//! What vanished teams leave behind, through the window (egui_kittest, real git): at start, the
//! folder of a team the store does not have (its git worktree registered in the project, its hidden
//! ref) and that of a stored team whose project was deleted are listed on the new-team page with
//! their size — nothing removed; "Remove them" removes the folders, the worktree entry and the ref,
//! and forgets the vanished team; a live team is untouched and shows the disk it uses.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::protocol::teams::ProviderKind;
use sidekicks::runtime::store::Store;
use sidekicks::runtime::teams::create_team;

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(30);

fn project(path: &std::path::Path) {
    std::fs::create_dir_all(path).unwrap();
    std::fs::write(path.join("README.md"), "# P\n").unwrap();
    git(path, &["init", "-q", "-b", "main"]);
    git(path, &["add", "-A"]);
    git(path, &["commit", "-qm", "start"]);
}

#[test]
fn leftovers_of_vanished_teams_are_listed_then_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    project(&a);
    project(&b);
    let teams = dir.path().join("sidekicks-teams");
    let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
    let ada = vec![("ada".to_string(), "ada".to_string())];
    // Not stored: an orphan, with a worktree and a hidden ref in project a.
    let (orphan, _) = create_team(&teams, "Old", &a, ProviderKind::GitWorktree, &ada, None).unwrap();
    assert!(git(&a, &["worktree", "list"]).lines().count() == 2);
    assert!(!git(&a, &["for-each-ref", "refs/sidekicks/"]).is_empty());
    // Stored, but its project is deleted.
    let (gone, _) = create_team(&teams, "Gone", &b, ProviderKind::Copy, &[("bob".into(), "bob".into())], None).unwrap();
    store.save_team(&gone).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
    // Stored and alive.
    let (live, _) = create_team(&teams, "Live", &a, ProviderKind::Copy, &ada, None).unwrap();
    store.save_team(&live).unwrap();

    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let text = config_text("", &[("ada", BIN, &["demo-agent"]), ("bob", BIN, &["demo-agent"])], &home);
    let mut h = window(&text, dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "the teams", |h| h.state().state.teams.teams.len() == 2);
    h.get_by_label("New team…").click();
    step_until(&mut h, LONG, "the list", |h| h.query_by_label("Left over from teams that are gone").is_some());
    let orphan_dir = teams.join(&orphan.id);
    let gone_dir = teams.join(&gone.id);
    let listed = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>, d: &std::path::Path| {
        h.query_by_label_contains(&format!("{} —", d.display())).is_some()
    };
    assert!(listed(&h, &orphan_dir) && listed(&h, &gone_dir), "both listed");
    assert!(!listed(&h, &teams.join(&live.id)), "a live team is not a leftover");
    assert!(h.query_by_label_contains("which is gone").is_some());
    assert!(orphan_dir.exists() && gone_dir.exists(), "nothing removed before the person says so");

    h.get_by_label("Remove them").click();
    step_until(&mut h, LONG, "removed", |h| h.query_by_label("Left over from teams that are gone").is_none());
    assert!(!orphan_dir.exists() && !gone_dir.exists());
    assert_eq!(git(&a, &["worktree", "list"]).lines().count(), 1, "the worktree entry is gone");
    assert!(git(&a, &["for-each-ref", "refs/sidekicks/"]).is_empty(), "the hidden ref is gone");
    assert!(teams.join(&live.id).exists());
    let stored: Vec<String> = store.teams().unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(stored, ["Live"], "the vanished team is forgotten");
    // The live team shows what it uses.
    h.get_by_label("Live").click();
    step_until(&mut h, LONG, "its page", |h| h.query_by_label_contains("on disk: ").is_some());
    h.state_mut().shutdown();
}
