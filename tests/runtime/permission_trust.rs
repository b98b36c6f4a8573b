//! A remembered "always" covers only what was shown (issue 45), through `sidekicks prompt` and
//! `sidekicks team prompt` with the misbehaving demo agent asking as mistral-vibe does: a
//! permission request naming its tool call by id alone, the call announced just before with its
//! command or file in raw input. The request shows what will happen, an "always" is kept under
//! the exact command or file, a request that names nothing is never remembered (its "always" is
//! sent as "once"), and `--allow reject` means the same at both doors.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::team_run::team;
use common::{BIN, config_text, git};

/// A person's folders, a workspace and a config with the misbehaving agent `vibe`.
struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    workspace: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let workspace = root.join("ws");
        std::fs::create_dir(&workspace).unwrap();
        let config = root.join("sidekicks.toml");
        let agents: &[(&str, &str, &[&str])] = &[("vibe", BIN, &["demo-agent", "--misbehave"])];
        std::fs::write(&config, config_text("", agents, &workspace)).unwrap();
        Self { _dir: dir, root, config, workspace }
    }

    /// `sidekicks prompt --agent vibe --json ARGS TEXT`: exit code and the JSON lines.
    fn prompt(&self, args: &[&str], text: &str) -> (i32, Vec<serde_json::Value>, String) {
        let out = Command::new(BIN)
            .arg("prompt")
            .arg("--config")
            .arg(&self.config)
            .args(["--agent", "vibe", "--json", "--thread", "new"])
            .args(args)
            .arg(text)
            .env("HOME", self.root.join("user"))
            .env("XDG_CONFIG_HOME", self.root.join("user/config"))
            .env("XDG_DATA_HOME", self.root.join("user/data"))
            .env("XDG_STATE_HOME", self.root.join("user/state"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let lines = stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        (out.status.code().unwrap_or(-1), lines, format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)))
    }
}

/// The agent's words in a turn's JSON lines.
fn said(lines: &[serde_json::Value]) -> String {
    lines.iter().filter(|l| l["type"] == "text").filter_map(|l| l["text"].as_str()).collect()
}

/// The permission lines of a turn.
fn permissions(lines: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    lines.iter().filter(|l| l["type"] == "permission").collect()
}

#[test]
fn always_for_one_command_never_approves_another_asked_by_id() {
    let s = Setup::new();
    let (code, lines, all) = s.prompt(&["--allow", "always"], "byid touch first.txt");
    assert_eq!(code, 0, "{all}");
    assert!(said(&lines).contains("chose: always; did: ran"), "{all}");
    assert!(s.workspace.join("first.txt").exists());
    // The request named its call by id alone: the card shows the command it announced.
    let asked = permissions(&lines);
    assert_eq!(asked.len(), 1, "{all}");
    assert_eq!(asked[0]["kind"], "execute", "{all}");
    assert_eq!(asked[0]["command"], "touch first.txt", "{all}");
    // A new thread, another command, asked the same way under `--allow reject`: not approved.
    let (_, lines, all) = s.prompt(&[], "byid touch pwned.txt");
    assert!(said(&lines).contains("chose: no; did: nothing"), "{all}");
    assert!(!s.workspace.join("pwned.txt").exists(), "an always for `touch first.txt` ran `touch pwned.txt`");
    // The same command again: the remembered always answers it.
    std::fs::remove_file(s.workspace.join("first.txt")).unwrap();
    let (_, lines, all) = s.prompt(&[], "byid touch first.txt");
    assert!(said(&lines).contains("chose: always; did: ran"), "{all}");
}

#[test]
fn a_command_in_raw_input_is_shown_and_its_dangers_flagged() {
    let s = Setup::new();
    std::fs::create_dir(s.workspace.join("target")).unwrap();
    let (_, lines, all) = s.prompt(&[], "otherraw rm -rf target");
    let asked = permissions(&lines);
    assert_eq!(asked.len(), 1, "{all}");
    assert_eq!(asked[0]["command"], "rm -rf target", "{all}");
    assert_eq!(asked[0]["dangers"], serde_json::json!(["rm"]), "{all}");
    assert!(s.workspace.join("target").exists());
}

