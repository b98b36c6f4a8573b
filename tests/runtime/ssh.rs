//! Agents on another machine over SSH, for real: Debian's sshd on 127.0.0.1 with its own config
//! and keys (`scripts/ssh-test-env.sh`). The demo agent answers from there (under sshd, its env
//! arriving whole, its file requests served in the remote folder), Stop leaves nothing on either
//! side; Claude Code's published ACP adapter answers through `sidekicks prompt`; a terminal opens
//! there, follows a resize and ends every job on close; an unknown or changed host key, a refused
//! login, a machine out of reach and a missing command are told in words.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{AgentState, Command, CrashReason, Event, SpawnFailure};
use sidekicks::i18n::{crash_text, workspace_error_text};
use sidekicks::model::config::Language;
use sidekicks::model::conversation::TurnEnd;
use sidekicks::protocol::SshFault;
use sidekicks::runtime::exec::{ExecError, Executor, SshExecutor};
use sidekicks::runtime::terminal::TerminalSession;
use sidekicks::runtime::workspace::{RemoteWorkspace, Workspace, WorkspaceError};

use crate::common;
use common::ssh::{HOST, available, environ, parent_name, processes_with};
use common::{BIN, JOBS, Rig, fast_settings, pids_on, wait_screen};

const LIMIT: Duration = Duration::from_secs(60);

fn ssh_agent(name: &str, command: &str, args: &[&str], local: &Path, remote: &Path, host: &str, extra: &str) -> String {
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "[[agent]]\nname = {name:?}\ncommand = {command:?}\nargs = [{}]\nworkspace = {:?}\n{extra}runtime = {{ type = \"ssh\", host = {host:?}, workspace_path = {:?} }}\n",
        args.join(", "),
        local.display().to_string(),
        remote.display().to_string()
    )
}

fn crash_of(e: &Event) -> Option<CrashReason> {
    match e {
        Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(r), .. }) => Some(r.reason.clone()),
        _ => None,
    }
}

/// Waits until `done` holds, checking every 50 ms.
async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + LIMIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_demo_agent_answers_over_ssh_its_files_are_served_there_and_stop_leaves_nothing() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (local, remote) = (dir.path().join("here"), dir.path().join("there"));
    std::fs::create_dir(&local).unwrap();
    std::fs::create_dir(&remote).unwrap();
    // A value with a quote, a `$(…)` and a second line: it must arrive whole, and never on a
    // command line.
    // The marker is a word no other process carries (the Claude Code test beside this one passes
    // prompts saying "not running" on its command lines).
    let value = "it's $(sk_never_run_7f3a)\nsecond line";
    let env = format!("env = {{ SK_MARK = {value:?} }}\n");
    let text = ssh_agent("far", BIN, &["demo-agent"], &local, &remote, HOST, &env);
    let mut rig = Rig::new(fast_settings());
    common::load_config(&rig, dir.path(), &text).await;

    assert_eq!(rig.turn("far", "hello").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("far").contains("> hello"), "{}", rig.agent_text("far"));
    let there = remote.display().to_string();
    let agents: Vec<(i32, String)> = processes_with("demo-agent")
        .into_iter()
        .filter(|(pid, _)| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == remote))
        .collect();
    assert_eq!(agents.len(), 1, "one agent runs in the remote folder: {agents:?}");
    let (pid, _) = agents[0];
    assert!(parent_name(pid).starts_with("sshd"), "it runs under sshd, not {}", parent_name(pid));
    assert!(environ(pid).contains(&format!("SK_MARK={value}")), "{:?}", environ(pid));
    let on_command_lines: Vec<(i32, String)> = processes_with("sk_never_run_7f3a");
    assert!(on_command_lines.is_empty(), "the env value is on a command line: {on_command_lines:?}");

    // Its fs/* requests are served in the remote folder, not in the local one.
    assert_eq!(rig.turn("far", "files").await, TurnEnd::EndTurn);
    assert!(std::fs::read_to_string(remote.join("notes/demo.md")).unwrap().starts_with("# Notes"));
    assert!(!local.join("notes").exists());

    rig.send(Command::Agent("far".into(), AgentCommand::Stop)).await;
    rig.wait_for(LIMIT, "stopped", |e| {
        matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Stopped, .. }))
    })
    .await;
    // Nothing left there (the agent) nor here (its ssh client, whose command line names the folder).
    until("nothing left", || processes_with(&there).is_empty()).await;
}

