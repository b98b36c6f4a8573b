//! Agents that misbehave on purpose (`sidekicks demo-agent --misbehave`), through `sidekicks prompt`
//! (a real process, real signals) and through the agent manager: nothing is lost, nothing hangs,
//! every failure is told.

use std::io::Read;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{AgentState, Command, CrashReason, Event, HandshakeFailure, LogEntry};
use sidekicks::model::conversation::{TurnEnd, Update};
use sidekicks::model::permission::{OptionKind, PermissionAnswer};
use sidekicks::runtime::store::Store;

use crate::common;
use common::{BIN, Rig, alive, config_text, fast_settings, load_config};

pub(crate) const MISBEHAVE: &[&str] = &["demo-agent", "--misbehave"];
pub(crate) const LIMIT: Duration = Duration::from_secs(60);

/// `sidekicks prompt --agent bad …` with its own config and data folders.
pub(crate) fn prompt(dir: &std::path::Path, args: &[&str], text: &str) -> Process {
    let config = dir.join("sidekicks.toml");
    let agents: &[(&str, &str, &[&str])] = &[("bad", BIN, MISBEHAVE), ("demo", BIN, &["demo-agent"])];
    std::fs::write(&config, config_text("", agents, dir)).unwrap();
    let mut cmd = Process::new(BIN);
    cmd.arg("prompt")
        .arg("--config")
        .arg(&config)
        .args(args)
        .arg(text)
        .env("XDG_CONFIG_HOME", dir.join("cfg"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"));
    cmd
}

pub(crate) fn stored(dir: &std::path::Path, agent: &str) -> Vec<sidekicks::model::conversation::Message> {
    let store = Store::open(&dir.join("data/sidekicks/sidekicks.db")).unwrap();
    store.conversation(dir, agent).unwrap().messages
}

/// Reads `stream` until `until` holds for what was read.
pub(crate) fn read_until(stream: &mut impl Read, until: impl Fn(&str) -> bool) -> String {
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + LIMIT;
    while !until(&seen) {
        assert!(Instant::now() < deadline, "timed out; read so far: {seen:?}");
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "the stream ended; read: {seen:?}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    seen
}

fn interrupt(child: &std::process::Child) {
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
}

#[test]
fn ctrl_c_cancels_the_turn_and_exits_130_with_the_end_stored() {
    let dir = tempfile::tempdir().unwrap();
    let mut child =
        prompt(dir.path(), &["--agent", "demo"], "wait").stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    read_until(child.stdout.as_mut().unwrap(), |s| s.contains("3… "));
    interrupt(&child);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(130), "stderr: {err}");
    assert!(err.contains("Cancelling the turn"), "{err}");
    let messages = stored(dir.path(), "demo");
    assert_eq!(messages.last().unwrap().end, Some(TurnEnd::Cancelled), "{messages:?}");
}

#[test]
fn a_second_ctrl_c_stops_an_agent_that_ignores_cancel_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut child =
        prompt(dir.path(), &["--agent", "bad"], "spawn").stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let out =
        read_until(child.stdout.as_mut().unwrap(), |s| s.lines().next().is_some_and(|l| l.split(' ').count() == 3));
    let pids: Vec<i32> = out.split_whitespace().skip(1).take(2).map(|p| p.parse().unwrap()).collect();
    assert!(pids.iter().all(|p| alive(*p)), "{out}");
    interrupt(&child);
    read_until(child.stderr.as_mut().unwrap(), |s| s.contains("Ctrl+C again"));
    // The agent ignores the cancel; it is still there (the grace is 10 s).
    assert!(alive(pids[0]));
    interrupt(&child);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    for pid in pids {
        assert!(!alive(pid), "process {pid} outlived the second Ctrl+C");
    }
}

#[test]
fn an_agent_that_dies_mid_turn_fails_the_prompt_with_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = prompt(dir.path(), &["--agent", "bad"], "die").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("exited with code 7"), "{err}");
    assert!(err.contains("misbehaving: giving up"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("I was about to"));

    let out = prompt(dir.path(), &["--agent", "bad", "--json"], "die").output().unwrap();
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let crash = lines.iter().find(|l| l["type"] == "crash").expect("a crash line");
    assert!(crash["reason"].as_str().unwrap().contains("code 7"));
    assert_eq!(crash["stderr"].as_array().unwrap().last().unwrap(), "misbehaving: giving up");
    assert_eq!(out.status.code(), Some(1));
}

