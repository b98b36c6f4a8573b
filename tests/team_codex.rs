//! A published ACP agent as two members of one team, driven from the command line (issue 33):
//! Zed's Codex adapter (tests/codex-agent), offline, its model a stand-in Responses endpoint on
//! loopback that asks for Codex's `apply_patch` tool when the message holds a rule's words. Two
//! members made from the same agent each write a file in their copy, and both merge; then one
//! changes a line the project changed too: the merge conflicts, the member is told, it resolves
//! the markers itself (a patch over them), and the next merge applies cleanly. npm installs the
//! adapter on first run; without node/npm the test is skipped with a reason, except in CI.

use std::path::{Path, PathBuf};

mod common;
use common::fake_model::FakeModel;
use common::{config_text, git};

fn patch(body: &str) -> String {
    format!("*** Begin Patch\n{body}*** End Patch\n")
}

/// The stand-in model's rules: what each message makes the member do.
fn rules() -> Vec<(String, String)> {
    let rule = |words: &str, body: &str| (words.to_string(), patch(body));
    vec![
        rule("write the first note", "*** Add File: first.txt\n+from the first member\n"),
        rule("write the second note", "*** Add File: second.txt\n+from the second member\n"),
        rule("change the first line", "*** Update File: notes.txt\n@@\n-first\n+first (member)\n second\n"),
        // The conflict message Sidekicks sends: the member keeps both sides' intent.
        rule(
            "found conflicts",
            "*** Update File: notes.txt\n@@\n-<<<<<<< main\n-first (project)\n-=======\n-first (member)\n->>>>>>> codex · squad\n+first (project and member)\n second\n",
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
    fn new(launcher: &Path, model: &FakeModel) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let project = root.join("project");
        std::fs::create_dir(&project).unwrap();
        std::fs::write(project.join("notes.txt"), "first\nsecond\nthird\n").unwrap();
        git(&project, &["init", "-q", "-b", "main"]);
        git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
        git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
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
        let home = root.join("home");
        std::fs::create_dir(&home).unwrap();
        let mut text = config_text("", &[("codex", &launcher.display().to_string(), &[])], &home);
        text.push_str(&format!(
            "env = {{ CODEX_HOME = {:?}, OPENAI_API_KEY = \"sk-test\" }}\n",
            codex_home.display().to_string()
        ));
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
fn two_codex_members_write_merge_and_resolve_a_conflict_they_are_told_of() {
    let Some(launcher) = common::codex::launcher() else { return };
    let model = FakeModel::with_rules(rules());
    let rig = Rig::new(&launcher, &model);
    let project = rig.project.to_str().unwrap();
    let made =
        rig.ok(&["new", "--project", project, "--agent", "codex", "--agent", "codex", "--name", "squad", "--json"]);
    let made: serde_json::Value = serde_json::from_str(made.trim()).unwrap();
    let names: Vec<&str> = made["members"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["codex · squad", "codex 2 · squad"], "two members of one agent");
    let copy = |i: usize| PathBuf::from(made["members"][i]["copy"].as_str().unwrap());
    let (first, second) = (copy(0), copy(1));

    // Each writes a file in its own copy (the adapter asks before editing: allowed once).
    let out = rig.ok(&["prompt", "squad", "codex · squad", "--allow", "once", "please write the first note"]);
    assert!(out.contains(common::fake_model::ANSWER), "{out}");
    rig.ok(&["prompt", "squad", "codex 2 · squad", "--allow", "once", "please write the second note"]);
    assert_eq!(read(&first, "first.txt"), "from the first member\n");
    assert_eq!(read(&second, "second.txt"), "from the second member\n");
    assert!(!first.join("second.txt").exists() && !second.join("first.txt").exists(), "each in its own copy");
    assert!(!rig.project.join("first.txt").exists());

    // Both merge.
    let out = rig.ok(&["merge", "squad"]);
    assert!(
        out.contains("codex · squad: merged: 1 applied") && out.contains("codex 2 · squad: merged: 1 applied"),
        "{out}"
    );
    assert_eq!(read(&rig.project, "first.txt"), "from the first member\n");
    assert_eq!(read(&rig.project, "second.txt"), "from the second member\n");

    // The project and the first member change the same line: a conflict, the member is told and
    // resolves it in its copy.
    std::fs::write(rig.project.join("notes.txt"), "first (project)\nsecond\nthird\n").unwrap();
    let (code, _, err) = rig.team(&["prompt", "squad", "codex", "please change the first line"]);
    assert_eq!(code, 2, "two members answer to the agent's name");
    assert!(err.contains("2 members of squad answer to \"codex\": give the member's name"), "{err}");
    let out = rig.ok(&["prompt", "squad", "codex · squad", "--allow", "once", "please change the first line"]);
    let last = model.bodies().last().cloned().unwrap_or_default();
    assert_eq!(read(&first, "notes.txt"), "first (member)\nsecond\nthird\n", "{out}\n{last}");
    let (code, out, err) = rig.team(&["merge", "squad", "codex · squad", "--allow", "once"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("codex · squad: conflicts: 1 (nothing applied)"), "{out}");
    assert!(err.contains("[codex · squad was told:]"), "{err}");
    assert_eq!(read(&rig.project, "notes.txt"), "first (project)\nsecond\nthird\n", "nothing applied");
    assert_eq!(read(&first, "notes.txt"), "first (project and member)\nsecond\nthird\n", "resolved by the member");
    let told = model.bodies().iter().any(|b| b.contains("found conflicts") && b.contains("notes.txt"));
    assert!(told, "the conflict message reached the member's model");

    // The next merge applies cleanly.
    let out = rig.ok(&["merge", "squad", "codex · squad"]);
    assert!(out.contains("codex · squad: merged: 1 applied"), "{out}");
    assert_eq!(read(&rig.project, "notes.txt"), "first (project and member)\nsecond\nthird\n");
}
