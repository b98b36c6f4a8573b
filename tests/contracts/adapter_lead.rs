//! A published agent leads a team through its `sidekicks-team` tools (issue 47): Claude Code's
//! ACP adapter (tests/claude-agent) as the lead of `sidekicks team lead`, its model a stand-in
//! Messages API on loopback that calls the tools as Claude Code names them
//! (`mcp__sidekicks-team__<tool>`). It assigns two members a task each, waits, sees on the radar
//! that both change one file, reads a diff, asks one member for a fix, merges one member and then
//! the other — whose merge conflicts, is told to the member, resolved by it, and merged. Once with
//! two demo members, once with a Claude Code member beside a demo one. Offline; npm installs the
//! adapter on first run (skipped with a reason without node/npm, except in CI).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use crate::common;
use common::fake_anthropic::{FakeAnthropic, Rule};
use common::{BIN, config_text, git};

/// What the project's note holds in the end: bob's sentence (merged first), then ada's fixed one
/// (kept beside it by whoever resolved ada's conflict).
const MERGED: &str = "# Notes\n\nthe second idea\nthe first idea, with a fix\n";

/// The lead's steps for the goal "lead the squad".
fn lead_rule() -> Rule {
    let tool = |name: &str, input: serde_json::Value| (format!("mcp__sidekicks-team__{name}"), input);
    let wait = || tool("wait", json!({"timeout_s": 300}));
    (
        "lead the squad".into(),
        vec![
            tool("assign", json!({"member": "ada", "task": "files: the first idea"})),
            tool("assign", json!({"member": "bob", "task": "files: the second idea"})),
            wait(),
            tool("members", json!({})),
            tool("diff", json!({"member": "ada"})),
            tool("message", json!({"member": "ada", "text": "files: the first idea, with a fix"})),
            wait(),
            tool("merge", json!({"members": ["bob"]})),
            tool("merge", json!({"members": ["ada"]})),
            wait(),
            tool("merge", json!({"members": ["ada"]})),
        ],
    )
}

/// A project with `notes.txt` committed, a config with Claude Code's adapter as `claude` (against
/// `model`) and ada and bob (`ada` runs `ada_command`), and the team `squad` led by claude.
struct Rig {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    project: PathBuf,
}

impl Rig {
    fn new(launcher: &Path, model: &FakeAnthropic, ada_is_claude: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let project = root.join("project");
        std::fs::create_dir(&project).unwrap();
        std::fs::write(project.join("notes.txt"), "first\nsecond\nthird\n").unwrap();
        git(&project, &["init", "-q", "-b", "main"]);
        git(&project, &["add", "-A"]);
        git(&project, &["commit", "-q", "-m", "start"]);
        let home = root.join("home");
        std::fs::create_dir(&home).unwrap();
        let launcher = launcher.display().to_string();
        let env = model.agent_env(&root.join("claude-home"));
        let ada: (&str, &str, &[&str]) =
            if ada_is_claude { ("ada", &launcher, &[]) } else { ("ada", BIN, &["demo-agent"]) };
        let entry = |agent: (&str, &str, &[&str])| config_text("", &[agent], &home).replace("[defaults]\n\n", "");
        let mut text = config_text("", &[("claude", &launcher, &[])], &home);
        text.push_str(&env);
        text.push_str(&entry(ada));
        if ada_is_claude {
            text.push_str(&env);
        }
        text.push_str(&entry(("bob", BIN, &["demo-agent"])));
        let config = root.join("sidekicks.toml");
        std::fs::write(&config, text).unwrap();
        let rig = Self { _dir: dir, root, config, project };
        let project = rig.project.display().to_string();
        let args =
            ["new", "--project", &project, "--agent", "ada", "--agent", "bob", "--name", "squad", "--lead", "claude"];
        rig.ok(&args);
        rig
    }

    fn team(&self, args: &[&str]) -> (i32, String, String) {
        common::team_run::team_within(&self.config, &self.root, args, Duration::from_secs(400))
    }

    fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.team(args);
        assert_eq!(code, 0, "{args:?}:\n{out}\n{err}");
        out
    }
}

/// The results the lead's model was given for its calls, in order (the text of each).
fn results(bodies: &[String]) -> Vec<String> {
    let Some(last) = bodies.iter().rev().find(|b| b.contains("lead the squad") && b.contains("tool_result")) else {
        return Vec::new();
    };
    let body: serde_json::Value = serde_json::from_str(last).unwrap();
    let blocks =
        body["messages"].as_array().into_iter().flatten().flat_map(|m| m["content"].as_array().into_iter().flatten());
    blocks.filter(|b| b["type"] == "tool_result").map(|b| b["content"].to_string()).collect()
}

