//! A published ACP agent as two members of one team, driven from the command line (issue 33), one
//! scenario for each adapter: Zed's Codex adapter (tests/codex-agent), its model a stand-in
//! Responses endpoint that asks for Codex's `apply_patch` tool, and Claude Code's ACP adapter
//! (tests/claude-agent, `@agentclientprotocol/claude-agent-acp`), its model a stand-in Messages API
//! that asks for Claude Code's `Read` and `Write` tools — each when the message holds a rule's
//! words, offline on loopback. Two members made from the same agent each write a file in their
//! copy, and both merge; then one changes a line the project changed too: the merge conflicts, the
//! member is told, it resolves the markers itself, and the next merge applies cleanly. npm
//! installs the adapters on first run; without node/npm the tests are skipped with a reason,
//! except in CI.

use std::path::{Path, PathBuf};

use crate::common;
use common::fake_anthropic::FakeAnthropic;
use common::fake_model::FakeModel;
use common::{config_text, git};

/// A project with `notes.txt` committed, and a config whose one agent `agent` runs `launcher`
/// with the entry's extra `env` line.
struct Rig {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    project: PathBuf,
}

impl Rig {
    fn new(agent: &str, launcher: &Path, env: impl FnOnce(&Path) -> String) -> Self {
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
        let mut text = config_text("", &[(agent, &launcher.display().to_string(), &[])], &home);
        text.push_str(&env(&root));
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

/// The scenario, for members of `agent` whose model answers `answer` and was sent `bodies()`.
fn two_members_write_merge_and_resolve(rig: &Rig, agent: &str, answer: &str, bodies: impl Fn() -> Vec<String>) {
    let project = rig.project.to_str().unwrap();
    let made = rig.ok(&["new", "--project", project, "--agent", agent, "--agent", agent, "--name", "squad", "--json"]);
    let made: serde_json::Value = serde_json::from_str(made.trim()).unwrap();
    let names: Vec<&str> = made["members"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    let (one, two) = (format!("{agent} · squad"), format!("{agent} 2 · squad"));
    assert_eq!(names, [one.as_str(), two.as_str()], "two members of one agent");
    let copy = |i: usize| PathBuf::from(made["members"][i]["copy"].as_str().unwrap());
    let (first, second) = (copy(0), copy(1));

    // Each writes a file in its own copy (the adapter asks before editing: allowed once).
    let out = rig.ok(&["prompt", "squad", &one, "--allow", "once", "please write the first note"]);
    assert!(out.contains(answer), "{out}");
    rig.ok(&["prompt", "squad", &two, "--allow", "once", "please write the second note"]);
    assert_eq!(read(&first, "first.txt"), "from the first member\n");
    assert_eq!(read(&second, "second.txt"), "from the second member\n");
    assert!(!first.join("second.txt").exists() && !second.join("first.txt").exists(), "each in its own copy");
    assert!(!rig.project.join("first.txt").exists());

    // Both merge.
    let out = rig.ok(&["merge", "squad"]);
    assert!(
        out.contains(&format!("{one}: merged: 1 applied")) && out.contains(&format!("{two}: merged: 1 applied")),
        "{out}"
    );
    assert_eq!(read(&rig.project, "first.txt"), "from the first member\n");
    assert_eq!(read(&rig.project, "second.txt"), "from the second member\n");

    // The project and the first member change the same line: a conflict, the member is told and
    // resolves it in its copy.
    std::fs::write(rig.project.join("notes.txt"), "first (project)\nsecond\nthird\n").unwrap();
    let (code, _, err) = rig.team(&["prompt", "squad", agent, "please change the first line"]);
    assert_eq!(code, 2, "two members answer to the agent's name");
    assert!(err.contains(&format!("2 members of squad answer to \"{agent}\": give the member's name")), "{err}");
    assert!(err.contains(&format!("({one}, {two})")), "the choices are listed: {err}");
    let out = rig.ok(&["prompt", "squad", &one, "--allow", "once", "please change the first line"]);
    let last = bodies().last().cloned().unwrap_or_default();
    assert_eq!(read(&first, "notes.txt"), "first (member)\nsecond\nthird\n", "{out}\n{last}");
    let (code, out, err) = rig.team(&["merge", "squad", &one, "--allow", "once"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains(&format!("{one}: conflicts: 1 (nothing applied)")), "{out}");
    assert!(err.contains(&format!("[{one} was told:]")), "{err}");
    assert_eq!(read(&rig.project, "notes.txt"), "first (project)\nsecond\nthird\n", "nothing applied");
    let resolved = read(&first, "notes.txt");
    assert_eq!(resolved, "first (project and member)\nsecond\nthird\n", "resolved by the member: {err}");
    let told = bodies().iter().any(|b| b.contains("found conflicts") && b.contains("notes.txt"));
    assert!(told, "the conflict message reached the member's model");

    // The next merge applies cleanly.
    let out = rig.ok(&["merge", "squad", &one]);
    assert!(out.contains(&format!("{one}: merged: 1 applied")), "{out}");
    assert_eq!(read(&rig.project, "notes.txt"), "first (project and member)\nsecond\nthird\n");
}

#[test]
fn two_codex_members_write_merge_and_resolve_a_conflict_they_are_told_of() {
    let Some(launcher) = common::codex::launcher() else { return };
    let patch = |words: &str, body: &str| (words.to_string(), format!("*** Begin Patch\n{body}*** End Patch\n"));
    let model = FakeModel::with_rules(vec![
        patch("write the first note", "*** Add File: first.txt\n+from the first member\n"),
        patch("write the second note", "*** Add File: second.txt\n+from the second member\n"),
        patch("change the first line", "*** Update File: notes.txt\n@@\n-first\n+first (member)\n second\n"),
        // The conflict message Sidekicks sends: the member keeps both sides' intent.
        patch(
            "found conflicts",
            "*** Update File: notes.txt\n@@\n-<<<<<<< main\n-first (project)\n-=======\n-first (member)\n->>>>>>> codex · squad\n+first (project and member)\n second\n",
        ),
    ]);
    let rig = Rig::new("codex", &launcher, |root| {
        let codex_home = root.join("codex-home");
        std::fs::create_dir_all(&codex_home).unwrap();
        std::fs::write(
            codex_home.join("config.toml"),
            format!(
                // Its own sandbox needs bubblewrap to read files: the test's folders are its sandbox.
                "sandbox_mode = \"danger-full-access\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nname = \"fake\"\nbase_url = {:?}\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n",
                model.base_url
            ),
        )
        .unwrap();
        format!("env = {{ CODEX_HOME = {:?}, OPENAI_API_KEY = \"sk-test\" }}\n", codex_home.display().to_string())
    });
    two_members_write_merge_and_resolve(&rig, "codex", common::fake_model::ANSWER, || model.bodies());
}

#[test]
fn two_claude_code_members_write_merge_and_resolve_a_conflict_they_are_told_of() {
    let Some(launcher) =
        common::codex::npm_launcher("tests/claude-agent", "claude-agent-acp", "Claude Code's ACP adapter")
    else {
        return;
    };
    // Claude Code writes a file it has read first.
    use serde_json::json;
    let write = |file: &str, content: &str| {
        ("Write".to_string(), json!({"file_path": format!("{{cwd}}/{file}"), "content": content}))
    };
    let read = |file: &str| ("Read".to_string(), json!({"file_path": format!("{{cwd}}/{file}")}));
    let model = FakeAnthropic::with_rules(vec![
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
    ]);
    let rig = Rig::new("claude", &launcher, |root| model.agent_env(&root.join("claude-home")));
    two_members_write_merge_and_resolve(&rig, "claude", common::fake_anthropic::ANSWER, || model.bodies());
}
