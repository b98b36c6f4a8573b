//! Logging in to an agent, driven like a person would (egui_kittest) with the demo agent run with
//! `--auth` (it refuses to open a session before a login): an API key typed in the card (kept out
//! of every log), a login the agent does itself, a login in a terminal, a login that runs out mid-
//! session, and logging out. What was sent before the login is answered after it.

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::app::AgentState;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

fn answers(h: &Harness<'static, SidekicksApp>) -> usize {
    h.state().state.agent("demo").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

fn card(h: &Harness<'static, SidekicksApp>) -> bool {
    h.query_by_label("Log in to demo").is_some()
}

fn open(dir: &std::path::Path, rt: &tokio::runtime::Runtime) -> Harness<'static, SidekicksApp> {
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent", "--auth"])], dir), dir, rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "hello");
    step_until(&mut h, LONG, "the login card", card);
    assert_eq!(h.state().state.agent("demo").unwrap().state, AgentState::Stopped, "asking to log in is no crash");
    // Its header says what it waits for, not "stopped" (issue 48, item 10).
    assert!(h.query_by_label("waits for you to log in").is_some());
    assert!(h.query_by_label("stopped").is_none());
    h
}

#[test]
fn an_api_key_typed_in_the_card_logs_in_and_stays_out_of_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = open(dir.path(), &rt);
    let login = "Log in: Use an API key";
    assert!(h.get_by_label(login).accesskit_node().is_disabled(), "nothing typed yet");
    let field = || egui::accesskit::Role::PasswordInput;
    h.get_by_role(field()).click();
    h.step();
    h.get_by_role(field()).type_text("sk-demo-secret-42");
    h.step();
    assert!(!h.get_by_label(login).accesskit_node().is_disabled(), "a key is typed");
    h.get_by_label(login).click();
    step_until(&mut h, LONG, "the answer to what was sent before", |h| answers(h) == 1);
    assert!(!card(&h));
    let demo = h.state().state.agent("demo").unwrap();
    assert!(demo.conversation.messages.last().unwrap().text().contains("hello"));
    let log = format!("{:?}", demo.log);
    assert!(!log.contains("sk-demo-secret-42"), "the key is in the Log: {log}");
    h.state_mut().shutdown();
}

#[test]
fn a_login_the_agent_does_itself_then_one_that_runs_out_then_logging_out() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = open(dir.path(), &rt);
    h.get_by_label("Log in with the demo service").click();
    step_until(&mut h, LONG, "the answer", |h| answers(h) == 1);

    // The login runs out mid-session: the turn says so and the card comes back.
    send(&mut h, "please expire");
    step_until(&mut h, LONG, "the card again", card);
    h.get_by_label("Log in with the demo service").click();
    step_until(&mut h, LONG, "idle again", |h| {
        h.state().state.agent("demo").is_some_and(|a| a.state == AgentState::Idle) && !card(h)
    });
    send(&mut h, "still there?");
    step_until(&mut h, LONG, "an answer after logging in again", |h| answers(h) == 3);

    // Logging out stops it; the next message asks to log in.
    h.get_by_label("Log out").click();
    step_until(&mut h, LONG, "stopped", |h| {
        h.state().state.agent("demo").is_some_and(|a| a.state == AgentState::Stopped)
    });
    send(&mut h, "again");
    step_until(&mut h, LONG, "the card after logging out", card);
    h.state_mut().shutdown();
}

#[test]
fn a_login_in_a_terminal_then_the_agent_starts() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = open(dir.path(), &rt);
    h.get_by_label("Log in in a terminal").click();
    step_until(&mut h, LONG, "the login in the terminal", |h| {
        h.state().terminal_text("demo").is_some_and(|t| t.contains("type yes"))
    });
    h.event(egui::Event::Text("yes".into()));
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the answer once logged in", |h| answers(h) == 1);
    assert!(dir.path().join(".sidekicks-demo-login").is_file());
    h.state_mut().shutdown();
}
