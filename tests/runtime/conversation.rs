//! A first live conversation with the demo agent as a real child process over ACP, cancel, and
//! bad input: a missing command, an agent that exits at once, one that prints garbage.

use std::time::Duration;

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{AgentState, Command, CrashReason, Event, LogEntry};
use sidekicks::model::conversation::TurnEnd;

use crate::common;
use common::{BIN, Rig, config_text, fast_settings, load_config};

fn turn_end(event: &Event, name: &str) -> Option<TurnEnd> {
    match event {
        Event::Agent(agent, AgentEvent::TurnEnded { end }) if agent == name => Some(end.clone()),
        _ => None,
    }
}

fn crash(event: &Event, name: &str) -> Option<sidekicks::app::CrashReport> {
    match event {
        Event::Agent(agent, AgentEvent::State { state: AgentState::Crashed(report) }) if agent == name => {
            Some(report.clone())
        }
        _ => None,
    }
}

#[tokio::test]
async fn hello_streams_a_markdown_reply_in_several_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::new(fast_settings());
    load_config(&rig, dir.path(), &config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).await;
    // Prompting a stopped agent starts it.
    rig.send(Command::prompt("demo", "hello")).await;
    let end = rig.wait_for(Duration::from_secs(20), "turn end", |e| turn_end(e, "demo").is_some()).await;
    assert_eq!(turn_end(&end, "demo"), Some(TurnEnd::EndTurn));
    let chunks = rig.seen.iter().filter(|e| matches!(e, Event::Agent(_, AgentEvent::Update { .. }))).count();
    assert!(chunks > 3, "expected several chunks, got {chunks}");
    let text = rig.agent_text("demo");
    assert!(text.starts_with("**Hello!**"), "{text}");
    assert!(text.contains("> hello"), "{text}");
    // Every fragment came before the end of the turn.
    let end_at = rig.seen.iter().position(|e| turn_end(e, "demo").is_some()).unwrap();
    assert!(!rig.seen[end_at..].iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Update { .. }))));

    // A second message goes to the same process and session.
    rig.send(Command::prompt("demo", "again")).await;
    rig.wait_for(Duration::from_secs(20), "second turn", |e| turn_end(e, "demo").is_some()).await;
    assert!(rig.agent_text("demo").contains("> again"));
    let starts = rig
        .seen
        .iter()
        .filter(|e| matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Starting, .. })))
        .count();
    assert_eq!(starts, 1, "the agent was started more than once");
    rig.send(Command::Shutdown).await;
    rig.wait_for(Duration::from_secs(15), "shutdown", |e| *e == Event::ShutdownComplete).await;
}

#[tokio::test]
async fn cancel_ends_the_turn_as_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::new(fast_settings());
    load_config(&rig, dir.path(), &config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).await;
    rig.send(Command::prompt("demo", "wait")).await;
    rig.wait_for(Duration::from_secs(20), "first fragment", |e| {
        matches!(e, Event::Agent(_, AgentEvent::Update { .. }))
    })
    .await;
    rig.send(Command::Agent("demo".into(), AgentCommand::Cancel)).await;
    let end = rig.wait_for(Duration::from_secs(10), "turn end", |e| turn_end(e, "demo").is_some()).await;
    assert_eq!(turn_end(&end, "demo"), Some(TurnEnd::Cancelled));
    rig.wait_for(Duration::from_secs(5), "idle again", |e| {
        matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Idle, .. }))
    })
    .await;
}

