//! The team view driven like a person would (egui_kittest), on a real git project with two demo
//! agents: make a team, the members work in their copies, a member's new file is listed with its
//! diff and merged into the project; an overlapping edit comes back as a conflict and the member is
//! told in its conversation; after a restart the team is there again, its members in their copies;
//! discarding the team ends its members. Members are agents of their own: the person's agents
//! stay in their folders and hear nothing of the team.

use std::time::Duration;

use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::runtime::store::Store;

use crate::common;
use common::window::{click_when_enabled, make_team, runtime, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(30);

/// The team's page is shown: "Merge all", or both members' "No changes yet." (beside which Merge
/// all is not offered: waiting for it alone failed once both lists were known to be empty).
fn team_page(h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>) -> bool {
    h.query_all_by_label("Merge all").next().is_some() || h.query_all_by_label("No changes yet.").count() == 2
}

/// A git project in `root/project` whose one commit holds `notes.txt` with `notes`.
fn committed_project(root: &std::path::Path, notes: &str) -> std::path::PathBuf {
    let project = root.join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("notes.txt"), notes).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    project
}

#[test]
fn a_team_is_made_merged_and_told_of_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let project = committed_project(dir.path(), "first\nsecond\nthird\n");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let config = config_text("", &[("ada", BIN, &["demo-agent"]), ("bob", BIN, &["demo-agent"])], &home);
    let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
    let rt = runtime();
    let mut h = window(&config, dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bob").is_some());

    h.get_by_label("New team…").click();
    h.step();
    let inputs: Vec<_> = h.get_all_by_role(egui::accesskit::Role::TextInput).map(|n| n.rect()).collect();
    assert!(inputs.len() >= 2, "the name and the project folder");
    for (i, text) in ["Docs team".to_string(), project.display().to_string()].iter().enumerate() {
        h.get_all_by_role(egui::accesskit::Role::TextInput).nth(i).unwrap().click();
        h.step();
        h.get_all_by_role(egui::accesskit::Role::TextInput).nth(i).unwrap().type_text(text);
        h.step();
    }
    h.get_all_by_label("ada").last().unwrap().click();
    h.step();
    h.get_all_by_label("bob").last().unwrap().click();
    h.step();
    h.get_by_label("Create the team").click();
    step_until(&mut h, LONG, "the team's page", |h| {
        h.query_all_by_label("Merge all").next().is_some() || h.state().state.teams.create_error.is_some()
    });
    assert_eq!(h.state().state.teams.create_error, None);
    // On a wide window the members stand side by side (one column left most of the page empty);
    // at 1000 px, one under the other.
    let merges = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        h.get_all_by_label("Merge all").map(|n| n.rect()).collect::<Vec<_>>()
    };
    step_until(&mut h, LONG, "both members", |h| merges(h).len() == 2);
    let narrow = merges(&h);
    assert!(narrow[0].top() != narrow[1].top(), "one under the other: {narrow:?}");
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.step();
    h.step();
    let wide = merges(&h);
    assert!((wide[0].top() - wide[1].top()).abs() < 1.0 && wide[0].left() != wide[1].left(), "side by side: {wide:?}");
    h.set_size(egui::vec2(1000.0, 700.0));
    h.step();
    h.step();
    // Settings' agent form offers the agents of the file, not the members Sidekicks made (their
    // Edit could not work: they are not in the file).
    h.get_by_label("Settings").click();
    step_until(&mut h, LONG, "settings", |h| h.query_by_label("Add an agent…").is_some());
    assert_eq!(h.query_all_by_label("Edit").count(), 2, "ada and bob only");
    h.get_all_by_label("Docs team").next().unwrap().click();
    step_until(&mut h, LONG, "the team's page", team_page);
    // Each member is an agent of its own, made from the person's agent, working in its copy.
    let (ada, bob) = ("ada · Docs team", "bob · Docs team");
    let copies: Vec<std::path::PathBuf> = {
        let team = &h.state().state.teams.teams[0];
        [ada, bob].iter().map(|a| team.member(a).unwrap().copy.clone()).collect()
    };
    step_until(&mut h, LONG, "ada's member in her copy", |h| {
        h.state().state.agent(ada).is_some_and(|a| a.config.workspace == copies[0])
    });
    assert_eq!(h.state().state.agent(bob).unwrap().config.workspace, copies[1]);
    // The person's own agents are untouched: same folder, never stopped or told anything.
    for own in ["ada", "bob"] {
        assert_eq!(h.state().state.agent(own).unwrap().config.workspace, home, "{own} stays home");
    }
    // Ada's member's page says where she works and links to her team; so does her workspace's.
    h.get_all_by_label(ada).next().unwrap().click();
    step_until(&mut h, LONG, "ada's page", |h| h.query_by_label("team Docs team").is_some());
    // (Said short in the header, whole on hover.)
    let user_home = std::env::var("HOME").ok();
    let short = sidekicks::model::short_path::short_path(&copies[0].display().to_string(), user_home.as_deref(), 24);
    assert!(short.ends_with("ada-Docs team") || short.ends_with(&*copies[0].file_name().unwrap().to_string_lossy()));
    assert!(h.query_by_label(&format!("works in {short}")).is_some());
    h.get_by_label("team Docs team").click();
    step_until(&mut h, LONG, "the team's page again", team_page);
    // Her Files, in her row under the team in the sidebar.
    let row = h.get_all_by_label(ada).next().unwrap().rect().center().y;
    let files = h.get_all_by_label("Files").find(|n| (n.rect().center().y - row).abs() < 8.0).unwrap();
    files.click();
    step_until(&mut h, LONG, "ada's workspace", |h| h.query_by_label("team Docs team").is_some());
    h.get_by_label("team Docs team").click();
    step_until(&mut h, LONG, "the team's page", team_page);
    // A member's name on the team page goes to its conversation, and back. Once both change lists
    // are shown: one arriving later moves bob's name down, and a click aimed before would miss.
    step_until(&mut h, LONG, "both change lists", |h| h.query_all_by_label("No changes yet.").count() == 2);
    h.get_all_by_label(bob).last().unwrap().click();
    step_until(&mut h, LONG, "bob's conversation", |h| {
        h.query_by_label("team Docs team").is_some() && h.query_all_by_label("Merge all").next().is_none()
    });
    let shown = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>, name: &str| {
        h.get_all_by_label(name).any(|n| n.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
    };
    assert!(shown(&h, bob) && !shown(&h, ada), "bob's conversation is the one shown");
    h.get_by_label("team Docs team").click();
    step_until(&mut h, LONG, "the team's page, last", team_page);

    // Ada writes a new file: the page lists it by itself (the copies are followed, no Refresh);
    // its diff shows, and follows the file as Ada goes on; Merge all applies it.
    std::fs::write(copies[0].join("ada.txt"), "from Ada\n").unwrap();
    step_until(&mut h, LONG, "ada's change", |h| h.query_by_label("ada.txt").is_some());
    h.get_by_label("ada.txt").click();
    step_until(&mut h, LONG, "the diff", |h| h.state().state.teams.teams[0].diff.is_some());
    std::fs::write(copies[0].join("ada.txt"), "from Ada\nand more\n").unwrap();
    step_until(&mut h, LONG, "the diff follows the file", |h| {
        h.state().state.teams.teams[0].diff.as_ref().is_some_and(|d| d.3.as_deref() == Some("from Ada\nand more\n"))
    });
    click_when_enabled(&mut h, "Merge all");
    step_until(&mut h, LONG, "the merge", |h| h.query_by_label("Merged: 1 file applied to the project.").is_some());
    assert_eq!(std::fs::read_to_string(project.join("ada.txt")).unwrap(), "from Ada\nand more\n");
    // Merged: nothing left to merge, and the open diff says so (the project has the file now).
    step_until(&mut h, LONG, "no changes left", |h| {
        let changes = h.state().state.teams.teams[0].changes.get(ada).cloned();
        changes.is_some_and(|c| c.is_ok_and(|c| c.is_empty()))
    });
    // Ada had everything merged: said so, not "no changes yet" (issue 48, item 3); Review… and
    // Commit as branch… have nothing to show or commit.
    step_until(&mut h, LONG, "all merged", |h| h.query_by_label("All merged: nothing left to merge.").is_some());
    assert_eq!(h.get_all_by_label("No changes yet.").count(), 1, "Bob's");
    {
        for label in ["Review…", "Commit as branch…"] {
            assert!(h.get_all_by_label(label).all(|n| n.accesskit_node().is_disabled()), "{label}: nothing to do");
        }
    }
    step_until(&mut h, LONG, "the diff after the merge", |h| {
        h.state().state.teams.teams[0].diff.as_ref().is_some_and(|d| d.2 == d.3)
    });

    // Bob and the project edit the same line: a conflict, nothing applied, Bob is told.
    std::fs::write(project.join("notes.txt"), "first (project)\nsecond\nthird\n").unwrap();
    std::fs::write(copies[1].join("notes.txt"), "first (Bob)\nsecond\nthird\n").unwrap();
    // Bob's change known (not only a "notes.txt" label, which Ada's diff may show): Merge all
    // clicked before it was listed merged nothing, and the conflict never came (seen under load).
    step_until(&mut h, LONG, "bob's change", |h| {
        let changes = h.state().state.teams.teams[0].changes.get(bob).cloned();
        changes.is_some_and(|c| c.is_ok_and(|c| c.iter().any(|c| c.path == "notes.txt")))
            && h.query_by_label("notes.txt").is_some()
    });
    // Bob's button, once he is not busy (a click on it disabled does nothing).
    step_until(&mut h, LONG, "bob's Merge all", |h| {
        h.query_all_by_label("Merge all").nth(1).is_some_and(|n| !n.accesskit_node().is_disabled())
    });
    h.get_all_by_label("Merge all").nth(1).unwrap().click();
    // Said in red while Bob's copy holds the markers (Bob, told at once, may resolve them first:
    // then it says he did, below).
    step_until(&mut h, LONG, "the conflict", |h| {
        let merged = h.state().state.teams.teams[0].merges.get(bob).cloned();
        merged.is_some_and(|m| m.is_ok_and(|r| !r.conflicts.is_empty()))
            && (h
                .query_by_label("Conflicts: nothing was applied; bob · Docs team was asked to resolve them:")
                .is_some()
                || h.query_by_label("bob · Docs team resolved its conflicts: Merge all brings them in.").is_some())
    });
    assert_eq!(std::fs::read_to_string(project.join("notes.txt")).unwrap(), "first (project)\nsecond\nthird\n");
    // The markers were written in Bob's copy; the demo agent, told, resolves them keeping both sides.
    step_until(&mut h, LONG, "bob resolving", |_| {
        std::fs::read_to_string(copies[1].join("notes.txt"))
            .is_ok_and(|t| t == "first (project)\nfirst (Bob)\nsecond\nthird\n")
    });
    // Resolved in his copy: the red conflict line goes without another Merge all.
    step_until(&mut h, LONG, "the conflict seen resolved", |h| {
        h.query_by_label("bob · Docs team resolved its conflicts: Merge all brings them in.").is_some()
    });
    assert!(h.query_by_label_contains("Conflicts: nothing was applied").is_none());
    step_until(&mut h, LONG, "bob told in his conversation", |h| {
        h.state().state.agent(bob).is_some_and(|a| {
            a.conversation
                .messages
                .iter()
                .any(|m| format!("{m:?}").contains("notes.txt: the project changed the same lines"))
        })
    });
    let own_bob = &h.state().state.agent("bob").unwrap().conversation.messages;
    assert!(own_bob.is_empty(), "the person's bob heard nothing: {own_bob:?}");
    h.state_mut().shutdown();
    drop(h);

    // After a restart: the team is back, its members in their copies.
    let mut h = window(&config, dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the team in the sidebar", |h| h.query_by_label("Docs team").is_some());
    step_until(&mut h, LONG, "bob's member in his copy, with his thread", |h| {
        h.state().state.agent(bob).is_some_and(|a| {
            a.config.workspace == copies[1]
                && a.conversation.messages.iter().any(|m| format!("{m:?}").contains("notes.txt: the project changed"))
        })
    });
    assert_eq!(h.state().state.agent("bob").unwrap().config.workspace, home);
    h.get_by_label("Docs team").click();
    step_until(&mut h, LONG, "the page", |h| h.query_by_label("Discard the team").is_some());
    h.get_by_label("Discard the team").click();
    h.step();
    h.get_all_by_label("Discard the team").last().unwrap().click();
    step_until(&mut h, LONG, "the team gone", |h| h.state().state.teams.teams.is_empty());
    step_until(&mut h, LONG, "the members gone", |h| {
        h.state().state.agent(ada).is_none() && h.state().state.agent(bob).is_none()
    });
    assert_eq!(h.state().state.agent("ada").unwrap().config.workspace, home);
    assert!(!copies[0].exists() && !copies[1].exists());
    h.state_mut().shutdown();
}

#[test]
fn the_new_team_form_starts_from_the_first_members_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let config = config_text("", &[("ada", BIN, &["demo-agent"]), ("bob", BIN, &["demo-agent"])], &home);
    let rt = runtime();
    let mut h = window(&config, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bob").is_some());
    h.get_by_label("New team…").click();
    h.step();
    assert!(h.query_by_label("Choose…").is_some(), "a folder picker next to the field");
    // The form has the keyboard: the name is typed at once.
    h.step();
    h.event(egui::Event::Text("Shop".into()));
    h.step();
    let name = h.get_all_by_role(egui::accesskit::Role::TextInput).next().unwrap().value().unwrap_or_default();
    assert_eq!(name, "Shop", "typed into the team's name");
    h.get_all_by_label("ada").last().unwrap().click();
    // (The field is drawn before the members: it shows the change on the next frame.)
    h.step();
    h.step();
    let project = h.get_all_by_role(egui::accesskit::Role::TextInput).nth(1).unwrap().value().unwrap_or_default();
    assert_eq!(project, home.display().to_string(), "the project is where Ada works");
    // The keyboard went to the name when the form opened, not again after a member was ticked.
    h.event(egui::Event::Text("x".into()));
    h.step();
    let name = h.get_all_by_role(egui::accesskit::Role::TextInput).next().unwrap().value().unwrap_or_default();
    assert_eq!(name, "Shop", "ticking a member sent the keyboard back to the name");
    // A folder typed first stays.
    h.get_all_by_label("bob").last().unwrap().click();
    h.step();
    h.step();
    let project = h.get_all_by_role(egui::accesskit::Role::TextInput).nth(1).unwrap().value().unwrap_or_default();
    assert_eq!(project, home.display().to_string());
    h.state_mut().shutdown();
}

#[test]
fn a_members_work_becomes_a_branch_without_touching_the_checkout() {
    let dir = tempfile::tempdir().unwrap();
    let project = committed_project(dir.path(), "first\n");
    // The person's own uncommitted work, staged and not: it stays as it is.
    std::fs::write(project.join("notes.txt"), "first\nmine, staged\n").unwrap();
    git(&project, &["add", "notes.txt"]);
    std::fs::write(project.join("draft.txt"), "mine, untracked\n").unwrap();
    let (head, index) = (git(&project, &["rev-parse", "HEAD"]), std::fs::read(project.join(".git/index")).unwrap());
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    let copy = make_team(&mut h, "T", &project, &["ada"], &home).remove(0);
    std::fs::write(copy.join("feature.txt"), "ada's feature\n").unwrap();
    std::fs::write(copy.join("notes.txt"), "first\nmine, staged\nada's line\n").unwrap();
    h.get_all_by_label("T").next().unwrap().click();
    // Once her changes are listed (the buttons wait while they are read).
    step_until(&mut h, LONG, "her changes", |h| {
        h.query_by_label("feature.txt").is_some() && h.query_by_label("notes.txt").is_some()
    });

    let enabled = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        !h.get_by_label("Commit as branch…").accesskit_node().is_disabled()
    };
    step_until(&mut h, LONG, "the button", enabled);
    h.get_by_label("Commit as branch…").click();
    step_until(&mut h, LONG, "the form", |h| h.query_by_label("Make the branch").is_some());
    let name = h.get_all_by_role(egui::accesskit::Role::TextInput).next().unwrap().value().unwrap_or_default();
    assert_eq!(name, "sidekicks/ada-t", "the name is prefilled");
    h.get_by_label("Make the branch").click();
    step_until(&mut h, LONG, "the branch", |h| h.query_by_label_contains("Branch sidekicks/ada-t made").is_some());

    // The branch holds the member's files as they are, on top of the member's base.
    assert_eq!(git(&project, &["show", "sidekicks/ada-t:feature.txt"]), "ada's feature\n");
    assert_eq!(git(&project, &["show", "sidekicks/ada-t:notes.txt"]), "first\nmine, staged\nada's line\n");
    let changed = git(&project, &["diff", "--name-only", "sidekicks/ada-t~1", "sidekicks/ada-t"]);
    assert_eq!(changed, "feature.txt\nnotes.txt\n", "only the member's changes");
    // The person's checkout: same commit, same branch, same index, same files.
    assert_eq!(git(&project, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&project, &["branch", "--show-current"]), "main\n");
    assert_eq!(std::fs::read(project.join(".git/index")).unwrap(), index);
    assert_eq!(std::fs::read_to_string(project.join("notes.txt")).unwrap(), "first\nmine, staged\n");
    assert!(!project.join("feature.txt").exists());

    // Again with the same name: refused in words, nothing changed.
    step_until(&mut h, LONG, "the button", enabled);
    h.get_by_label("Commit as branch…").click();
    step_until(&mut h, LONG, "the form", |h| h.query_by_label("Make the branch").is_some());
    h.get_by_label("Make the branch").click();
    step_until(&mut h, LONG, "the refusal", |h| h.query_by_label_contains("exists already").is_some());
    h.state_mut().shutdown();
}

