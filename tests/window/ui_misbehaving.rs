//! The window with an agent that misbehaves on purpose (`sidekicks demo-agent --misbehave`), driven
//! like a person would (egui_kittest): a 10 MB message is folded and only its visible part is laid
//! out, a permission asked after Stop shows no live card, a crash mid-turn is told with its
//! stderr.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::app::AgentState;
use sidekicks::model::conversation::TurnEnd;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(60);

fn bad_config(dir: &std::path::Path) -> String {
    config_text("", &[("bad", BIN, &["demo-agent", "--misbehave"])], dir)
}

fn last_end(h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>) -> Option<TurnEnd> {
    h.state().state.agent("bad").and_then(|a| a.conversation.messages.last()).and_then(|m| m.end.clone())
}

/// The pieces of the huge text laid out this frame (each is one label of its lines).
fn pieces_drawn(h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>) -> usize {
    h.query_all_by_label_contains("All work and no play").count()
}

#[test]
fn a_10_mb_message_is_folded_and_only_its_visible_part_laid_out() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    send(&mut h, "chunk 10");
    step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
    assert!(h.query_by_label("Long message (10.0 MB): shown as plain text.").is_some());
    assert!(h.query_by_label("Show more (9.8 MB left)").is_some());
    let folded = pieces_drawn(&h);
    assert!((1..40).contains(&folded), "{folded} pieces laid out");
    // Heights of the pieces in view are measured on the first frames: click once they stay put.
    let last = std::cell::Cell::new(None);
    step_until(&mut h, LONG, "a settled layout", |h| {
        let now = Some(h.get_by_label("Show all").rect());
        last.replace(now) == now
    });
    h.get_by_label("Show all").click();
    h.step();
    h.step();
    assert!(h.query_by_label_contains("Show more").is_none());
    let all = pieces_drawn(&h);
    assert!((1..40).contains(&all), "{all} of the 2,560 pieces laid out");
}

/// A short answer nested 5,000 deep froze the window for good (and again at every start, from
/// the history): past the bounds of ADR 0030 it is plain text, drawn at once, before and after a
/// restart.
#[test]
fn a_deeply_nested_answer_is_drawn_as_plain_text() {
    let dir = tempfile::tempdir().unwrap();
    let store = sidekicks::runtime::store::Store::open(&dir.path().join("db.sqlite")).unwrap();
    let rt = runtime();
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    send(&mut h, "nest 5000");
    step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
    let plain = "Shown as plain text: its Markdown nests too deep to lay out.";
    step_until(&mut h, LONG, "the answer as plain text", |h| h.query_by_label(plain).is_some());
    assert!(h.query_by_label_contains("- - - - - - - -").is_some(), "its text is shown");
    h.state_mut().shutdown();
    drop(h);
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the answer again, after a restart", |h| h.query_by_label(plain).is_some());
    h.state_mut().shutdown();
}

/// A turn of 100,000 tool calls laid out every card each frame (seconds a frame, 1.8 GB): a long
/// run of calls is folded to a line of counts and its last calls, earlier ones a page at a time.
#[test]
fn a_long_run_of_tool_calls_is_folded() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    send(&mut h, "tools 500");
    step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
    let cards = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        h.query_all_by_label_contains("Read file ").count()
    };
    step_until(&mut h, LONG, "the counts", |h| {
        h.query_by_label("500 tool calls: 500 done, 0 running, 0 failed or cancelled").is_some()
    });
    assert_eq!(cards(&h), 10, "only the last calls laid out");
    assert!(h.query_by_label("Read file 499").is_some(), "the last call is shown");
    h.get_by_label("Show 200 earlier (490 hidden)").click();
    h.step();
    h.step();
    assert_eq!(cards(&h), 210);
    assert!(h.query_by_label("Read file 290").is_some());
    assert!(h.query_by_label("Show 200 earlier (290 hidden)").is_some());
    h.state_mut().shutdown();
}

