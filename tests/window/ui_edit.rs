//! Edit in place (issue 48, item 4), driven like a person would (egui_kittest) with the demo agent
//! and a real history: Edit turns a sent message into a field where it stands; Save and send
//! replaces it and what followed, and the agent answers in a new session told only what comes
//! before it; "‹ 1 / 2 ›" shows the earlier version and its answer again; after a restart both
//! versions are there; a message sent while the earlier version is shown goes to a session told
//! what is shown. (The version buttons are pressed through accesskit, as a screen reader or the
//! keyboard would: after a restart the list opens at its end, where the message's header is
//! scrolled out of the pointer's reach.)

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::model::conversation::Role;
use sidekicks::runtime::store::Store;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

/// The texts of the conversation shown, in order.
fn texts(h: &H) -> Vec<(Role, String)> {
    let demo = h.state().state.agent("demo").unwrap();
    demo.conversation.messages.iter().filter(|m| m.role != Role::System).map(|m| (m.role, m.text())).collect()
}

/// Waits for the answers to `n` messages of the person, every turn ended.
fn answered(h: &mut H, n: usize) {
    step_until(h, LONG, "the answers", |h| {
        let demo = h.state().state.agent("demo").unwrap();
        let m = &demo.conversation.messages;
        m.iter().filter(|m| m.role == Role::User).count() == n
            && m.iter().filter(|m| m.role == Role::Agent && m.end.is_some()).count() == n
            && demo.state == sidekicks::app::AgentState::Idle
    });
}

#[test]
fn a_message_is_edited_in_place_and_its_versions_stay() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let db = dir.path().join("db/sidekicks.db");
    let text = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    {
        let mut h = window(&text, dir.path(), &rt, Some(Store::open(&db).unwrap()));
        step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
        send(&mut h, "good morning");
        answered(&mut h, 1);
        send(&mut h, "second thought");
        answered(&mut h, 2);

        // Edit the second message where it stands.
        h.get_all_by_label("Edit").nth(1).unwrap().click();
        step_until(&mut h, LONG, "the field", |h| {
            h.query_all_by_role(egui::accesskit::Role::MultilineTextInput)
                .any(|n| n.value().as_deref() == Some("second thought"))
        });
        let field = h
            .get_all_by_role(egui::accesskit::Role::MultilineTextInput)
            .find(|n| n.value().as_deref() == Some("second thought"))
            .unwrap()
            .rect();
        h.get_all_by_role(egui::accesskit::Role::MultilineTextInput).find(|n| n.rect() == field).unwrap().click();
        h.step();
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        h.step();
        h.event(egui::Event::Text("a better thought".into()));
        h.step();
        let typed = h
            .query_all_by_role(egui::accesskit::Role::MultilineTextInput)
            .any(|n| n.value().as_deref() == Some("a better thought"));
        assert!(typed, "the new words in the field");
        h.get_by_label("Save and send").click();
        step_until(&mut h, LONG, "the edit", |h| texts(h).get(2).is_some_and(|t| t.1 == "a better thought"));
        answered(&mut h, 2);
        let shown = texts(&h);
        assert_eq!(shown[0].1, "good morning");
        assert_eq!(shown[2], (Role::User, "a better thought".into()));
        assert_eq!(shown.len(), 4, "the second turn was replaced: {shown:?}");
        // The new session was told what comes before the edit, and only that.
        let answer = &shown[3].1;
        assert!(answer.contains("> User: good morning"), "{answer}");
        assert!(!answer.contains("second thought"), "{answer}");
        assert!(h.query_by_label("2 / 2").is_some(), "the versions on the message");

        // The earlier version, with its answer, shown again.
        h.get_by_label("‹").click_accesskit();
        step_until(&mut h, LONG, "the first version", |h| h.query_by_label("1 / 2").is_some());
        let shown = texts(&h);
        assert_eq!(shown[2], (Role::User, "second thought".into()));
        assert!(shown[3].1.contains("> second thought"), "{shown:?}");
        h.state_mut().shutdown();
    }

    // After a restart: the version shown, and the other, are there.
    let mut h = window(&text, dir.path(), &rt, Some(Store::open(&db).unwrap()));
    step_until(&mut h, LONG, "the history", |h| h.query_by_label("1 / 2").is_some());
    assert_eq!(texts(&h)[2], (Role::User, "second thought".into()));
    h.get_by_label("›").click_accesskit();
    step_until(&mut h, LONG, "the second version", |h| h.query_by_label("2 / 2").is_some());
    assert_eq!(texts(&h)[2], (Role::User, "a better thought".into()));
    h.get_by_label("‹").click_accesskit();
    step_until(&mut h, LONG, "the first version again", |h| h.query_by_label("1 / 2").is_some());

    // Going on from the first version: the new session hears what is shown.
    send(&mut h, "and then");
    answered(&mut h, 3);
    let answer = texts(&h).last().unwrap().1.clone();
    assert!(answer.contains("> User: second thought"), "{answer}");
    assert!(!answer.contains("a better thought"), "{answer}");
    h.state_mut().shutdown();
}
