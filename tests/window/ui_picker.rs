//! Where the desktop has no file dialog (no portal file chooser, no zenity — forced here with
//! `SIDEKICKS_FILE_DIALOG=none`), Attach…, Open… and the new team's folder were silent no-ops:
//! the window shows a picker of its own (issue 35 item 5), its folders read by the runtime.

use std::time::Duration;

use egui_kittest::kittest::{NodeT, Queryable};

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>;

fn enabled(h: &H, label: &str) -> bool {
    h.query_by_label(label).is_some_and(|n| !n.accesskit_node().is_disabled())
}

#[test]
fn without_a_desktop_dialog_the_window_picks_files_and_folders_itself() {
    if !common::alone(concat!(module_path!(), "::without_a_desktop_dialog_the_window_picks_files_and_folders_itself")) {
        return;
    }
    // SAFETY: alone in a process of its own (`common::alone`): no other test reads the variable.
    unsafe { std::env::set_var("SIDEKICKS_FILE_DIALOG", "none") };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(ws.join("b.toml"), "x = 1\n").unwrap();
    std::fs::write(ws.join("sub/c.txt"), "gamma\n").unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], &ws), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());

    // Attach…: the workspace's files, folders first; a folder opens, Up comes back.
    h.get_by_label("Attach…").click();
    step_until(&mut h, LONG, "the picker", |h| h.query_by_label("a.txt").is_some());
    assert!(h.query_by_label("Attach files").is_some());
    assert!(h.query_by_label("sub/").is_some() && h.query_by_label("b.toml").is_some());
    assert!(!enabled(&h, "Attach (0)"), "nothing ticked");
    h.get_by_label("sub/").click();
    step_until(&mut h, LONG, "the sub folder", |h| h.query_by_label("c.txt").is_some());
    h.get_by_label("Up").click();
    step_until(&mut h, LONG, "back up", |h| h.query_by_label("a.txt").is_some());
    h.get_by_label("a.txt").click();
    h.step();
    h.get_by_label("Attach (1)").click();
    step_until(&mut h, LONG, "attached", |h| {
        h.state().state.agent("demo").is_some_and(|a| a.composing.pending.len() == 1)
    });
    assert!(h.query_by_label("Attach files").is_none(), "the picker closed");

    // Open… (Settings): only config files are offered; Esc closes without opening anything.
    h.state_mut()
        .send(sidekicks::app::Command::Config(sidekicks::app::ConfigCommand::PickFile { start_in: Some(ws.clone()) }));
    step_until(&mut h, LONG, "the config picker", |h| h.query_by_label("b.toml").is_some());
    assert!(h.query_by_label("Open a config file").is_some());
    assert!(h.query_by_label("a.txt").is_none(), "not a config file");
    h.key_press(egui::Key::Escape);
    h.step();
    h.step();
    assert!(h.query_by_label("Open a config file").is_none());

    // The new team's folder: the folder shown is chosen.
    h.state_mut().send(sidekicks::app::Command::Config(sidekicks::app::ConfigCommand::PickFolder {
        start_in: Some(ws.clone()),
    }));
    step_until(&mut h, LONG, "the folder picker", |h| h.query_by_label("sub/").is_some());
    h.get_by_label("sub/").click();
    // In sub: its file is not offered (a folder is picked).
    step_until(&mut h, LONG, "in sub", |h| h.query_by_label("sub/").is_none());
    assert!(h.query_by_label("c.txt").is_none());
    h.get_by_label("Choose this folder").click();
    h.step();
    h.step();
    assert!(h.query_by_label("Choose this folder").is_none(), "closed once chosen");

    // The settings form's workspace: Choose… opens the picker; the folder chosen fills the field.
    h.get_by_label("Settings").click();
    step_until(&mut h, LONG, "settings", |h| h.query_by_label("Add an agent…").is_some());
    h.get_by_label("Add an agent…").click();
    step_until(&mut h, LONG, "the form", |h| h.query_by_label("Choose…").is_some());
    h.get_by_label("Choose…").click();
    step_until(&mut h, LONG, "the folder picker", |h| h.query_by_label("Choose this folder").is_some());
    // The folder the picker shows (its path field: the only field holding a path yet).
    let wanted = h
        .get_all_by_role(egui::accesskit::Role::TextInput)
        .find_map(|n| n.value().filter(|v| v.starts_with('/')))
        .expect("the picker's path");
    h.get_by_label("Choose this folder").click();
    step_until(&mut h, LONG, "the workspace filled", |h| {
        h.query_by_label("Choose this folder").is_none()
            && h.get_all_by_role(egui::accesskit::Role::TextInput)
                .any(|n| n.value().as_deref() == Some(wanted.as_str()))
    });
    h.state_mut().shutdown();
}
