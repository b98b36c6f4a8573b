//! History follows the agent, not the config file's path (issue 48, item 9), through the command
//! line and the real demo agent: a thread kept before (under the config file's path) is taken over
//! by its agent; a copy of the config elsewhere finds the same threads; an agent renamed in the
//! file keeps them; a removed agent's threads stay stored.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use sidekicks::model::conversation::{Message, Role};
use sidekicks::runtime::store::Store;

use crate::common;
use common::{BIN, config_text};

/// Runs `prompt --json` with `config` and the test's folders; returns the exit code, the thread
/// it spoke in and what it said on stderr.
fn prompt(dir: &Path, config: &Path, agent: &str, args: &[&str]) -> (Option<i32>, Option<i64>, String) {
    let out = Process::new(BIN)
        .args(["--config", config.to_str().unwrap(), "prompt", "--agent", agent, "--json"])
        .args(args)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .output()
        .unwrap();
    let thread = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "thread")
        .filter_map(|v| v["thread"].as_i64())
        .next_back();
    (out.status.code(), thread, String::from_utf8_lossy(&out.stderr).to_string())
}

fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

#[test]
fn a_thread_follows_its_agent_to_a_copied_config_and_a_new_name() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("project");
    std::fs::create_dir_all(&ws).unwrap();
    let text = config_text("", &[("demo", BIN, &["demo-agent", "--sessions"])], &ws);
    let first = write(&dir.path().join("a/sidekicks.toml"), &text);
    // A thread kept by an earlier Sidekicks: under the config file's path.
    let db = dir.path().join("data/sidekicks/sidekicks.db");
    let old = {
        std::fs::create_dir_all(db.parent().unwrap()).unwrap();
        let store = Store::open(&db).unwrap();
        let id = store.new_thread(&first, "demo", None).unwrap();
        store.save_messages(id, 0, &[Message::new(Role::User, "kept from before")]).unwrap();
        id
    };
    let (code, thread, stderr) = prompt(dir.path(), &first, "demo", &["--thread", "kept from before", "go on"]);
    assert_eq!((code, thread), (Some(0), Some(old)), "the older thread is the agent's: {stderr}");
    let (code, fixed, stderr) = prompt(dir.path(), &first, "demo", &["--thread", "new", "fix the flaky build"]);
    assert_eq!(code, Some(0), "{stderr}");

    // The same config, copied to another folder: the same agent, the same threads.
    let copy = write(&dir.path().join("elsewhere/copy.toml"), &text);
    let (code, thread, stderr) = prompt(dir.path(), &copy, "demo", &["--thread", "fix the flaky build", "more"]);
    assert_eq!((code, thread), (Some(0), fixed), "found from the copy: {stderr}");

    // Renamed in the file (same command, same folder): the threads go with the new name.
    let renamed = text.replace("name = \"demo\"", "name = \"helper\"");
    assert_ne!(renamed, text, "the config names its agent");
    write(&copy, &renamed);
    let (code, thread, stderr) = prompt(dir.path(), &copy, "helper", &["--thread", "fix the flaky build", "again"]);
    assert_eq!((code, thread), (Some(0), fixed), "kept across the rename: {stderr}");
    let (code, thread, stderr) = prompt(dir.path(), &copy, "helper", &["--thread", "kept from before", "and you"]);
    assert_eq!((code, thread), (Some(0), Some(old)), "{stderr}");

    // Removed: its threads stay stored, under its name and folder.
    let other = config_text("", &[("other", BIN, &["demo-agent"])], &ws);
    write(&copy, &other);
    let (code, _, stderr) = prompt(dir.path(), &copy, "other", &["hello"]);
    assert_eq!(code, Some(0), "{stderr}");
    let store = Store::open(&db).unwrap();
    let kept: Vec<(String, String, i64)> =
        store.all_threads().unwrap().into_iter().map(|t| (t.agent, t.home, t.row.id)).collect();
    let home = ws.display().to_string();
    for id in [old, fixed.unwrap()] {
        assert!(kept.contains(&("helper".to_string(), home.clone(), id)), "thread {id} kept: {kept:?}");
    }
}
