//! The session's settings in the window (egui_kittest, demo agent): the agent's options as pickers
//! above the composer (a grouped model list, a mode, a tick), a choice reaching the agent and
//! staying for its next session, the agent changing its own mode, and the older modes of agents
//! without options.

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::app::AgentState;
use sidekicks::model::session_config::OptionValue;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

fn last_answer(h: &Harness<'static, SidekicksApp>) -> String {
    let demo = h.state().state.agent("demo").unwrap();
    demo.conversation.messages.iter().rev().find(|m| m.end.is_some()).map(|m| m.text()).unwrap_or_default()
}

fn answers(h: &Harness<'static, SidekicksApp>) -> usize {
    h.state().state.agent("demo").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

/// Sends `settings` and returns what the agent says of them.
fn ask_settings(h: &mut Harness<'static, SidekicksApp>) -> String {
    let before = answers(h);
    send(h, "settings");
    step_until(h, LONG, "its settings", |h| answers(h) == before + 1);
    last_answer(h)
}

fn option(h: &Harness<'static, SidekicksApp>, id: &str) -> Option<OptionValue> {
    h.state().state.agent("demo")?.options.iter().find(|o| o.id == id).map(|o| o.value())
}

/// The picker showing `value`, if any.
fn has_picker(h: &Harness<'static, SidekicksApp>, value: &str) -> bool {
    h.get_all_by_role(egui::accesskit::Role::ComboBox).any(|n| n.accesskit_node().value().as_deref() == Some(value))
}

/// Opens the picker showing `value`.
fn open_picker(h: &mut Harness<'static, SidekicksApp>, value: &str) {
    h.get_all_by_role(egui::accesskit::Role::ComboBox)
        .find(|n| n.accesskit_node().value().as_deref() == Some(value))
        .unwrap()
        .click();
    h.step();
    h.step();
}

fn restart(h: &mut Harness<'static, SidekicksApp>) {
    h.get_by_label("Restart agent").click();
    step_until(h, LONG, "a new session", |h| {
        h.state().state.agent("demo").is_some_and(|a| a.state == AgentState::Idle)
            && h.query_by_label_contains("started a new session").is_some()
    });
}

#[test]
fn a_model_chosen_in_the_picker_reaches_the_agent_and_stays_for_its_next_session() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    assert!(ask_settings(&mut h).contains("model=demo-fast"));
    step_until(&mut h, LONG, "the pickers", |h| has_picker(h, "Demo Fast"));
    open_picker(&mut h, "Demo Fast");
    assert!(h.query_by_label("Careful").is_some(), "the models are grouped as the agent groups them");
    h.get_by_label("Demo Smart").click();
    step_until(&mut h, LONG, "the agent took it", |h| {
        option(h, "model") == Some(OptionValue::Choice("demo-smart".into()))
    });
    assert!(ask_settings(&mut h).contains("model=demo-smart"));

    h.get_by_label("Verbose").click();
    step_until(&mut h, LONG, "verbose on", |h| option(h, "verbose") == Some(OptionValue::Bool(true)));

    // A new session starts with what was chosen.
    restart(&mut h);
    let said = ask_settings(&mut h);
    assert!(said.contains("model=demo-smart") && said.contains("verbose=on"), "{said}");

    // The agent changes its own mode: the picker follows.
    let before = answers(&h);
    send(&mut h, "switch");
    step_until(&mut h, LONG, "the switch", |h| answers(h) == before + 1);
    step_until(&mut h, LONG, "the mode picker follows", |h| {
        option(h, "mode") == Some(OptionValue::Choice("ask".into()))
    });
    h.state_mut().shutdown();
}

#[test]
fn an_agent_with_only_modes_gets_a_mode_picker() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let config = config_text("", &[("demo", BIN, &["demo-agent", "--modes-only"])], dir.path());
    let mut h = window(&config, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    assert!(ask_settings(&mut h).contains("mode=code"));
    step_until(&mut h, LONG, "the mode picker", |h| has_picker(h, "Code"));
    open_picker(&mut h, "Code");
    h.get_by_label("Ask").click();
    step_until(&mut h, LONG, "the mode set", |h| {
        h.state().state.agent("demo").and_then(|a| a.modes.as_ref()).is_some_and(|m| m.current == "ask")
    });
    assert!(ask_settings(&mut h).contains("mode=ask"));
    restart(&mut h);
    assert!(ask_settings(&mut h).contains("mode=ask"), "the mode stays for the next session");
    h.state_mut().shutdown();
}
