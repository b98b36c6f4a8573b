//! The ACP client's own ceiling: a stand-in agent (`benches/data/stream_agent.py`) writes a
//! prepared stream of 200,000 `session/update` notifications as fast as the pipe takes it (one
//! write), so the agent does not bound the rate as the demo agent does. Measured: notifications a
//! second through Sidekicks' client (process, ACP parsing, events, manager) and applied to the
//! app's model (`AppState::apply`), against the same stream's lines read raw from the same script.
//!
//! Run: `cargo bench --bench acp_ceiling` (needs `python3`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command as Process, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::app::AgentCommand;
use sidekicks::app::{AgentState, AppState, Event};
use sidekicks::model::conversation::TurnEnd;
use sidekicks::protocol::AgentEvent;
use sidekicks::runtime::agents::ManagerCommand;
use sidekicks::runtime::agents::{ManagerSettings, spawn_manager};
use sidekicks::runtime::config::file::load_file;
use sidekicks::runtime::events::EventSink;

const N: usize = 200_000;

fn script() -> String {
    format!("{}/benches/data/stream_agent.py", env!("CARGO_MANIFEST_DIR"))
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sidekicks.toml");
    std::fs::write(
        &config,
        format!(
            "[defaults]\nidle_stop = 0\n[[agent]]\nname = \"stream\"\ncommand = \"python3\"\nargs = [{:?}, \"{N}\"]\nworkspace = {:?}\n",
            script(),
            dir.path().display().to_string()
        ),
    )
    .unwrap();
    let (took, applying) = client(&config);
    let raw = raw_lines();
    println!(
        "acp ceiling: {N} notifications through the client into the model {:.0}/s (applying them {:.0} % of it); raw lines {:.0}/s; ratio {:.2}",
        N as f64 / took.as_secs_f64(),
        100.0 * applying.as_secs_f64() / took.as_secs_f64(),
        N as f64 / raw.as_secs_f64(),
        took.as_secs_f64() / raw.as_secs_f64()
    );
}

/// Time from the prompt until the turn's end was applied to the model, every update applied as it
/// came; and the part of it spent applying.
fn client(config: &std::path::Path) -> (Duration, Duration) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let (sink, mut events) = EventSink::new(Arc::new(|| {}));
        let commands = spawn_manager(ManagerSettings::default(), sink, None);
        let result = load_file(config, None);
        commands.send(ManagerCommand::ConfigLoaded { path: config.to_path_buf(), result }).await.unwrap();
        let mut state = AppState::default();
        commands.send(ManagerCommand::Agent("stream".into(), AgentCommand::Start)).await.unwrap();
        while let Some(e) = events.recv().await {
            let idle = matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Idle, .. }));
            state.apply(e);
            if idle {
                break;
            }
        }
        let prompt = ManagerCommand::Agent(
            "stream".into(),
            AgentCommand::Prompt {
                text: "go".into(),
                context: None,
                with_transcript: false,
                id: None,
                attachments: Vec::new(),
            },
        );
        let start = Instant::now();
        commands.send(prompt).await.unwrap();
        let (mut updates, mut applying) = (0, Duration::ZERO);
        while let Some(e) = events.recv().await {
            let end = matches!(&e, Event::Agent(_, AgentEvent::TurnEnded { end, .. }) if *end == TurnEnd::EndTurn);
            if matches!(e, Event::Agent(_, AgentEvent::Update { .. })) {
                updates += 1;
            }
            let t = Instant::now();
            state.apply(e);
            applying += t.elapsed();
            if end {
                break;
            }
        }
        let took = start.elapsed();
        assert_eq!(updates, N, "every notification arrived");
        let text = state.agent("stream").unwrap().conversation.messages.last().unwrap().text();
        assert!(text.ends_with(&format!("word{} ", N - 1)), "the whole stream is in the model");
        commands.send(ManagerCommand::Shutdown).await.unwrap();
        (took, applying)
    })
}

/// The same stream's lines read raw from the script.
fn raw_lines() -> Duration {
    let mut child = Process::new("python3")
        .arg(script())
        .arg(N.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |s: &str| writeln!(stdin, "{s}").unwrap();
    send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#);
    lines.next();
    send(r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#);
    lines.next();
    let start = Instant::now();
    send(r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}"#);
    let mut count = 0;
    for line in lines.by_ref() {
        if line.unwrap().contains("\"id\": 3") {
            break;
        }
        count += 1;
    }
    let took = start.elapsed();
    assert_eq!(count, N);
    drop(stdin);
    let _ = child.wait();
    took
}
