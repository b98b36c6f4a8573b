//! The conversation view driven like a person would (egui_kittest), against a real demo agent:
//! the permission card and "Always allow here", queue and Stop, the loop banner, and history
//! shown again after the app state is rebuilt.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::model::conversation::{Delivery, Role, TurnEnd};
use sidekicks::runtime::store::Store;

use crate::common;
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
    step_until(&mut h, LONG, "the conversation", |h| h.query_by_label_contains("No remembered answers").is_none());
    send(&mut h, "run it");
    step_until(&mut h, LONG, "the card again", |h| h.query_by_label("Always allow here").is_some());
}

#[test]
fn answering_a_permission_leaves_the_keyboard_in_the_composer() {
    use egui::accesskit::Role as A11y;
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "run it");
    step_until(&mut h, LONG, "the card", |h| h.query_by_label("Allow once").is_some());
    // The person starts the next message, answers the card with the mouse, types on.
    h.event(egui::Event::Text("next: ".into()));
    h.step();
    h.get_by_label("Allow once").click();
    h.step();
    h.step();
    h.event(egui::Event::Text("more".into()));
    h.step();
    let composer = h.get_by_role(A11y::MultilineTextInput).value().unwrap_or_default();
    assert_eq!(composer, "next: more", "the keys after the click went elsewhere");
    step_until(&mut h, LONG, "the turn", |h| turns_ended(h) == 1);
    h.state_mut().shutdown();
}

