//! The palette and the look (issue 48, item 7), driven like a person would (egui_kittest): the
//! palette offers what can be done now (Start only while stopped; a team's merge, undo and
//! discard), "theme" finds the theme rows and nothing else, the theme and the language are chosen
//! in the window (written into `[defaults]` of the file); the zoom (Ctrl+=) is remembered for the
//! next run.

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::app::Startup;
use sidekicks::runtime::config::file::AppDirs;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{make_team, runtime, send, step_until, window, window_of};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

/// Opens the palette and types `words`.
fn palette(h: &mut H, words: &str) {
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    h.step();
    h.step();
    h.event(egui::Event::Text(words.into()));
    h.step();
    h.step();
}

fn close_palette(h: &mut H) {
    h.key_press(egui::Key::Escape);
    h.step();
    h.step();
}

#[test]
fn the_palette_offers_what_can_be_done_and_chooses_the_theme_and_language() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let text = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "hello");
    step_until(&mut h, LONG, "demo running", |h| {
        matches!(h.state().state.agent("demo").unwrap().state, sidekicks::app::AgentState::Idle)
    });
    palette(&mut h, "demo");
    assert!(h.query_by_label("Stop demo").is_some(), "it runs: Stop");
    assert!(h.query_by_label("Start demo").is_none(), "it runs: no Start");
    close_palette(&mut h);

    // "theme": the theme rows, and no row that only holds its letters here and there.
    palette(&mut h, "theme");
    let rows: Vec<String> = h
        .query_all_by_role(egui::accesskit::Role::Button)
        .filter_map(|n| {
            use egui_kittest::kittest::NodeT;
            n.accesskit_node().label()
        })
        .filter(|l| l.starts_with("Theme: "))
        .collect();
    assert_eq!(rows, ["Theme: as the desktop", "Theme: light", "Theme: dark"]);
    assert!(h.query_by_label("Search every conversation").is_none(), "no stray row");
    close_palette(&mut h);

    // Dark, from the palette: written into [defaults] and applied.
    palette(&mut h, "theme: dark");
    h.key_press(egui::Key::Enter);
    let file = dir.path().join("sidekicks.toml");
    step_until(&mut h, LONG, "written", |_| {
        std::fs::read_to_string(&file).is_ok_and(|t| t.starts_with("[defaults]\ntheme = \"dark\"\n"))
    });
    step_until(&mut h, LONG, "dark", |h| {
        h.ctx.global_style().visuals.dark_mode
            && h.state()
                .state
                .config
                .as_ref()
                .is_some_and(|c| c.defaults.theme == sidekicks::model::config::Theme::Dark)
    });

    // Light and French, from Settings.
    h.get_by_label("Settings").click();
    step_until(&mut h, LONG, "settings", |h| h.query_by_label("Theme").is_some());
    h.get_all_by_role(egui::accesskit::Role::ComboBox).next().unwrap().click();
    h.step();
    h.step();
    h.get_by_label("light").click();
    step_until(&mut h, LONG, "light", |h| !h.ctx.global_style().visuals.dark_mode);
    h.get_all_by_role(egui::accesskit::Role::ComboBox).nth(1).unwrap().click();
    h.step();
    h.step();
    h.get_by_label("Français").click();
    step_until(&mut h, LONG, "French", |h| h.query_by_label("Thème").is_some());
    let saved = std::fs::read_to_string(dir.path().join("sidekicks.toml")).unwrap();
    assert!(saved.contains("theme = \"light\"") && saved.contains("language = \"fr\""), "{saved}");
    assert!(saved.contains("name = \"demo\""), "the rest of the file stays: {saved}");
    // Back to the system's language: the key goes.
    h.get_all_by_role(egui::accesskit::Role::ComboBox).nth(1).unwrap().click();
    h.step();
    h.step();
    h.get_by_label("comme le système").click();
    step_until(&mut h, LONG, "no language in the file", |_| {
        std::fs::read_to_string(&file).is_ok_and(|t| !t.contains("language =") && t.contains("theme = \"light\""))
    });
    // Zoom, from the palette too (the window in the system's language: English here).
    step_until(&mut h, LONG, "English again", |h| h.query_by_label("Theme").is_some());
    palette(&mut h, "zoom in");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "zoomed", |h| h.ctx.zoom_factor() > 1.05);
    h.state_mut().shutdown();
}

#[test]
fn a_teams_merge_undo_and_discard_are_in_the_palette() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("notes.txt"), "first\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    let copies = make_team(&mut h, "squad", &project, &["ada"], &home);
    step_until(&mut h, LONG, "nothing to merge yet", |h| {
        let team = &h.state().state.teams.teams[0];
        team.changes.values().all(|c| c.as_ref().is_ok_and(|c| c.is_empty())) && !team.changes.is_empty()
    });
    palette(&mut h, "merge");
    assert!(h.query_by_label_contains("Merge ada").is_none(), "nothing to merge: not offered");
    close_palette(&mut h);

    std::fs::write(copies[0].join("ada.txt"), "from Ada\n").unwrap();
    step_until(&mut h, LONG, "ada's change", |h| {
        h.state().state.teams.teams[0].changes.values().any(|c| c.as_ref().is_ok_and(|c| !c.is_empty()))
    });
    palette(&mut h, "merge ada");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "merged", |_| project.join("ada.txt").is_file());
    step_until(&mut h, LONG, "undo offered", |h| h.state().state.teams.teams[0].info.undoable.is_some());
    palette(&mut h, "undo the merge");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "undone", |_| !project.join("ada.txt").exists());

    // Discard asks first, on the team's page: nothing goes without the person's yes.
    palette(&mut h, "discard the team squad");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the question", |h| h.query_all_by_label("Discard the team").count() >= 2);
    assert!(copies[0].exists(), "not discarded yet");
    h.state_mut().shutdown();
}

