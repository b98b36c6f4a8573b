//! A published ACP agent as two members of one team, driven from the command line (issue 33):
//! Claude Code's ACP adapter (tests/claude-agent, `@agentclientprotocol/claude-agent-acp`),
//! offline, its model a stand-in Messages API on loopback that asks for Claude Code's `Read` and
//! `Write` tools when the message holds a rule's words. Two members made from the same agent each
//! write a file in their copy, and both merge; then one changes a line the project changed too:
//! the merge conflicts, the member is told, it resolves the markers itself (reads the file, writes
//! it whole), and the next merge applies cleanly. npm installs the adapter on first run; without
//! node/npm the test is skipped with a reason, except in CI.

use std::path::{Path, PathBuf};

mod common;
use common::fake_anthropic::{FakeAnthropic, Rule};
use common::{config_text, git};

/// The stand-in model's rules: what each message makes the member do (Claude Code writes a file
/// it has read first).
fn rules() -> Vec<Rule> {
    use serde_json::json;
    let write = |file: &str, content: &str| {
        ("Write".to_string(), json!({"file_path": format!("{{cwd}}/{file}"), "content": content}))
    };
    let read = |file: &str| ("Read".to_string(), json!({"file_path": format!("{{cwd}}/{file}")}));
    vec![
        ("write the first note".into(), vec![write("first.txt", "from the first member\n")]),
        ("write the second note".into(), vec![write("second.txt", "from the second member\n")]),
        (
            "change the first line".into(),
            vec![read("notes.txt"), write("notes.txt", "first (member)\nsecond\nthird\n")],
        ),
        // The conflict message Sidekicks sends: the member keeps both sides' intent.
        (
            "found conflicts".into(),
            vec![read("notes.txt"), write("notes.txt", "first (project and member)\nsecond\nthird\n")],
        ),
    ]
}

struct Rig {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    project: PathBuf,
}

impl Rig {
    fn new(launcher: &Path, model: &FakeAnthropic) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let project = root.join("project");
        std::fs::create_dir(&project).unwrap();
        std::fs::write(project.join("notes.txt"), "first\nsecond\nthird\n").unwrap();
        git(&project, &["init", "-q", "-b", "main"]);
        git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
        git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
        let home = root.join("home");
        std::fs::create_dir(&home).unwrap();
        let mut text = config_text("", &[("claude", &launcher.display().to_string(), &[])], &home);
        text.push_str(&model.agent_env(&root.join("claude-home")));
        let config = root.join("sidekicks.toml");
        std::fs::write(&config, text).unwrap();
        Self { _dir: dir, root, config, project }
    }

    fn team(&self, args: &[&str]) -> (i32, String, String) {
        common::team_run::team(&self.config, &self.root, args)
    }

    fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.team(args);
        assert_eq!(code, 0, "{args:?}:\n{out}\n{err}");
        out
    }
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{}: {e}", root.join(rel).display()))
}

#[test]
fn two_claude_code_members_write_merge_and_resolve_a_conflict_they_are_told_of() {
    let Some(launcher) =
        common::codex::npm_launcher("tests/claude-agent", "claude-agent-acp", "Claude Code's ACP adapter")
    else {
        return;
    };
    let model = FakeAnthropic::with_rules(rules());
    let rig = Rig::new(&launcher, &model);
    let project = rig.project.to_str().unwrap();
    let made =
        rig.ok(&["new", "--project", project, "--agent", "claude", "--agent", "claude", "--name", "squad", "--json"]);
    let made: serde_json::Value = serde_json::from_str(made.trim()).unwrap();
    let names: Vec<&str> = made["members"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["claude · squad", "claude 2 · squad"], "two members of one agent");
    let copy = |i: usize| PathBuf::from(made["members"][i]["copy"].as_str().unwrap());
    let (first, second) = (copy(0), copy(1));

    // Each writes a file in its own copy (the adapter asks before editing: allowed once).
    let out = rig.ok(&["prompt", "squad", "claude · squad", "--allow", "once", "please write the first note"]);
    assert!(out.contains(common::fake_anthropic::ANSWER), "{out}");
    rig.ok(&["prompt", "squad", "claude 2 · squad", "--allow", "once", "please write the second note"]);
    assert_eq!(read(&first, "first.txt"), "from the first member\n");
    assert_eq!(read(&second, "second.txt"), "from the second member\n");
    assert!(!first.join("second.txt").exists() && !second.join("first.txt").exists(), "each in its own copy");
    assert!(!rig.project.join("first.txt").exists());

    // Both merge.
    let out = rig.ok(&["merge", "squad"]);
    assert!(
        out.contains("claude · squad: merged: 1 applied") && out.contains("claude 2 · squad: merged: 1 applied"),
        "{out}"
    );
    assert_eq!(read(&rig.project, "first.txt"), "from the first member\n");
    assert_eq!(read(&rig.project, "second.txt"), "from the second member\n");

    // The project and the first member change the same line: a conflict, the member is told and
    // resolves it in its copy.
    std::fs::write(rig.project.join("notes.txt"), "first (project)\nsecond\nthird\n").unwrap();
    let (code, _, err) = rig.team(&["prompt", "squad", "claude", "please change the first line"]);
    assert_eq!(code, 2, "two members answer to the agent's name");
    assert!(err.contains("2 members of squad answer to \"claude\": give the member's name"), "{err}");
    let out = rig.ok(&["prompt", "squad", "claude · squad", "--allow", "once", "please change the first line"]);
    let last = model.bodies().last().cloned().unwrap_or_default();
    assert_eq!(read(&first, "notes.txt"), "first (member)\nsecond\nthird\n", "{out}\n{last}");
    let (code, out, err) = rig.team(&["merge", "squad", "claude · squad", "--allow", "once"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("claude · squad: conflicts: 1 (nothing applied)"), "{out}");
    assert!(err.contains("[claude · squad was told:]"), "{err}");
    assert_eq!(read(&rig.project, "notes.txt"), "first (project)\nsecond\nthird\n", "nothing applied");
    let resolved = read(&first, "notes.txt");
    assert_eq!(resolved, "first (project and member)\nsecond\nthird\n", "resolved by the member: {err}");
    let told = model.bodies().iter().any(|b| b.contains("found conflicts") && b.contains("notes.txt"));
    assert!(told, "the conflict message reached the member's model");

    // The next merge applies cleanly.
    let out = rig.ok(&["merge", "squad", "claude · squad"]);
    assert!(out.contains("claude · squad: merged: 1 applied"), "{out}");
    assert_eq!(read(&rig.project, "notes.txt"), "first (project and member)\nsecond\nthird\n");
}