/// A turn that ends with a thousand requests unanswered left 998 live cards and "Needs you (998)";
/// and an agent started again reuses request ids: the cards of the ended turn are answered
/// "cancelled", and a new card takes its own answer.
#[test]
fn requests_of_an_ended_turn_leave_no_live_cards() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    send(&mut h, "askend 1000");
    step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
    step_until(&mut h, LONG, "every card answered", |h| {
        let a = h.state().state.agent("bad").unwrap();
        a.permissions.len() == 1000 && a.waiting_permissions().next().is_none()
    });
    assert_eq!(h.state().state.needs_you(), 0, "nothing needs the person");
    // Started again (its request ids start over in the agent): a new request is answered by its card.
    h.state_mut().send(sidekicks::app::Command::Agent("bad".into(), sidekicks::app::AgentCommand::Restart));
    step_until(&mut h, LONG, "started again", |h| {
        h.state().state.agent("bad").unwrap().state == sidekicks::app::AgentState::Idle
    });
    send(&mut h, "oddkind");
    step_until(&mut h, LONG, "the card", |h| h.state().state.agent("bad").unwrap().waiting_permissions().count() == 1);
    step_until(&mut h, LONG, "the card answered", |h| {
        let card = h.query_by_label("Allow once");
        card.as_ref().inspect(|c| c.click());
        card.is_none()
    });
    step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
    let said = h.state().state.agent("bad").unwrap().conversation.messages.last().unwrap().text();
    assert!(said.contains("chose: yes"), "{said}");
    assert_eq!(h.state().state.agent("bad").unwrap().waiting_permissions().count(), 0);
    h.state_mut().shutdown();
}

/// The window ran on a damaged history saving nothing, saying so only in the log: the damaged
/// file is kept aside and the window says so, with where it is.
#[test]
fn a_damaged_history_is_said_on_screen() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sidekicks.db");
    std::fs::write(&db, "not a database\n".repeat(300)).unwrap();
    let (store, note) = sidekicks::runtime::store::Store::open_or_recover(&db).unwrap();
    let config = dir.path().join("sidekicks.toml");
    std::fs::write(&config, bad_config(dir.path())).unwrap();
    let startup = sidekicks::app::Startup {
        settings: common::fast_settings(),
        store: Some(store),
        history_note: note,
        terminal_host: common::BIN.into(),
        ..sidekicks::app::Startup::new(config)
    };
    let rt = runtime();
    let mut h = common::window::window_of(startup, &rt);
    let said = format!("The history {} could not be read (", db.display());
    step_until(&mut h, LONG, "the note in the status line", |h| h.query_by_label_contains(&said).is_some());
    h.state_mut().shutdown();
}

/// `policy = { writes = "ask" }`: a write the agent did not ask about (its own auto mode) waits
/// for the person's answer on a card of Sidekicks' own; refused, nothing is written.
#[test]
fn a_write_the_policy_asks_about_waits_for_the_person() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = bad_config(dir.path());
    text.push_str("policy = { writes = \"ask\" }\n");
    let rt = runtime();
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    let path = dir.path().join("asked.txt");
    for (answer, written) in [("Reject once", false), ("Allow once", true)] {
        send(&mut h, &format!("write {} 1", path.display()));
        step_until(&mut h, LONG, "the card", |h| h.query_by_label(answer).is_some());
        assert!(!path.exists(), "nothing written before the answer");
        step_until(&mut h, LONG, "answered", |h| {
            let card = h.query_by_label(answer);
            card.as_ref().inspect(|c| c.click());
            card.is_none()
        });
        step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
        let said = h.state().state.agent("bad").unwrap().conversation.messages.last().unwrap().text();
        assert_eq!(path.exists(), written, "{answer}: {said}");
        let expected = if written { "write: written" } else { "write: error -32602" };
        assert!(said.contains(expected), "{answer}: {said}");
        use sidekicks::model::conversation::{Notice, Part};
        let messages = &h.state().state.agent("bad").unwrap().conversation.messages;
        let policy =
            messages.iter().flat_map(|m| &m.parts).any(|p| matches!(p, Part::Notice(Notice::PolicyDenied { .. })));
        assert!(!policy, "a refusal of the person's is not put on the policy");
    }
    // Each answered card stays under its own turn (it followed the end of the conversation, so
    // "— Allowed once" showed under a later message and both notes at the end).
    let asked = format!("write {} 1", path.display());
    let questions: Vec<f32> = h.get_all_by_label(&asked).map(|n| n.rect().top()).collect();
    assert_eq!(questions.len(), 2, "both questions in view");
    let note = |end: &str| h.get_by_label_contains(&format!("— {end}")).rect().top();
    let (rejected, allowed) = (note("Rejected"), note("Allowed once"));
    assert!(questions[0] < rejected && rejected < questions[1], "{questions:?} rejected at {rejected}");
    assert!(questions[1] < allowed, "{questions:?} allowed at {allowed}");
    h.state_mut().shutdown();
}

