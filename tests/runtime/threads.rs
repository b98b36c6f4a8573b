//! Threads with the real demo agent: several conversations per agent in the history, switched
//! without restarting the agent (its session follows: `session/resume` of a thread's session,
//! `session/close` of the one left), titled by the agent, listed from the agent's own sessions
//! (`session/list`), deleted with their session (`session/delete`); a thread the agent cannot
//! reopen gets the transcript offer before the person writes. And `sidekicks prompt --thread`.

use std::process::Command as Process;
use std::time::Duration;

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{AgentState, Command, Event};
use sidekicks::model::conversation::{TurnEnd, Update};
use sidekicks::protocol::threads::{ThreadOp, ThreadSummary};
use sidekicks::runtime::store::Store;

use crate::common;
use common::{BIN, Rig, config_text, fast_settings, load_config};

const WAIT: Duration = Duration::from_secs(20);

async fn rig(dir: &std::path::Path, args: &[&str]) -> Rig {
    let store = Store::open(&dir.join("db/sidekicks.db")).unwrap();
    let rig = Rig::with_store(fast_settings(), Some(store));
    load_config(&rig, dir, &config_text("", &[("demo", BIN, args)], dir)).await;
    rig
}

async fn thread_op(rig: &mut Rig, op: ThreadOp) {
    rig.send(Command::Agent("demo".into(), AgentCommand::Thread { op })).await;
}

/// The last thread list seen if `pred` holds for it, else the next one for which it does.
async fn threads_where(rig: &mut Rig, what: &str, pred: impl Fn(&[ThreadSummary]) -> bool) -> Vec<ThreadSummary> {
    let last = rig.seen.iter().rev().find_map(|e| match e {
        Event::Agent(_, AgentEvent::Threads { threads, .. }) => Some(threads.clone()),
        _ => None,
    });
    if let Some(threads) = last.filter(|t| pred(t)) {
        return threads;
    }
    match rig
        .wait_for(WAIT, what, |e| matches!(e, Event::Agent(_, AgentEvent::Threads { threads, .. }) if pred(threads)))
        .await
    {
        Event::Agent(_, AgentEvent::Threads { threads, .. }) => threads,
        _ => unreachable!(),
    }
}

async fn opened(rig: &mut Rig) -> (i64, usize) {
    match rig.wait_for(WAIT, "thread opened", |e| matches!(e, Event::Agent(_, AgentEvent::ThreadOpened { .. }))).await {
        Event::Agent(_, AgentEvent::ThreadOpened { thread, messages, .. }) => (thread, messages.len()),
        _ => unreachable!(),
    }
}

async fn idle(rig: &mut Rig) {
    rig.wait_for(WAIT, "idle", |e| matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Idle, .. })))
        .await;
}

