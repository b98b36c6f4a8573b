//! The agent's requests for input in the window (egui_kittest, demo agent): a form card whose
//! fields are checked before it goes (an empty required field says so), then filled and sent; a
//! page to open, opened, waited for, and done.

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

fn answers(h: &H) -> usize {
    h.state().state.agent("demo").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

fn last_answer(h: &H) -> String {
    h.state().state.agent("demo").and_then(|a| a.conversation.messages.last().map(|m| m.text())).unwrap_or_default()
}

fn click(h: &mut H, label: &str) {
    h.get_all_by_role_and_label(Role::Button, label).last().unwrap_or_else(|| panic!("no {label}")).click();
    h.step();
    h.step();
}

#[test]
fn a_form_card_checks_its_fields_and_a_page_card_waits_for_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "form");
    step_until(&mut h, LONG, "the form", |h| h.query_by_label("demo asks for this:").is_some());
    assert!(h.query_by_label("I need a few details before I deploy.").is_some());
    assert!(h.query_by_label("Project name *").is_some(), "required fields are marked");
    assert!(h.query_by_label("How many copies run").is_some(), "descriptions show");

    // Empty required fields are refused, in words, before anything goes.
    click(&mut h, "Submit");
    assert_eq!(h.query_all_by_label("Required").count(), 2, "name and environment");
    assert_eq!(answers(&h), 0);

    let name = h.get_all_by_role(Role::TextInput).find(|n| n.value().as_deref() == Some("")).unwrap();
    name.click();
    h.step();
    h.get_all_by_role(Role::TextInput).find(|n| n.value().as_deref() == Some("")).unwrap().type_text("Ada");
    h.step();
    h.get_by_role_and_label(Role::ComboBox, "Environment *").click();
    h.step();
    h.step();
    h.get_by_label("Production").click();
    h.step();
    h.step();
    click(&mut h, "Submit");
    step_until(&mut h, LONG, "the agent's answer", |h| answers(h) == 1);
    assert_eq!(last_answer(&h), r#"You answered: env="production", name="Ada", notify=true, replicas=2."#);
    assert!(h.query_by_label("demo asks for this:").is_none(), "the card is gone once answered");

    // A page: opened, then the agent says it is done.
    send(&mut h, "consent");
    step_until(&mut h, LONG, "the page card", |h| h.query_by_label("https://example.com/demo/consent").is_some());
    click(&mut h, "Open the page");
    step_until(&mut h, LONG, "done", |h| answers(h) == 2);
    assert!(last_answer(&h).contains("access approved"));
    let card = &h.state().state.agent("demo").unwrap().elicitations[1];
    assert!(card.completed, "elicitation/complete reached the window");
    assert!(h.query_by_label_contains("Waiting for demo").is_none(), "no longer waiting");
    h.state_mut().shutdown();
}
