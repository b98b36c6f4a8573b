//! History that survives restarts: conversations stored in SQLite as they stream, restored when the
//! config is applied again; session/load when the agent can, a transcript offer when it cannot;
//! a kill -9 mid-stream loses at most the fragment in flight. And the headless `sidekicks prompt`.

use std::io::Read;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{Command, Event};
use sidekicks::model::conversation::{Delivery, Role, TurnEnd, Update};
use sidekicks::runtime::store::Store;

use crate::common;
use common::{BIN, Rig, config_text, fast_settings, load_config};

async fn rig(dir: &std::path::Path, args: &[&str]) -> Rig {
    let store = Store::open(&dir.join("db/sidekicks.db")).unwrap();
    let rig = Rig::with_store(fast_settings(), Some(store));
    load_config(&rig, dir, &config_text("", &[("demo", BIN, args)], dir)).await;
    rig
}

async fn shutdown(mut rig: Rig) {
    rig.send(Command::Shutdown).await;
    // (The history is saved before the shutdown completes.)
    rig.wait_for(Duration::from_secs(15), "shutdown", |e| *e == Event::ShutdownComplete).await;
}

#[tokio::test]
async fn a_conversation_is_restored_and_an_agent_without_load_gets_a_transcript_offer() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = rig(dir.path(), &["demo-agent"]).await;
    assert_eq!(first.turn("demo", "hello").await, TurnEnd::EndTurn);
    let sent = first.seen.iter().find_map(|e| match e {
        Event::Agent(_, AgentEvent::UserMessage { id, .. }) => Some(id.clone()),
        _ => None,
    });
    shutdown(first).await;

    let mut second = rig(dir.path(), &["demo-agent"]).await;
    let e = second
        .wait_for(Duration::from_secs(5), "history", |e| matches!(e, Event::Agent(_, AgentEvent::ThreadOpened { .. })))
        .await;
    let Event::Agent(_, AgentEvent::ThreadOpened { messages, .. }) = e else { unreachable!() };
    assert_eq!(messages.len(), 2);
    assert!(sent.is_some());
    assert_eq!(messages[0].id, sent, "the message keeps its id across a restart");
    assert_eq!(
        (messages[0].role, messages[0].delivery, messages[0].text()),
        (Role::User, Delivery::Sent, "hello".into())
    );
    assert!(messages[1].text().contains("> hello"));
    assert_eq!(messages[1].end, Some(TurnEnd::EndTurn));

    // The demo agent (without --load-session) cannot reopen the session, as it said when it last
    // started: a transcript is offered at once, before the person writes anything; asked for,
    // the runtime reads it from the history and it reaches the agent before the message.
    second
        .wait_for(Duration::from_secs(5), "offer", |e| {
            matches!(e, Event::Agent(_, AgentEvent::TranscriptOffer { offered: true, .. }))
        })
        .await;
    assert!(!second.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::UserMessage { .. }))));
    let prompt = AgentCommand::Prompt {
        text: "again".into(),
        context: None,
        with_transcript: true,
        id: None,
        attachments: Vec::new(),
    };
    second.send(Command::Agent("demo".into(), prompt)).await;
    assert_eq!(second.wait_turn_end("demo").await, TurnEnd::EndTurn);
    assert!(
        !second.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::TranscriptOffer { offered: false, .. }))),
        "the offer stands: the agent did not reopen the session"
    );
    let text = second.agent_text("demo");
    assert!(text.contains("> [Transcript of our earlier conversation"), "{text}");
    assert!(text.contains("> User: hello"), "{text}");
    // What the person said is stored without the transcript.
    assert!(
        second
            .seen
            .iter()
            .any(|e| matches!(e, Event::Agent(_, AgentEvent::UserMessage { text, .. }) if text == "again"))
    );
}

