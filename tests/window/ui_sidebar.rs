//! The sidebar with many agents, through the window (egui_kittest): scrolled to its end, "New
//! team…" stays readable above Search and Settings (they were drawn over it); past 15 agents a
//! filter box keeps the list short; with a few agents there is none.

use std::time::Duration;

use egui_kittest::kittest::Queryable;

use crate::common;
use common::BIN;
use common::window::{runtime, step_until, window};

const LONG: Duration = Duration::from_secs(30);

fn config(agents: usize, dir: &std::path::Path) -> String {
    let mut text = String::new();
    for i in 1..=agents {
        text.push_str(&format!(
            "[[agent]]\nname = \"agent-{i:02}\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n",
            dir.display().to_string()
        ));
    }
    text
}

#[test]
fn with_fifty_agents_the_sidebar_end_stays_readable_and_a_filter_keeps_it_short() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config(50, dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "the agents", |h| h.state().state.agents.len() == 50);
    // Scrolled to the end of the list, "New team…" is above Search and Settings, not under them.
    h.hover_at(egui::pos2(100.0, 300.0));
    h.step();
    for _ in 0..40 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -400.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
    step_until(&mut h, LONG, "the end of the list", |h| h.query_by_label("New team…").is_some());
    let new_team = h.get_by_label("New team…").rect();
    let search = h.get_by_label("Search").rect();
    let settings = h.get_by_label("Settings").rect();
    assert!(new_team.bottom() <= search.top(), "New team… {new_team:?} runs under Search {search:?}");
    assert!(search.bottom() <= settings.top() + 1.0, "{search:?} {settings:?}");
    assert!(new_team.height() > 0.0 && new_team.top() > 0.0);
    // And it still takes clicks.
    h.get_by_label("New team…").click();
    step_until(&mut h, LONG, "the new-team form", |h| h.query_by_label("Create the team").is_some());

    // The filter box: typing keeps the matching agents only.
    let in_sidebar = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        let boxes = h.query_all_by_role(egui::accesskit::Role::TextInput);
        boxes.filter(|n| n.rect().left() < settings.right()).count()
    };
    assert_eq!(in_sidebar(&h), 1, "one filter box in the sidebar");
    let filter = h.query_all_by_role(egui::accesskit::Role::TextInput).find(|n| n.rect().left() < settings.right());
    filter.unwrap().click();
    h.step();
    let filter = h.query_all_by_role(egui::accesskit::Role::TextInput).find(|n| n.rect().left() < settings.right());
    filter.unwrap().type_text("agent-4");
    let left = settings.right();
    let listed = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>, name: &str| {
        h.query_all_by_label(name).any(|n| n.rect().left() < left)
    };
    step_until(&mut h, LONG, "the list filtered", |h| !listed(h, "agent-01"));
    let shown: Vec<String> = (1..=50).map(|i| format!("agent-{i:02}")).filter(|n| listed(&h, n)).collect();
    let expected: Vec<String> = (40..=49).map(|i| format!("agent-{i:02}")).collect();
    assert_eq!(shown, expected);
    h.state_mut().shutdown();
}

#[test]
fn a_few_agents_need_no_filter() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config(3, dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "the agents", |h| h.state().state.agents.len() == 3);
    let sidebar_right = h.get_by_label("Settings").rect().right();
    assert!(
        h.query_all_by_role(egui::accesskit::Role::TextInput).all(|n| n.rect().left() > sidebar_right),
        "no filter box in the sidebar"
    );
    assert!(h.query_by_label("agent-03").is_some());
    h.state_mut().shutdown();
}