#[test]
fn an_agent_whose_command_is_missing_cannot_start_and_its_message_fails() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("ghost", "no-such-agent-binary", &[]), ("demo", BIN, &["demo-agent"])];
    let mut h = window(&config_text("", agents, dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ghost").is_some());
    // A warning: the config is in force, nothing else "stays".
    step_until(&mut h, LONG, "the warning", |h| h.query_by_label_contains("no-such-agent-binary").is_some());
    assert!(h.query_by_label_contains("stays in force").is_none(), "the config was loaded");
    send(&mut h, "hi");
    step_until(&mut h, LONG, "the message failed", |h| {
        let ghost = h.state().state.agent("ghost").unwrap();
        ghost.conversation.messages.first().is_some_and(|m| m.delivery == Delivery::NotSent)
    });
    step_until(&mut h, LONG, "said so", |h| h.query_all_by_label_contains("cannot start").next().is_some());
    assert!(h.query_by_label_contains("The agent could not be started").is_some());
    assert!(h.query_all_by_label_contains("crashed").next().is_none(), "it never ran");
    h.state_mut().shutdown();
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
    assert!(h.query_by_label("Stop drops the 1 message waiting (it can be sent again).").is_some());
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
    h.step();
    assert_eq!(h.query_all_by_label_contains("going round in circles").count(), 1, "shown once");
    // Where the third failure happened, not after the turn's text.
    let banner = h.get_by_label_contains("going round in circles").rect();
    let text = h.get_by_label_contains("The tests keep failing").rect();
    assert!(banner.top() < text.top(), "banner {banner:?} after the text {text:?}");
    // Its Stop is for a running turn only.
    assert!(h.query_by_label("Stop").is_none(), "a Stop button stays after the turn ended");
    // The next turn's failures are counted afresh: the banner comes again.
    send(&mut h, "fail again");
    step_until(&mut h, LONG, "the second turn", |h| turns_ended(h) == 2);
    h.step();
    assert_eq!(h.query_all_by_label_contains("going round in circles").count(), 2, "once per turn");
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
    // When each message was written is kept, and shown over its author's name.
    let (asked, answered) = (demo.conversation.messages[0].at, demo.conversation.messages[1].at);
    let (asked, answered) = (asked.expect("the question's time"), answered.expect("the answer's time"));
    let now = sidekicks::model::when::now();
    assert!(asked <= answered && now - asked < 600, "{asked} {answered} {now}");
    // Its hour and minute ("Today 14:05"; the day's word depends on when the test runs).
    let civil = sidekicks::model::when::civil(asked as i64, sidekicks::model::when::utc_offset());
    let time = format!("{:02}:{:02}", civil.hour, civil.minute);
    assert!(h.query_all_by_label_contains(&time).next().is_none(), "no time before the pointer is there");
    h.get_by_label("You").hover();
    step_until(&mut h, LONG, "the time", |h| h.query_all_by_label_contains(&time).next().is_some());
    h.state_mut().shutdown();
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
        ("plan", "Plan 3/3"),
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

#[test]
fn the_log_shows_an_agents_coloured_stderr_as_words() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    // An agent whose logger colours its lines, as most do on a terminal.
    let script = format!(
        "printf '\\033[2m12:00\\033[0m \\033[31mERROR\\033[0m \\033[1mdisk full\\033[0m\\n' >&2; exec {BIN} demo-agent"
    );
    let mut h = window(&config_text("", &[("demo", "sh", &["-c", &script])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "hello");
    step_until(&mut h, LONG, "the answer", |h| turns_ended(h) == 1);
    h.get_by_label("Log").click();
    step_until(&mut h, LONG, "the line", |h| h.query_by_label("12:00 ERROR disk full").is_some());
    assert!(h.query_all_by_label_contains("\u{1b}").next().is_none(), "escape codes shown");
    assert!(h.query_all_by_label_contains("[31m").next().is_none(), "escape codes shown");
    h.state_mut().shutdown();
}

#[test]
fn the_plan_stays_above_the_composer_while_the_turn_runs() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "plan");
    // Pinned above the composer while the turn runs, and only there (it showed twice)…
    step_until(&mut h, LONG, "the pinned plan", |h| {
        let busy = h.state().state.agent("demo").unwrap().state == sidekicks::app::AgentState::Busy;
        busy && h.query_all_by_label("Read the code").count() == 1
    });
    let composer = h.get_by_role(egui::accesskit::Role::MultilineTextInput).rect();
    let pinned = h.get_by_label("Read the code").rect();
    assert!(pinned.bottom() <= composer.top() && composer.top() - pinned.bottom() < 200.0, "above the composer");
    assert!(h.query_all_by_label_contains("Plan ").next().is_some(), "the plan's progress");
    // …and only in the answer once it ended.
    step_until(&mut h, LONG, "the turn", |h| turns_ended(h) == 1);
    step_until(&mut h, LONG, "unpinned", |h| h.query_all_by_label("Read the code").count() == 1);
    assert!(h.query_by_label("Plan 3/3").is_some());
    h.state_mut().shutdown();
}

#[test]
fn a_message_is_copied_edited_retried_and_a_queued_one_taken_back() {
    use egui::accesskit::Role as A11y;
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "hello there");
    step_until(&mut h, LONG, "the answer", |h| turns_ended(h) == 1);
    // Retry: the question asked again; the new answer replaces the first, which stays reachable
    // (it added a copy of the message and a second answer at the end).
    let first = h.state().state.agent("demo").unwrap().conversation.messages[1].parts.clone();
    h.get_by_label("Retry").click();
    let answer = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        h.state().state.agent("demo").unwrap().conversation.messages[1].clone()
    };
    step_until(&mut h, LONG, "the retried turn", |h| answer(h).earlier.len() == 1 && answer(h).end.is_some());
    assert_eq!(answer(&h).earlier[0], first, "the first answer kept");
    assert!(!answer(&h).parts.is_empty(), "the new one in its place");
    let users: Vec<String> = h
        .state()
        .state
        .agent("demo")
        .unwrap()
        .conversation
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.text())
        .collect();
    assert_eq!(users, ["hello there"], "no copy of the question");
    assert_eq!(h.state().state.agent("demo").unwrap().conversation.messages.len(), 2);
    step_until(&mut h, LONG, "the answers' count", |h| h.query_by_label("2 / 2").is_some());
    h.get_by_label("‹").click();
    h.step();
    h.step();
    assert!(h.query_by_label("1 / 2").is_some(), "the first answer shown again");
    h.get_by_label("›").click();
    h.step();
    h.step();
    assert!(h.query_by_label("2 / 2").is_some());
    // Edit: the message becomes a field where it stands (ui_edit.rs follows it through); Cancel
    // leaves it as it was, the composer untouched.
    h.get_all_by_label("Edit").last().unwrap().click();
    h.step();
    h.step();
    let field = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        h.query_all_by_role(A11y::MultilineTextInput).any(|n| n.value().as_deref() == Some("hello there"))
    };
    assert!(field(&h), "the message in a field");
    h.get_by_label("Cancel").click();
    h.step();
    h.step();
    assert!(!field(&h), "the field closed");
    send(&mut h, "wait");
    step_until(&mut h, LONG, "busy", |h| {
        h.state().state.agent("demo").unwrap().state == sidekicks::app::AgentState::Busy
    });
    // A message sent meanwhile waits; Cancel takes it back: never sent.
    send(&mut h, "never mind");
    step_until(&mut h, LONG, "queued", |h| h.query_by_label("queued").is_some());
    // The line saying what Stop drops came with the queue: the layout settles in a frame or two.
    for _ in 0..3 {
        h.step();
    }
    h.get_by_label("Cancel").click();
    step_until(&mut h, LONG, "taken back", |h| {
        let demo = h.state().state.agent("demo").unwrap();
        demo.conversation.messages.iter().any(|m| m.text() == "never mind" && m.delivery == Delivery::NotSent)
    });
    // Stop says before how many queued messages it drops.
    send(&mut h, "and this");
    let said = "Stop drops the 1 message waiting (it can be sent again).";
    step_until(&mut h, LONG, "queued", |h| h.query_by_label(said).is_some());
    h.step();
    h.get_by_label("Stop").click();
    step_until(&mut h, LONG, "stopped", |h| turns_ended(h) == 2);
    let demo = h.state().state.agent("demo").unwrap();
    assert!(!demo.conversation.messages.iter().any(|m| m.text().contains("never mind") && m.role == Role::Agent));
    // A message Stop dropped is sent again with one click (it offered only Copy and Edit).
    let dropped = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        let demo = h.state().state.agent("demo").unwrap();
        demo.conversation.messages.iter().filter(|m| m.text() == "and this").map(|m| m.delivery).collect::<Vec<_>>()
    };
    step_until(&mut h, LONG, "dropped", |h| dropped(h) == [Delivery::NotSent]);
    h.get_all_by_label("Send again").last().unwrap().click();
    step_until(&mut h, LONG, "sent again and answered", |h| turns_ended(h) == 3);
    assert_eq!(dropped(&h), [Delivery::Resent, Delivery::Sent]);
    assert!(h.query_by_label("sent again below").is_some());
    assert_eq!(h.query_all_by_label("Send again").count(), 1, "only \"never mind\" is left to send");
    h.state_mut().shutdown();
}

