//! Keyboard first (egui_kittest, demo agents, real history): Ctrl+K opens the palette, typing
//! narrows it (fuzzy), the shortcut shows next to an action, Enter runs it, Esc closes it;
//! Ctrl+Shift+P too; Alt+1…9 switch agents; Ctrl+N makes a new thread; Esc in the composer stops
//! the turn.

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::model::conversation::TurnEnd;
use sidekicks::runtime::store::Store;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

fn keys(h: &mut H, modifiers: egui::Modifiers, key: egui::Key) {
    h.key_press_modifiers(modifiers, key);
    h.step();
    h.step();
}

fn type_text(h: &mut H, text: &str) {
    h.event(egui::Event::Text(text.into()));
    h.step();
    h.step();
}

fn current_thread(h: &H, agent: &str) -> Option<i64> {
    h.state().state.agent(agent).and_then(|a| a.threads.current)
}

#[test]
fn the_palette_and_shortcuts_drive_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let store = Store::open(&dir.path().join("db/sidekicks.db")).unwrap();
    let agents: &[(&str, &str, &[&str])] =
        &[("alpha", BIN, &["demo-agent", "--sessions"]), ("beta", BIN, &["demo-agent", "--sessions"])];
    // A registry address where nothing listens: its index is refused at once, offline.
    let registry = "[registry]\nurl = \"http://127.0.0.1:9/registry.json\"";
    let mut h = window(&config_text(registry, agents, dir.path()), dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "agents in threads", |h| current_thread(h, "beta").is_some());

    // Ctrl+K, type, Enter.
    keys(&mut h, egui::Modifiers::COMMAND, egui::Key::K);
    assert!(h.query_by_label("Go to alpha").is_some() && h.query_by_label("Open a config file…").is_some());
    assert!(h.query_by_label("Alt+2").is_some(), "shortcuts show next to their actions");
    type_text(&mut h, "bet");
    assert!(h.query_by_label("Go to alpha").is_none(), "typing narrows the list");
    keys(&mut h, egui::Modifiers::NONE, egui::Key::Enter);
    assert_eq!(h.state().shown_agent(), Some("beta"));
    assert!(h.query_by_label("Go to alpha").is_none(), "the palette closed");

    // Ctrl+Shift+P opens it too; Esc closes it without doing anything.
    keys(&mut h, egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::P);
    assert!(h.query_by_label("Go to alpha").is_some());
    keys(&mut h, egui::Modifiers::NONE, egui::Key::Escape);
    assert!(h.query_by_label("Go to alpha").is_none());
    assert_eq!(h.state().shown_agent(), Some("beta"));

    // Alt+1 is the first agent.
    keys(&mut h, egui::Modifiers::ALT, egui::Key::Num1);
    assert_eq!(h.state().shown_agent(), Some("alpha"));
    // Again, on the agent shown, with the digit the desktop sends as text with the key: nothing
    // is typed into its composer (the next message went out as "1yy").
    // One frame's input, as egui-winit makes of the key (kittest would give each event a frame).
    let alt = egui::Modifiers::ALT;
    let key =
        |pressed| egui::Event::Key { key: egui::Key::Num1, pressed, modifiers: alt, repeat: false, physical_key: None };
    h.input_mut().events.extend([
        egui::Event::ModifiersChanged(alt),
        key(true),
        egui::Event::Text("1".into()),
        key(false),
        egui::Event::ModifiersChanged(egui::Modifiers::NONE),
    ]);
    h.step();
    h.step();
    assert_eq!(h.state().shown_agent(), Some("alpha"));
    let composer = h.get_by_role(egui::accesskit::Role::MultilineTextInput).value().unwrap_or_default();
    assert_eq!(composer, "", "the shortcut typed into the composer");

    // Ctrl+N: a new thread with the agent shown; through the palette too (fuzzy: "nwthr").
    let first = current_thread(&h, "alpha");
    keys(&mut h, egui::Modifiers::COMMAND, egui::Key::N);
    step_until(&mut h, LONG, "a new thread", |h| current_thread(h, "alpha") != first);
    let second = current_thread(&h, "alpha");
    keys(&mut h, egui::Modifiers::COMMAND, egui::Key::K);
    type_text(&mut h, "nwthr");
    keys(&mut h, egui::Modifiers::NONE, egui::Key::Enter);
    step_until(&mut h, LONG, "another new thread", |h| current_thread(h, "alpha") != second);

    // The agent's pages, from any of them: its files, then its log from the files.
    keys(&mut h, egui::Modifiers::COMMAND, egui::Key::K);
    type_text(&mut h, "alpha: files");
    keys(&mut h, egui::Modifiers::NONE, egui::Key::Enter);
    step_until(&mut h, LONG, "the files", |h| h.query_by_label("New folder").is_some());
    assert_eq!(h.state().shown_agent(), None, "the workspace, not the conversation");
    keys(&mut h, egui::Modifiers::COMMAND, egui::Key::K);
    type_text(&mut h, "alpha: log");
    keys(&mut h, egui::Modifiers::NONE, egui::Key::Enter);
    step_until(&mut h, LONG, "the log", |h| {
        h.query_by_label("New folder").is_none() && h.state().shown_agent().is_some()
    });
    keys(&mut h, egui::Modifiers::COMMAND, egui::Key::K);
    type_text(&mut h, "alpha: conversation");
    keys(&mut h, egui::Modifiers::NONE, egui::Key::Enter);

    // Esc in the composer stops the turn.
    send(&mut h, "wait");
    step_until(&mut h, LONG, "the turn running", |h| {
        h.state().state.agent("alpha").is_some_and(|a| a.state == sidekicks::app::AgentState::Busy)
    });
    keys(&mut h, egui::Modifiers::NONE, egui::Key::Escape);
    step_until(&mut h, LONG, "the turn stopped", |h| {
        h.state()
            .state
            .agent("alpha")
            .is_some_and(|a| a.conversation.messages.iter().any(|m| m.end == Some(TurnEnd::Cancelled)))
    });
    // "Get agents" (the registry's page).
    keys(&mut h, egui::Modifiers::COMMAND, egui::Key::K);
    type_text(&mut h, "get agents");
    keys(&mut h, egui::Modifiers::NONE, egui::Key::Enter);
    step_until(&mut h, LONG, "the registry's page", |h| {
        h.query_by_label("Reading the registry…").is_some()
            || h.query_by_label_contains("The agents' index could not be downloaded").is_some()
    });
    h.state_mut().shutdown();
}

