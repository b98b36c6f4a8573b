//! Conversation throughput and frame time.
//!
//! 1. Updates per second into the conversation model (`AppState::apply`), against appending the
//!    same fragments to a `String` (the least any model could do).
//! 2. `session/update` notifications per second end to end: the demo agent floods 10,000
//!    fragments; Sidekicks' client (process, ACP parsing, events, manager) against reading the same
//!    agent's stdout lines raw.
//! 3. Frame time (egui pass of the whole window, no GPU) of a 10,000-message conversation while
//!    1,000 fragments a second stream in (17 per 60 Hz frame), against a 10-message one.
//!
//! 4. Huge messages: one 10 MB answer and a 50 MB one streaming in 64 KB fragments, while the wheel
//!    scrolls; then the 10 MB one shown whole ("Show all") and scrolled through top to bottom.
//!    Frame time and the growth of the process's memory against the text's size.
//!
//! 5. A flood of 100,000 tool calls (each announced, then completed) from the misbehaving demo
//!    agent, typed into the window's composer, history on: frame times while they arrive, the
//!    time until the turn ends, memory, and that all of them are in the conversation and the
//!    history (issue 34).
//!
//! Run: `cargo bench --bench conversation` (`BENCH_ONLY=huge` or `BENCH_ONLY=tools`: that part).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command as Process, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::app::AgentCommand;
use sidekicks::app::{AppState, Event, Startup, start};
use sidekicks::demo_agent::FLOOD;
use sidekicks::model::conversation::{Delivery, Part, TurnEnd, Update};
use sidekicks::model::tool::{ToolCall, ToolKind, ToolStatus};
use sidekicks::protocol::AgentEvent;
use sidekicks::protocol::ConfigEvent;
use sidekicks::runtime::agents::{ManagerCommand, ManagerSettings, spawn_manager};
use sidekicks::runtime::config::file::load_file;
use sidekicks::runtime::events::EventSink;
use sidekicks::ui::SidekicksApp;

const BIN: &str = env!("CARGO_BIN_EXE_sidekicks");

/// Writes a config of one agent `name` running this binary with `args` in `dir`; its path.
fn write_config(dir: &std::path::Path, name: &str, args: &str) -> std::path::PathBuf {
    let config = dir.join("sidekicks.toml");
    let workspace = dir.display().to_string();
    let text = format!(
        "[defaults]\nidle_stop = 0\n[[agent]]\nname = {name:?}\ncommand = {BIN:?}\nargs = {args}\nworkspace = {workspace:?}\n"
    );
    std::fs::write(&config, text).unwrap();
    config
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "demo", r#"["demo-agent"]"#);
    let only = std::env::var("BENCH_ONLY").ok();
    if only.is_none() {
        model_ingest();
        end_to_end(&config);
        frame_time(&config);
    }
    if only.as_deref().is_none_or(|o| o == "huge") {
        huge_messages(&config);
    }
    if only.as_deref().is_none_or(|o| o == "tools") {
        tool_flood();
    }
}

fn model_ingest() {
    const N: usize = 200_000;
    let fragments: Vec<String> = (0..N).map(|i| format!("word{i} ")).collect();
    let mut state = AppState::default();
    state.apply(Event::Config(ConfigEvent::Applied {
        config: sidekicks::model::config::Config::default(),
        language: sidekicks::model::config::Language::En,
    }));
    // An agent view to stream into.
    let agent = sidekicks::model::config::AgentConfig {
        name: "demo".into(),
        command: "x".into(),
        args: vec![],
        env: Default::default(),
        workspace: "/".into(),
        runtime: Default::default(),
        channels: vec![],
        policy: Default::default(),
        registry: None,
    };
    let config = sidekicks::model::config::Config { agents: vec![agent], ..Default::default() };
    state.apply(Event::Config(ConfigEvent::Applied { config, language: sidekicks::model::config::Language::En }));
    let start = Instant::now();
    for f in &fragments {
        state.apply(Event::Agent("demo".into(), AgentEvent::Update { update: Update::Text(f.clone()) }));
    }
    let ours = start.elapsed();
    let start = Instant::now();
    let mut reference = String::new();
    for f in &fragments {
        reference.push_str(&f.clone());
    }
    let base = start.elapsed();
    std::hint::black_box(reference);
    println!(
        "conversation: model ingest {:.0} updates/s; String::push_str {:.0}/s; ratio {:.1}",
        N as f64 / ours.as_secs_f64(),
        N as f64 / base.as_secs_f64(),
        ours.as_secs_f64() / base.as_secs_f64()
    );
}

