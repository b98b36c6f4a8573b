//! Agent processes for real: the stop sequence on scripts that behave politely, ignore stdin
//! EOF, or ignore SIGTERM; grandchildren in the group end too; idle stop and max_running with
//! the demo agent.

use std::time::{Duration, Instant};

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::ConfigEvent;
use sidekicks::app::{AgentState, Command, Event};
use sidekicks::runtime::exec::{Executor, LocalExecutor, ProcessSpec};
use sidekicks::runtime::process::{AgentProcess, StopOutcome, StopTimeouts};

use crate::common;
use common::{BIN, Rig, alive, config_text, fast_settings, load_config};

const TIMEOUTS: StopTimeouts =
    StopTimeouts { after_eof: Duration::from_millis(1500), after_term: Duration::from_millis(1500) };

fn spawn_script(script: &str, dir: &std::path::Path) -> AgentProcess {
    let spec = ProcessSpec {
        argv: vec!["sh".into(), "-c".into(), script.into()],
        cwd: dir.to_path_buf(),
        env: Default::default(),
    };
    let child = LocalExecutor.popen(&spec).expect("spawn").child;
    AgentProcess::new(child, Default::default(), |_line| async {})
}

/// Waits until `file` holds a pid (scripts write theirs once their traps are set).
async fn read_pid(file: &std::path::Path) -> i32 {
    for _ in 0..100 {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no pid in {}", file.display());
}

#[tokio::test]
async fn closing_stdin_is_enough_for_a_polite_agent() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let mut p = spawn_script(&format!("echo $$ > {}; cat > /dev/null", ready.display()), dir.path());
    let pid = read_pid(&ready).await;
    assert!(alive(pid));
    let start = Instant::now();
    p.take_stdio(); // the pipes are dropped at once, as a closed connection would
    assert_eq!(p.stop(TIMEOUTS).await, StopOutcome::ExitedOnEof);
    assert!(start.elapsed() < TIMEOUTS.after_eof);
    assert!(!alive(pid));
}

#[tokio::test]
async fn an_agent_that_ignores_eof_gets_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let script = format!("trap 'exit 0' TERM; echo $$ > {}; while true; do sleep 0.05; done", ready.display());
    let p = spawn_script(&script, dir.path());
    let pid = read_pid(&ready).await;
    assert_eq!(p.stop(TIMEOUTS).await, StopOutcome::Terminated);
    assert!(!alive(pid));
}

#[tokio::test]
async fn an_agent_that_ignores_sigterm_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let script = format!("trap '' TERM; echo $$ > {}; while true; do sleep 0.05; done", ready.display());
    let p = spawn_script(&script, dir.path());
    let pid = read_pid(&ready).await;
    assert_eq!(p.stop(TIMEOUTS).await, StopOutcome::Killed);
    assert!(!alive(pid));
}

#[tokio::test]
async fn grandchildren_in_the_group_end_too() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    // The grandchild ignores SIGTERM and outlives its parent: only SIGKILL to the group ends it.
    let script = format!("sh -c \"trap '' TERM; sleep 1000\" & echo $! > {}; cat > /dev/null", ready.display());
    let mut p = spawn_script(&script, dir.path());
    let grandchild = read_pid(&ready).await;
    assert!(alive(grandchild));
    p.take_stdio();
    assert_eq!(p.stop(TIMEOUTS).await, StopOutcome::ExitedOnEof);
    for _ in 0..100 {
        if !alive(grandchild) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("grandchild {grandchild} still alive");
}

fn state_of<'a>(event: &'a Event, name: &str) -> Option<&'a AgentState> {
    match event {
        Event::Agent(agent, AgentEvent::State { state }) if agent == name => Some(state),
        _ => None,
    }
}

#[tokio::test]
async fn idle_agent_is_stopped_after_idle_stop() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::new(fast_settings());
    let text = config_text("idle_stop = 1", &[("demo", BIN, &["demo-agent"])], dir.path());
    load_config(&rig, dir.path(), &text).await;
    rig.send(Command::Agent("demo".into(), AgentCommand::Start)).await;
    rig.wait_for(Duration::from_secs(15), "demo idle", |e| state_of(e, "demo") == Some(&AgentState::Idle)).await;
    let idle_at = Instant::now();
    rig.wait_for(Duration::from_secs(10), "demo stopped", |e| state_of(e, "demo") == Some(&AgentState::Stopped)).await;
    assert!(idle_at.elapsed() >= Duration::from_millis(900), "stopped too early");
}