/// The misbehaving agent's "spawn": `sleep 1000` started there; (agent pid, sleep pid).
async fn spawned(rig: &mut Rig, agent: &str) -> (i32, i32) {
    rig.say(agent, "spawn").await;
    rig.wait_for(LIMIT, "the pids", |e| matches!(e, Event::Agent(_, AgentEvent::Update { .. }))).await;
    let deadline = Instant::now() + LIMIT;
    loop {
        let text = rig.agent_text(agent);
        let pids: Vec<i32> =
            text.split("pids ").nth(1).unwrap_or("").split_whitespace().filter_map(|p| p.parse().ok()).collect();
        if pids.len() == 2 {
            return (pids[0], pids[1]);
        }
        assert!(Instant::now() < deadline, "no pids in {text:?}");
        rig.wait_for(LIMIT, "more text", |e| matches!(e, Event::Agent(_, AgentEvent::Update { .. }))).await;
    }
}

#[tokio::test]
async fn what_an_agent_started_there_ends_when_it_is_stopped() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = ssh_agent("far", BIN, &["demo-agent", "--misbehave"], dir.path(), dir.path(), HOST, "");
    let mut rig = Rig::new(fast_settings());
    common::load_config(&rig, dir.path(), &text).await;
    let (agent, sleeper) = spawned(&mut rig, "far").await;
    assert!(common::alive(agent) && common::alive(sleeper));
    assert!(parent_name(agent).starts_with("sshd"), "{}", parent_name(agent));
    rig.send(Command::Agent("far".into(), AgentCommand::Stop)).await;
    rig.wait_for(LIMIT, "stopped", |e| {
        matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Stopped, .. }))
    })
    .await;
    until("the agent and its sleeper ended there", || !common::alive(agent) && !common::alive(sleeper)).await;
}

/// The failure `host` gives, through the executor's preflight (what starting an agent runs first).
async fn fault_of(host: &str) -> SshFault {
    match SshExecutor::new(host).unwrap().preflight().await {
        Err(ExecError::Ssh { host: h, fault }) => {
            assert_eq!(h, host);
            fault
        }
        other => panic!("expected an ssh fault from {host}, got {other:?}"),
    }
}

#[tokio::test]
async fn an_unknown_host_key_a_refused_login_and_a_machine_out_of_reach_are_told_in_words() {
    if !available() {
        return;
    }
    let known = common::ssh::dir().join("known_hosts_empty");
    match fault_of("sidekicks-test-unknown").await {
        SshFault::HostKeyUnknown { fingerprints, command } => {
            let expected = format!("ED25519 {}", common::ssh::host_fingerprint());
            assert_eq!(fingerprints, vec![expected], "the host's own key, fingerprinted");
            assert!(command.starts_with("ssh -F ") && command.ends_with(" sidekicks-test-unknown"), "{command}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_to_string(&known).unwrap(), "", "never accepted silently");
    assert_eq!(fault_of("sidekicks-test-nokey").await, SshFault::AuthRefused { methods: "publickey".into() });
    match fault_of("sidekicks-test-down").await {
        SshFault::Unreachable { detail } => assert!(detail.contains("Connection refused"), "{detail}"),
        other => panic!("{other:?}"),
    }
    // Another key than the known one: ssh's own line that forgets the old key is passed on.
    match fault_of("sidekicks-test-changed").await {
        SshFault::HostKeyChanged { command } => {
            assert!(command.starts_with("ssh-keygen -f ") && command.contains("known_hosts_changed"), "{command}")
        }
        other => panic!("{other:?}"),
    }

    // The Files tab's error says it in words too.
    let ws = RemoteWorkspace::new(Arc::new(SshExecutor::new("sidekicks-test-down").unwrap()), "/tmp", "ssh", "x");
    let error = ws.list(&sidekicks::model::rel_path::RelPath::root()).await.unwrap_err();
    assert!(
        matches!(&error, WorkspaceError::Unreachable { host, fault: SshFault::Unreachable { .. } } if host == "sidekicks-test-down"),
        "{error:?}"
    );
    assert!(workspace_error_text(Language::Fr, &error).starts_with("impossible de joindre sidekicks-test-down"));

    // Through the manager, the agent's crash says it in words (English and French).
    let dir = tempfile::tempdir().unwrap();
    let text = ssh_agent("far", BIN, &["demo-agent"], dir.path(), dir.path(), "sidekicks-test-unknown", "");
    let mut rig = Rig::new(fast_settings());
    common::load_config(&rig, dir.path(), &text).await;
    rig.send(Command::Agent("far".into(), AgentCommand::Start)).await;
    let crash = crash_of(&rig.wait_for(LIMIT, "crash", |e| crash_of(e).is_some()).await).unwrap();
    assert!(matches!(&crash, CrashReason::Spawn(SpawnFailure::Ssh { fault: SshFault::HostKeyUnknown { .. }, .. })));
    let said = crash_text(Language::En, &crash);
    assert!(said.contains("sidekicks-test-unknown is not a known host") && said.contains("SHA256:"), "{said}");
    assert!(crash_text(Language::Fr, &crash).contains("n’est pas un hôte connu"));
}

#[tokio::test]
async fn a_command_or_folder_missing_there_is_told_in_words() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("not-there");
    let text = format!(
        "{}{}",
        ssh_agent("nocmd", "no-such-agent-here", &[], dir.path(), dir.path(), HOST, ""),
        ssh_agent("nodir", BIN, &["demo-agent"], dir.path(), &missing, HOST, "")
    );
    let mut rig = Rig::new(fast_settings());
    common::load_config(&rig, dir.path(), &text).await;
    let cases = [
        (
            "nocmd",
            SshFault::CommandMissing { program: "no-such-agent-here".into() },
            "no-such-agent-here is not installed on sidekicks-test",
        ),
        ("nodir", SshFault::FolderMissing { path: missing.display().to_string() }, "does not exist on sidekicks-test"),
    ];
    for (agent, fault, words) in cases {
        rig.send(Command::Agent(agent.into(), AgentCommand::Start)).await;
        let event = rig
            .wait_for(
                LIMIT,
                "crash",
                |e| matches!(e, Event::Agent(a, AgentEvent::State { state: AgentState::Crashed(_) }) if a == agent),
            )
            .await;
        let Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(report), .. }) = event else {
            unreachable!()
        };
        assert_eq!(report.reason, CrashReason::Spawn(SpawnFailure::Ssh { host: HOST.into(), fault }), "{agent}");
        assert!(crash_text(Language::En, &report.reason).contains(words), "{agent}: {report:?}");
    }
}

