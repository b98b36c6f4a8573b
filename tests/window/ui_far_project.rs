//! A team whose project is on another machine, made in the window (issue 49, item 4; ADR 0039):
//! the form takes `host:/path`; the member's copy is a git worktree there; one change of a file
//! accepted into the project there and another taken out of the copy there; the rest merged
//! there with Merge all and undone with Undo merge; its work made a branch there; discarding
//! removes the worktree there.
//! Against the private sshd (the "other machine" is a folder of its own).

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;

use crate::common;
use common::window::{click_when_enabled, member_copy, runtime, step_until, window};
use common::{BIN, git};
use sidekicks::protocol::teams::TeamCommand;

const LONG: Duration = Duration::from_secs(60);

fn lines(changed: &[(usize, &str)]) -> String {
    (1..=30)
        .map(|i| changed.iter().find(|(n, _)| *n == i).map_or(format!("line {i}\n"), |(_, t)| format!("{t}\n")))
        .collect()
}

#[test]
fn a_team_of_a_project_there_is_made_reviewed_merged_and_undone_there() {
    if !common::ssh::available() {
        return;
    }
    sidekicks::runtime::copies::place::use_binary(BIN.into());
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    std::fs::create_dir(&app).unwrap();
    std::fs::write(app.join("notes.txt"), lines(&[])).unwrap();
    git(&app, &["init", "-q", "-b", "main"]);
    git(&app, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&app, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let config = format!(
        "[[agent]]\nname = \"far\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {home:?}\n\
         runtime = {{ type = \"ssh\", host = {:?}, workspace_path = \"/tmp\" }}\n",
        common::ssh::FAR
    );
    let rt = runtime();
    let mut h = window(&config, dir.path(), &rt, None);
    step_until(&mut h, LONG, "the agent", |h| h.state().state.agent("far").is_some());

    // The form takes the project as host:/path.
    let there = format!("{}:{}", common::ssh::FAR, app.display());
    h.get_by_label("New team…").click();
    h.step();
    for (i, text) in ["Far app", there.as_str()].iter().enumerate() {
        h.get_all_by_role(Role::TextInput).nth(i).unwrap().click();
        h.step();
        h.get_all_by_role(Role::TextInput).nth(i).unwrap().type_text(text);
        h.step();
    }
    h.get_all_by_label("far").last().unwrap().click();
    h.step();
    h.get_by_label("Create the team").click();
    step_until(&mut h, LONG, "the member in its copy", |h| {
        member_copy(h, "Far app", "far").is_some() || h.state().state.teams.create_error.is_some()
    });
    assert_eq!(h.state().state.teams.create_error, None);
    let copy = member_copy(&h, "Far app", "far").unwrap();
    assert!(git(&app, &["worktree", "list"]).contains(copy.to_str().unwrap()), "a worktree there");
    h.get_all_by_label("Far app").next().unwrap().click();
    step_until(&mut h, LONG, "the project's place", |h| h.query_by_label(&format!("Project: {there}")).is_some());

    // Two changes of one file: the first accepted into the project there, the second taken out.
    std::fs::write(copy.join("notes.txt"), lines(&[(2, "line 2 (far)"), (25, "line 25 (far)")])).unwrap();
    let team = h.state().state.teams.teams[0].info.record.id.clone();
    let (name, member) = {
        let (name, member) = &h.state().state.teams.teams[0].info.members[0];
        (name.clone(), member.clone().unwrap())
    };
    let hunks = |member: &sidekicks::protocol::teams::MemberCopy| {
        let files = sidekicks::runtime::teams::review::review(member).unwrap();
        files[0].diff.as_ref().unwrap().hunks.clone()
    };
    let first = hunks(&member);
    assert_eq!(first.len(), 2, "{first:?}");
    let decide = |hunk, accept| TeamCommand::DecideHunk {
        team: team.clone(),
        member: name.clone(),
        path: "notes.txt".into(),
        hunk,
        accept,
    };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(decide(first[0].clone(), true))));
    step_until(&mut h, LONG, "the first change in the project there", |_| {
        std::fs::read_to_string(app.join("notes.txt")).is_ok_and(|t| t == lines(&[(2, "line 2 (far)")]))
    });
    let second = hunks(&member);
    assert_eq!(second.len(), 1, "{second:?}");
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(decide(second[0].clone(), false))));
    step_until(&mut h, LONG, "the second change out of the copy there", |_| {
        std::fs::read_to_string(copy.join("notes.txt")).is_ok_and(|t| t == lines(&[(2, "line 2 (far)")]))
    });
    assert_eq!(std::fs::read_to_string(app.join("notes.txt")).unwrap(), lines(&[(2, "line 2 (far)")]));

    // More work, merged there with Merge all, and undone there.
    std::fs::write(copy.join("more.txt"), "more\n").unwrap();
    let changes = TeamCommand::Changes { team: team.clone(), member: name.clone() };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(changes)));
    step_until(&mut h, LONG, "the change listed", |h| h.query_all_by_label("more.txt").next().is_some());
    click_when_enabled(&mut h, "Merge all");
    step_until(&mut h, LONG, "merged there", |_| app.join("more.txt").is_file());
    // Offered at once, enabled once the member is no longer busy.
    click_when_enabled(&mut h, "Undo merge");
    step_until(&mut h, LONG, "undone there", |_| !app.join("more.txt").exists());

    // Its work made a branch of the repository there.
    std::fs::write(copy.join("branch.txt"), "on a branch\n").unwrap();
    let branch = TeamCommand::CommitBranch {
        team: team.clone(),
        member: name.clone(),
        branch: "far-work".into(),
        message: "far work".into(),
    };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(branch)));
    let has_branch = || {
        let mut git = std::process::Command::new("git");
        git.arg("-C").arg(&app).args(["rev-parse", "--verify", "--quiet", "far-work"]);
        git.output().is_ok_and(|o| o.status.success())
    };
    step_until(&mut h, LONG, "the branch there", |_| has_branch());
    assert_eq!(git(&app, &["show", "far-work:branch.txt"]), "on a branch\n");

    let discard = TeamCommand::Discard { team, member: None };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(discard)));
    step_until(&mut h, LONG, "discarded there", |h| h.state().state.teams.teams.is_empty() && !copy.exists());
    // Its worktree is kept there for a next team of the project (`teams::spare`), nowhere else.
    let worktrees = git(&app, &["worktree", "list"]);
    let others: Vec<&str> = worktrees.lines().skip(1).collect();
    assert!(others.len() == 1 && others[0].contains("/far-teams/.spare/"), "{worktrees}");
    h.state_mut().shutdown();
}