#[test]
fn a_team_name_in_use_is_said_before_create_which_waits_for_another() {
    let dir = tempfile::tempdir().unwrap();
    let project = committed_project(dir.path(), "first\n");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let config = config_text("", &[("ada", BIN, &["demo-agent"]), ("bob", BIN, &["demo-agent"])], &home);
    let rt = runtime();
    let mut h = window(&config, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bob").is_some());
    make_team(&mut h, "Shop", &project, &["ada"], &home);

    h.get_by_label("New team…").click();
    h.step();
    h.step();
    // The form has the keyboard: the name, in another case.
    h.event(egui::Event::Text("shop".into()));
    h.step();
    h.get_all_by_label("bob").last().unwrap().click();
    step_until(&mut h, LONG, "the warning", |h| {
        h.query_by_label_contains("A team named shop exists already").is_some()
    });
    assert!(h.get_by_label("Create the team").accesskit_node().is_disabled(), "Create waits for another name");
    let name = h.get_all_by_role(egui::accesskit::Role::TextInput).next().unwrap();
    name.click();
    h.step();
    h.get_all_by_role(egui::accesskit::Role::TextInput).next().unwrap().type_text("2");
    h.step();
    h.step();
    assert!(h.query_by_label_contains("exists already").is_none());
    assert!(!h.get_by_label("Create the team").accesskit_node().is_disabled(), "shop2 can be made");
    h.state_mut().shutdown();
}
