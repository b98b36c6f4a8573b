//! An agent that explains on stdout why it stops, then exits before the handshake (seen: a retired
//! agent printing "no longer maintained"): its words reach the person — in `sidekicks prompt`'s
//! output (text and JSON), not only "transport closed" (issue 48, item 8).

use crate::common;
use common::{BIN, config_text};

const WORDS: &str = "This agent is no longer maintained: install new-agent instead.";

#[test]
fn the_words_of_an_agent_that_stops_before_the_handshake_are_told() {
    let dir = tempfile::tempdir().unwrap();
    let script = format!("echo 'starting…'; echo '{WORDS}'; exit 1");
    let path = dir.path().join("sidekicks.toml");
    std::fs::write(&path, config_text("", &[("old", "sh", &["-c", &script])], dir.path())).unwrap();
    let run = |json: bool| {
        let mut command = std::process::Command::new(BIN);
        command.args(["prompt", "--agent", "old", "hello", "--config"]).arg(&path);
        if json {
            command.arg("--json");
        }
        command
            .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .output()
            .unwrap()
    };
    let out = run(false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr.contains("It wrote on its output, outside the protocol:"), "{stderr}");
    assert!(stderr.contains(&format!("  starting…\n  {WORDS}")), "{stderr}");

    let out = run(true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let crash = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == "crash")
        .unwrap_or_else(|| panic!("a crash line: {stdout}"));
    assert_eq!(crash["stdout"], serde_json::json!(["starting…", WORDS]), "{crash}");
}