fn end_to_end(config: &std::path::Path) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let ours = rt.block_on(async {
        let (sink, mut events) = EventSink::new(Arc::new(|| {}));
        let commands = spawn_manager(ManagerSettings::default(), sink, None);
        let result = load_file(config, None);
        commands.send(ManagerCommand::ConfigLoaded { path: config.to_path_buf(), result }).await.unwrap();
        commands.send(ManagerCommand::Agent("demo".into(), AgentCommand::Start)).await.unwrap();
        while let Some(e) = events.recv().await {
            if matches!(e, Event::Agent(_, AgentEvent::State { state: sidekicks::app::AgentState::Idle, .. })) {
                break;
            }
        }
        let start = Instant::now();
        commands
            .send(ManagerCommand::Agent(
                "demo".into(),
                AgentCommand::Prompt {
                    text: "flood".into(),
                    context: None,
                    with_transcript: false,
                    id: None,
                    attachments: Vec::new(),
                },
            ))
            .await
            .unwrap();
        let mut updates = 0;
        while let Some(e) = events.recv().await {
            match e {
                Event::Agent(_, AgentEvent::Update { .. }) => updates += 1,
                Event::Agent(_, AgentEvent::TurnEnded { end, .. }) => {
                    assert_eq!(end, TurnEnd::EndTurn);
                    break;
                }
                _ => {}
            }
        }
        assert_eq!(updates, FLOOD);
        let took = start.elapsed();
        commands.send(ManagerCommand::Shutdown).await.unwrap();
        took
    });

    // The reference: the same agent driven by hand, its stdout read as raw lines.
    let mut child = Process::new(BIN).arg("demo-agent").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |s: &str| writeln!(stdin, "{s}").unwrap();
    send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#);
    lines.next();
    send(r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#);
    lines.next();
    let start = Instant::now();
    send(
        r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"demo-1","prompt":[{"type":"text","text":"flood"}]}}"#,
    );
    let mut count = 0;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.contains("\"id\":3") {
            break;
        }
        count += 1;
    }
    let base = start.elapsed();
    assert_eq!(count, FLOOD);
    drop(stdin);
    let _ = child.wait();
    println!(
        "conversation: end to end {:.0} notifications/s; raw stdout lines {:.0}/s; ratio {:.2}",
        FLOOD as f64 / ours.as_secs_f64(),
        FLOOD as f64 / base.as_secs_f64(),
        ours.as_secs_f64() / base.as_secs_f64()
    );
}

fn frame_time(config: &std::path::Path) {
    let big = frames(config, 10_000);
    let small = frames(config, 10);
    let none = frames(config, 0);
    println!("conversation: empty conversation mean {:.2} ms", none.0);
    println!(
        "conversation: frame while streaming 1,000 fragments/s: 10,000 messages mean {:.2} ms p95 {:.2} ms; 10 messages mean {:.2} ms p95 {:.2} ms; ratio {:.2}",
        big.0,
        big.1,
        small.0,
        small.1,
        big.0 / small.0
    );
}

/// The whole window (egui pass, no GPU) at 1100×720 over a started runtime, once the demo agent
/// is listed. Keep the runtime for as long as the window.
fn window(config: &std::path::Path) -> (tokio::runtime::Runtime, Harness<'static, SidekicksApp>) {
    window_of(Startup::new(config.to_path_buf()), "demo")
}

