//! The key that sends (egui_kittest, demo agent): by default Enter sends and Shift+Enter makes a
//! new line — four lines stay one message; with `send_with = "ctrl+enter"` Enter makes a new line
//! and Ctrl+Enter sends.

use std::time::Duration;

use egui::Modifiers;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::model::conversation::Role as Who;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

fn user_messages(h: &H) -> Vec<String> {
    let agent = h.state().state.agent("alpha").unwrap();
    agent.conversation.messages.iter().filter(|m| m.role == Who::User).map(|m| m.text()).collect()
}

/// Clicks the composer (the multi-line input whose hint names alpha) and types `text`.
fn type_in(h: &mut H, text: &str) {
    let composer =
        |h: &H| h.get_all_by_role(Role::MultilineTextInput).map(|n| n.rect()).next_back().expect("the composer");
    let rect = composer(h);
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().click();
    h.step();
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().type_text(text);
    h.step();
}

/// Types `text` where the cursor is.
fn more(h: &mut H, text: &str) {
    h.event(egui::Event::Text(text.into()));
    h.step();
}

fn draft(h: &H) -> String {
    h.get_all_by_role(Role::MultilineTextInput).last().and_then(|n| n.value()).unwrap_or_default()
}

#[test]
fn enter_sends_and_shift_enter_makes_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("alpha", BIN, &["demo-agent"])];
    let mut h = window(&config_text("", agents, dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "the composer", |h| h.query_by_role(Role::MultilineTextInput).is_some());
    type_in(&mut h, "one");
    for line in ["two", "three", "four"] {
        h.key_press_modifiers(Modifiers::SHIFT, egui::Key::Enter);
        h.step();
        more(&mut h, line);
    }
    assert!(user_messages(&h).is_empty(), "Shift+Enter sent: {:?}", user_messages(&h));
    assert_eq!(draft(&h), "one\ntwo\nthree\nfour");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "one message", |h| !user_messages(h).is_empty());
    assert_eq!(user_messages(&h), ["one\ntwo\nthree\nfour"]);
    h.state_mut().shutdown();
}

#[test]
fn with_ctrl_enter_enter_makes_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("alpha", BIN, &["demo-agent"])];
    let text = config_text("send_with = \"ctrl+enter\"", agents, dir.path());
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "the composer", |h| h.query_by_role(Role::MultilineTextInput).is_some());
    type_in(&mut h, "first");
    h.key_press(egui::Key::Enter);
    h.step();
    more(&mut h, "second");
    assert!(user_messages(&h).is_empty(), "Enter sent: {:?}", user_messages(&h));
    assert_eq!(draft(&h), "first\nsecond");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Enter);
    step_until(&mut h, LONG, "one message", |h| !user_messages(h).is_empty());
    assert_eq!(user_messages(&h), ["first\nsecond"]);
    h.state_mut().shutdown();
}