fn lead_the_squad(rig: &Rig, model: &FakeAnthropic) {
    let (code, out, err) = rig.team(&["lead", "squad", "--allow", "once", "please lead the squad"]);
    let results = results(&model.bodies());
    let said = format!("{out}\n{err}\nthe lead's results:\n{}", results.join("\n"));
    assert_eq!(code, 0, "{said}");
    assert_eq!(results.len(), lead_rule().1.len(), "every call had its result: {said}");
    let tagged = |i: usize| results[i].replace("\\\"", "\"");
    // Two tasks given; both finished, each having written the note.
    assert!(tagged(0).contains(r#""state":"assigned""#) || tagged(0).contains(r#""state":"working""#), "{said}");
    assert_eq!(tagged(2).matches(r#""state":"done""#).count(), 2, "both finished: {said}");
    // The radar names the file both change before anything is merged.
    assert!(tagged(3).contains("ada and bob both change notes/demo.md"), "{said}");
    assert!(tagged(4).contains("+the first idea"), "ada's diff: {said}");
    // The fix asked of ada was made.
    assert!(tagged(6).contains(r#""state":"done""#), "{said}");
    // Bob merges; ada's merge conflicts and she is told; she resolves it; it merges.
    assert!(tagged(7).contains(r#""applied":["notes/demo.md"]"#), "{said}");
    assert!(tagged(8).contains(r#""conflicts":["notes/demo.md"]"#), "{said}");
    assert!(tagged(8).contains("found conflicts"), "told: {said}");
    assert!(tagged(9).contains("Resolve the conflicts of the merge (1 file)") && tagged(9).contains("done"), "{said}");
    assert!(tagged(10).contains(r#""applied":["notes/demo.md"]"#), "{said}");
    let note = std::fs::read_to_string(rig.project.join("notes/demo.md")).unwrap();
    assert_eq!(note, MERGED, "{said}");
    // The members' turns were streamed, named.
    assert!(out.contains("[ada · squad] ") && out.contains("[bob · squad] "), "{said}");

    // The tasks, as another process reads them: all merged, the resolution given by Sidekicks.
    let tasks = rig.ok(&["tasks", "squad", "--json"]);
    let tasks: serde_json::Value = serde_json::from_str(tasks.trim()).unwrap();
    let tasks = tasks.as_array().unwrap();
    assert_eq!(tasks.len(), 4, "{tasks:?}");
    assert!(tasks.iter().all(|t| t["state"] == "merged"), "{tasks:?}");
    let by: Vec<&str> = tasks.iter().map(|t| t["by"].as_str().unwrap()).collect();
    assert_eq!(by, ["claude", "claude", "claude", "Sidekicks"], "{tasks:?}");
}

fn launcher() -> Option<PathBuf> {
    common::codex::npm_launcher("tests/claude-agent", "claude-agent-acp", "Claude Code's ACP adapter")
}

#[test]
fn claude_code_leads_two_demo_members_through_its_team_tools() {
    let Some(launcher) = launcher() else { return };
    let model = FakeAnthropic::with_rules(vec![lead_rule()]);
    let rig = Rig::new(&launcher, &model, false);
    lead_the_squad(&rig, &model);
}

#[test]
fn claude_code_leads_a_claude_code_member_and_a_demo_member() {
    let Some(launcher) = launcher() else { return };
    let write = |content: &str| ("Write".to_string(), json!({"file_path": "{cwd}/notes/demo.md", "content": content}));
    let read = || ("Read".to_string(), json!({"file_path": "{cwd}/notes/demo.md"}));
    // The member's rules come first: its messages carry the channel's news, which may name the others'.
    let model = FakeAnthropic::with_rules(vec![
        ("files: the first idea, with a fix".into(), vec![read(), write("# Notes\n\nthe first idea, with a fix\n")]),
        ("files: the first idea".into(), vec![write("# Notes\n\nthe first idea\n")]),
        ("found conflicts".into(), vec![read(), write(MERGED)]),
        lead_rule(),
    ]);
    let rig = Rig::new(&launcher, &model, true);
    lead_the_squad(&rig, &model);
}