/// The whole window over `startup`, once `agent` is listed.
fn window_of(startup: Startup, agent: &str) -> (tokio::runtime::Runtime, Harness<'static, SidekicksApp>) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let bridge = start(rt.handle(), startup, Arc::new(|| {}));
    let mut h = Harness::builder().with_size(egui::vec2(1100.0, 720.0)).build_ui_state(
        |ui, app: &mut SidekicksApp| {
            app.logic(ui.ctx());
            app.ui(ui);
        },
        SidekicksApp::new(bridge),
    );
    while h.state().state.agent(agent).is_none() {
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    (rt, h)
}

/// Mean and 95th percentile frame time (ms) with `messages` in the conversation.
fn frames(config: &std::path::Path, messages: usize) -> (f64, f64) {
    let (_rt, mut h) = window(config);
    let agent = h.state_mut().state.agent_mut("demo").unwrap();
    for i in 0..messages {
        agent.conversation.push_user(format!("Question number {i}: what about this?"), Delivery::Sent, None);
        agent.conversation.apply(Update::Text(format!(
            "## Answer {i}\n\nSome **Markdown** with `code`, a list:\n\n- one\n- two\n\n```rust\nfn f() -> u32 {{ {i} }}\n```\n"
        )));
        if i % 10 == 0 {
            agent.conversation.apply(Update::ToolCall(ToolCall {
                id: format!("t{i}"),
                title: "Run the tests".into(),
                kind: ToolKind::Execute,
                status: ToolStatus::Completed,
                ..Default::default()
            }));
        }
        agent.conversation.end_turn(TurnEnd::EndTurn);
    }
    agent.conversation.push_user("stream now", Delivery::Sent, None);
    assert!(agent.conversation.messages.len() >= messages);
    // Settle the layout (heights of visible messages measured).
    for _ in 0..10 {
        h.step();
    }
    let mut times = Vec::new();
    for frame in 0..300 {
        let agent = h.state_mut().state.agent_mut("demo").unwrap();
        for k in 0..17 {
            // Paragraphs of about 40 fragments, as prose streams.
            let end = if (frame * 17 + k) % 40 == 39 { ".\n\n" } else { " " };
            agent.conversation.apply(Update::Text(format!("fragment{frame}-{k}{end}")));
        }
        let start = Instant::now();
        h.step();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let last = &h.state().state.agent("demo").unwrap().conversation.messages;
    assert!(matches!(last.last().unwrap().parts.last(), Some(Part::Text(_))));
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    (mean, times[times.len() * 95 / 100])
}

/// The resident memory of this process, in bytes.
fn rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap().trim().trim_end_matches(" kB");
    kb.trim().parse::<usize>().unwrap() * 1024
}

fn wheel(h: &mut Harness<'_, SidekicksApp>, lines: f32) {
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, lines),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
}

fn percentile(mut times: Vec<f64>, p: usize) -> f64 {
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[(times.len() * p / 100).min(times.len() - 1)]
}