#[tokio::test]
async fn threads_switch_sessions_without_a_restart_and_follow_the_agents_own() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), &["demo-agent", "--sessions"]).await;
    let (first, count) = opened(&mut rig).await;
    assert_eq!(count, 0);
    assert_eq!(rig.turn("demo", "fix the flaky build please").await, TurnEnd::EndTurn);
    // The agent names the session after the first words; the name is kept with the thread.
    assert!(rig.updates("demo").contains(&Update::Title(Some("fix the flaky build please".into()))));

    // A new thread: empty, and the same agent process opens a new session for it.
    rig.clear();
    thread_op(&mut rig, ThreadOp::New).await;
    let (second, count) = opened(&mut rig).await;
    assert_ne!(second, first);
    assert_eq!(count, 0, "a new thread starts empty");
    idle(&mut rig).await;
    assert_eq!(rig.turn("demo", "write the docs").await, TurnEnd::EndTurn);
    assert!(
        !rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Stopping, .. }))),
        "switching threads does not restart the agent: {:#?}",
        rig.seen
    );
    assert!(!rig.agent_text("demo").contains("reopened"), "{}", rig.agent_text("demo"));
    let threads = threads_where(&mut rig, "both listed", |t| t.len() == 2).await;
    assert_eq!(threads.iter().find(|t| t.id == first).unwrap().title, "fix the flaky build please");

    // Back to the first thread: its messages, and its session resumed (the agent remembers).
    rig.clear();
    thread_op(&mut rig, ThreadOp::Open(first)).await;
    let (thread, count) = opened(&mut rig).await;
    assert_eq!((thread, count), (first, 2));
    idle(&mut rig).await;
    assert!(
        rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::TranscriptOffer { offered: false, .. }))),
        "no transcript: the agent reopened the session"
    );
    assert_eq!(rig.turn("demo", "and the tests").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("(reopened session demo-1)"), "{}", rig.agent_text("demo"));

    // The agent's own sessions: both threads', held, and the one it had from before.
    thread_op(&mut rig, ThreadOp::ListAgentSessions).await;
    let listed = rig.wait_for(WAIT, "sessions", |e| matches!(e, Event::Agent(_, AgentEvent::Sessions { .. }))).await;
    let Event::Agent(_, AgentEvent::Sessions { sessions: Ok(sessions), .. }) = listed else { panic!("{listed:?}") };
    let mut known: Vec<(&str, bool)> = sessions.iter().map(|s| (s.session_id.as_str(), s.known)).collect();
    known.sort();
    assert_eq!(known, vec![("demo-0", false), ("demo-1", true), ("demo-2", true)]);

    // Renamed by the person: the person's title wins over the agent's.
    thread_op(&mut rig, ThreadOp::Rename(first, Some("  Build  ".into()))).await;
    threads_where(&mut rig, "renamed", |t| t.iter().any(|t| t.id == first && t.title == "Build" && t.renamed)).await;

    // Deleting the shown thread moves to the other one and deletes its session in the agent.
    rig.clear();
    thread_op(&mut rig, ThreadOp::Delete(first)).await;
    let (thread, count) = opened(&mut rig).await;
    assert_eq!((thread, count), (second, 2));
    threads_where(&mut rig, "one left", |t| t.len() == 1 && t[0].id == second).await;
    idle(&mut rig).await;
    thread_op(&mut rig, ThreadOp::ListAgentSessions).await;
    let listed = rig.wait_for(WAIT, "sessions", |e| matches!(e, Event::Agent(_, AgentEvent::Sessions { .. }))).await;
    let Event::Agent(_, AgentEvent::Sessions { sessions: Ok(sessions), .. }) = listed else { panic!("{listed:?}") };
    let mut left: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
    left.sort();
    assert_eq!(left, vec!["demo-0", "demo-2"]);
}

#[tokio::test]
async fn a_session_of_the_agent_opens_as_a_thread() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), &["demo-agent", "--sessions"]).await;
    opened(&mut rig).await;
    assert_eq!(rig.turn("demo", "first words here").await, TurnEnd::EndTurn);
    thread_op(&mut rig, ThreadOp::ListAgentSessions).await;
    let listed = rig.wait_for(WAIT, "sessions", |e| matches!(e, Event::Agent(_, AgentEvent::Sessions { .. }))).await;
    let Event::Agent(_, AgentEvent::Sessions { sessions: Ok(sessions), .. }) = listed else { panic!("{listed:?}") };
    let earlier = sessions.iter().find(|s| !s.known).expect("the session from before Sidekicks").clone();

    // Opened as a new thread, titled as the agent lists it; the agent resumes it.
    rig.clear();
    let op = ThreadOp::OpenAgentSession { session_id: earlier.session_id.clone(), title: earlier.title.clone() };
    thread_op(&mut rig, op.clone()).await;
    let (thread, count) = opened(&mut rig).await;
    assert_eq!(count, 0, "session/resume replays nothing");
    let threads = threads_where(&mut rig, "two", |t| t.len() == 2).await;
    let shown = threads.iter().find(|t| t.id == thread).unwrap();
    assert_eq!(Some(shown.title.clone()), earlier.title);
    assert_eq!(shown.session_id.as_deref(), Some(earlier.session_id.as_str()));
    idle(&mut rig).await;
    assert_eq!(rig.turn("demo", "go on").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("(reopened session demo-0)"), "{}", rig.agent_text("demo"));

    // Asked again: the thread holding it is shown, no new one is made.
    rig.clear();
    thread_op(&mut rig, ThreadOp::New).await;
    opened(&mut rig).await;
    idle(&mut rig).await;
    thread_op(&mut rig, op).await;
    let (again, _) = opened(&mut rig).await;
    assert_eq!(again, thread);
    threads_where(&mut rig, "three", |t| t.len() == 3).await;
}

