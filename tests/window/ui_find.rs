//! Ctrl+F in a conversation (egui_kittest, demo agent): the count of messages holding the words,
//! Enter and Shift+Enter move between them, the current one is scrolled into view (the list lays
//! out only what is visible, so an old message appears only once found), Esc closes.

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(60);

type H = Harness<'static, SidekicksApp>;

fn answers(h: &H) -> usize {
    h.state().state.agent("demo").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

#[test]
fn ctrl_f_counts_moves_between_and_scrolls_to_matches() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "the pumpkin question");
    step_until(&mut h, LONG, "the first answer", |h| answers(h) == 1);
    // Enough later messages to push the first one far out of view.
    for i in 0..12 {
        send(&mut h, &format!("filler message {i}"));
        step_until(&mut h, LONG, "an answer", |h| answers(h) == i + 2);
    }
    assert!(h.query_all_by_label("the pumpkin question").next().is_none(), "the first message is not laid out");

    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    h.step();
    h.step();
    h.event(egui::Event::Text("PUMPKIN".into()));
    step_until(&mut h, LONG, "the count", |h| h.query_by_label("1 of 2").is_some());
    step_until(&mut h, LONG, "the first match in view", |h| {
        h.query_all_by_label("the pumpkin question").next().is_some()
    });

    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the second match", |h| h.query_by_label("2 of 2").is_some());
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Enter);
    step_until(&mut h, LONG, "back to the first", |h| h.query_by_label("1 of 2").is_some());
    h.key_press(egui::Key::Enter);
    h.step();
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "round to the first", |h| h.query_by_label("1 of 2").is_some());

    h.key_press(egui::Key::Escape);
    h.step();
    h.step();
    assert!(h.query_by_label("1 of 2").is_none(), "Esc closes the bar");

    // Scrolled up to the first message, the person sends one more: the view goes to the bottom.
    assert!(h.query_all_by_label("the pumpkin question").next().is_some(), "still scrolled up");
    send(&mut h, "the closing words");
    step_until(&mut h, LONG, "the last answer", |h| answers(h) == 14);
    step_until(&mut h, LONG, "the message sent, in view", |h| {
        h.query_all_by_label("the closing words").next().is_some()
    });
    assert!(h.query_all_by_label("the pumpkin question").next().is_none(), "the top is out of view");
    h.state_mut().shutdown();
}