#[test]
fn claude_codes_published_adapter_answers_over_ssh_through_the_command_line() {
    if !available() {
        return;
    }
    let Some(launcher) =
        common::codex::npm_launcher("tests/claude-agent", "claude-agent-acp", "Claude Code's ACP adapter")
    else {
        return;
    };
    let model = common::fake_anthropic::FakeAnthropic::with_rules(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let remote = dir.path().join("there");
    std::fs::create_dir(&remote).unwrap();
    let env = model.agent_env(&dir.path().join("claude-home"));
    let config = dir.path().join("sidekicks.toml");
    let launcher = launcher.display().to_string();
    std::fs::write(&config, ssh_agent("claude", &launcher, &[], dir.path(), &remote, HOST, &env)).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["prompt", "--agent", "claude", "say hello", "--config"])
        .arg(&config)
        .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains(common::fake_anthropic::ANSWER), "{said}");
    // The stand-in was asked with the session's folder there.
    assert!(model.bodies().iter().any(|b| b.contains(&remote.display().to_string())), "the remote folder was named");
    assert!(processes_with(&remote.display().to_string()).is_empty(), "left running");
}

#[test]
fn a_terminal_there_opens_in_the_folder_follows_a_resize_and_ends_every_job_on_close() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("inside.txt"), "").unwrap();
    let executor = Arc::new(SshExecutor::new(HOST).unwrap());
    let ws = RemoteWorkspace::new(executor, dir.path(), "ssh", HOST);
    let command = ws.shell_command(true);
    let t = TerminalSession::spawn(Path::new(BIN), &command, 80, 24, Arc::new(|| {})).unwrap();
    t.write(b"pwd; ls; echo SSH=$SSH_CONNECTION; echo in-$((3*3))\r").unwrap();
    let screen = wait_screen(&t, "in-9", LIMIT);
    assert!(screen.contains(&dir.path().display().to_string()) && screen.contains("inside.txt"), "{screen}");
    assert!(screen.contains("SSH=127.0.0.1"), "the shell runs over SSH: {screen}");
    t.resize(100, 30).unwrap();
    // The size reaches the remote terminal (SIGWINCH through ssh): asked until it shows.
    let deadline = Instant::now() + LIMIT;
    loop {
        t.write(b"echo size-$(stty size | tr ' ' x)\r").unwrap();
        std::thread::sleep(Duration::from_millis(200));
        if t.screen_text().contains("size-30x100") {
            break;
        }
        assert!(Instant::now() < deadline, "{}", t.screen_text());
    }
    t.write(JOBS.as_bytes()).unwrap();
    let mut screen = wait_screen(&t, "all-2", LIMIT);
    let deadline = Instant::now() + LIMIT;
    while pids_on(&screen).len() < 6 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        screen = t.screen_text();
    }
    let jobs = pids_on(&screen);
    assert_eq!(jobs.len(), 6, "{screen}");
    assert!(jobs.iter().all(|p| common::alive(*p)));
    t.close();
    let deadline = Instant::now() + LIMIT;
    while jobs.iter().any(|p| common::alive(*p)) {
        assert!(
            Instant::now() < deadline,
            "left running: {:?}",
            jobs.iter().filter(|p| common::alive(**p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn an_mcp_stdio_server_runs_there_under_the_agent() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The server notes where it runs (sshd sets SSH_CONNECTION for what runs there), then serves.
    let note = dir.path().join("mcp-ran-with");
    let script = format!("echo \"ssh=$SSH_CONNECTION agent=$SIDEKICKS_AGENT\" > {note:?}; exec {BIN:?} demo-mcp");
    let mcp = format!("\n[[mcp]]\nname = \"tools\"\ncommand = \"sh\"\nargs = [\"-c\", {script:?}]\n");
    let text = format!("{}{mcp}", ssh_agent("far", BIN, &["demo-agent"], dir.path(), dir.path(), HOST, ""));
    let mut rig = Rig::new(fast_settings());
    common::load_config(&rig, dir.path(), &text).await;
    assert_eq!(rig.turn("far", "mcp").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("far").contains("tools echo, add"), "{}", rig.agent_text("far"));
    let ran_with = std::fs::read_to_string(&note).unwrap();
    assert!(ran_with.starts_with("ssh=127.0.0.1 "), "it ran over SSH: {ran_with}");
    assert!(ran_with.contains("agent=/tmp/sidekicks-ssh-"), "it carries its agent's mark (Stop ends it): {ran_with}");
}

#[test]
fn a_login_terminal_there_gets_the_env_without_a_command_line_and_the_file_goes() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let executor = Arc::new(SshExecutor::new(HOST).unwrap());
    let ws = RemoteWorkspace::new(executor, dir.path(), "ssh", HOST);
    let argv = ["sh", "-c", "printf 'V=[%s] lines=%s pwd=%s\\n' \"$SK_SECRET\" \"$(printf '%s\\n' \"$SK_MULTI\" | wc -l)\" \"$PWD\"; read -r _"]
        .map(String::from)
        .to_vec();
    let env = vec![("SK_SECRET".to_string(), "it's a $(secret)".to_string()), ("SK_MULTI".into(), "a\nb\nc".into())];
    let command = ws.program_command(argv, env);
    assert!(!command.argv.join(" ").contains("secret"), "the value is on the command line: {:?}", command.argv);
    let t = TerminalSession::spawn(Path::new(BIN), &command, 80, 24, Arc::new(|| {})).unwrap();
    let screen = wait_screen(&t, "pwd=", LIMIT);
    assert!(screen.contains("V=[it's a $(secret)] lines=3"), "{screen}");
    assert!(screen.contains(&format!("pwd={}", dir.path().display())), "{screen}");
    let left: Vec<_> = std::fs::read_dir("/tmp")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name().to_string_lossy().starts_with("sidekicks-env-")
                && std::fs::read_to_string(e.path()).unwrap_or_default().contains("$(secret)")
        })
        .collect();
    assert!(left.is_empty(), "the env file is left: {left:?}");
    t.close();
}

