//! The conversation view driven like a person would (egui_kittest), against a real demo agent:
//! the permission card and "Always allow here", queue and Stop, the loop banner, and history
//! shown again after the app state is rebuilt.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::model::conversation::{Delivery, Role, TurnEnd};
use sidekicks::runtime::store::Store;

mod common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

fn demo_config(dir: &std::path::Path) -> String {
    config_text("", &[("demo", BIN, &["demo-agent"])], dir)
}

fn turns_ended(h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>) -> usize {
    h.state().state.agent("demo").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

#[test]
fn always_allow_here_approves_the_same_request_without_a_card_next_time() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, Some(Store::in_memory()));
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());

    send(&mut h, "run it");
    step_until(&mut h, LONG, "the card", |h| h.query_by_label("Always allow here").is_some());
    assert!(h.query_by_label("demo wants to run a command on your computer").is_some());
    assert!(h.query_by_label("May destroy data: rm").is_some());
    assert!(h.query_by_label("Stop the agent").is_some());
    h.get_by_label("Always allow here").click();
    step_until(&mut h, LONG, "the first turn", |h| turns_ended(h) == 1);
    assert!(h.query_by_label("Always allow here").is_none(), "the card is answered");
    assert!(h.query_by_label_contains("Always allowed here").is_some());

    send(&mut h, "run it");
    step_until(&mut h, LONG, "the second turn", |h| turns_ended(h) == 2);
    assert!(h.query_by_label("Always allow here").is_none(), "no card the second time");
    let demo = h.state().state.agent("demo").unwrap();
    assert!(demo.conversation.messages.last().unwrap().text().contains("Allowed"));
    assert_eq!(demo.waiting_permissions().count(), 0);

    // The agent's settings show the rule; Forget brings the card back.
    h.get_by_label("Permissions").click();
    step_until(&mut h, LONG, "the rule", |h| h.query_by_label("execute  rm -rf build").is_some());
    h.get_by_label("Forget").click();
    step_until(&mut h, LONG, "forgotten", |h| h.query_by_label_contains("No remembered answers").is_some());
    h.get_by_label("Conversation").click();
    h.step();
    send(&mut h, "run it");
    step_until(&mut h, LONG, "the card again", |h| h.query_by_label("Always allow here").is_some());
}

#[test]
fn a_message_sent_while_busy_is_queued_and_stop_drops_it() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "wait");
    step_until(&mut h, LONG, "streaming", |h| h.query_by_label_contains("3…").is_some());
    send(&mut h, "and then this");
    step_until(&mut h, LONG, "queued", |h| h.query_by_label("queued").is_some());
    h.get_by_label("Stop").click();
    step_until(&mut h, LONG, "cancelled", |h| h.query_by_label("Cancelled.").is_some());
    assert!(h.query_by_label("not sent").is_some());
    let demo = h.state().state.agent("demo").unwrap();
    let user: Vec<Delivery> =
        demo.conversation.messages.iter().filter(|m| m.role == Role::User).map(|m| m.delivery).collect();
    assert_eq!(user, vec![Delivery::Sent, Delivery::NotSent]);
}

#[test]
fn the_loop_banner_appears_after_the_third_failure() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "fail");
    step_until(&mut h, LONG, "the banner", |h| {
        h.query_by_label("demo is going round in circles: 3 tools failed in a row.").is_some()
    });
    step_until(&mut h, LONG, "the turn", |h| turns_ended(h) == 1);
    assert_eq!(h.query_all_by_label_contains("going round in circles").count(), 1, "shown once");
}