#[test]
fn always_for_one_file_never_covers_another() {
    let s = Setup::new();
    std::fs::create_dir(s.workspace.join("notes")).unwrap();
    let (_, lines, all) = s.prompt(&["--allow", "always"], "editraw notes/a.txt");
    assert!(said(&lines).contains("chose: always; did: wrote"), "{all}");
    let (_, lines, all) = s.prompt(&[], "editraw notes/b.txt");
    assert!(said(&lines).contains("chose: no; did: nothing"), "{all}");
    assert!(!s.workspace.join("notes/b.txt").exists());
}

#[test]
fn a_request_that_names_nothing_is_answered_once_and_never_remembered() {
    let s = Setup::new();
    let (_, lines, all) = s.prompt(&["--allow", "always"], "bare");
    // "always" cannot be kept for something nobody saw: the agent is told "once".
    assert!(said(&lines).contains("chose: once"), "{all}");
    let (_, lines, all) = s.prompt(&[], "bare");
    assert!(said(&lines).contains("chose: no"), "nothing was remembered: {all}");
}

#[test]
fn stored_answers_that_name_nothing_are_dropped_at_start_and_said_once() {
    let s = Setup::new();
    // A store written by an earlier Sidekicks: "always" kept under `other:` and a tool's name.
    let path = s.root.join("user/data/sidekicks/sidekicks.db");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    {
        let store = sidekicks::runtime::store::Store::open(&path).unwrap();
        drop(store);
        let conn = rusqlite::Connection::open(&path).unwrap();
        for key in ["other:", "edit:write_text_file", "execute:touch ok.txt"] {
            conn.execute(
                "INSERT INTO permission_rules (agent, workspace, rule_key, decision) VALUES ('vibe', ?1, ?2, 'allow')",
                rusqlite::params![s.workspace.display().to_string(), key],
            )
            .unwrap();
        }
        conn.pragma_update(None, "user_version", 4).unwrap();
    }
    let (_, lines, all) = s.prompt(&[], "bare");
    assert!(said(&lines).contains("chose: no"), "{all}");
    assert!(all.contains("2 remembered answers were forgotten"), "{all}");
    let (_, _, all) = s.prompt(&[], "byid touch ok.txt");
    assert!(!all.contains("were forgotten"), "said once: {all}");
    assert!(s.workspace.join("ok.txt").exists(), "an exact key is kept: {all}");
}

/// `--allow reject`, the default, means the same at `prompt` and `team prompt`: no file written
/// through Sidekicks, the cause named.
#[test]
fn allow_reject_refuses_writes_at_both_doors_and_names_itself() {
    let s = Setup::new();
    let (_, lines, all) = s.prompt(&[], "write alone.txt 0");
    assert!(said(&lines).contains("write: error"), "{all}");
    assert!(all.contains("--allow reject"), "{all}");
    assert!(!all.contains("policy.writes"), "the config has no such policy: {all}");
    assert!(!s.workspace.join("alone.txt").exists());
    // A team of vibe on a git project: its member asked through `team prompt`.
    let project = s.root.join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("a.txt"), "a\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    let args = ["new", "--project", project.to_str().unwrap(), "--agent", "vibe", "--name", "squad", "--json"];
    let (code, out, err) = team(&s.config, &s.root, &args);
    assert_eq!(code, 0, "{out}{err}");
    let made: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let copy = Path::new(made["members"][0]["copy"].as_str().unwrap()).to_path_buf();
    let (_, out, err) = team(&s.config, &s.root, &["prompt", "squad", "vibe", "--json", "write member.txt 0"]);
    assert!(out.contains("write: error"), "{out}{err}");
    assert!(format!("{out}{err}").contains("--allow reject"), "{out}{err}");
    assert!(!copy.join("member.txt").exists(), "team prompt wrote under --allow reject");
    let (_, out, err) =
        team(&s.config, &s.root, &["prompt", "squad", "vibe", "--allow", "once", "--json", "write member.txt 0"]);
    assert!(out.contains("write: written"), "{out}{err}");
    assert!(copy.join("member.txt").exists());
}
