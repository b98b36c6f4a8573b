//! Agents in containers, sandboxes and pods, for real where the tool is here: the demo agent answers
//! from inside a Docker or Podman container, its env arrives, its file requests are served in the container,
//! Stop leaves nothing running there; clear errors for a missing or stopped container and a missing
//! tool; exact command lines for sbx, kubectl and podman through recording stand-ins; hostile names
//! reach the command unchanged.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{AgentState, Command, CrashReason, Event, SpawnFailure};
use sidekicks::model::conversation::TurnEnd;
use sidekicks::runtime::exec::{ExecError, Executor, ProcessSpec, RemoteExecutor, RemoteKind};

use crate::common;
use common::docker::{Container, DOCKER, Engine, PODMAN, available};
use common::{BIN, Rig, fast_settings};

fn container_config(engine: Engine, dir: &Path, container: &str, extra: &str) -> String {
    format!(
        "[[agent]]\nname = \"boxed\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\nenv = {{ SK_MARK = \"hello from the config\" }}\nruntime = {{ type = {:?}, container = {container:?}{extra} }}\n",
        dir.display().to_string(),
        engine.runtime_kind()
    )
}

/// The executor kind of `engine`.
fn remote_kind(engine: Engine) -> RemoteKind {
    if engine == PODMAN { RemoteKind::Podman } else { RemoteKind::Docker }
}

async fn rig_with(dir: &Path, text: &str) -> Rig {
    let rig = Rig::new(fast_settings());
    common::load_config(&rig, dir, text).await;
    rig
}

fn crash_of(e: &Event) -> Option<CrashReason> {
    match e {
        Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(r), .. }) => Some(r.reason.clone()),
        _ => None,
    }
}

#[tokio::test]
async fn the_demo_agent_answers_from_inside_a_container_and_stop_leaves_nothing() {
    answers_from_inside(DOCKER).await;
}

#[tokio::test]
async fn the_demo_agent_answers_from_inside_a_podman_container_and_stop_leaves_nothing() {
    answers_from_inside(PODMAN).await;
}

async fn answers_from_inside(engine: Engine) {
    if !engine.available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    // Mounted elsewhere in the container, so file requests must be served there.
    let container = Container::start_in(engine, &[(&ws, "/project")]);
    let text = container_config(engine, &ws, &container.name, ", workspace_path = \"/project\"");
    let mut rig = rig_with(&ws, &text).await;

    assert_eq!(rig.turn("boxed", "hello").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("boxed").contains("> hello"));
    let agent =
        container.processes().into_iter().find(|p| p.contains("demo-agent")).expect("the agent runs in the container");
    assert!(agent.starts_with(BIN), "{agent}");
    let environ = container.sh("for d in /proc/[0-9]*; do if tr '\\0' ' ' < $d/cmdline | grep -q demo-agent; then tr '\\0' '\\n' < $d/environ; fi; done");
    assert!(environ.lines().any(|l| l == "SK_MARK=hello from the config"), "{environ}");
    assert_eq!(container.sh("pwd; for d in /proc/[0-9]*; do [ $d = /proc/$$ ] && continue; if tr '\\0' ' ' < $d/cmdline | grep -q demo-agent; then readlink $d/cwd; fi; done").lines().last(), Some("/project"));

    // fs/* requests are served inside the container's workspace (/project is the host's ws).
    assert_eq!(rig.turn("boxed", "files").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("boxed").contains("was refused"), "{}", rig.agent_text("boxed"));
    assert!(std::fs::read_to_string(ws.join("notes/demo.md")).unwrap().starts_with("# Notes"));

    rig.send(Command::Agent("boxed".into(), AgentCommand::Stop)).await;
    rig.wait_for(Duration::from_secs(20), "stopped", |e| {
        matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Stopped, .. }))
    })
    .await;
    assert!(!container.processes().iter().any(|p| p.contains("demo-agent")), "{:?}", container.processes());
}