#[tokio::test]
async fn a_missing_command_is_a_clear_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::new(fast_settings());
    let text = config_text("", &[("ghost", "no-such-agent-binary", &[])], dir.path());
    load_config(&rig, dir.path(), &text).await;
    rig.send(Command::prompt("ghost", "hi")).await;
    let event = rig.wait_for(Duration::from_secs(10), "crash", |e| crash(e, "ghost").is_some()).await;
    let report = crash(&event, "ghost").unwrap();
    match report.reason {
        CrashReason::Spawn(sidekicks::app::SpawnFailure::NotFound { program: message }) => {
            assert!(message.contains("no-such-agent-binary"), "{message}")
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn an_agent_that_exits_at_once_reports_its_code_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::new(fast_settings());
    let text = config_text("", &[("quitter", "sh", &["-c", "echo 'no API key' >&2; exit 3"])], dir.path());
    load_config(&rig, dir.path(), &text).await;
    rig.send(Command::Agent("quitter".into(), AgentCommand::Start)).await;
    let event = rig.wait_for(Duration::from_secs(10), "crash", |e| crash(e, "quitter").is_some()).await;
    let report = crash(&event, "quitter").unwrap();
    assert_eq!(report.reason, CrashReason::Exited { code: 3 });
    assert_eq!(report.stderr_tail, vec!["no API key".to_string()]);
    // The manager keeps working: the agent can be started again.
    rig.send(Command::Agent("quitter".into(), AgentCommand::Start)).await;
    rig.wait_for(Duration::from_secs(10), "second crash", |e| crash(e, "quitter").is_some()).await;
}

#[tokio::test]
async fn an_agent_that_prints_garbage_fails_the_handshake_and_shows_it_in_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::new(common::short_handshake());
    let text = config_text("", &[("noisy", "sh", &["-c", "echo 'Welcome to my agent!'; exec sleep 60"])], dir.path());
    load_config(&rig, dir.path(), &text).await;
    rig.send(Command::Agent("noisy".into(), AgentCommand::Start)).await;
    let event = rig.wait_for(Duration::from_secs(15), "crash", |e| crash(e, "noisy").is_some()).await;
    let report = crash(&event, "noisy").unwrap();
    assert!(
        matches!(&report.reason, CrashReason::Handshake(sidekicks::app::HandshakeFailure::Timeout { step, .. }) if step == "initialize"),
        "{report:?}"
    );
    let logged = rig.seen.iter().any(
        |e| matches!(e, Event::Agent(agent, AgentEvent::Log { entry: LogEntry::NotAcp(line) }) if agent == "noisy" && line == "Welcome to my agent!"),
    );
    assert!(logged, "the garbage line was not logged: {:#?}", rig.seen);
}

#[tokio::test]
async fn stopping_a_busy_agent_ends_its_turn_and_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::new(fast_settings());
    load_config(&rig, dir.path(), &config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).await;
    rig.send(Command::prompt("demo", "wait")).await;
    rig.wait_for(Duration::from_secs(20), "first fragment", |e| {
        matches!(e, Event::Agent(_, AgentEvent::Update { .. }))
    })
    .await;
    rig.send(Command::Agent("demo".into(), AgentCommand::Stop)).await;
    let end = rig.wait_for(Duration::from_secs(10), "turn end", |e| turn_end(e, "demo").is_some()).await;
    assert_eq!(turn_end(&end, "demo"), Some(TurnEnd::Cancelled));
    rig.wait_for(Duration::from_secs(10), "stopped", |e| {
        matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Stopped, .. }))
    })
    .await;
    // Restart brings it back.
    rig.send(Command::Agent("demo".into(), AgentCommand::Restart)).await;
    rig.wait_for(Duration::from_secs(20), "idle", |e| {
        matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Idle, .. }))
    })
    .await;
}

/// The runtime tells each agent's git branch (the window asked for it before, after each turn):
/// once the config is applied, and again after each turn, as the agent may have switched.
#[tokio::test]
async fn the_branch_is_told_after_the_config_and_after_each_turn() {
    let dir = tempfile::tempdir().unwrap();
    common::git(dir.path(), &["init", "-q", "-b", "feature-x"]);
    let mut rig = Rig::new(fast_settings());
    load_config(&rig, dir.path(), &config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).await;
    let on = |name: &'static str| move |e: &Event| matches!(e, Event::Agent(a, AgentEvent::Branch { branch: Some(b) }) if a == "demo" && b == name);
    rig.wait_for(Duration::from_secs(10), "the branch", on("feature-x")).await;
    common::git(dir.path(), &["checkout", "-q", "-b", "other"]);
    assert_eq!(rig.turn("demo", "hello").await, TurnEnd::EndTurn);
    rig.wait_for(Duration::from_secs(10), "the branch after the turn", on("other")).await;
}
