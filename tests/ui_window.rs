//! The window, driven like a person would with egui_kittest (no display): it lists the agents of
//! a config; clicking the demo agent, typing "hello" and pressing Enter streams the reply of a
//! real demo agent process. Config problems show with their line and column.

use std::sync::Arc;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::app::{Startup, start};
use sidekicks::ui::SidekicksApp;

mod common;
use common::{BIN, config_text, fast_settings};

fn window(config: &str, dir: &std::path::Path, rt: &tokio::runtime::Runtime) -> Harness<'static, SidekicksApp> {
    let path = dir.join("sidekicks.toml");
    std::fs::write(&path, config).unwrap();
    let startup = Startup { config_path: path, dirs: None, settings: fast_settings(), store: None };
    let bridge = start(rt.handle(), startup, Arc::new(|| {}));
    Harness::builder().with_size(egui::vec2(1000.0, 700.0)).build_ui_state(
        |ui, app: &mut SidekicksApp| {
            app.logic(ui.ctx());
            app.ui(ui);
        },
        SidekicksApp::new(bridge),
    )
}

/// Steps frames until `done` holds, failing after `limit`.
fn step_until(
    harness: &mut Harness<'static, SidekicksApp>,
    limit: Duration,
    what: &str,
    done: impl Fn(&Harness<'static, SidekicksApp>) -> bool,
) {
    let deadline = Instant::now() + limit;
    while !done(harness) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    harness.step();
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

#[test]
fn hello_to_the_demo_agent_streams_its_reply_into_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("Other", BIN, &["demo-agent"]), ("Demo", BIN, &["demo-agent"])];
    let mut harness = window(&config_text("", agents, dir.path()), dir.path(), &rt);

    step_until(&mut harness, Duration::from_secs(10), "the agent list", |h| {
        h.query_all_by_label("Demo").next().is_some()
    });
    assert!(harness.query_all_by_label("Other").next().is_some());

    harness.get_all_by_label("Demo").next().unwrap().click();
    harness.step();
    let composer = harness.get_by_role(Role::MultilineTextInput);
    composer.click();
    harness.step();
    harness.get_by_role(Role::MultilineTextInput).type_text("hello");
    harness.step();
    harness.key_press(egui::Key::Enter);
    harness.step();

    step_until(&mut harness, Duration::from_secs(30), "the streamed reply", |h| {
        h.state().state.agent("Demo").is_some_and(|a| {
            a.conversation.messages.last().is_some_and(|m| m.end.is_some() && m.text().contains("You said"))
        })
    });
    assert!(harness.query_by_label_contains("I am the Sidekicks demo agent").is_some());
    // The person's own message, and the agent's Markdown quote of it.
    assert_eq!(harness.query_all_by_label("hello").count(), 2);
    let demo = harness.state().state.agent("Demo").unwrap();
    assert_eq!(demo.conversation.messages.len(), 2);
    assert!(harness.state().state.agent("Other").unwrap().conversation.messages.is_empty());
    // The composer was emptied by sending.
    assert_eq!(harness.get_by_role(Role::MultilineTextInput).value().as_deref(), Some(""));
}

#[test]
fn config_problems_show_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let text = "[[agent]]\nname = \"x\"\ncommand = \"sh\"\nworkspace = \"/no/such/folder\"\n";
    let mut harness = window(text, dir.path(), &rt);
    step_until(&mut harness, Duration::from_secs(10), "the problem", |h| {
        h.query_by_label_contains("1 problem(s)").is_some()
    });
    assert!(harness.query_by_label_contains("4:13  The workspace folder /no/such/folder does not exist.").is_some());
}
