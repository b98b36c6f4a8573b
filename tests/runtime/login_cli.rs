//! Logging in from the command line: `sidekicks prompt` to an agent that asks to log in (the demo
//! agent with `--auth`) says so and how, and exits 3; with the API key in the agent's `env` the
//! login happens at once (an `env_var` way whose variables are set) and the answer comes.

use crate::common;
use common::{BIN, config_text};

fn prompt(dir: &std::path::Path, env: &str, extra: &[&str]) -> std::process::Output {
    let mut text = config_text("", &[("demo", BIN, &["demo-agent", "--auth"])], dir);
    text.push_str(env);
    let path = dir.join("sidekicks.toml");
    std::fs::write(&path, text).unwrap();
    std::process::Command::new(BIN)
        .args(["prompt", "--agent", "demo", "hello", "--config"])
        .arg(&path)
        .args(extra)
        .env_remove("DEMO_API_KEY")
        .output()
        .unwrap()
}

#[test]
fn an_agent_that_asks_to_log_in_is_told_with_its_ways_and_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = prompt(dir.path(), "", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("asks you to log in"), "{stderr}");
    assert!(stderr.contains("Use an API key — DEMO_API_KEY"), "{stderr}");
    assert!(stderr.contains("Log in in a terminal"), "{stderr}");
    // The agent's own instructions, under its way (issue 48, item 8).
    assert!(stderr.contains("    A demo: type yes when it asks"), "{stderr}");

    let out = prompt(dir.path(), "", &["--json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line: serde_json::Value =
        stdout.lines().find(|l| l.contains("login_needed")).map(|l| serde_json::from_str(l).unwrap()).unwrap();
    assert_eq!(line["methods"][0]["id"], "demo-key");
    assert_eq!(line["methods"][0]["vars"][0], "DEMO_API_KEY");
    assert_eq!(line["methods"][0]["description"], "A demo: any key works (read as DEMO_API_KEY)");
}

#[test]
fn an_api_key_in_the_agents_env_logs_in_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = prompt(dir.path(), "env = { DEMO_API_KEY = \"sk-from-the-config\" }\n", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("> hello"), "{stdout}");
}
