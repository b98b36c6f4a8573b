//! Opening other config files through the function the Open… dialog and the Recent menu call:
//! agents stop, the new file's agents and conversations show, preferences remember the file
//! (last opened + 8 recent) across restarts, and a recent file that is gone is shown as missing.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::app::ConfigCommand;
use sidekicks::app::{AgentState, AppState, Bridge, Command, Startup, start};
use sidekicks::model::conversation::TurnEnd;
use sidekicks::runtime::config::file::{AppDirs, Preferences};
use sidekicks::runtime::store::Store;

use crate::common;
use common::{BIN, config_text, fast_settings};

fn drain_until(bridge: &mut Bridge, state: &mut AppState, what: &str, done: impl Fn(&AppState) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done(state) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}; agents: {:?}", names(state));
        bridge.drain(state, Duration::from_millis(50));
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn names(state: &AppState) -> Vec<String> {
    state.agents.iter().map(|a| a.config.name.clone()).collect()
}

fn write_config(dir: &Path, file: &str, agent: &str) -> std::path::PathBuf {
    let path = dir.join(file);
    std::fs::write(&path, config_text("", &[(agent, BIN, &["demo-agent"])], dir)).unwrap();
    path
}

#[test]
fn opening_another_file_switches_agents_and_conversations_and_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let dirs = AppDirs {
        config_dir: dir.path().join("cfg"),
        data_dir: dir.path().join("data"),
        state_dir: dir.path().join("state"),
        home: None,
    };
    let a = write_config(dir.path(), "a.toml", "alpha");
    let b = write_config(dir.path(), "b.toml", "beta");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let store = Store::open(&dirs.data_dir.join("sidekicks.db")).unwrap();
    let startup =
        Startup { dirs: Some(dirs.clone()), settings: fast_settings(), store: Some(store), ..Startup::new(a.clone()) };
    let mut bridge = start(rt.handle(), startup, Arc::new(|| {}));
    let mut state = AppState::default();
    drain_until(&mut bridge, &mut state, "alpha", |s| names(s) == ["alpha"]);

    bridge.send(Command::prompt("alpha", "hello"));
    drain_until(&mut bridge, &mut state, "alpha's answer", |s| {
        s.agent("alpha").is_some_and(|a| a.conversation.messages.iter().any(|m| m.end == Some(TurnEnd::EndTurn)))
    });
    assert_eq!(state.agent("alpha").unwrap().state, AgentState::Idle);

    // Open b: alpha stops, beta shows with its own (empty) conversation.
    bridge.send(Command::Config(ConfigCommand::Open { path: b.clone() }));
    drain_until(&mut bridge, &mut state, "beta", |s| names(s) == ["beta"]);
    assert_eq!(state.config_path.as_deref(), Some(b.as_path()));
    assert!(state.agent("beta").unwrap().conversation.messages.is_empty());

    // b is gone by now. Back to a: alpha's conversation is shown again.
    std::fs::remove_file(&b).unwrap();
    bridge.send(Command::Config(ConfigCommand::Open { path: a.clone() }));
    drain_until(&mut bridge, &mut state, "alpha's history", |s| {
        s.agent("alpha").is_some_and(|a| a.conversation.messages.len() == 2)
    });

    let prefs = Preferences::load(&dirs);
    assert_eq!(prefs.last_opened.as_deref(), Some(a.as_path()));
    assert_eq!(prefs.recent, vec![a.clone(), b.clone()]);

    // A recent file that is gone is listed as missing.
    drain_until(&mut bridge, &mut state, "the recent files", |s| s.recent.first().is_some_and(|r| r.0 == a));
    assert_eq!(state.recent, vec![(a.clone(), true), (b.clone(), false)]);

    // Nine more opens keep eight recent files, newest first.
    for i in 0..9 {
        let path = write_config(dir.path(), &format!("c{i}.toml"), "gamma");
        bridge.send(Command::Config(ConfigCommand::Open { path }));
    }
    drain_until(&mut bridge, &mut state, "gamma", |s| names(s) == ["gamma"]);
    bridge.shutdown_blocking(&mut state, Duration::from_secs(10));
    drop(bridge);

    // The preferences survive the restart.
    let prefs = Preferences::load(&dirs);
    assert_eq!(prefs.recent.len(), 8);
    assert_eq!(prefs.recent[0], dir.path().join("c8.toml"));
    assert_eq!(prefs.last_opened, Some(dir.path().join("c8.toml")));
    assert!(!prefs.recent.contains(&a), "the oldest fell off");
}

#[test]
fn an_agent_found_on_this_computer_is_added_keeping_the_files_comments() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sidekicks.toml");
    let text = format!(
        "# my agents\n{}",
        config_text("idle_stop = 30 # short", &[("alpha", BIN, &["demo-agent"])], dir.path())
    );
    std::fs::write(&path, &text).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let startup = Startup { settings: fast_settings(), ..Startup::new(path.clone()) };
    let mut bridge = start(rt.handle(), startup, Arc::new(|| {}));
    let mut state = AppState::default();
    drain_until(&mut bridge, &mut state, "alpha", |s| names(s) == ["alpha"]);

    let agent = sidekicks::model::config_edit::NewAgent {
        name: "Demo copy".into(),
        command: BIN.into(),
        args: vec!["demo-agent".into()],
        env: Default::default(),
    };
    bridge.send(Command::Config(ConfigCommand::AddAgent { path: path.clone(), agent }));
    drain_until(&mut bridge, &mut state, "the added agent", |s| names(s) == ["alpha", "Demo copy"]);
    assert_eq!(state.last_save, Some(None));
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with(&text), "comments and layout kept:\n{written}");
    let folder = dir.path().join("workspaces").join("demo-copy");
    assert!(folder.is_dir(), "the added agent works in a folder of its own next to the file");
    assert_eq!(state.agent("Demo copy").unwrap().config.workspace, folder);
}
