//! A team member whose agent runs on another machine over SSH, made in the window (issue 49): the
//! form offers the agent and says where its copy is kept; the member's header says its copy is
//! on that machine; the member's work there is listed, merged here, and discarding the team
//! removes the copy there. Against the private sshd (the "other machine" is a folder of its own).

use std::time::Duration;

use egui_kittest::kittest::Queryable;

use crate::common;
use common::window::{click_when_enabled, member_copy, runtime, step_until, window};
use common::{BIN, git};

const LONG: Duration = Duration::from_secs(60);

#[test]
fn a_member_over_ssh_is_made_worked_in_there_and_merged_here() {
    if !common::ssh::available() {
        return;
    }
    sidekicks::runtime::copies::place::use_binary(BIN.into());
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("notes.txt"), "first\nsecond\nthird\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    let config = format!(
        "[[agent]]\nname = \"far\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n\
         runtime = {{ type = \"ssh\", host = {:?}, workspace_path = \"/tmp\" }}\n",
        dir.path().display().to_string(),
        common::ssh::FAR
    );
    let rt = runtime();
    let mut h = window(&config, dir.path(), &rt, None);
    step_until(&mut h, LONG, "the agent", |h| h.state().state.agent("far").is_some());
    h.get_by_label("New team…").click();
    h.step();
    let said = format!("its copy is kept where it runs: another machine (over SSH), {}", common::ssh::FAR);
    assert!(h.query_by_label(&said).is_some());
    common::window::ask_team(&mut h, "Far", &project, &["far"]);
    step_until(&mut h, LONG, "the member in its copy", |h| {
        member_copy(h, "Far", "far").is_some() || h.state().state.teams.create_error.is_some()
    });
    assert_eq!(h.state().state.teams.create_error, None);
    let copy = member_copy(&h, "Far", "far").unwrap();
    assert!(!copy.starts_with(dir.path()), "kept there, not among this computer's teams: {}", copy.display());
    h.get_all_by_label("Far").next().unwrap().click();
    step_until(&mut h, LONG, "the member's header", |h| {
        h.query_by_label_contains(&format!("works in ssh {}:", common::ssh::FAR)).is_some()
    });

    // Its work there is listed and merged here.
    std::fs::write(copy.join("notes.txt"), "first\nsecond (far)\nthird\n").unwrap();
    let team = h.state().state.teams.teams[0].info.record.id.clone();
    let member = h.state().state.teams.teams[0].info.members[0].0.clone();
    let changes = sidekicks::protocol::teams::TeamCommand::Changes { team: team.clone(), member: member.clone() };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(changes)));
    step_until(&mut h, LONG, "the change listed", |h| h.query_all_by_label("notes.txt").next().is_some());
    click_when_enabled(&mut h, "Merge all");
    step_until(&mut h, LONG, "merged", |_| {
        std::fs::read_to_string(project.join("notes.txt")).is_ok_and(|t| t.contains("second (far)"))
    });
    let discard = sidekicks::protocol::teams::TeamCommand::Discard { team, member: None };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(discard)));
    step_until(&mut h, LONG, "discarded there", |h| h.state().state.teams.teams.is_empty() && !copy.exists());
    h.state_mut().shutdown();
}