#[tokio::test]
async fn an_agent_that_ignores_eof_and_sigterm_in_a_container_is_killed_there() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let container = Container::start(&[(dir.path(), &dir.path().display().to_string())]);
    let text = format!(
        "[[agent]]\nname = \"stubborn\"\ncommand = \"sh\"\nargs = [\"-c\", \"trap '' TERM; while true; do sleep 1; done\", \"stubborn-marker\"]\nworkspace = {:?}\nruntime = {{ type = \"container\", container = {:?} }}\n",
        dir.path().display().to_string(),
        container.name
    );
    // A handshake that never comes: the short timeout.
    let mut rig = Rig::new(common::short_handshake());
    common::load_config(&rig, dir.path(), &text).await;
    rig.send(Command::Agent("stubborn".into(), AgentCommand::Start)).await;
    // It never speaks ACP: the handshake times out and the stop sequence runs in the container.
    rig.wait_for(Duration::from_secs(30), "crash", |e| crash_of(e).is_some()).await;
    // The stop sequence ends it in the container (a condition, not a time: it may still be going).
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while container.processes().iter().any(|p| p.contains("stubborn-marker")) {
        assert!(std::time::Instant::now() < deadline, "still running: {:?}", container.processes());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_missing_or_stopped_container_is_a_clear_error() {
    missing_or_stopped(DOCKER).await;
}

#[tokio::test]
async fn a_missing_or_stopped_podman_container_is_a_clear_error() {
    missing_or_stopped(PODMAN).await;
}

async fn missing_or_stopped(engine: Engine) {
    if !engine.available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig_with(dir.path(), &container_config(engine, dir.path(), "no-such-container-xyz", "")).await;
    rig.send(Command::Agent("boxed".into(), AgentCommand::Start)).await;
    let e = rig.wait_for(Duration::from_secs(20), "crash", |e| crash_of(e).is_some()).await;
    assert_eq!(
        crash_of(&e),
        Some(CrashReason::Spawn(SpawnFailure::ContainerMissing { name: "no-such-container-xyz".into() }))
    );

    let container = Container::start_in(engine, &[]);
    std::process::Command::new(engine.0).args(["stop", "-t", "0", &container.name]).output().unwrap();
    let mut rig = rig_with(dir.path(), &container_config(engine, dir.path(), &container.name, "")).await;
    rig.send(Command::Agent("boxed".into(), AgentCommand::Start)).await;
    let e = rig.wait_for(Duration::from_secs(20), "crash", |e| crash_of(e).is_some()).await;
    assert_eq!(crash_of(&e), Some(CrashReason::Spawn(SpawnFailure::ContainerStopped { name: container.name.clone() })));
}

#[tokio::test]
async fn a_missing_tool_is_a_clear_error() {
    let executor = RemoteExecutor::new(RemoteKind::Docker, "web").with_program("docker-is-not-installed-here");
    match executor.preflight().await {
        Err(ExecError::ToolMissing { tool, runtime }) => {
            assert_eq!((tool.as_str(), runtime), ("docker-is-not-installed-here", "container"));
        }
        other => panic!("{other:?}"),
    }
}

/// A stand-in for `sbx`/`kubectl`/`podman`: records its arguments (NUL-separated) in `log`, then
/// runs the command after `exec [-i] TARGET [--]` on this computer.
fn stand_in(dir: &Path, log: &Path) -> String {
    let path = dir.join("tool");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nprintf '%s\\0' \"$@\" > {log:?}\nshift\nwhile :; do case \"$1\" in -i) shift;; -e) shift 2;; *) break;; esac; done\nshift\n[ \"$1\" = -- ] && shift\nexec \"$@\"\n",
            log = log.display().to_string()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

fn recorded(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log).unwrap().split('\0').filter(|s| !s.is_empty()).map(String::from).collect()
}

/// Names no shell should get to interpret.
const HOSTILE: &[&str] =
    &["it's \"quoted\"", "two\nlines", "$(touch pwned)", "`touch pwned`", "-rf", "ünïcødé ✓", "a b;c|d&e"];

#[tokio::test]
async fn sbx_kubectl_and_podman_command_lines_and_hostile_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("argv");
    let tool = stand_in(dir.path(), &log);
    let folder = dir.path().join("odd $(folder) 'name'");
    std::fs::create_dir(&folder).unwrap();
    let mut argv = vec![
        "sh".to_string(),
        "-c".to_string(),
        "printf '%s\\0' \"$PWD\" \"$NAME\" \"$@\"".to_string(),
        "x".to_string(),
    ];
    argv.extend(HOSTILE.iter().map(|s| s.to_string()));
    let spec = ProcessSpec {
        argv: argv.clone(),
        cwd: folder.clone(),
        env: [("NAME".to_string(), "va'l $(x)\nue".to_string())].into(),
    };

    for (kind, prefix) in [
        (RemoteKind::Sbx, vec!["exec", "mybox"]),
        (RemoteKind::Kubectl, vec!["exec", "mypod", "--"]),
        (RemoteKind::Podman, vec!["exec", "mybox"]),
    ] {
        let executor = RemoteExecutor::new(kind, prefix[1]).with_program(tool.clone());
        let out = executor.run(&spec, None).await.unwrap();
        assert_eq!(out.code, Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let printed: Vec<String> =
            String::from_utf8(out.stdout).unwrap().split('\0').filter(|s| !s.is_empty()).map(String::from).collect();
        assert_eq!(printed[0], folder.display().to_string(), "the folder reached `cd` unchanged");
        assert_eq!(printed[1], "va'l $(x)\nue", "the variable reached the command unchanged");
        assert_eq!(&printed[2..], HOSTILE, "every argument reached the command unchanged");
        let line = recorded(&log);
        assert_eq!(&line[line.len() - argv.len()..], &argv[..]);
        if kind == RemoteKind::Podman {
            // By name only: the value is in podman's own environment, not on its command line.
            assert_eq!(&line[..4], ["exec", "-e", "NAME", "mybox"], "{line:?}");
            assert!(!line.iter().any(|a| a.contains("va'l")), "{line:?}");
        } else {
            assert_eq!(&line[..prefix.len()], &prefix[..], "{kind:?}: {line:?}");
            assert!(line.contains(&"NAME=va'l $(x)\nue".to_string()));
        }
        assert!(!dir.path().join("pwned").exists() && !folder.join("pwned").exists());
    }

    // popen (the agent path) with -i, through the same stand-in.
    let executor = RemoteExecutor::new(RemoteKind::Sbx, "mybox").with_program(tool.clone());
    let spec = ProcessSpec { argv: vec!["cat".into()], cwd: dir.path().to_path_buf(), env: Default::default() };
    std::fs::remove_file(&log).unwrap();
    let launched = executor.popen(&spec).unwrap();
    assert!(launched.teardown.is_some());
    for _ in 0..100 {
        if log.exists() && !recorded(&log).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let line = recorded(&log);
    assert_eq!(&line[..3], ["exec", "-i", "mybox"]);
    drop(launched);
}

#[tokio::test]
async fn hostile_arguments_reach_a_command_in_a_real_container_unchanged() {
    hostile_arguments_in(DOCKER).await;
}

#[tokio::test]
async fn hostile_arguments_reach_a_command_in_a_real_podman_container_unchanged() {
    hostile_arguments_in(PODMAN).await;
}

async fn hostile_arguments_in(engine: Engine) {
    if !engine.available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let inside = dir.path().display().to_string();
    let container = Container::start_in(engine, &[(dir.path(), &inside)]);
    let folder = dir.path().join("odd $(folder) 'name'");
    std::fs::create_dir(&folder).unwrap();
    let mut argv = vec![
        "sh".to_string(),
        "-c".to_string(),
        "printf '%s\\0' \"$PWD\" \"$NAME\" \"$@\"".to_string(),
        "x".to_string(),
    ];
    argv.extend(HOSTILE.iter().map(|s| s.to_string()));
    // The variable goes by name (`-e NAME`), its value through docker's own environment.
    let env = [("NAME".to_string(), "va'l $(x)\nue".to_string())].into();
    let spec = ProcessSpec { argv, cwd: folder.clone(), env };
    let out = RemoteExecutor::new(remote_kind(engine), container.name.clone()).run(&spec, None).await.unwrap();
    assert_eq!(out.code, Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let printed: Vec<String> =
        String::from_utf8(out.stdout).unwrap().split('\0').filter(|s| !s.is_empty()).map(String::from).collect();
    assert_eq!(printed[0], folder.display().to_string());
    assert_eq!(printed[1], "va'l $(x)\nue");
    assert_eq!(&printed[2..], HOSTILE);
    assert!(!folder.join("pwned").exists());
}

/// With `SIDEKICKS_TEST_SBX=<sandbox>`, the same hostile arguments through a real Docker sandbox.
#[tokio::test]
async fn a_real_sandbox_when_one_is_named() {
    let Ok(sandbox) = std::env::var("SIDEKICKS_TEST_SBX") else {
        println!("skipped: set SIDEKICKS_TEST_SBX=<sandbox name> to run against a real sandbox");
        return;
    };
    let mut argv = vec!["sh".to_string(), "-c".to_string(), "printf '%s\\0' \"$@\"".to_string(), "x".to_string()];
    argv.extend(HOSTILE.iter().map(|s| s.to_string()));
    let spec = ProcessSpec { argv, cwd: "/".into(), env: Default::default() };
    let out = RemoteExecutor::new(RemoteKind::Sbx, sandbox).run(&spec, None).await.unwrap();
    assert_eq!(out.code, Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let printed: Vec<String> =
        String::from_utf8(out.stdout).unwrap().split('\0').filter(|s| !s.is_empty()).map(String::from).collect();
    assert_eq!(printed, HOSTILE);
}

#[test]
fn an_agent_left_in_a_container_by_a_killed_sidekicks_is_ended_at_the_next_start() {
    use std::io::Read;
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let container = Container::start(&[(dir.path(), &dir.path().display().to_string())]);
    let config = dir.path().join("sidekicks.toml");
    std::fs::write(
        &config,
        format!(
            "[[agent]]\nname = \"boxed\"\ncommand = {BIN:?}\nargs = [\"demo-agent\", \"--misbehave\"]\nworkspace = {:?}\nruntime = {{ type = \"container\", container = {:?} }}\n",
            dir.path().display().to_string(),
            container.name
        ),
    )
    .unwrap();
    let prompt = |text: &str| {
        let mut cmd = std::process::Command::new(BIN);
        cmd.args(["prompt", "--agent", "boxed", text, "--config"])
            .arg(&config)
            .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_STATE_HOME", dir.path().join("state"));
        cmd
    };
    let mut first = prompt("spawn").stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut said = String::new();
    let mut buf = [0u8; 256];
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while said.split_whitespace().count() < 3 {
        assert!(std::time::Instant::now() < deadline, "no pids: {said:?}");
        let n = first.stdout.as_mut().unwrap().read(&mut buf).unwrap();
        assert!(n > 0, "the prompt ended: {said:?}");
        said.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    let running = |c: &Container| c.processes().iter().any(|p| p.contains("--misbehave") || p.contains("sleep 1000"));
    assert!(running(&container), "{:?}", container.processes());
    // SIGKILL: the `docker exec` client dies, the agent in the container does not.
    first.kill().unwrap();
    first.wait().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(running(&container), "the container ended the agent itself: nothing to test");
    // The next start of an agent in that container ends what the dead run left.
    let out = prompt("hello").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!running(&container), "left running: {:?}", container.processes());
}
