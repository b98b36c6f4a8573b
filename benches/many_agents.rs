//! Fifty agents answering at once in one channel (issue 22): fifty demo agents, each streaming its
//! `wait` answer (ten fragments a second each, 500 a second in all), the channel shown. Measured:
//! the whole window's egui pass (no GPU, as in benches/conversation.rs) while they stream, against
//! the same window with the fifty agents listed and idle; and the resident memory of this process
//! (the app; the agents are processes of their own) before and while they stream.
//!
//! Run: `cargo bench --bench many_agents`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::app::{Startup, start};
use sidekicks::ui::SidekicksApp;

const BIN: &str = env!("CARGO_BIN_EXE_sidekicks");
const AGENTS: usize = 50;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sidekicks.toml");
    let mut text = String::from("[defaults]\nidle_stop = 0\n[[channel]]\nname = \"all\"\n");
    for i in 1..=AGENTS {
        text.push_str(&format!(
            "[[agent]]\nname = \"agent-{i:02}\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\nchannels = [\"all\"]\n",
            dir.path().display().to_string()
        ));
    }
    std::fs::write(&config, text).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let bridge = start(rt.handle(), Startup::new(config.clone()), Arc::new(|| {}));
    let mut h = Harness::builder().with_size(egui::vec2(1100.0, 720.0)).build_ui_state(
        |ui, app: &mut SidekicksApp| {
            app.logic(ui.ctx());
            app.ui(ui);
        },
        SidekicksApp::new(bridge),
    );
    until(&mut h, "the agents", |h| h.state().state.agents.len() == AGENTS);
    until(&mut h, "the channel", |h| h.query_all_by_label("#all").next().is_some());
    h.get_all_by_label("#all").next().unwrap().click();
    for _ in 0..10 {
        h.step();
    }
    let idle = frames(&mut h, 120);
    let rss_idle = rss();

    // Everyone answers at once.
    h.state_mut().send(sidekicks::app::Command::Channel(sidekicks::app::ChannelCommand::Say {
        channel: "all".into(),
        text: "wait".into(),
    }));
    until(&mut h, "every agent streaming", |h| {
        h.state().state.agents.iter().all(|a| a.conversation.is_streaming() && a.conversation.messages.len() >= 2)
    });
    let busy = frames(&mut h, 300);
    let rss_busy = rss();
    let streaming = h.state().state.agents.iter().filter(|a| a.conversation.is_streaming()).count();
    assert_eq!(streaming, AGENTS, "all fifty still streaming at the end of the measure");
    println!(
        "many agents: {AGENTS} streaming in one channel: frame mean {:.2} ms p95 {:.2} ms; idle window mean {:.2} ms p95 {:.2} ms; app RSS {} MB idle, {} MB streaming",
        busy.0,
        busy.1,
        idle.0,
        idle.1,
        rss_idle / 1_000_000,
        rss_busy / 1_000_000
    );
    h.state_mut().shutdown();
}

/// Steps until `done`, failing after a minute.
fn until(h: &mut Harness<'static, SidekicksApp>, what: &str, done: impl Fn(&Harness<'static, SidekicksApp>) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done(h) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Mean and 95th percentile (ms) of `n` frames, one every 16 ms (updates arrive between them).
fn frames(h: &mut Harness<'static, SidekicksApp>, n: usize) -> (f64, f64) {
    let mut times = Vec::new();
    for _ in 0..n {
        std::thread::sleep(Duration::from_millis(16));
        let start = Instant::now();
        h.step();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (times.iter().sum::<f64>() / n as f64, times[n * 95 / 100])
}

/// The resident memory of this process, in bytes.
fn rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap().trim().trim_end_matches(" kB");
    kb.trim().parse::<usize>().unwrap() * 1024
}
