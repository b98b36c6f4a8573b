//! `sidekicks prompt --model … --mode …`: the session opens with them before the message is sent;
//! a value the agent does not offer is said, with what it offers, and the agent answers with its own.

use crate::common;
use common::{BIN, config_text};

fn prompt(dir: &std::path::Path, args: &[&str], flags: &[&str]) -> std::process::Output {
    let path = dir.join("sidekicks.toml");
    std::fs::write(&path, config_text("", &[("demo", BIN, args)], dir)).unwrap();
    std::process::Command::new(BIN)
        .args(["prompt", "--agent", "demo", "settings", "--config"])
        .arg(&path)
        .args(flags)
        .output()
        .unwrap()
}

#[test]
fn the_model_and_mode_asked_on_the_command_line_answer() {
    let dir = tempfile::tempdir().unwrap();
    let out = prompt(dir.path(), &["demo-agent"], &["--model", "demo-smart", "--mode", "ask"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("mode=ask, model=demo-smart"), "{stdout}");

    // An agent with only the older modes takes the mode too.
    let out = prompt(dir.path(), &["demo-agent", "--modes-only"], &["--mode", "ask"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("mode=ask"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn a_model_the_agent_does_not_offer_is_said_with_what_it_offers() {
    let dir = tempfile::tempdir().unwrap();
    let out = prompt(dir.path(), &["demo-agent"], &["--model", "gpt-9"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("model=demo-fast"), "{stdout}");
    assert!(stderr.contains("does not offer \"gpt-9\" (it offers: demo-fast, demo-smart)"), "{stderr}");
}

#[test]
fn a_choice_is_remembered_for_the_agents_next_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sidekicks.toml");
    std::fs::write(&path, config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).unwrap();
    let run = |flags: &[&str]| {
        let out = std::process::Command::new(BIN)
            .args(["prompt", "--agent", "demo", "settings", "--config"])
            .arg(&path)
            .args(flags)
            .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(run(&["--model", "demo-smart"]).contains("model=demo-smart"));
    assert!(run(&[]).contains("model=demo-smart"), "the model chosen last time is chosen again");
    assert!(run(&["--model", "demo-fast"]).contains("model=demo-fast"));
    assert!(run(&[]).contains("model=demo-fast"));
}

/// `prompt "plan"` prints the plan, once, as it stood when the text after it came — not only
/// the last sentence (issue 48, item 8).
#[test]
fn the_plan_is_printed_with_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sidekicks.toml");
    std::fs::write(&path, config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["prompt", "--agent", "demo", "plan", "--config"])
        .arg(&path)
        .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.starts_with("Plan:\n  [x] Read the code\n  [x] Write the change\n  [x] Run the tests\n"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("Plan:").count(), 1, "{stdout}");
    assert!(stdout.contains("Every step of my plan is done."), "{stdout}");
}
