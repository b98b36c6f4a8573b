//! The tool card of a command the agent runs through Sidekicks (egui_kittest, the demo agent's
//! `terminal` scenario): after Allow, the card shows the command's output live, drawn by the
//! terminal renderer, then its exit status.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::runtime::store::Store;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

#[test]
fn the_tool_card_shows_live_output_then_the_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let config = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    let db = dir.path().join("db/sidekicks.db");
    let mut h = window(&config, dir.path(), &rt, Some(Store::open(&db).unwrap()));
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
    // The agent says the call completed; its command exited with 3: the card says failed.
    step_until(&mut h, LONG, "the turn's end", |h| !h.state().state.agent("demo").unwrap().conversation.is_streaming());
    h.step();
    assert!(h.query_by_label("failed").is_some(), "the status agrees with the exit code");
    assert!(h.query_by_label("done").is_none(), "\"done\" next to \"exit code 3\"");
    h.state_mut().shutdown();
    drop(h);

    // After a restart: the output, the exit code and the answer are still there.
    let mut h = window(&config, dir.path(), &rt, Some(Store::open(&db).unwrap()));
    step_until(&mut h, LONG, "the exit status again", |h| h.query_by_label("exit code 3").is_some());
    // Folded (done): a click on its title shows the output.
    assert!(h.query_by_label("Command output").is_none());
    h.get_by_label("Run the build steps").click();
    step_until(&mut h, LONG, "the output", |h| h.query_by_label("Command output").is_some());
    let text = output(&h);
    assert!(text.contains("step 4") && text.contains("ééééé"), "{text}");
    assert!(h.query_by_label_contains("Allowed once").is_some(), "the answer's line is gone");
    assert!(h.query_by_label("failed").is_some());
    h.state_mut().shutdown();
}
