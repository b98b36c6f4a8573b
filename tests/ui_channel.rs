//! A channel with two demo agents, driven like a person would (egui_kittest): a message without a
//! mention goes to both, `@bob` only to Bob; each answer is under its member's name and each member
//! first receives what it missed (the demo agent quotes everything it received); Stop ends one
//! member's turn while the other goes on; Stop all ends both; an answer arriving while the channel
//! is not shown marks it unread; the timeline is back after a restart.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::app::AgentState;
use sidekicks::app::channels_state::answer_text;
use sidekicks::runtime::store::Store;
use sidekicks::ui::SidekicksApp;

mod common;
use common::BIN;
use common::window::{runtime, step_until, window};

const LONG: Duration = Duration::from_secs(30);

fn config(dir: &std::path::Path) -> String {
    let mut text = String::from("[[channel]]\nname = \"design\"\ndescription = \"The look of things\"\n");
    for name in ["ada", "bob"] {
        text.push_str(&format!(
            "\n[[agent]]\nname = \"{name}\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\nchannels = [\"design\"]\n",
            dir.display().to_string()
        ));
    }
    text
}

fn say(h: &mut Harness<'static, SidekicksApp>, text: &str) {
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text(text);
    h.step();
    h.key_press(egui::Key::Enter);
    h.step();
}

fn answer(h: &Harness<'static, SidekicksApp>, agent: &str, text: &str) -> String {
    answer_text(&h.state().state.agents, agent, &format!("[#design] {text}"))
}

/// `agent` has answered `text` to the end.
fn answered(h: &Harness<'static, SidekicksApp>, agent: &str, text: &str) -> bool {
    let view = h.state().state.agent(agent).unwrap();
    !answer(h, agent, text).is_empty() && view.state == AgentState::Idle && !view.conversation.is_streaming()
}

fn state(h: &Harness<'static, SidekicksApp>, agent: &str) -> AgentState {
    h.state().state.agent(agent).unwrap().state.clone()
}

#[test]
fn a_channel_routes_catches_up_and_stops_per_member() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
    let rt = runtime();
    let mut h = window(&config(dir.path()), dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "the channel", |h| h.query_by_label("#design").is_some());
    h.get_by_label("#design").click();
    step_until(&mut h, LONG, "the channel view", |h| h.query_by_label("Nothing said here yet.").is_some());

    // No mention: both answer, each under its name.
    say(&mut h, "hello everyone");
    step_until(&mut h, LONG, "both answers", |h| ["ada", "bob"].iter().all(|a| answered(h, a, "hello everyone")));
    assert!(h.query_by_label("You, to ada, bob:").is_some());
    assert!(answer(&h, "ada", "hello everyone").contains("> [#design] hello everyone"));

    // A mention: only Bob, who first hears Ada's answer he missed.
    say(&mut h, "@bob your turn");
    step_until(&mut h, LONG, "bob's answer", |h| answered(h, "bob", "@bob your turn"));
    let bob = answer(&h, "bob", "@bob your turn");
    assert!(bob.contains("News from the channel #design"), "{bob}");
    assert!(bob.contains("> [ada] **Hello!**"), "Ada's answer reached Bob: {bob}");
    assert!(answer(&h, "ada", "@bob your turn").is_empty(), "Ada was not asked");
    let timeline = &h.state().state.channels.channel("design").unwrap().timeline;
    assert_eq!(timeline.entries.len(), 5);

    // Then Ada hears what was said to Bob and his answer.
    say(&mut h, "@ada and you");
    step_until(&mut h, LONG, "ada's answer", |h| answered(h, "ada", "@ada and you"));
    let ada = answer(&h, "ada", "@ada and you");
    assert!(ada.contains("> [the person, to bob] @bob your turn"), "{ada}");
    assert!(!ada.lines().any(|l| l.starts_with("> [ada]")), "not her own answers: {ada}");

    // Stop one member: the other goes on.
    say(&mut h, "@ada wait");
    step_until(&mut h, LONG, "ada busy", |h| state(h, "ada") == AgentState::Busy);
    say(&mut h, "@bob slow");
    step_until(&mut h, LONG, "bob busy", |h| state(h, "bob") == AgentState::Busy);
    h.get_all_by_label("Stop").next().unwrap().click();
    step_until(&mut h, LONG, "ada stopped", |h| state(h, "ada") == AgentState::Idle);
    assert_eq!(state(&h, "bob"), AgentState::Busy, "bob goes on");
    step_until(&mut h, LONG, "bob's slow answer", |h| answer(h, "bob", "@bob slow").contains("a few words at a time"));

    // Stop all.
    step_until(&mut h, LONG, "bob idle", |h| state(h, "bob") == AgentState::Idle);
    say(&mut h, "wait, both of you");
    step_until(&mut h, LONG, "both busy", |h| {
        state(h, "ada") == AgentState::Busy && state(h, "bob") == AgentState::Busy
    });
    h.get_by_label("Stop all").click();
    step_until(&mut h, LONG, "both stopped", |h| {
        state(h, "ada") == AgentState::Idle && state(h, "bob") == AgentState::Idle
    });

    // An answer while another view is shown: unread.
    say(&mut h, "@bob one more");
    h.get_all_by_label("ada").next().unwrap().click();
    step_until(&mut h, LONG, "the unread marker", |h| h.query_by_label("•").is_some());
    assert!(h.state().state.channels.channel("design").unwrap().unread);
    step_until(&mut h, LONG, "bob idle", |h| state(h, "bob") == AgentState::Idle);
    let said = h.state().state.channels.channel("design").unwrap().timeline.clone();
    h.state_mut().shutdown();
    drop(h);

    // After a restart: the same timeline.
    let mut h = window(&config(dir.path()), dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the timeline back", |h| {
        h.state().state.channels.channel("design").is_some_and(|c| c.timeline == said)
    });
    h.state_mut().shutdown();
}
