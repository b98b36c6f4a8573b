//! Commands an agent runs through Sidekicks (ACP `terminal/*`), for real with the demo agent's
//! `terminal` scenario: after its permission request is answered, a command streams its output
//! live (events arrive before it ends), exits 3, its output is kept to the agent's limit cut at a
//! character boundary; a long command with a background child is killed (SIGKILL) with its child;
//! a folder outside the workspace is refused; nothing is left running — on this computer and
//! inside a container.

use std::time::Duration;

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{Command, Event};
use sidekicks::model::conversation::TurnEnd;
use sidekicks::model::permission::{OptionKind, PermissionAnswer};

use crate::common;
use common::docker::{Container, available};
use common::{BIN, Rig, fast_settings};

/// Runs the scenario on `agent`, allowing it; returns its answer.
async fn run(rig: &mut Rig, agent: &str) -> String {
    rig.send(Command::prompt(agent, "terminal")).await;
    let asked = rig
        .wait_for(Duration::from_secs(30), "the permission request", |e| {
            matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. }))
        })
        .await;
    let Event::Agent(_, AgentEvent::PermissionRequested { request, .. }) = asked else { unreachable!() };
    // Nothing runs before the answer.
    assert!(!rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Terminal { .. }))));
    let answer = PermissionAnswer::Selected { option_id: "allow".into(), kind: OptionKind::AllowOnce };
    rig.send(Command::Agent(agent.into(), AgentCommand::AnswerPermission { id: request.id, answer })).await;
    assert_eq!(rig.wait_turn_end(agent).await, TurnEnd::EndTurn);
    // Output streamed live: some arrived before the command's end.
    let first_output =
        rig.seen.iter().position(|e| matches!(e, Event::Agent(_, AgentEvent::Terminal { .. }))).expect("live output");
    let exited =
        rig.seen.iter().position(|e| matches!(e, Event::Agent(_, AgentEvent::TerminalExited { code: Some(3), .. })));
    assert!(first_output < exited.expect("the exit reported"), "output came before the end");
    rig.agent_text(agent)
}

fn check(answer: &str) {
    assert!(answer.contains("Exit code Some(3)"), "{answer}");
    // The limit (10 bytes) cuts inside `é`: the cut moves to the next character.
    assert!(answer.contains("last output \"éééé\\n\" (truncated: true)"), "{answer}");
    assert!(answer.contains("ended by Some(\"SIGKILL\")"), "{answer}");
    assert!(answer.contains("Outside the workspace: refused"), "{answer}");
}

/// The demo's long commands still running in `dir` (the container test's, running alongside in
/// its own folder, are not these).
fn sleepers_here(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let dir = dir.canonicalize().unwrap();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let in_dir = std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(&dir));
        if !in_dir {
            continue;
        }
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.starts_with("sleep 300") || cmd.starts_with("sleep 301") {
                found.push(cmd);
            }
        }
    }
    found
}

#[tokio::test]
async fn the_demo_agent_runs_streams_kills_and_releases_commands() {
    let dir = tempfile::tempdir().unwrap();
    let rig_config = common::config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    let mut rig = Rig::new(fast_settings());
    common::load_config(&rig, dir.path(), &rig_config).await;
    let answer = run(&mut rig, "demo").await;
    check(&answer);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !sleepers_here(dir.path()).is_empty() {
        assert!(std::time::Instant::now() < deadline, "left running: {:?}", sleepers_here(dir.path()));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_same_inside_a_container() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let container = Container::start(&[(dir.path(), &dir.path().display().to_string())]);
    let text = format!(
        "[[agent]]\nname = \"boxed\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\nruntime = {{ type = \"container\", container = {:?} }}\n",
        dir.path().display().to_string(),
        container.name
    );
    let mut rig = Rig::new(fast_settings());
    common::load_config(&rig, dir.path(), &text).await;
    let answer = run(&mut rig, "boxed").await;
    check(&answer);
    let left: Vec<String> = container.processes().into_iter().filter(|p| p.starts_with("sleep 30")).collect();
    assert!(left.is_empty(), "left running in the container: {left:?}");
}

#[tokio::test]
async fn the_same_on_another_machine_over_ssh() {
    if !common::ssh::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[[agent]]\nname = \"far\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\nruntime = {{ type = \"ssh\", host = {:?} }}\n",
        dir.path().display().to_string(),
        common::ssh::HOST
    );
    let mut rig = Rig::new(fast_settings());
    common::load_config(&rig, dir.path(), &text).await;
    let answer = run(&mut rig, "far").await;
    check(&answer);
    // The commands ran there (under sshd, through their own ssh session), and nothing is left.
    let ran_there = rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Terminal { .. })));
    assert!(ran_there);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !sleepers_here(dir.path()).is_empty() {
        assert!(std::time::Instant::now() < deadline, "left running there: {:?}", sleepers_here(dir.path()));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