/// The processes whose working folder is `dir`.
fn working_in(dir: &std::path::Path) -> Vec<u32> {
    let dir = dir.canonicalize().unwrap();
    let entries = std::fs::read_dir("/proc").unwrap().flatten();
    let pids = entries.filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok());
    pids.filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir)).collect()
}

/// An agent that closes its output mid-answer and keeps running left the turn hanging forever:
/// it is told, the turn ends, and the agent is stopped.
#[test]
fn an_agent_that_stops_talking_but_runs_on_is_told_and_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let mut child =
        prompt(dir.path(), &["--agent", "bad"], "mute").stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < LIMIT, "prompt still waits for an agent that stopped talking");
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("The agent stopped talking (it closed its output) but kept running: it was stopped."),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("I will say no more"));
    let answer = stored(dir.path(), "bad").last().cloned().unwrap();
    assert!(answer.text().contains("I will say no more"), "what it said is kept");
    assert_eq!(answer.end, Some(TurnEnd::AgentExited));
    assert!(working_in(dir.path()).is_empty(), "the agent still runs: {:?}", working_in(dir.path()));
}

/// A flood of tool calls took time quadratic in their number (100,000: 457 s) and lost most of
/// them on the way out: all of them are kept, each with its last status.
#[test]
fn a_flood_of_tool_calls_is_kept_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = prompt(dir.path(), &["--agent", "bad"], "tools 20000").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let answer = stored(dir.path(), "bad").last().cloned().unwrap();
    let calls: Vec<_> = answer
        .parts
        .iter()
        .filter_map(|p| match p {
            sidekicks::model::conversation::Part::Tool(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 20_000);
    assert!(calls.iter().all(|t| t.status == sidekicks::model::tool::ToolStatus::Completed));
    assert_eq!(answer.end, Some(TurnEnd::EndTurn));
}

#[test]
fn everything_printed_is_stored_with_its_end_before_prompt_exits() {
    let dir = tempfile::tempdir().unwrap();
    for (text, size) in [("chunk 10", 10 << 20), ("stream 20", (20 << 20) + "\nend of stream".len())] {
        let out = prompt(dir.path(), &["--agent", "bad"], text).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // The text, then the newline the end of the turn prints.
        assert_eq!(out.stdout.len(), size + 1, "{text}");
        let messages = stored(dir.path(), "bad");
        let answer = messages.last().unwrap();
        assert_eq!(answer.text().len(), size, "{text}: the stored answer is short");
        assert_eq!(answer.end, Some(TurnEnd::EndTurn), "{text}: no end mark");
    }
}

async fn rig(dir: &std::path::Path, args: &[&str]) -> Rig {
    let rig = Rig::new(common::short_handshake());
    load_config(&rig, dir, &config_text("", &[("bad", BIN, args)], dir)).await;
    rig
}

#[tokio::test]
async fn an_initialize_timeout_is_reported_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), &["demo-agent", "--misbehave", "--silent"]).await;
    rig.send(Command::Agent("bad".into(), AgentCommand::Start)).await;
    let event = rig
        .wait_for(LIMIT, "the crash", |e| {
            matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(_), .. }))
        })
        .await;
    let Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(report), .. }) = event else { unreachable!() };
    assert!(
        matches!(&report.reason, CrashReason::Handshake(HandshakeFailure::Timeout { step, .. }) if step == "initialize"),
        "{:?}",
        report.reason
    );
}

