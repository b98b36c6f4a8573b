//! The `/` menu of the composer (egui_kittest, demo agent): typing `/` lists the commands the
//! agent sent with their descriptions and hints; typing narrows the list; Enter or Tab completes
//! the name without sending; arrows move; Esc closes; the completed command is sent with Enter.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

fn answers(h: &Harness<'static, SidekicksApp>) -> usize {
    h.state().state.agent("demo").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

/// The composer: the multi-line input at the bottom.
fn composer(h: &Harness<'static, SidekicksApp>) -> String {
    let node = h.get_all_by_role(Role::MultilineTextInput).max_by(|a, b| a.rect().min.y.total_cmp(&b.rect().min.y));
    node.and_then(|n| n.value()).unwrap_or_default()
}

fn type_in_composer(h: &mut Harness<'static, SidekicksApp>, text: &str) {
    let bottom = |h: &Harness<'static, SidekicksApp>| {
        h.get_all_by_role(Role::MultilineTextInput)
            .map(|n| n.rect())
            .max_by(|a, b| a.min.y.total_cmp(&b.min.y))
            .unwrap()
    };
    let rect = bottom(h);
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().click();
    h.step();
    let rect = bottom(h);
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().type_text(text);
    h.step();
    h.step();
}

/// Types into the composer, which has the keyboard already.
fn type_more(h: &mut Harness<'static, SidekicksApp>, text: &str) {
    h.event(egui::Event::Text(text.into()));
    h.step();
    h.step();
}

#[test]
fn the_slash_menu_lists_narrows_completes_and_sends() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "hello");
    step_until(&mut h, LONG, "its commands and its answer", |h| {
        h.state().state.agent("demo").is_some_and(|a| a.commands.len() == 3) && answers(h) == 1
    });

    type_in_composer(&mut h, "/");
    assert!(h.query_by_label("/help").is_some() && h.query_by_label("/settings").is_some());
    assert!(h.query_by_label("Say my settings").is_some(), "descriptions show");
    assert!(h.query_by_label("[what to plan]").is_some(), "input hints show");

    type_more(&mut h, "se");
    assert!(h.query_by_label("/help").is_none(), "typing narrows the list");
    h.key_press(egui::Key::Enter);
    h.step();
    assert_eq!(composer(&h), "/settings ", "Enter completes the name");
    assert_eq!(answers(&h), 1, "and sends nothing");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the command's answer", |h| answers(h) == 2);
    let last = h.state().state.agent("demo").unwrap().conversation.messages.last().unwrap().text();
    assert!(last.contains("Settings: mode="), "{last}");

    // Arrows and Tab; Esc closes the list.
    type_in_composer(&mut h, "/");
    h.key_press(egui::Key::ArrowDown);
    h.step();
    h.key_press(egui::Key::Tab);
    h.step();
    assert_eq!(composer(&h), "/settings ");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the second answer", |h| answers(h) == 3);
    type_in_composer(&mut h, "/p");
    assert!(h.query_by_label("/plan").is_some());
    h.key_press(egui::Key::Escape);
    h.step();
    assert!(h.query_by_label("/plan").is_none(), "Esc closes the list");
    h.state_mut().shutdown();
}