#[test]
fn history_is_shown_again_after_restarting_the_app_state() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db/sidekicks.db");
    {
        let rt = runtime();
        let mut h = window(&demo_config(dir.path()), dir.path(), &rt, Some(Store::open(&db).unwrap()));
        step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
        send(&mut h, "think");
        step_until(&mut h, LONG, "the answer", |h| turns_ended(h) == 1);
        h.state_mut().shutdown();
    }
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, Some(Store::open(&db).unwrap()));
    step_until(&mut h, LONG, "restored history", |h| turns_ended(h) == 1);
    let demo = h.state().state.agent("demo").unwrap();
    assert_eq!(demo.conversation.messages[0].text(), "think");
    assert_eq!(demo.conversation.messages[1].end, Some(TurnEnd::EndTurn));
    assert!(h.query_by_label("think").is_some());
    assert!(h.query_by_label_contains("the answer is").is_some());
    assert!(h.query_by_label("Thinking").is_some(), "the thought is restored, folded");
}

#[test]
fn a_transcript_offered_after_a_restart_goes_with_the_next_message_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db/sidekicks.db");
    {
        let rt = runtime();
        let mut h = window(&demo_config(dir.path()), dir.path(), &rt, Some(Store::open(&db).unwrap()));
        step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
        send(&mut h, "remember the word cobalt");
        step_until(&mut h, LONG, "the answer", |h| turns_ended(h) == 1);
        h.state_mut().shutdown();
    }
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, Some(Store::open(&db).unwrap()));
    step_until(&mut h, LONG, "restored history", |h| turns_ended(h) == 1);
    // The demo agent cannot reopen its session: starting it offers a transcript.
    send(&mut h, "hello again");
    step_until(&mut h, LONG, "the offer", |h| h.query_by_label("Send a transcript with my next message").is_some());
    step_until(&mut h, LONG, "the second answer", |h| turns_ended(h) == 2);
    h.get_by_label("Send a transcript with my next message").click();
    step_until(&mut h, LONG, "the composer says it goes", |h| {
        h.query_by_label("A transcript of the earlier conversation goes with this message.").is_some()
    });
    send(&mut h, "what was the word");
    step_until(&mut h, LONG, "the third answer", |h| turns_ended(h) == 3);
    let answer = h.state().state.agent("demo").unwrap().conversation.messages.last().unwrap().text();
    assert!(answer.contains("Transcript of our earlier conversation"), "{answer}");
    assert!(answer.contains("cobalt"), "{answer}");
    assert!(
        h.query_by_label("A transcript of the earlier conversation goes with this message.").is_none(),
        "the transcript goes once"
    );
    send(&mut h, "and now");
    step_until(&mut h, LONG, "the fourth answer", |h| turns_ended(h) == 4);
    let answer = h.state().state.agent("demo").unwrap().conversation.messages.last().unwrap().text();
    assert!(!answer.contains("Transcript of our earlier conversation"), "{answer}");
    h.state_mut().shutdown();
}

#[test]
fn every_scenario_reads_right_in_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    let cases: &[(&str, &str)] = &[
        ("code", "Here is a function in"),
        ("think", "Thinking"),
        ("show me a diff", "Edit src/greeting.rs"),
        ("plan", "[x] Run the tests"),
        ("error", "The turn failed: The demo model is overloaded; try again in a minute."),
        ("files", "was refused"),
        ("usage", "Context: 1234 / 200000 tokens"),
        ("usage", "Cost: 0.0123 USD"),
        ("garbage", "should be in my Log"),
        ("crash", "The agent exited with code 3."),
    ];
    for (i, (prompt, expected)) in cases.iter().enumerate() {
        send(&mut h, prompt);
        step_until(&mut h, LONG, prompt, |h| turns_ended(h) == i + 1);
        step_until(&mut h, LONG, expected, |h| h.query_by_label_contains(expected).is_some());
    }
    // The garbage line is in the Log tab, with the crash's stderr.
    h.get_by_label("Log").click();
    step_until(&mut h, LONG, "the log", |h| {
        h.query_by_label("stdout (not ACP): Welcome! This line is not JSON-RPC.").is_some()
            && h.query_by_label_contains("crashing on purpose").is_some()
    });
}