#[tokio::test]
async fn an_agent_with_load_session_reopens_its_session_without_replaying_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = rig(dir.path(), &["demo-agent", "--load-session"]).await;
    assert_eq!(first.turn("demo", "hello").await, TurnEnd::EndTurn);
    shutdown(first).await;

    let mut second = rig(dir.path(), &["demo-agent", "--load-session"]).await;
    second
        .wait_for(Duration::from_secs(5), "history", |e| matches!(e, Event::Agent(_, AgentEvent::ThreadOpened { .. })))
        .await;
    assert_eq!(second.turn("demo", "again").await, TurnEnd::EndTurn);
    let text = second.agent_text("demo");
    assert!(text.contains("(reopened session demo-1)"), "{text}");
    assert!(!text.contains("(replayed)"), "the replay was shown: {text}");
    assert!(
        !second.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Notice { .. }))),
        "no notice when the session is reopened"
    );
}

/// Runs `sidekicks prompt` with its own config and data folders.
fn headless(dir: &std::path::Path, args: &[&str]) -> Process {
    let config = dir.join("sidekicks.toml");
    std::fs::write(&config, config_text("", &[("demo", BIN, &["demo-agent"])], dir)).unwrap();
    let mut cmd = Process::new(BIN);
    cmd.arg("prompt")
        .arg("--config")
        .arg(&config)
        .args(args)
        .env("XDG_CONFIG_HOME", dir.join("cfg"))
        .env("XDG_DATA_HOME", dir.join("data"));
    cmd
}

#[test]
fn headless_prompt_streams_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = headless(dir.path(), &["--agent", "demo", "hello"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("**Hello!**"));

    let out = headless(dir.path(), &["--agent", "demo", "--json", "--allow", "once", "run it"]).output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let permission = lines.iter().find(|l| l["type"] == "permission").expect("permission line");
    assert_eq!(permission["command"], "rm -rf build");
    assert_eq!(permission["dangers"][0], "rm");
    assert_eq!(lines.last().unwrap()["stop_reason"], "end_turn");
    assert!(lines.iter().any(|l| l["type"] == "text" && l["text"].as_str().unwrap().contains("Allowed")));

    // By default nothing is allowed, and that is said with how to allow it.
    let out = headless(dir.path(), &["--agent", "demo", "run it"]).output().unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("Rejected"));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("refused automatically") && err.contains("`--allow once`"), "{err}");

    let out = headless(dir.path(), &["--agent", "demo", "error"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr).unwrap().contains("The demo model is overloaded"));

    // A tool call is told, and the file it changed shown as a diff (issue 48: only the answer was).
    let out = headless(dir.path(), &["--agent", "demo", "diff"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("→ Edit src/greeting.rs\n"), "{text}");
    assert!(text.contains("src/greeting.rs\n@@ -1,3 +1,3 @@\n-fn greet() {\n"), "{text}");
    assert!(text.contains("+    println!(\"Hello, {name}!\");\n"), "{text}");
    assert!(text.contains("I changed `greet` to take a name"), "{text}");

    // The name as typed in another case names the one agent it can be.
    let out = headless(dir.path(), &["--agent", "DEMO", "hello"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("**Hello!**"));

    let out = headless(dir.path(), &["--agent", "nobody", "hi"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("no agent named \"nobody\""));
}

#[test]
fn kill_9_mid_stream_loses_at_most_the_fragment_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = headless(dir.path(), &["--agent", "demo", "wait"]).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut printed = String::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut buf = [0u8; 256];
    while !printed.contains("12… ") {
        assert!(Instant::now() < deadline, "no stream: {printed:?}");
        let n = stdout.read(&mut buf).unwrap();
        printed.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    // SIGKILL: no chance to save anything more.
    child.kill().unwrap();
    child.wait().unwrap();

    let store = Store::open(&dir.path().join("data/sidekicks/sidekicks.db")).unwrap();
    let conversation = store.conversation(dir.path(), "demo").unwrap();
    assert_eq!(conversation.messages[0].text(), "wait");
    let stored = conversation.messages[1].text();
    let fragment = "12… ".len();
    assert!(stored.len() + fragment >= printed.len(), "stored {stored:?}, printed {printed:?}");
    assert!(stored.starts_with("1… 2… 3… "), "{stored:?}");
    // Dropped agents leave no demo agent behind? The agent gets EOF when its parent dies.
    drop(Update::Text(String::new()));
}

/// Retry asks the question again: after a restart the history holds one question and one answer
/// message, the first answer kept as an earlier one (issue 35 item 8).
#[tokio::test]
async fn a_retried_answer_keeps_the_first_one_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = rig(dir.path(), &["demo-agent"]).await;
    assert_eq!(first.turn("demo", "hello").await, TurnEnd::EndTurn);
    let question = first
        .seen
        .iter()
        .find_map(|e| match e {
            Event::Agent(_, AgentEvent::UserMessage { id, .. }) => Some(id.clone()),
            _ => None,
        })
        .unwrap();
    // Only the question's id: the runtime holds its text.
    first.send(Command::Agent("demo".into(), AgentCommand::Retry { question: question.clone() })).await;
    assert_eq!(first.wait_turn_end("demo").await, TurnEnd::EndTurn);
    assert_eq!(
        first.seen.iter().filter(|e| matches!(e, Event::Agent(_, AgentEvent::UserMessage { .. }))).count(),
        1,
        "no new question"
    );
    shutdown(first).await;

    let mut second = rig(dir.path(), &["demo-agent"]).await;
    let e = second
        .wait_for(Duration::from_secs(5), "history", |e| matches!(e, Event::Agent(_, AgentEvent::ThreadOpened { .. })))
        .await;
    let Event::Agent(_, AgentEvent::ThreadOpened { messages, .. }) = e else { unreachable!() };
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[1].earlier.len(), 1);
    assert!(messages[1].text().contains("> hello") && messages[1].end == Some(TurnEnd::EndTurn));
    // Asked again after a restart: the question is known from the thread reopened.
    second.send(Command::Agent("demo".into(), AgentCommand::Retry { question: question.clone() })).await;
    second
        .wait_for(
            Duration::from_secs(10),
            "the retry",
            |e| matches!(e, Event::Agent(_, AgentEvent::Retrying { question: q }) if *q == question),
        )
        .await;
    assert_eq!(second.wait_turn_end("demo").await, TurnEnd::EndTurn);
    let asked = second.seen.iter().filter(|e| matches!(e, Event::Agent(_, AgentEvent::UserMessage { .. }))).count();
    assert_eq!(asked, 0, "no new question");
    shutdown(second).await;
}