#[test]
fn the_about_box_says_the_versions_of_sidekicks_the_protocol_and_each_agent() {
    let dir = tempfile::tempdir().unwrap();
    let rt = common::window::runtime();
    let text = common::config_text("", &[("demo", common::BIN, &["demo-agent"]), ("idle", "sh", &[])], dir.path());
    let mut h = common::window::window(&text, dir.path(), &rt, None);
    common::window::step_until(&mut h, std::time::Duration::from_secs(30), "agents", |h| {
        h.state().state.agent("demo").is_some()
    });
    common::window::send(&mut h, "hello");
    common::window::step_until(&mut h, std::time::Duration::from_secs(30), "started", |h| {
        h.state().state.agent("demo").unwrap().implementation.is_some()
    });
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    h.step();
    h.event(egui::Event::Text("about".into()));
    h.step();
    h.key_press(egui::Key::Enter);
    h.step();
    h.step();
    let version = format!("Sidekicks {}", env!("CARGO_PKG_VERSION"));
    assert!(h.query_by_label(&version).is_some(), "the version");
    assert!(h.query_by_label_contains("ACP 1").is_some(), "the protocol");
    assert!(h.query_by_label(&format!("Demo agent {}", env!("CARGO_PKG_VERSION"))).is_some(), "the agent's own words");
    assert!(h.query_by_label("not started yet").is_some(), "an agent not started");
    // The icon is made once, not again with every frame the box is open: the same texture stays.
    let icon = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        let textures = h.ctx.tex_manager();
        let textures = textures.read();
        let ids: Vec<egui::TextureId> =
            textures.allocated().filter(|(_, meta)| meta.name == "sidekicks-icon").map(|(id, _)| *id).collect();
        ids
    };
    let first = icon(&h);
    assert_eq!(first.len(), 1, "one icon texture");
    for _ in 0..3 {
        h.step();
        assert_eq!(icon(&h), first, "the About box's icon made again");
    }
    h.get_by_label("Close").click();
    common::window::step_until(&mut h, std::time::Duration::from_secs(30), "closed", |h| {
        h.query_by_label(&version).is_none()
    });
    // Esc closes it too.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    h.step();
    h.event(egui::Event::Text("about".into()));
    h.step();
    h.key_press(egui::Key::Enter);
    common::window::step_until(&mut h, std::time::Duration::from_secs(30), "open again", |h| {
        h.query_by_label(&version).is_some()
    });
    h.key_press(egui::Key::Escape);
    common::window::step_until(&mut h, std::time::Duration::from_secs(30), "closed by Esc", |h| {
        h.query_by_label(&version).is_none()
    });
    h.state_mut().shutdown();
}
