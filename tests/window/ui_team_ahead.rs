//! Copies made while the team's form is written (issue 50): once the project folder is typed and
//! members are chosen, their copies are made ahead, and Create takes them — the members' copies
//! are those worktrees, exactly the project's commit. A team created while its copies are still
//! being made waits for the one under way: no copy is left half made, none is lost.

use std::path::{Path, PathBuf};
use std::time::Duration;

use egui_kittest::kittest::Queryable;

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(60);

type Window = egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>;

/// A project of `files` files, committed.
fn project(root: &Path, files: usize) -> PathBuf {
    let project = root.join("project");
    for i in 0..files {
        let path = project.join(format!("src/m{}/f{i}.txt", i % 40));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("file {i}\n")).unwrap();
    }
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    project
}

/// The folders below the teams folder's `.spare/` of kind `making` (copies being made) or not.
fn spare_folders(root: &Path, making: bool) -> Vec<PathBuf> {
    let dir = root.join("sidekicks-teams/.spare");
    let per_project = std::fs::read_dir(dir).into_iter().flatten().flatten();
    let kind = per_project.filter(|p| (p.file_name() == ".making") == making);
    kind.flat_map(|p| std::fs::read_dir(p.path()).unwrap().flatten().map(|e| e.path())).collect()
}

/// A window on a config of two demo agents, ada and bob, once both are listed.
fn two_agents(root: &Path, rt: &tokio::runtime::Runtime) -> Window {
    let home = root.join("home");
    std::fs::create_dir(&home).unwrap();
    let config = config_text("", &[("ada", BIN, &["demo-agent"]), ("bob", BIN, &["demo-agent"])], &home);
    let mut h = window(&config, root, rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bob").is_some());
    h
}

/// Opens the new-team form and writes the name and the project, then picks `agents`.
fn write_form(h: &mut Window, project: &Path, agents: &[&str]) {
    h.get_by_label("New team…").click();
    h.step();
    for (i, text) in ["Duo".to_string(), project.display().to_string()].iter().enumerate() {
        h.get_all_by_role(egui::accesskit::Role::TextInput).nth(i).unwrap().click();
        h.step();
        h.get_all_by_role(egui::accesskit::Role::TextInput).nth(i).unwrap().type_text(text);
        h.step();
    }
    for agent in agents {
        h.get_all_by_label(agent).last().unwrap().click();
        h.step();
    }
}

/// The members' copies of the team made.
fn created(h: &mut Window) -> Vec<PathBuf> {
    step_until(h, LONG, "the team", |h| {
        !h.state().state.teams.teams.is_empty() || h.state().state.teams.create_error.is_some()
    });
    assert_eq!(h.state().state.teams.create_error, None);
    let team = &h.state().state.teams.teams[0];
    team.info.members.iter().map(|(_, m)| m.as_ref().unwrap().copy.clone()).collect()
}

/// Every worktree of `project` is the project, a member's copy or a whole spare.
fn nothing_lost(project: &Path, copies: &[PathBuf], root: &Path) {
    let listed = git(project, &["worktree", "list", "--porcelain"]);
    let trees: Vec<&str> = listed.lines().filter_map(|l| l.strip_prefix("worktree ")).collect();
    let spares = spare_folders(root, false);
    assert_eq!(trees.len(), 1 + copies.len() + spares.len(), "{listed}\nspares {spares:?}");
    for tree in &trees[1..] {
        assert!(Path::new(tree).exists(), "a worktree was lost: {tree}");
        assert_eq!(git(Path::new(tree), &["status", "--porcelain", "--ignored"]), "", "{tree}");
    }
}

#[test]
fn the_form_makes_the_copies_while_it_is_written_and_the_team_takes_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let project = project(root, 200);
    let rt = runtime();
    let mut h = two_agents(root, &rt);

    write_form(&mut h, &project, &["ada", "bob"]);
    step_until(&mut h, LONG, "two copies made ahead", |_| spare_folders(root, false).len() == 2);
    // The form says so.
    step_until(&mut h, LONG, "the form tells", |h| h.query_by_label("2 copies of the project made ahead").is_some());
    let ahead = spare_folders(root, false);
    assert!(spare_folders(root, true).is_empty(), "none left half made");
    let admin = |copy: &Path| {
        std::fs::read_to_string(copy.join(".git")).unwrap().trim().rsplit('/').next().unwrap().to_string()
    };
    let mut before: Vec<String> = ahead.iter().map(|p| admin(p)).collect();
    h.get_by_label("Create the team").click();
    let copies = created(&mut h);
    assert_eq!(copies.len(), 2);
    assert!(spare_folders(root, false).is_empty(), "both were taken: {:?}", spare_folders(root, false));
    // The copies are the worktrees made ahead (moved: their git folders are the same).
    let mut after: Vec<String> = copies.iter().map(|c| admin(c)).collect();
    before.sort();
    after.sort();
    assert_eq!(before, after, "the members' worktrees are those made ahead");
    nothing_lost(&project, &copies, root);
}

#[test]
fn a_team_made_while_its_copy_is_being_made_gets_a_whole_copy_and_none_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let project = project(root, 3000);
    let rt = runtime();
    let mut h = two_agents(root, &rt);

    // Create at once: the copy asked ahead is still being made (one member: one preparation,
    // whose end the window is told).
    write_form(&mut h, &project, &["ada"]);
    h.get_by_label("Create the team").click();
    let copies = created(&mut h);
    assert_eq!(copies.len(), 1);
    step_until(&mut h, LONG, "the preparation ended", |h| h.state().state.teams.ahead.is_some());
    assert!(spare_folders(root, true).is_empty(), "none left half made");
    // Whatever the order, each member has a whole copy of the commit, and every worktree made
    // is a member's or a whole spare.
    for copy in &copies {
        assert_eq!(git(copy, &["status", "--porcelain", "--ignored"]), "", "{}", copy.display());
        assert!(copy.join("src/m39/f2999.txt").exists());
    }
    nothing_lost(&project, &copies, root);
}