#[test]
fn the_zoom_is_remembered_for_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sidekicks.toml");
    std::fs::write(&path, config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).unwrap();
    let dirs = AppDirs {
        config_dir: dir.path().join("cfg"),
        data_dir: dir.path().join("data"),
        state_dir: dir.path().join("state"),
        home: Some(dir.path().to_path_buf()),
    };
    let rt = runtime();
    let startup = |dirs: &AppDirs| Startup {
        settings: common::fast_settings(),
        terminal_host: BIN.into(),
        dirs: Some(dirs.clone()),
        ..Startup::new(path.clone())
    };
    let mut h = window_of(startup(&dirs), &rt);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Equals);
    h.step();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Equals);
    step_until(&mut h, LONG, "zoomed", |h| h.ctx.zoom_factor() > 1.15);
    let zoom = h.ctx.zoom_factor();
    let prefs = dirs.config_dir.join("preferences.json");
    step_until(&mut h, LONG, "remembered", |_| {
        std::fs::read_to_string(&prefs).is_ok_and(|t| t.contains(&format!("\"zoom\": {zoom}")))
    });
    h.state_mut().shutdown();
    drop(h);

    let mut h = window_of(startup(&dirs), &rt);
    step_until(&mut h, LONG, "the zoom again", |h| (h.ctx.zoom_factor() - zoom).abs() < 0.01);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num0);
    step_until(&mut h, LONG, "back to 100 %", |h| (h.ctx.zoom_factor() - 1.0).abs() < 0.01);
    h.state_mut().shutdown();
}

/// Zoomed in, the conversation keeps its right edge inside the window: the list ran under its
/// scroll bar, and Retry and Copy were cut off (issue 48, item 7).
#[test]
fn zoomed_in_the_conversation_keeps_its_right_edge() {
    use egui::accesskit::Role;
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    // Room to zoom in (the zoom stops where the page would not fit).
    h.set_size(egui::vec2(1400.0, 900.0));
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    for text in ["plan", "diff", "plan"] {
        send(&mut h, text);
        step_until(&mut h, LONG, "the answer", |h| h.query_by_label("Retry").is_some());
        step_until(&mut h, LONG, "idle", |h| {
            h.state().state.agent("demo").is_some_and(|a| a.state == sidekicks::app::AgentState::Idle)
        });
    }
    for _ in 0..3 {
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Equals);
        h.step();
    }
    step_until(&mut h, LONG, "zoomed", |h| h.ctx.zoom_factor() > 1.25);
    for _ in 0..5 {
        h.step();
    }
    // Every message action in view lies inside the window (checked on whatever messages the
    // list shows after the zoom moved it: at least one header's).
    let inside = |h: &H| {
        let Some(send) = h.query_by_role_and_label(Role::Button, "Send") else { return false };
        let right = send.rect().right();
        let actions: Vec<egui::Rect> = ["Copy", "Retry", "Edit"]
            .iter()
            .flat_map(|label| h.query_all_by_role_and_label(Role::Button, label).map(|n| n.rect()).collect::<Vec<_>>())
            .collect();
        !actions.is_empty() && actions.iter().all(|r| r.right() <= right + 0.5)
    };
    step_until(&mut h, LONG, "the messages' actions inside the window", inside);
    // Not so far that the page no longer fits: at most 1400/860 here.
    for _ in 0..10 {
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Equals);
        h.step();
    }
    h.step();
    assert!(h.ctx.zoom_factor() <= 1400.0 / 860.0 + 0.01, "zoom {}", h.ctx.zoom_factor());
    h.state_mut().shutdown();
}

/// The palette's rows are as tall as their text (a row with a shortcut took the whole list's
/// height: three rows showed), and All threads is one of its actions (a new user's trial).
#[test]
fn the_palette_lists_many_rows_and_finds_all_threads() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    palette(&mut h, "zoom");
    step_until(&mut h, LONG, "the zoom rows", |h| h.query_by_label("Zoom out").is_some());
    for row in ["Zoom in", "Zoom out"] {
        let height = h.get_by_label(row).rect().height();
        assert!(height < 40.0, "{row} is {height} px tall");
    }
    close_palette(&mut h);
    palette(&mut h, "all thr");
    step_until(&mut h, LONG, "All threads offered", |h| h.query_all_by_label("All threads").count() >= 2);
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the page of every thread", |h| {
        h.query_by_label("No thread yet: each conversation with an agent is one.").is_some()
    });
    h.state_mut().shutdown();
}