#[tokio::test]
async fn a_terminal_opened_first_never_owns_the_shared_connection() {
    if !available() {
        return;
    }
    // No shared connection to the host yet (its own port: another test of this binary that
    // uses it waits for this one).
    let _drop = common::ssh::DROP_LOCK.lock().await;
    let ssh = SshExecutor::new(common::ssh::DROP).unwrap();
    ssh.disconnect().await;
    let dir = tempfile::tempdir().unwrap();
    let ws = RemoteWorkspace::new(Arc::new(ssh.clone()), dir.path(), "ssh", common::ssh::DROP);
    let t = TerminalSession::spawn(Path::new(BIN), &ws.shell_command(true), 80, 24, Arc::new(|| {})).unwrap();
    t.write(b"echo up-$((40+2))\r").unwrap();
    wait_screen(&t, "up-42", LIMIT);
    // Agents and files make the shared connection; closing the terminal (which ends everything
    // below it) must leave it, and everything on it, alone.
    ssh.preflight().await.unwrap();
    let master = common::ssh::master_pid(common::ssh::DROP);
    tokio::task::spawn_blocking(move || t.close()).await.unwrap();
    assert!(common::alive(master), "closing the terminal ended the shared connection");
    ssh.preflight().await.unwrap();
    assert_eq!(common::ssh::master_pid(common::ssh::DROP), master);
}
