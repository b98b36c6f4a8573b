//! The window, driven like a person would with egui_kittest (no display): it lists the agents of
//! a config; clicking the demo agent, typing "hello" and pressing Enter streams the reply of a
//! real demo agent process. Config problems show with their line and column.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;

mod common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text};

#[test]
fn hello_to_the_demo_agent_streams_its_reply_into_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("Other", BIN, &["demo-agent"]), ("Demo", BIN, &["demo-agent"])];
    let mut harness = window(&config_text("", agents, dir.path()), dir.path(), &rt, None);

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
    let mut harness = window(text, dir.path(), &rt, None);
    step_until(&mut harness, Duration::from_secs(10), "the problem", |h| {
        h.query_by_label_contains("1 problem(s)").is_some()
    });
    assert!(harness.query_by_label_contains("4:13  The workspace folder /no/such/folder does not exist.").is_some());
}

#[test]
fn where_an_agent_runs_is_shown_in_the_sidebar_and_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let text = format!(
        "[[agent]]\nname = \"boxed\"\ncommand = \"agent\"\nworkspace = {:?}\nruntime = {{ type = \"container\", container = \"web\" }}\n\n[[agent]]\nname = \"sandboxed\"\ncommand = \"agent\"\nworkspace = \"/w\"\nruntime = {{ type = \"sbx\", sandbox = \"dev\" }}\n",
        dir.path().display().to_string()
    );
    let mut harness = window(&text, dir.path(), &rt, None);
    step_until(&mut harness, Duration::from_secs(10), "the agents", |h| h.query_all_by_label("boxed").next().is_some());
    assert!(harness.query_by_label("stopped · container web").is_some());
    assert!(harness.query_by_label("stopped · sandbox dev").is_some());
    // The header of the selected agent says it too.
    assert!(harness.query_by_label("container web").is_some());
}
