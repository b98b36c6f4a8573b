//! The tool card of a command the agent runs through Sidekicks (egui_kittest, the demo agent's
//! `terminal` scenario): after Allow, the card shows the command's output live, drawn by the
//! terminal renderer, then its exit status.

use std::time::Duration;

use egui_kittest::kittest::Queryable;

mod common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

#[test]
fn the_tool_card_shows_live_output_then_the_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "terminal");
    step_until(&mut h, LONG, "the permission card", |h| h.query_by_label("Allow once").is_some());
    h.get_by_label("Allow once").click();
    let output = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        h.query_by_label("Command output").and_then(|n| n.value()).unwrap_or_default()
    };
    // Live: the first steps show while the command still runs (no exit status yet).
    step_until(&mut h, LONG, "live output", |h| output(h).contains("step 1"));
    assert!(h.query_by_label("exit code 3").is_none(), "the command takes most of a second: no status yet");
    step_until(&mut h, LONG, "the exit status", |h| h.query_by_label("exit code 3").is_some());
    let text = output(&h);
    assert!(text.contains("step 4") && text.contains("ééééé"), "{text}");
    h.state_mut().shutdown();
}
