//! Search everywhere (egui_kittest, demo agent, a real history on disk): Ctrl+Shift+F opens the
//! search; words said in an earlier thread are found (agent, thread, snippet) as they are typed;
//! clicking the result opens that thread again and scrolls to the message (in the middle of the
//! thread: not in view without the scroll).

use std::time::Duration;

use egui::Modifiers;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::runtime::store::Store;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

fn answers(h: &H) -> usize {
    h.state().state.agent("alpha").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

fn current(h: &H) -> Option<i64> {
    h.state().state.agent("alpha").and_then(|a| a.threads.current)
}

#[test]
fn words_of_an_earlier_thread_are_found_and_opened() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("history.db")).unwrap();
    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("alpha", BIN, &["demo-agent"])];
    let mut h = window(&config_text("", agents, dir.path()), dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "the composer", |h| h.query_by_role(Role::MultilineTextInput).is_some());

    // A first thread with the words in its middle, then a new thread.
    let texts = (0..12)
        .map(|i| format!("filler message {i}"))
        .chain(["the zebra migration plan".to_string()])
        .chain((12..24).map(|i| format!("filler message {i}")));
    for (i, text) in texts.enumerate() {
        send(&mut h, &text);
        step_until(&mut h, LONG, "the answer", |h| answers(h) == i + 1);
    }
    let first = current(&h).expect("a thread");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::N);
    step_until(&mut h, LONG, "a new thread", |h| current(h).is_some_and(|t| t != first));
    let config = dir.path().join("sidekicks.toml");
    let config = std::path::absolute(&config).unwrap();
    // The agent's threads are kept under its folder (issue 48, item 9).
    let scope = sidekicks::runtime::store::SearchScope::new(&config, [(dir.path(), "alpha")]);
    step_until(&mut h, LONG, "the words stored", |_| !store.search(&scope, "zebra", 5).unwrap().is_empty());

    // Ctrl+Shift+F, then the words as typed.
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, egui::Key::F);
    step_until(&mut h, LONG, "the search view", |h| h.query_by_label("Search every conversation").is_some());
    h.step();
    h.get_by_role(Role::TextInput).type_text("zebra migr");
    step_until(&mut h, LONG, "the result", |h| h.query_by_label_contains("the zebra migration plan").is_some());
    assert!(h.query_by_label_contains("alpha  ·  ").is_some(), "agent, thread and date are shown");
    // (Threads are named by their first message, "filler message 0": look for the messages.)
    assert!(h.query_by_label("filler message 1").is_none(), "only what holds every word");

    // Opening it: the first thread again, scrolled to the message.
    h.get_by_label_contains("the zebra migration plan").click();
    step_until(&mut h, LONG, "the first thread again", |h| current(h) == Some(first));
    assert_eq!(h.state().shown_agent(), Some("alpha"));
    step_until(&mut h, LONG, "the message in view", |h| {
        h.get_all_by_label_contains("the zebra migration plan").next().is_some()
    });
    h.state_mut().shutdown();
}