/// `prompt` kept checkpoints of a folder outside git beside the config file, where the docs say
/// the data folder (and a read-only config folder warned at every turn).
#[test]
fn prompt_keeps_checkpoints_in_the_data_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "mine\n").unwrap();
    let out = prompt(dir.path(), &["--agent", "demo"], "hello").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.path().join("data/sidekicks/checkpoints").is_dir(), "checkpoints in the data folder");
    assert!(!dir.path().join("sidekicks-checkpoints").exists(), "none beside the config file");
}

/// "Reject must mean reject": an agent in its own auto mode wrote a file through Sidekicks with
/// `--allow reject`. It is enforced on what Sidekicks serves, whatever the agent's mode, and the
/// refusal names `--allow reject` (not a `policy.writes` the config does not have; issue 45).
#[test]
fn reject_refuses_writes_and_commands_sidekicks_serves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("written.txt");
    let write = format!("write {} 1", path.display());
    let out = prompt(dir.path(), &["--agent", "bad"], &write).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(
            "write: error -32602: Sidekicks does not let bad write files through it: the command line's `--allow reject` (the default) refuses them (pass `--allow once`)"
        ),
        "{said}"
    );
    assert!(!path.exists(), "nothing written with --allow reject");
    let out = prompt(dir.path(), &["--agent", "bad", "--allow", "once"], &write).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("write: written"));
    assert!(path.exists(), "written when allowed");
}

/// The policy in the config file: commands denied, said to the agent and to the person.
#[tokio::test]
async fn a_policy_in_the_config_refuses_commands() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = config_text("", &[("bad", BIN, MISBEHAVE)], dir.path());
    text.push_str("policy = { commands = \"deny\" }\n");
    let mut rig = Rig::new(fast_settings());
    load_config(&rig, dir.path(), &text).await;
    rig.send(Command::prompt("bad", "terms 2 998.77")).await;
    let said = |e: &Event| matches!(e, Event::Agent(_, AgentEvent::Update { update: Update::Text(t), .. }) if t.starts_with("created"));
    let Event::Agent(_, AgentEvent::Update { update: Update::Text(text), .. }) =
        rig.wait_for(LIMIT, "the count", said).await
    else {
        unreachable!()
    };
    assert!(text.starts_with("created 0, refused 2: Sidekicks does not let bad run commands through it"), "{text}");
    assert_eq!(running_with("998.77"), 0);
    rig.send(Command::Agent("bad".into(), AgentCommand::Stop)).await;
}

/// Warnings went to the terminal with colour codes: they go to the log file; the terminal gets
/// the answer and errors in words.
#[test]
fn prompt_keeps_log_warnings_off_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = prompt(dir.path(), &["--agent", "bad"], "ghost").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("WARN") && !err.contains('\u{1b}'), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ghost sent"));
    let log = std::fs::read_to_string(dir.path().join("state/sidekicks/sidekicks.log")).unwrap();
    assert!(log.contains("ignored an update for a tool call never announced"), "{log}");
}

/// An agent speaking another protocol version was reported as "exited with code 0": the versions
/// each side speaks are said.
#[test]
fn another_protocol_version_is_said_with_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sidekicks.toml");
    let mut text = config_text("", &[("bad", BIN, MISBEHAVE)], dir.path());
    text.push_str("env = { DEMO_PROTOCOL_VERSION = \"2\" }\n");
    std::fs::write(&config, text).unwrap();
    let out = Process::new(BIN)
        .args(["prompt", "--agent", "bad", "hello"])
        .arg("--config")
        .arg(&config)
        .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the agent speaks ACP version 2; Sidekicks speaks version 1"), "{err}");
    assert!(!err.contains("exited with code 0"), "{err}");
}