#[tokio::test]
async fn max_running_stops_the_least_recently_used_idle_agent() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::new(fast_settings());
    let agents: &[(&str, &str, &[&str])] =
        &[("a", BIN, &["demo-agent"]), ("b", BIN, &["demo-agent"]), ("c", BIN, &["demo-agent"])];
    let text = config_text("idle_stop = 0\nmax_running = 2", agents, dir.path());
    load_config(&rig, dir.path(), &text).await;
    for name in ["a", "b"] {
        rig.send(Command::Agent(name.into(), AgentCommand::Start)).await;
        rig.wait_for(Duration::from_secs(15), "idle", |e| state_of(e, name) == Some(&AgentState::Idle)).await;
    }
    // Use `a`, so `b` becomes the least recently used.
    rig.send(Command::prompt("a", "hi")).await;
    rig.wait_for(
        Duration::from_secs(15),
        "a answered",
        |e| matches!(e, Event::Agent(agent, AgentEvent::TurnEnded { .. }) if agent == "a"),
    )
    .await;
    rig.send(Command::Agent("c".into(), AgentCommand::Start)).await;
    // Both happen, in either order.
    rig.wait_for(Duration::from_secs(15), "b stopped", |e| state_of(e, "b") == Some(&AgentState::Stopped)).await;
    if !rig.seen.iter().any(|e| state_of(e, "c") == Some(&AgentState::Idle)) {
        rig.wait_for(Duration::from_secs(15), "c idle", |e| state_of(e, "c") == Some(&AgentState::Idle)).await;
    }
    let a_stopped = rig.seen.iter().any(|e| state_of(e, "a") == Some(&AgentState::Stopped));
    assert!(!a_stopped, "the recently used agent was stopped");
    rig.send(Command::Shutdown).await;
    rig.wait_for(Duration::from_secs(15), "shutdown", |e| *e == Event::ShutdownComplete).await;
}

/// Team members are agents like the others (issue 33): `max_running` counts them — starting the
/// person's agent stops an idle member to make room —, the person's agent runs in its own folder
/// beside its member, and a member removed is stopped.
#[tokio::test]
async fn members_count_for_max_running_and_end_when_removed() {
    use sidekicks::protocol::teams::MemberAgent;
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    let mut rig = Rig::new(fast_settings());
    let text = config_text("idle_stop = 0\nmax_running = 1", &[("a", BIN, &["demo-agent"])], dir.path());
    load_config(&rig, dir.path(), &text).await;
    let member = MemberAgent {
        from: "a".into(),
        team: "t".into(),
        workspace: copy.clone(),
        env: Default::default(),
        container: None,
        far: false,
    };
    rig.send(sidekicks::runtime::agents::ManagerCommand::SetMember { name: "a · t".into(), member: Some(member) })
        .await;
    rig.wait_for(
        Duration::from_secs(15),
        "the member in the config",
        |e| matches!(e, Event::Config(ConfigEvent::Applied { config, .. }) if config.agent("a · t").is_some_and(|m| m.workspace == copy)),
    )
    .await;
    rig.send(Command::Agent("a · t".into(), AgentCommand::Start)).await;
    rig.wait_for(Duration::from_secs(15), "member idle", |e| state_of(e, "a · t") == Some(&AgentState::Idle)).await;
    rig.send(Command::Agent("a".into(), AgentCommand::Start)).await;
    rig.wait_for(Duration::from_secs(15), "member stopped for room", |e| {
        state_of(e, "a · t") == Some(&AgentState::Stopped)
    })
    .await;
    // Both happen, in either order.
    if !rig.seen.iter().any(|e| state_of(e, "a") == Some(&AgentState::Idle)) {
        rig.wait_for(Duration::from_secs(15), "a idle", |e| state_of(e, "a") == Some(&AgentState::Idle)).await;
    }
    // Started again, then removed: it stops (and `a` made room for it, max_running being 1).
    rig.send(Command::Agent("a · t".into(), AgentCommand::Start)).await;
    rig.wait_for(Duration::from_secs(15), "member idle again", |e| state_of(e, "a · t") == Some(&AgentState::Idle))
        .await;
    rig.send(sidekicks::runtime::agents::ManagerCommand::SetMember { name: "a · t".into(), member: None }).await;
    rig.wait_for(Duration::from_secs(15), "member stopped once removed", |e| {
        state_of(e, "a · t") == Some(&AgentState::Stopped)
    })
    .await;
    rig.send(Command::Shutdown).await;
    rig.wait_for(Duration::from_secs(15), "shutdown", |e| *e == Event::ShutdownComplete).await;
}