fn huge_messages(config: &std::path::Path) {
    let (_rt, mut h) = window(config);
    for _ in 0..5 {
        h.step();
    }
    let line = "All work and no play makes a huge message. 0123456789 abcdefghij\n";
    let big = line.repeat((10 << 20) / line.len());
    let piece = line.repeat((64 << 10) / line.len());
    let pieces = (50 << 20) / piece.len();
    let before = rss();
    let agent = h.state_mut().state.agent_mut("demo").unwrap();
    agent.conversation.push_user("dump the file", Delivery::Sent, None);
    agent.conversation.apply(Update::Text(big.clone()));
    agent.conversation.end_turn(TurnEnd::EndTurn);
    agent.conversation.push_user("and stream another", Delivery::Sent, None);
    let center = egui::pos2(600.0, 400.0);
    h.hover_at(center);
    let mut streaming = Vec::new();
    for frame in 0..pieces {
        let agent = h.state_mut().state.agent_mut("demo").unwrap();
        agent.conversation.apply(Update::Text(piece.clone()));
        // The wheel goes up for a while, then down again.
        wheel(&mut h, if frame % 100 < 50 { 6.0 } else { -6.0 });
        let start = Instant::now();
        h.step();
        streaming.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let text = big.len() + pieces * piece.len();
    let grown = rss().saturating_sub(before);
    // The 50 MB answer shown whole, then scrolled up through from its end.
    let agent = h.state_mut().state.agent_mut("demo").unwrap();
    agent.conversation.end_turn(TurnEnd::EndTurn);
    for _ in 0..5 {
        h.step();
    }
    // Down to the end of the answer (the wheel above left it), until the layout has settled (the
    // heights in view measured), so the click lands.
    let mut last = None;
    loop {
        let now = h.get_all_by_label("Show all").last().map(|n| n.rect()).filter(|r| r.bottom() < 720.0);
        if now.is_some() && now == last {
            break;
        }
        last = now;
        wheel(&mut h, -1000.0);
        h.step();
    }
    h.get_all_by_label("Show all").last().expect("the folded answer").click();
    for _ in 0..5 {
        h.step();
    }
    assert!(h.query_by_label_contains("Show more").is_none(), "the answer is shown whole");
    // The click moved the pointer onto the button: back over the conversation.
    h.hover_at(center);
    h.step();
    let mut scrolling = Vec::new();
    // What is in view moves: the pieces laid out are counted, and the first line shown changes.
    let mut laid_out = Vec::new();
    let mut first_lines = std::collections::HashSet::new();
    for _ in 0..600 {
        wheel(&mut h, 20.0);
        let start = Instant::now();
        h.step();
        scrolling.push(start.elapsed().as_secs_f64() * 1000.0);
        let pieces: Vec<egui::Rect> = h.query_all_by_label_contains("All work and no play").map(|n| n.rect()).collect();
        laid_out.push(pieces.len());
        first_lines.insert(pieces.iter().map(|r| r.top() as i64).min());
    }
    assert!(laid_out.iter().all(|n| (1..60).contains(n)), "pieces laid out: {laid_out:?}");
    assert!(first_lines.len() > 100, "the view did not move: {} positions", first_lines.len());
    let shown = rss().saturating_sub(before);
    println!(
        "conversation: huge messages (10 MB + 50 MB streamed in 64 KB fragments, wheel moving): frame mean {:.2} ms p95 {:.2} ms; memory growth {:.0} MB for {:.0} MB of text ({:.2}×)",
        streaming.iter().sum::<f64>() / streaming.len() as f64,
        percentile(streaming, 95),
        grown as f64 / (1 << 20) as f64,
        text as f64 / (1 << 20) as f64,
        grown as f64 / text as f64
    );
    println!(
        "conversation: the 50 MB answer shown whole, scrolled up through 600 frames: frame mean {:.2} ms p95 {:.2} ms; memory growth {:.0} MB ({:.2}× the text)",
        scrolling.iter().sum::<f64>() / scrolling.len() as f64,
        percentile(scrolling, 95),
        shown as f64 / (1 << 20) as f64,
        shown as f64 / text as f64
    );
}

/// Tool calls in the flood (the issue's figure).
const TOOL_CALLS: usize = 100_000;

fn tool_flood() {
    use egui::accesskit::Role;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "bad", r#"["demo-agent", "--misbehave"]"#);
    let db = dir.path().join("history.db");
    let store = sidekicks::runtime::store::Store::open(&db).unwrap();
    let startup = Startup { store: Some(store), ..Startup::new(config.clone()) };
    let (_rt, mut h) = window_of(startup, "bad");
    let composer = h
        .get_all_by_role(Role::MultilineTextInput)
        .find(|n| n.value().unwrap_or_default().is_empty())
        .map(|n| n.rect())
        .expect("an empty composer");
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == composer).unwrap().click();
    h.step();
    h.get_all_by_role(Role::MultilineTextInput)
        .find(|n| n.rect() == composer)
        .unwrap()
        .type_text(&format!("tools {TOOL_CALLS}"));
    h.step();
    let before = rss();
    let mut peak = before;
    let start = Instant::now();
    h.key_press(egui::Key::Enter);
    let ended = |h: &Harness<'static, SidekicksApp>| {
        h.state().state.agent("bad").and_then(|a| a.conversation.messages.last()).is_some_and(|m| m.end.is_some())
    };
    let mut times = Vec::new();
    while !ended(&h) {
        let frame = Instant::now();
        h.step();
        let took = frame.elapsed();
        times.push(took.as_secs_f64() * 1000.0);
        peak = peak.max(rss());
        // A 60 Hz display: the next frame comes at the next vsync.
        std::thread::sleep(Duration::from_micros(16_667).saturating_sub(took));
        assert!(start.elapsed() < Duration::from_secs(600), "the flood never ended");
    }
    let took = start.elapsed();
    let shown = h.state().state.agent("bad").unwrap().conversation.messages.last().unwrap();
    let calls = shown.parts.iter().filter(|p| matches!(p, Part::Tool(_))).count();
    let done = shown.parts.iter().filter(|p| matches!(p, Part::Tool(t) if t.status == ToolStatus::Completed)).count();
    assert_eq!((calls, done), (TOOL_CALLS, TOOL_CALLS), "every call shown, completed");
    // Frames after the turn: the whole conversation still on screen.
    let mut after = Vec::new();
    for _ in 0..120 {
        let frame = Instant::now();
        h.step();
        after.push(frame.elapsed().as_secs_f64() * 1000.0);
    }
    h.state_mut().shutdown();
    let store = sidekicks::runtime::store::Store::open(&db).unwrap();
    let kept = store.conversation(&config, "bad").unwrap().messages;
    let stored = kept
        .last()
        .unwrap()
        .parts
        .iter()
        .filter(|p| matches!(p, Part::Tool(t) if t.status == ToolStatus::Completed))
        .count();
    assert_eq!(stored, TOOL_CALLS, "every call kept in the history, completed");
    let frames = times.len();
    println!(
        "conversation: {TOOL_CALLS} tool calls typed into the window: turn ended in {:.1} s; {frames} frames, mean {:.2} ms p95 {:.2} ms max {:.2} ms; after: p95 {:.2} ms; memory growth {:.0} MB peak; all {stored} in the history",
        took.as_secs_f64(),
        times.iter().sum::<f64>() / frames as f64,
        percentile(times.clone(), 95),
        percentile(times, 100),
        percentile(after, 95),
        peak.saturating_sub(before) as f64 / (1 << 20) as f64,
    );
}