#[tokio::test]
async fn messages_for_another_session_are_refused_and_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), MISBEHAVE).await;
    assert_eq!(rig.turn("bad", "foreign").await, TurnEnd::EndTurn);
    let text = rig.agent_text("bad");
    assert_eq!(text, "foreign permission: error -32602; foreign read: error -32602");
    assert!(!rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. }))));
    let logged: Vec<&str> = rig
        .seen
        .iter()
        .filter_map(|e| match e {
            Event::Agent(_, AgentEvent::Log { entry: LogEntry::OtherSession { session, method }, .. })
                if session == "someone-else" =>
            {
                Some(method.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(logged, ["session/update", "session/request_permission", "fs/read_text_file"]);
}

#[tokio::test]
async fn a_permission_asked_while_cancelling_is_answered_cancelled_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), MISBEHAVE).await;
    rig.send(Command::prompt("bad", "stopask")).await;
    rig.wait_for(LIMIT, "the first request", |e| matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. })))
        .await;
    rig.send(Command::Agent("bad".into(), AgentCommand::Cancel)).await;
    assert_eq!(rig.wait_turn_end("bad").await, TurnEnd::Cancelled);
    assert_eq!(rig.agent_text("bad"), "first: cancelled; second: cancelled");
    let asked =
        rig.seen.iter().filter(|e| matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. }))).count();
    assert_eq!(asked, 1, "the request made while cancelling was shown");
    assert!(
        !rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Notice { .. }))),
        "nothing was unresponsive"
    );
    assert!(
        !rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Stopping, .. })))
    );
}

#[tokio::test]
async fn an_unknown_option_kind_is_offered_by_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), MISBEHAVE).await;
    rig.send(Command::prompt("bad", "oddkind")).await;
    let event = rig
        .wait_for(LIMIT, "the request", |e| matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. })))
        .await;
    let Event::Agent(_, AgentEvent::PermissionRequested { request, .. }) = event else { unreachable!() };
    let kinds: Vec<(OptionKind, &str)> = request.options.iter().map(|o| (o.kind, o.agent_label.as_str())).collect();
    assert_eq!(
        kinds,
        [(OptionKind::Other, "Ask me next week"), (OptionKind::AllowOnce, "Allow"), (OptionKind::RejectOnce, "Reject")]
    );
    let answer = PermissionAnswer::Selected { option_id: "later".into(), kind: OptionKind::Other };
    rig.send(Command::Agent("bad".into(), AgentCommand::AnswerPermission { id: request.id, answer })).await;
    assert_eq!(rig.wait_turn_end("bad").await, TurnEnd::EndTurn);
    assert_eq!(rig.agent_text("bad"), "chose: later");
}

#[tokio::test]
async fn an_update_for_an_unknown_tool_call_is_logged_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), MISBEHAVE).await;
    assert_eq!(rig.turn("bad", "ghost").await, TurnEnd::EndTurn);
    assert!(
        !rig.seen
            .iter()
            .any(|e| matches!(e, Event::Agent(_, AgentEvent::Update { update: Update::ToolCallPatch(_), .. })))
    );
    assert!(rig.seen.iter().any(
        |e| matches!(e, Event::Agent(_, AgentEvent::Log { entry: LogEntry::UnknownToolCall { id }, .. }) if id == "never-announced")
    ));
    assert_eq!(rig.agent_text("bad"), "ghost sent");
}

#[tokio::test]
async fn file_reads_are_streamed_bounded_and_answer_acp_error_codes() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    // 2 GB of nothing (sparse): its first "line" is larger than any answer.
    std::fs::File::create(ws.join("sparse.bin")).unwrap().set_len(2 << 30).unwrap();
    let lines: String = (1..=200_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(ws.join("many.txt"), &lines).unwrap();
    std::fs::write(ws.join("latin1.txt"), b"caf\xe9\n").unwrap();
    let mut rig = rig(ws, MISBEHAVE).await;
    let mut read = async |args: &str| {
        let before = rig.agent_text("bad").len();
        assert_eq!(rig.turn("bad", &format!("read {args}")).await, TurnEnd::EndTurn);
        rig.agent_text("bad")[before..].to_string()
    };
    let path = |name: &str| ws.join(name).display().to_string();
    assert_eq!(
        read(&format!("{} 150000 2", path("many.txt"))).await,
        format!("read: {} bytes", "line 150000\nline 150001\n".len())
    );
    assert_eq!(read(&format!("{} 1 1", path("sparse.bin"))).await, "read: error -32602");
    assert_eq!(read(&path("sparse.bin")).await, "read: error -32602");
    assert_eq!(read(&path("missing.txt")).await, "read: error -32002");
    assert_eq!(read(&path("latin1.txt")).await, "read: error -32602");
    assert_eq!(read("/etc/hostname").await, "read: error -32602");
    assert_eq!(read(&path("many.txt")).await, format!("read: {} bytes", lines.len()));
}

