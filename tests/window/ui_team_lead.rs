//! A team's lead at work in the window (issue 47): the demo agent leads two demo members through
//! its `sidekicks-team` tools; its member's task shows on the team page as it goes; when the lead
//! merges, the person is asked on the lead's conversation and the merge waits for the answer; the
//! person gives a member a task from the page too.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::model::permission::{OptionKind, PermissionAnswer};
use sidekicks::protocol::teams::{ProviderKind, TeamCommand};
use sidekicks::protocol::{AgentCommand, Command};

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(60);

/// Answers `agent`'s first unanswered permission request whose title holds `about`, once it shows.
fn allow(h: &mut egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>, agent: &str, about: &str) {
    let waiting = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        let view = h.state().state.agent(agent)?;
        let card = view.permissions.iter().find(|c| c.answer.is_none() && c.request.tool.title.contains(about))?;
        Some(card.request.clone())
    };
    step_until(h, LONG, about, |h| waiting(h).is_some());
    let request = waiting(h).unwrap();
    let option = request.option(OptionKind::AllowOnce).unwrap().id.clone();
    let answer = PermissionAnswer::Selected { option_id: option, kind: OptionKind::AllowOnce };
    h.state_mut().send(Command::Agent(agent.into(), AgentCommand::AnswerPermission { id: request.id, answer }));
}

/// A window with agents ada, bob and lead, and the team squad (ada and bob, led by lead) on a git
/// project (with `recipe` as its team recipe), its page shown.
fn squad_on_page(
    recipe: Option<&str>,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    tokio::runtime::Runtime,
    egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>,
) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".sidekicks")).unwrap();
    std::fs::write(project.join("notes.txt"), "first\n").unwrap();
    if let Some(recipe) = recipe {
        std::fs::write(project.join(".sidekicks/team.toml"), recipe).unwrap();
    }
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let demo: &[&str] = &["demo-agent"];
    let config = config_text("", &[("ada", BIN, demo), ("bob", BIN, demo), ("lead", BIN, demo)], &home);
    let rt = runtime();
    let mut h = window(&config, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("lead").is_some());
    let create = TeamCommand::Create {
        name: "squad".into(),
        project: project.clone(),
        provider: ProviderKind::GitWorktree,
        agents: vec!["ada".into(), "bob".into()],
        lead: Some("lead".into()),
    };
    h.state_mut().send(Command::Team(Box::new(create)));
    step_until(&mut h, LONG, "ada's member", |h| h.state().state.agent("ada · squad").is_some());
    h.get_all_by_label("squad").next().unwrap().click();
    h.step();
    (dir, project, rt, h)
}

#[test]
fn a_lead_gives_a_task_and_its_merge_waits_for_the_person() {
    let (_dir, project, _rt, mut h) = squad_on_page(None);

    let goal = [
        r#"call sidekicks-team assign {"member": "ada", "task": "files"}"#,
        r#"call sidekicks-team wait {}"#,
        r#"call sidekicks-team merge {"members": ["ada"]}"#,
    ]
    .join("\n");
    let prompt =
        AgentCommand::Prompt { text: goal, context: None, with_transcript: false, id: None, attachments: vec![] };
    h.state_mut().send(Command::Agent("lead".into(), prompt));
    // The member's task shows on the team page (its note is written in its copy, as a window's
    // agent writes in its folder).
    step_until(&mut h, LONG, "the task on the page", |h| h.query_by_label_contains("Task from lead: files").is_some());
    // The lead's merge is the person's to allow: asked on the lead's conversation, nothing merged
    // before.
    let ask = "lead wants to merge ada's work";
    step_until(&mut h, LONG, ask, |h| {
        h.state().state.agent("lead").is_some_and(|a| a.permissions.iter().any(|c| c.request.tool.title.contains(ask)))
    });
    assert!(!project.join("notes/demo.md").exists(), "merged before the person said yes");
    allow(&mut h, "lead", ask);
    step_until(&mut h, LONG, "the merge", |h| {
        project.join("notes/demo.md").is_file() && h.query_by_label_contains("files — merged").is_some()
    });

    // The person gives Bob a task from the page: typed, Enter; it runs and shows as done.
    h.get_all_by_label("Assign a task…").nth(1).unwrap().click();
    h.step();
    h.step();
    h.get_all_by_role(egui::accesskit::Role::TextInput).last().unwrap().type_text("hello");
    h.step();
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "bob's task done", |h| {
        h.query_by_label_contains("Task: hello — done, not merged yet").is_some()
    });
    let team = &h.state().state.teams.teams[0];
    let bob = team.tasks.iter().find(|t| t.member == "bob · squad").expect("bob's task");
    assert_eq!((bob.by.as_deref(), bob.text.as_str()), (None, "hello"), "the person's own task");
}

#[test]
fn the_lead_runs_a_conflict_to_its_end_with_the_radar_on_the_page() {
    // The person lets the lead merge without asking.
    let (_dir, project, _rt, mut h) = squad_on_page(Some("lead_merges = \"allow\"\n"));
    let say = |h: &mut egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>, lines: &[&str]| {
        let text = lines.join("\n");
        let prompt =
            AgentCommand::Prompt { text, context: None, with_transcript: false, id: None, attachments: vec![] };
        h.state_mut().send(Command::Agent("lead".into(), prompt));
    };
    // Both write the same note differently: the radar says so on the page before any merge.
    say(
        &mut h,
        &[
            r#"call sidekicks-team assign {"member": "ada", "task": "files: ada's idea"}"#,
            r#"call sidekicks-team assign {"member": "bob", "task": "files: bob's idea"}"#,
            r#"call sidekicks-team wait {}"#,
        ],
    );
    step_until(&mut h, LONG, "the radar", |h| h.query_by_label_contains("ada and bob change notes/demo.md").is_some());
    assert!(!project.join("notes/demo.md").exists());
    // The lead merges both: bob's conflicts, bob is told and resolves it (a task the lead waits
    // for), and the lead merges again.
    say(
        &mut h,
        &[
            r#"call sidekicks-team merge {"members": ["ada"]}"#,
            r#"call sidekicks-team merge {"members": ["bob"]}"#,
            r#"call sidekicks-team wait {}"#,
            r#"call sidekicks-team merge {"members": ["bob"]}"#,
        ],
    );
    step_until(&mut h, LONG, "both merged", |_| {
        std::fs::read_to_string(project.join("notes/demo.md"))
            .is_ok_and(|t| t.contains("ada's idea") && t.contains("bob's idea"))
    });
    step_until(&mut h, LONG, "the resolution task on the page", |h| {
        h.query_by_label_contains("Task from Sidekicks: Resolve the conflicts of the merge (1 file) — merged").is_some()
    });
    let note = std::fs::read_to_string(project.join("notes/demo.md")).unwrap();
    assert!(!note.contains("<<<<<<<"), "{note}");
    step_until(&mut h, LONG, "the radar quiet", |h| h.query_by_label_contains("change notes/demo.md").is_none());
}