#[test]
fn an_empty_conversation_teaches_and_a_file_written_through_sidekicks_shows_as_a_diff() {
    use egui::accesskit::Role as A11y;
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&demo_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    step_until(&mut h, LONG, "the tips", |h| h.query_by_label_contains("Things to ask").is_some());
    assert!(h.query_by_label_contains("Ctrl+K finds every action").is_some());
    // A suggestion goes to the composer, to send as it is or change.
    h.get_by_label("“Explain how this project is organised.”").click();
    h.step();
    h.step();
    assert_eq!(
        h.get_by_role(A11y::MultilineTextInput).value().as_deref(),
        Some("Explain how this project is organised.")
    );
    // The demo agent writes notes/demo.md through Sidekicks: a card with the diff, path relative.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.step();
    h.event(egui::Event::Text("files".into()));
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the turn", |h| turns_ended(h) == 1);
    step_until(&mut h, LONG, "the write's card", |h| h.query_by_label("Wrote notes/demo.md").is_some());
    // Done: one line, its counts; a click on its title unfolds the diff.
    assert!(h.query_by_label_contains("+ # Notes").is_none(), "folded once done");
    assert!(h.query_by_label("+3").is_some(), "the lines added: three");
    h.get_by_label("Wrote notes/demo.md").click();
    step_until(&mut h, LONG, "the diff", |h| h.query_by_label_contains("+ # Notes").is_some());
    h.state_mut().shutdown();
}