/// A write larger than Sidekicks takes is refused in words (a 500 MB one got no answer at all);
/// one larger than a message may be is answered too, by its id.
#[tokio::test]
async fn file_writes_over_the_limits_are_refused_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let mut rig = rig(ws, MISBEHAVE).await;
    let mut write = async |mb: usize| {
        let before = rig.agent_text("bad").len();
        let path = ws.join(format!("w{mb}.txt")).display().to_string();
        assert_eq!(rig.turn("bad", &format!("write {path} {mb}")).await, TurnEnd::EndTurn);
        rig.agent_text("bad")[before..].to_string()
    };
    assert_eq!(write(2).await, "write: written");
    assert_eq!(std::fs::metadata(ws.join("w2.txt")).unwrap().len(), 2 << 20);
    let refused = write(50).await;
    assert!(refused.starts_with("write: error -32602: "), "{refused}");
    assert!(
        refused.ends_with(
            "50 MiB is more than Sidekicks writes at once (48 MiB); write the file in smaller parts or with a command"
        ),
        "{refused}"
    );
    let refused = write(100).await;
    assert!(
        refused.starts_with("write: error -32600: fs/write_text_file: the message is larger than 64 MiB"),
        "{refused}"
    );
    assert!(!ws.join("w50.txt").exists() && !ws.join("w100.txt").exists(), "nothing written");
}

/// The `sleep MARK` processes running.
fn running_with(mark: &str) -> usize {
    let wanted = format!("sleep\0{mark}\0");
    let entries = std::fs::read_dir("/proc").unwrap().flatten();
    entries
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.parse::<u32>().is_ok()))
        .filter(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == wanted.as_bytes()))
        .count()
}

/// Agent-run commands had no cap (500 terminals running `yes`, 700 MB) and some outlived Stop:
/// past the limit they are refused in words, and Stop ends every one.
#[tokio::test]
async fn agent_run_commands_are_capped_and_all_end_with_stop() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), MISBEHAVE).await;
    let mark = "999.4242";
    rig.send(Command::prompt("bad", format!("terms 80 {mark}"))).await;
    let said = |e: &Event| matches!(e, Event::Agent(_, AgentEvent::Update { update: Update::Text(t), .. }) if t.starts_with("created"));
    let Event::Agent(_, AgentEvent::Update { update: Update::Text(text), .. }) =
        rig.wait_for(LIMIT, "the count", said).await
    else {
        unreachable!()
    };
    assert!(
        text.starts_with(
            "created 64, refused 16: 64 commands of this agent run already, the most Sidekicks runs at once"
        ),
        "{text}"
    );
    let start = Instant::now();
    while running_with(mark) < 64 {
        assert!(start.elapsed() < LIMIT, "{} of 64 commands run", running_with(mark));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(running_with(mark), 64);
    rig.send(Command::Agent("bad".into(), AgentCommand::Stop)).await;
    let stopped = |e: &Event| matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Stopped, .. }));
    rig.wait_for(LIMIT, "stopped", stopped).await;
    let start = Instant::now();
    while running_with(mark) > 0 {
        assert!(start.elapsed() < LIMIT, "{} commands outlived Stop", running_with(mark));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
