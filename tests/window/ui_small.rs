//! Smaller things a person notices (issue 48, item 10), driven like a person would (egui_kittest)
//! with demo agents: the demo's first page points to `help`; another agent opens on its
//! conversation (the Log tab does not carry over); an unread dot moves nothing in the sidebar;
//! French quotes are « … ».

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::app::{AgentCommand, Command};
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

/// The rectangle of the `Files` button on `agent`'s row of the sidebar.
fn files_button(h: &H, agent: &str) -> egui::Rect {
    let row = h.get_all_by_label(agent).next().unwrap().rect().center().y;
    h.get_all_by_label("Files").find(|n| (n.rect().center().y - row).abs() < 8.0).unwrap().rect()
}

#[test]
fn the_demo_points_to_help_tabs_do_not_carry_over_and_a_dot_moves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let demo: &[&str] = &["demo-agent"];
    let mut h = window(&config_text("", &[("ada", BIN, demo), ("bob", BIN, demo)], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bob").is_some());

    // The first page of the demo: “help”, said why; a click puts it in the composer.
    step_until(&mut h, LONG, "the first page", |h| h.query_by_label("“help”").is_some());
    assert!(h.query_by_label_contains("The demo agent lists what it can show").is_some());
    h.get_by_label("“help”").click();
    step_until(&mut h, LONG, "help in the composer", |h| {
        h.query_all_by_role(egui::accesskit::Role::MultilineTextInput).any(|n| n.value().as_deref() == Some("help"))
    });

    // Ada's Log, then Bob: Bob opens on his conversation.
    h.get_all_by_label("Log").next().unwrap().click();
    step_until(&mut h, LONG, "ada's log", |h| h.query_by_label("“help”").is_none());
    h.get_all_by_label("bob").next().unwrap().click();
    step_until(&mut h, LONG, "bob's conversation", |h| h.query_by_label("“help”").is_some());

    // Back to Ada; Bob answers meanwhile: his dot shows, his row does not move.
    h.get_all_by_label("ada").next().unwrap().click();
    h.step();
    h.step();
    let before = files_button(&h, "bob");
    let prompt = AgentCommand::Prompt {
        text: "hello".into(),
        context: None,
        with_transcript: false,
        id: None,
        attachments: Vec::new(),
    };
    h.state_mut().send(Command::Agent("bob".into(), prompt));
    step_until(&mut h, LONG, "bob's unread answer", |h| h.query_by_label("•").is_some());
    assert_eq!(files_button(&h, "bob"), before, "the dot moved bob's row");
    h.state_mut().shutdown();
}

#[test]
fn french_quotes_are_french() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let text = config_text("language = \"fr\"", &[("ada", BIN, &["demo-agent"])], dir.path());
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "the first page", |h| h.query_by_label("«\u{a0}help\u{a0}»").is_some());
    assert!(h.query_by_label_contains("“").is_none(), "no English quotes in the French window");
    h.state_mut().shutdown();
}

/// The New file dialog takes Enter, and the new file opens in the editor.
#[test]
fn a_new_file_is_made_with_enter_and_opens() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    step_until(&mut h, LONG, "the files page", |h| h.query_by_label("New file").is_some());
    h.get_by_label("New file").click();
    h.step();
    h.step();
    h.event(egui::Event::Text("notes.md".into()));
    h.step();
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "made", |_| dir.path().join("notes.md").is_file());
    step_until(&mut h, LONG, "open in the editor", |h| {
        h.state().state.agent("ada").unwrap().files.file.as_ref().is_some_and(|f| f.path.as_str() == "notes.md")
    });
    h.state_mut().shutdown();
}

/// Copy says it copied.
#[test]
fn copy_says_it_copied() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    common::window::send(&mut h, "hi");
    step_until(&mut h, LONG, "the answer", |h| {
        h.state().state.agent("ada").unwrap().conversation.messages.iter().any(|m| m.end.is_some())
    });
    assert!(h.query_by_label("Copied ✓").is_none());
    h.get_all_by_label("Copy").next().unwrap().click();
    step_until(&mut h, LONG, "said", |h| h.query_by_label("Copied ✓").is_some());
    h.state_mut().shutdown();
}