#[tokio::test]
async fn a_thread_the_agent_cannot_reopen_offers_a_transcript_before_the_person_writes() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(dir.path(), &["demo-agent"]).await;
    let (first, _) = opened(&mut rig).await;
    assert_eq!(rig.turn("demo", "hello").await, TurnEnd::EndTurn);
    thread_op(&mut rig, ThreadOp::New).await;
    opened(&mut rig).await;
    idle(&mut rig).await;
    rig.clear();
    thread_op(&mut rig, ThreadOp::Open(first)).await;
    let (thread, count) = opened(&mut rig).await;
    assert_eq!((thread, count), (first, 2));
    rig.wait_for(WAIT, "offer", |e| matches!(e, Event::Agent(_, AgentEvent::TranscriptOffer { offered: true, .. })))
        .await;
    assert!(
        !rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::UserMessage { .. }))),
        "offered before anything is sent"
    );
}

#[test]
fn prompt_speaks_in_the_thread_it_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sidekicks.toml");
    std::fs::write(&config, config_text("", &[("demo", BIN, &["demo-agent", "--sessions"])], dir.path())).unwrap();
    let run = |args: &[&str]| {
        let out = Process::new(BIN)
            .args(["--config", config.to_str().unwrap(), "prompt", "--agent", "demo", "--json"])
            .args(args)
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let thread = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["type"] == "thread")
            .filter_map(|v| v["thread"].as_i64())
            .next_back();
        (out.status.code(), thread, stdout, String::from_utf8_lossy(&out.stderr).to_string())
    };
    // `--thread new` on an empty history speaks in the one unused thread (no empty thread left).
    let (code, first, ..) = run(&["--thread", "new", "refactor the parser"]);
    assert_eq!((code, first), (Some(0), Some(1)));
    let (code, second, ..) = run(&["--thread", "new", "another subject"]);
    assert_eq!(code, Some(0));
    assert_ne!(first, second, "a new thread");
    // By title (the first message's words, as the demo names it), then by number.
    let (code, by_title, ..) = run(&["--thread", "refactor the parser", "more"]);
    assert_eq!((code, by_title), (Some(0), first));
    let n = second.unwrap().to_string();
    let (code, by_number, ..) = run(&["--thread", &n, "more"]);
    assert_eq!((code, by_number), (Some(0), second));
    // Each run is a new session of the demo, named after its own first words ("more"): the
    // thread keeps its title (issue 48, item 2), so it is still found by it.
    let (code, again, ..) = run(&["--thread", "refactor the parser", "and again"]);
    assert_eq!((code, again), (Some(0), first), "the thread kept its title");
    let (code, _, _, stderr) = run(&["--thread", "more", "hi"]);
    assert_eq!(code, Some(2), "no thread was renamed \"more\": {stderr}");
    let (code, _, _, stderr) = run(&["--thread", "no such thread", "hi"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no thread \"no such thread\""), "{stderr}");
}

/// `sidekicks prompt` offers what the window offers an agent that no longer remembers its thread
/// (the demo agent without `--load-session` cannot reopen a session): it says so, and
/// `--transcript` has the runtime read the thread from the history and say it first.
#[test]
fn prompt_says_the_transcript_to_an_agent_that_forgot_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sidekicks.toml");
    std::fs::write(&config, config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).unwrap();
    let run = |args: &[&str]| {
        let out = Process::new(BIN)
            .args(["--config", config.to_str().unwrap(), "prompt", "--agent", "demo"])
            .args(args)
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .output()
            .unwrap();
        let said = |b: &[u8]| String::from_utf8_lossy(b).to_string();
        (out.status.code(), said(&out.stdout), said(&out.stderr))
    };
    let (code, first, _) = run(&["remember the parser"]);
    assert_eq!(code, Some(0), "{first}");
    assert!(!first.contains("Transcript"), "{first}");
    let (code, second, told) = run(&["and now?"]);
    assert_eq!(code, Some(0), "{second}\n{told}");
    assert!(told.contains("does not remember this thread: `--transcript` says it first"), "{told}");
    assert!(!second.contains("Transcript"), "not sent unless asked: {second}");
    let (code, third, _) = run(&["--transcript", "and again?"]);
    assert_eq!(code, Some(0), "{third}");
    assert!(third.contains("> [Transcript of our earlier conversation"), "{third}");
    assert!(third.contains("> User: remember the parser"), "the first message, from the history: {third}");
    assert!(third.contains("> User: and now?"), "{third}");
}