#[test]
fn a_permission_asked_after_stop_shows_no_live_card() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    send(&mut h, "stopask");
    step_until(&mut h, LONG, "the card", |h| h.query_by_label("Allow once").is_some());
    h.get_by_label("Stop the agent").click();
    step_until(&mut h, LONG, "stopped", |h| {
        h.state().state.agent("bad").is_some_and(|a| a.state == AgentState::Stopped)
    });
    assert!(h.query_by_label("Allow once").is_none(), "a live card after Stop");
    assert!(h.query_by_label_contains("did not stop when asked").is_none());
    assert_eq!(h.state().state.agent("bad").unwrap().waiting_permissions().count(), 0);
}

#[test]
fn a_crash_mid_turn_is_told_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    send(&mut h, "die");
    step_until(&mut h, LONG, "the crash", |h| h.query_by_label_contains("exited with code 7").is_some());
    assert!(h.query_by_label_contains("misbehaving: giving up").is_some());
    assert!(h.query_by_label_contains("I was about to").is_some());
}

#[test]
fn quitting_the_window_keeps_the_whole_answer_in_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let db = dir.path().join("history.db");
    let store = sidekicks::runtime::store::Store::open(&db).unwrap();
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    send(&mut h, "chunk 4");
    step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
    // Quit at once: the answer (4 MB) may still be on its way to the history.
    h.state_mut().shutdown();
    let store = sidekicks::runtime::store::Store::open(&db).unwrap();
    let messages = store.conversation(dir.path(), "bad").unwrap().messages;
    let answer = messages.last().unwrap();
    assert_eq!(answer.text().len(), 4 << 20);
    assert_eq!(answer.end, Some(TurnEnd::EndTurn));
}

/// A permission request that names its tool call by id alone (as mistral-vibe asks): the card
/// shows the command the call announced, flags its danger, and offers no "always" for a request
/// that named nothing, saying why (issue 45).
#[test]
fn a_request_by_id_shows_the_announced_command_and_always_only_for_an_exact_target() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&bad_config(dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bad").is_some());
    send(&mut h, "byid rm -rf scratch");
    step_until(&mut h, LONG, "the card", |h| h.query_by_label("Always allow here").is_some());
    assert!(h.query_by_label("rm -rf scratch").is_some(), "the command announced before the request is shown");
    assert!(h.query_by_label("May destroy data: rm").is_some());
    assert!(h.query_by_label_contains("bad wants to run a command").is_some());
    h.get_by_label("Reject once").click();
    step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
    // A request about a call never announced: no "always", and the card says why.
    send(&mut h, "bare");
    step_until(&mut h, LONG, "the card", |h| h.query_by_label("Allow once").is_some());
    assert!(h.query_by_label("Always allow here").is_none(), "always offered for a request that named nothing");
    assert!(h.query_by_label_contains("“Always” is not offered").is_some());
    h.get_by_label("Allow once").click();
    step_until(&mut h, LONG, "the answer", |h| last_end(h) == Some(TurnEnd::EndTurn));
}
