//! The config file is followed: a change on disk is reloaded; an invalid change keeps the last
//! good config running (and its agents) and shows the problems.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::app::AgentCommand;
use sidekicks::app::{AgentState, AppState, Bridge, Command, Startup, start};

use crate::common;
use common::{BIN, config_text, fast_settings};

fn drain_until(bridge: &mut Bridge, state: &mut AppState, what: &str, done: impl Fn(&AppState) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done(state) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}; state: {state:#?}");
        bridge.drain(state, Duration::from_millis(50));
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn names(state: &AppState) -> Vec<String> {
    state.agents.iter().map(|a| a.config.name.clone()).collect()
}

/// Replaces the file the way editors do: write a temp file, rename it over.
fn replace(path: &std::path::Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn changes_on_disk_are_applied_and_bad_ones_keep_the_last_good_config() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let path = dir.path().join("sidekicks.toml");
    let one: &[(&str, &str, &[&str])] = &[("first", BIN, &["demo-agent"])];
    std::fs::write(&path, config_text("", one, dir.path())).unwrap();
    let startup = Startup { settings: fast_settings(), ..Startup::new(path.clone()) };
    let mut bridge = start(rt.handle(), startup, Arc::new(|| {}));
    let mut state = AppState::default();
    drain_until(&mut bridge, &mut state, "first config", |s| names(s) == ["first"]);

    bridge.send(Command::Agent("first".into(), AgentCommand::Start));
    drain_until(&mut bridge, &mut state, "first idle", |s| s.agent("first").unwrap().state == AgentState::Idle);

    // Written in place: a second agent appears, the first keeps running.
    let two: &[(&str, &str, &[&str])] = &[("first", BIN, &["demo-agent"]), ("second", BIN, &["demo-agent"])];
    std::fs::write(&path, config_text("", two, dir.path())).unwrap();
    drain_until(&mut bridge, &mut state, "second agent", |s| names(s) == ["first", "second"]);
    assert_eq!(state.agent("first").unwrap().state, AgentState::Idle);

    // Replaced with invalid text: problems shown, last good config and agents kept.
    replace(&path, "[[agent]]\nname = \"first\"\ncommand = 5\n");
    drain_until(&mut bridge, &mut state, "problems", |s| !s.problems.is_empty());
    assert_eq!(names(&state), ["first", "second"]);
    assert_eq!(state.agent("first").unwrap().state, AgentState::Idle);
    assert!(state.problems.iter().any(|p| (p.line, p.column) == (3, 11)), "{:?}", state.problems);

    // Fixed again, without `second`: problems cleared and `second` gone.
    replace(&path, &config_text("", one, dir.path()));
    drain_until(&mut bridge, &mut state, "fixed", |s| s.problems.is_empty() && names(s) == ["first"]);

    bridge.shutdown_blocking(&mut state, Duration::from_secs(10));
    assert!(state.shutdown_complete);
}

/// A config with secrets in `env` that others can read is flagged; `chmod 600` takes the warning
/// away at once (it stayed until the next start; issue 48, item 10).
#[test]
fn a_config_made_private_loses_its_warning_at_once() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let path = dir.path().join("sidekicks.toml");
    let mut text = config_text("", &[("first", BIN, &["demo-agent"])], dir.path());
    text.push_str("env = { API_KEY = \"sk-secret\" }\n");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let startup = Startup { settings: fast_settings(), ..Startup::new(path.clone()) };
    let mut bridge = start(rt.handle(), startup, Arc::new(|| {}));
    let mut state = AppState::default();
    let flagged = |s: &AppState| {
        s.problems.iter().any(|p| matches!(p.kind, sidekicks::model::problem::ProblemKind::EnvReadableByOthers { .. }))
    };
    drain_until(&mut bridge, &mut state, "the warning", |s| names(s) == ["first"] && flagged(s));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    drain_until(&mut bridge, &mut state, "the warning gone", |s| !flagged(s));
}
