//! What needs the person shows from anywhere (egui_kittest, demo agents): a permission waiting in
//! agent A puts a count next to A in the sidebar, says "needs you" under it and in the window
//! title (`Sidekicks (1)`) while B is shown; B's answer finished while A is shown is marked
//! unread until B is opened; a failed turn is marked; answering clears the count.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

fn titled(h: &H, title: &str) -> bool {
    h.output().viewport_output.values().any(|v| v.commands.contains(&egui::ViewportCommand::Title(title.into())))
}

fn answers(h: &H, agent: &str) -> usize {
    h.state().state.agent(agent).map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

fn open(h: &mut H, agent: &str) {
    h.get_all_by_label(agent).next().unwrap().click();
    h.step();
    h.step();
}

#[test]
fn a_waiting_permission_is_seen_from_another_agent_and_the_title() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("alpha", BIN, &["demo-agent"]), ("beta", BIN, &["demo-agent"])];
    let mut h = window(&config_text("", agents, dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("beta").is_some());
    open(&mut h, "alpha");
    send(&mut h, "run it");
    step_until(&mut h, LONG, "the title counting the permission", |h| titled(h, "Sidekicks (1)"));

    // From beta's page, alpha's wait shows in the sidebar.
    open(&mut h, "beta");
    assert!(h.query_by_label(" 1 ").is_some(), "the count next to alpha");
    assert!(h.query_by_label("needs you · local").is_some());
    assert_eq!(h.state().state.needs_you(), 1);

    // beta answers while alpha is shown: unread until beta is opened.
    send(&mut h, "slow");
    open(&mut h, "alpha");
    step_until(&mut h, LONG, "beta's answer", |h| answers(h, "beta") == 1);
    assert!(h.state().state.agent("beta").unwrap().unread());
    step_until(&mut h, LONG, "beta marked unread", |h| h.query_by_label("•").is_some());

    // Answering alpha's request clears the count and the title.
    h.get_all_by_role_and_label(Role::Button, "Allow once").next().expect("the permission card").click();
    step_until(&mut h, LONG, "the title without a count", |h| titled(h, "Sidekicks"));
    assert!(h.query_by_label(" 1 ").is_none());
    open(&mut h, "beta");
    assert!(!h.state().state.agent("beta").unwrap().unread(), "seen once opened");

    // A failed turn is marked.
    send(&mut h, "error");
    open(&mut h, "alpha");
    step_until(&mut h, LONG, "beta's failure", |h| h.state().state.agent("beta").unwrap().failed());
    assert!(h.query_by_label("!").is_some());
    h.state_mut().shutdown();
}

#[test]
fn the_inbox_lists_answers_and_puts_off_what_waits() {
    use sidekicks::app::inbox::InboxKey;
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("alpha", BIN, &["demo-agent"]), ("beta", BIN, &["demo-agent"])];
    let mut h = window(&config_text("", agents, dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("beta").is_some());
    open(&mut h, "alpha");
    send(&mut h, "run it");
    step_until(&mut h, LONG, "alpha's request", |h| h.state().state.needs_you() == 1);
    open(&mut h, "beta");
    send(&mut h, "form");
    step_until(&mut h, LONG, "beta's question", |h| h.state().state.needs_you() == 2);
    let agent_of = |k: &InboxKey| match k {
        InboxKey::Permission { agent, .. } | InboxKey::Question { agent, .. } | InboxKey::Login { agent } => {
            agent.clone()
        }
        InboxKey::Conflict { member, .. } => member.clone(),
    };
    let order = |h: &H| h.state().state.inbox().iter().map(agent_of).collect::<Vec<_>>();
    assert_eq!(order(&h), ["alpha", "beta"], "oldest first");

    // The shortcut opens it; both wait there with their own cards.
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::I);
    h.step();
    h.step();
    assert!(h.query_by_label("Needs you").is_some(), "the inbox is shown");
    assert!(h.query_by_label("Needs you (2)").is_some(), "its sidebar entry counts");
    assert!(h.query_by_role_and_label(Role::Button, "Allow once").is_some(), "alpha's permission card");
    assert!(h.query_by_label("Deploy settings").is_some(), "beta's form");

    // Not now: alpha goes to the end, unanswered.
    h.get_all_by_role_and_label(Role::Button, "Not now")
        .min_by(|a, b| a.rect().min.y.total_cmp(&b.rect().min.y))
        .unwrap()
        .click();
    h.step();
    h.step();
    assert_eq!(order(&h), ["beta", "alpha"]);
    assert_eq!(h.state().state.needs_you(), 2, "put off, not answered");

    // Answered here, answered everywhere: beta's form declined from the inbox.
    h.get_by_role_and_label(Role::Button, "Decline").click();
    step_until(&mut h, LONG, "beta's answer", |h| answers(h, "beta") == 1);
    assert!(h.state().state.agent("beta").unwrap().elicitations[0].answer.is_some());
    assert_eq!(order(&h), ["alpha"]);

    // Open takes the person to alpha's conversation, where the same card waits.
    h.get_by_role_and_label(Role::Button, "Open").click();
    h.step();
    h.step();
    assert!(h.query_by_label("Needs you").is_none(), "the conversation is shown");
    h.get_by_role_and_label(Role::Button, "Allow once").click();
    step_until(&mut h, LONG, "alpha's answer", |h| answers(h, "alpha") == 1);
    assert!(h.state().state.inbox().is_empty());
    assert!(h.query_by_label("Needs you (0)").is_some());
    h.state_mut().shutdown();
}