/// A message Stop dropped and the person sent again says so after a restart too (the window alone
/// marked it, so it came back "not sent", offering Send again once more).
#[tokio::test]
async fn a_message_sent_again_stays_so_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = rig(dir.path(), &["demo-agent"]).await;
    let prompt = |text: &str| Command::prompt("demo", text);
    first.send(prompt("wait")).await;
    first
        .wait_for(Duration::from_secs(30), "the turn", |e| matches!(e, Event::Agent(_, AgentEvent::TurnStarted)))
        .await;
    first.send(prompt("later")).await;
    let e = first
        .wait_for(
            Duration::from_secs(10),
            "queued",
            |e| matches!(e, Event::Agent(_, AgentEvent::UserMessage { text, .. }) if text == "later"),
        )
        .await;
    let Event::Agent(_, AgentEvent::UserMessage { id, .. }) = e else { unreachable!() };
    first.send(Command::Agent("demo".into(), AgentCommand::Cancel)).await;
    first.wait_turn_end("demo").await;
    first.send(Command::Agent("demo".into(), AgentCommand::SendAgain { message: id })).await;
    assert_eq!(first.wait_turn_end("demo").await, TurnEnd::EndTurn);
    shutdown(first).await;

    let mut second = rig(dir.path(), &["demo-agent"]).await;
    let e = second
        .wait_for(Duration::from_secs(5), "history", |e| matches!(e, Event::Agent(_, AgentEvent::ThreadOpened { .. })))
        .await;
    let Event::Agent(_, AgentEvent::ThreadOpened { messages, .. }) = e else { unreachable!() };
    let later: Vec<Delivery> = messages.iter().filter(|m| m.text() == "later").map(|m| m.delivery).collect();
    assert_eq!(later, [Delivery::Resent, Delivery::Sent], "{messages:?}");
    shutdown(second).await;
}
