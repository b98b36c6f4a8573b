//! `sidekicks team …` driven as a script would, with two demo agents as members of a real git
//! project (issue 33): a team is made, listed and shown; a member works in its copy through
//! `team prompt` (the person's agent and folder untouched); its diff and merge; a conflicting
//! edit is refused, the member told and answering; merging again before it resolved the markers
//! is refused by name; resolved, it merges; undo, discard and restore. Each process is a new
//! Sidekicks: what one did, the next sees.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::{BIN, config_text, git};

/// A user's folders of their own (history, teams, logs) and a config with agents ada and bob.
pub(crate) struct Person {
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) config: PathBuf,
    pub(crate) project: PathBuf,
    pub(crate) home: PathBuf,
}

impl Person {
    pub(crate) fn new() -> Self {
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
        std::fs::write(home.join("own.txt"), "mine\n").unwrap();
        let config = root.join("sidekicks.toml");
        let agents = [("ada", BIN, &["demo-agent"][..]), ("bob", BIN, &["demo-agent"][..])];
        std::fs::write(&config, config_text("", &agents, &home)).unwrap();
        Self { _dir: dir, root, config, project, home }
    }

    /// Runs `sidekicks --config C team ARGS`: exit code, stdout, stderr.
    pub(crate) fn team(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(BIN)
            .arg("--config")
            .arg(&self.config)
            .arg("team")
            .args(args)
            .env("HOME", self.root.join("user"))
            .env("XDG_DATA_HOME", self.root.join("user/data"))
            .env("XDG_CONFIG_HOME", self.root.join("user/config"))
            .env("XDG_STATE_HOME", self.root.join("user/state"))
            .env("XDG_RUNTIME_DIR", self.root.join("user"))
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
    }

    pub(crate) fn json(&self, args: &[&str]) -> serde_json::Value {
        let (code, out, err) = self.team(args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
    }
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

#[test]
fn a_team_is_made_worked_in_merged_and_undone_from_the_command_line() {
    let p = Person::new();
    let made = p.json(&[
        "new",
        "--project",
        p.project.to_str().unwrap(),
        "--agent",
        "ada",
        "--agent",
        "bob",
        "--name",
        "squad",
        "--json",
    ]);
    let members = made["members"].as_array().unwrap();
    let names: Vec<&str> = members.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ada · squad", "bob · squad"]);
    assert_eq!(members[0]["agent"], "ada");
    let copy = |i: usize| PathBuf::from(members[i]["copy"].as_str().unwrap());
    let (ada, bob) = (copy(0), copy(1));
    assert_eq!(read(&ada, "notes.txt"), "first\nsecond\nthird\n");

    // Another process lists it.
    let listed = p.json(&["list", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["name"], "squad");

    // Ada's member works in her copy: the demo agent writes a note there (allowed: under the
    // default `--allow reject` Sidekicks writes nothing for it, as for `sidekicks prompt`).
    let (code, out, err) = p.team(&["prompt", "squad", "ada", "files"]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(format!("{out}{err}").contains("--allow reject"), "{out}{err}");
    assert!(!ada.join("notes/demo.md").exists(), "written under --allow reject");
    let (code, out, err) = p.team(&["prompt", "squad", "ada", "--allow", "once", "files"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(ada.join("notes/demo.md").is_file(), "written in the member's copy: {out}{err}");
    assert!(!p.project.join("notes/demo.md").exists() && !p.home.join("notes").exists());
    assert_eq!(std::fs::read_dir(&p.home).unwrap().count(), 1, "the person's agent's folder is untouched");

    // `prompt`'s flags: a new thread (said in JSON), a thread that is not there (in words); the
    // member named without `·`.
    let (code, out, err) = p.team(&["prompt", "squad", "ada.squad", "--thread", "new", "--json", "hello"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.lines().any(|l| l.contains("\"type\":\"thread\"")), "{out}");
    let (code, _, err) = p.team(&["prompt", "squad", "ada", "--thread", "nope", "hello"]);
    assert_eq!(code, 2);
    assert!(err.contains("no thread \"nope\" of ada · squad"), "{err}");

    let status = p.json(&["status", "squad", "--json"]);
    let changes = &status["members"][0]["changes"];
    assert_eq!(changes[0]["path"], "notes/demo.md", "{status}");
    assert_eq!(changes[0]["kind"], "added");
    assert_eq!(status["members"][1]["changes"].as_array().unwrap().len(), 0);
    let (code, diff, err) = p.team(&["diff", "squad", "ada · squad"]);
    assert_eq!(code, 0, "{err}");
    assert!(diff.contains("--- /dev/null\n+++ b/notes/demo.md\n"), "{diff}");

    let (code, out, err) = p.team(&["merge", "squad", "ada"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ada · squad: merged: 1 applied"), "{out}");
    assert_eq!(read(&p.project, "notes/demo.md"), read(&ada, "notes/demo.md"));

    // Bob and the project change the same line: nothing applied, Bob is told and answers.
    std::fs::write(p.project.join("notes.txt"), "first (project)\nsecond\nthird\n").unwrap();
    std::fs::write(bob.join("notes.txt"), "first (Bob)\nsecond\nthird\n").unwrap();
    std::fs::write(bob.join("bob.txt"), "Bob's own file\n").unwrap();
    let (code, out, err) = p.team(&["merge", "squad", "bob"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("bob · squad: conflicts: 1 (nothing applied)") && out.contains("notes.txt"), "{out}");
    assert!(err.contains("[bob · squad was told:]") && err.contains("[bob · squad answers:]"), "{err}");
    assert!(!p.project.join("bob.txt").exists());
    assert!(read(&bob, "notes.txt").contains("<<<<<<< main\n"));
    // Bob's attempt wrote nothing into the project: Ada's merge can still be undone.
    assert_eq!(p.json(&["list", "--json"])[0]["undoable"], "ada · squad");

    // Merged again before the markers are resolved: the rest merges, the marked file does not.
    let (code, out, err) = p.team(&["merge", "squad", "bob", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(report["refused"], serde_json::json!(["notes.txt"]), "{out}");
    assert_eq!(report["applied"], serde_json::json!(["bob.txt"]));
    assert_eq!(read(&p.project, "notes.txt"), "first (project)\nsecond\nthird\n", "no markers in the project");
    // Again, with only the marked file left: nothing merged, said so (to the person and to Bob).
    let (code, out, err) = p.team(&["merge", "squad", "bob"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("bob · squad: not merged, still holding conflict markers: notes.txt"), "{out}");
    assert!(!out.contains("merged: 0 applied"), "{out}");
    assert!(err.contains("Nothing of your work was merged"), "{err}");

    // Resolved: it merges; the merge can be undone.
    std::fs::write(bob.join("notes.txt"), "first (project and Bob)\nsecond\nthird\n").unwrap();
    let (code, out, err) = p.team(&["merge", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&p.project, "notes.txt"), "first (project and Bob)\nsecond\nthird\n");
    let (code, out, err) = p.team(&["undo", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("undone: the merge of bob · squad"), "{out}");
    assert_eq!(read(&p.project, "notes.txt"), "first (project)\nsecond\nthird\n");
    let (code, _, err) = p.team(&["undo", "squad"]);
    assert_eq!(code, 2, "nothing left to undo");
    assert!(err.contains("nothing to undo"), "{err}");

    // Discarded, Bob's work not merged is kept, and comes back.
    let (code, out, err) = p.team(&["discard", "squad", "bob"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!bob.exists());
    let (code, out, err) = p.team(&["restore", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    let status = p.json(&["status", "squad", "--json"]);
    let bob_now = status["members"].as_array().unwrap().iter().find(|m| m["name"] == "bob · squad").cloned();
    let bob_now = bob_now.unwrap_or_else(|| panic!("bob is back: {status}"));
    let copy = PathBuf::from(bob_now["copy"].as_str().unwrap());
    assert_eq!(read(&copy, "notes.txt"), "first (project and Bob)\nsecond\nthird\n");

    // Errors in words.
    let (code, _, err) = p.team(&["status", "nobody"]);
    assert_eq!(code, 2);
    assert!(err.contains("no team \"nobody\" (teams: squad)"), "{err}");
    let (code, _, err) = p.team(&["new", "--project", p.project.to_str().unwrap(), "--agent", "eve"]);
    assert_eq!(code, 2);
    assert!(err.contains("no agent \"eve\" in the config (agents: ada, bob)"), "{err}");
    let (code, out, err) = p.team(&["discard", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(p.json(&["list", "--json"]), serde_json::json!([]));
    let (code, _, err) = p.team(&["status", "squad"]);
    assert_eq!(code, 2);
    // Bob's work not merged was kept: the words say how to bring the team back, and it comes back.
    assert!(
        err.contains("no team \"squad\": it was discarded (`sidekicks team restore squad` brings it back)"),
        "{err}"
    );
    let (code, out, err) = p.team(&["restore", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(p.json(&["status", "squad", "--json"])["name"], "squad");
}

/// A command naming one team loads that team alone (issue 50): it is found by its name in any
/// case among others, works on its members only, and a name that is no team's is told with the
/// names of all of them, read from the history.
#[test]
fn a_command_naming_one_team_finds_it_among_others_and_names_them_all_when_it_is_not_there() {
    let p = Person::new();
    let project = p.project.to_str().unwrap();
    let (code, _, err) = p.team(&["status", "alpha"]);
    assert_eq!(code, 2);
    assert!(err.contains("no team \"alpha\": there are no teams (`sidekicks team new` makes one)"), "{err}");
    p.json(&["new", "--project", project, "--agent", "ada", "--name", "alpha", "--json"]);
    p.json(&["new", "--project", project, "--agent", "bob", "--name", "Beta", "--json"]);
    let beta = p.json(&["status", "beta", "--json"]);
    let names: Vec<&str> = beta["members"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!((beta["name"].as_str(), names), (Some("Beta"), vec!["bob · Beta"]), "{beta}");
    let copy = PathBuf::from(beta["members"][0]["copy"].as_str().unwrap());
    std::fs::write(copy.join("beta.txt"), "from bob\n").unwrap();
    let (code, out, err) = p.team(&["merge", "BETA"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("bob · Beta: merged: 1 applied"), "{out}");
    assert_eq!(read(&p.project, "beta.txt"), "from bob\n");
    let (code, _, err) = p.team(&["diff", "gamma", "bob"]);
    assert_eq!(code, 2);
    assert!(err.contains("no team \"gamma\" (teams: alpha, Beta)"), "{err}");
    let listed = p.json(&["list", "--json"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
}

/// A merge another process left half-done (a crash after its commit point: the journal is
/// there, the files not yet renamed) was only mended at the next start: a window open meanwhile
/// finishes it and says so on the team's page.
#[test]
fn a_window_open_finishes_a_merge_another_process_left_half_done() {
    use common::window::{runtime, step_until, window_of};
    use egui_kittest::kittest::Queryable;
    const LONG: std::time::Duration = std::time::Duration::from_secs(30);
    let p = Person::new();
    let user = p.root.join("user");
    let dirs = sidekicks::runtime::config::file::AppDirs {
        config_dir: user.join("config/sidekicks"),
        data_dir: user.join("data/sidekicks"),
        state_dir: user.join("state/sidekicks"),
        home: Some(user.clone()),
    };
    std::fs::create_dir_all(&dirs.data_dir).unwrap();
    let store = sidekicks::runtime::store::Store::open(&dirs.data_dir.join("sidekicks.db")).unwrap();
    p.json(&["new", "--project", p.project.to_str().unwrap(), "--agent", "ada", "--name", "squad", "--json"]);
    let startup = sidekicks::app::Startup {
        settings: common::fast_settings(),
        store: Some(store),
        dirs: Some(dirs),
        terminal_host: BIN.into(),
        ..sidekicks::app::Startup::new(p.config.clone())
    };
    let rt = runtime();
    let mut h = window_of(startup, &rt);
    step_until(&mut h, LONG, "the team", |h| h.state().state.teams.teams.len() == 1);
    h.get_all_by_label("squad").next().unwrap().click();
    let state = {
        let team = &h.state().state.teams.teams[0];
        team.info.members.iter().find_map(|(_, m)| m.as_ref().ok()).unwrap().state.clone()
    };
    // What a merge killed right after its commit point leaves: the new version beside its target
    // and the journal saying where it goes.
    std::fs::write(p.project.join(".notes.txt.sk-merge"), "first\nsecond (merged)\nthird\n").unwrap();
    std::fs::write(state.join("merge.journal"), r#"[{"path":"notes.txt","temp":".notes.txt.sk-merge"}]"#).unwrap();
    step_until(&mut h, LONG, "the merge finished, and said", |h| {
        h.query_by_label_contains("has been finished").is_some()
    });
    assert_eq!(read(&p.project, "notes.txt"), "first\nsecond (merged)\nthird\n");
    assert!(!p.project.join(".notes.txt.sk-merge").exists() && !state.join("merge.journal").exists());
    h.state_mut().shutdown();
}

/// A window open while the command line works on the same teams (same data folder): it shows
/// the team the command line made, the member's work, its merge, and the team gone once
/// discarded; a team made in the window is listed by the command line.
#[test]
fn a_window_open_shows_what_the_command_line_did_and_the_reverse() {
    use common::window::{runtime, step_until, window_of};
    use sidekicks::runtime::config::file::AppDirs;
    const LONG: std::time::Duration = std::time::Duration::from_secs(30);
    let p = Person::new();
    let user = p.root.join("user");
    let dirs = AppDirs {
        config_dir: user.join("config/sidekicks"),
        data_dir: user.join("data/sidekicks"),
        state_dir: user.join("state/sidekicks"),
        home: Some(user.clone()),
    };
    std::fs::create_dir_all(&dirs.data_dir).unwrap();
    let store = sidekicks::runtime::store::Store::open(&dirs.data_dir.join("sidekicks.db")).unwrap();
    let startup = sidekicks::app::Startup {
        settings: common::fast_settings(),
        store: Some(store),
        dirs: Some(dirs),
        terminal_host: BIN.into(),
        ..sidekicks::app::Startup::new(p.config.clone())
    };
    let rt = runtime();
    let mut h = window_of(startup, &rt);
    step_until(&mut h, LONG, "the agents", |h| h.state().state.agent("bob").is_some());

    let made =
        p.json(&["new", "--project", p.project.to_str().unwrap(), "--agent", "ada", "--name", "squad", "--json"]);
    let copy = PathBuf::from(made["members"][0]["copy"].as_str().unwrap());
    let deadline = std::time::Instant::now() + LONG;
    while !h.state().state.teams.teams.iter().any(|t| t.info.record.name == "squad") {
        if std::time::Instant::now() > deadline {
            let teams = &h.state().state.teams;
            let marks: Vec<_> = std::fs::read_dir(user.join("data/sidekicks/teams/.changed"))
                .map(|d| d.flatten().map(|e| e.file_name()).collect())
                .unwrap_or_default();
            panic!(
                "timed out waiting for the command line's team in the window: {} teams, leftovers {:?}, marks {marks:?}",
                teams.teams.len(),
                teams.leftovers
            );
        }
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    step_until(&mut h, LONG, "its member, an agent of its own", |h| h.state().state.agent("ada · squad").is_some());
    {
        use egui_kittest::kittest::Queryable;
        h.get_all_by_label("squad").next().unwrap().click();
    }
    std::fs::write(copy.join("ada.txt"), "from Ada\n").unwrap();
    step_until(&mut h, LONG, "her change on the page", |h| {
        use egui_kittest::kittest::Queryable;
        h.query_by_label("ada.txt").is_some()
    });
    let (code, out, err) = p.team(&["merge", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    step_until(&mut h, LONG, "no change left on the page", |h| {
        let team = h.state().state.teams.teams.iter().find(|t| t.info.record.name == "squad");
        team.is_some_and(|t| t.changes.get("ada · squad").is_some_and(|c| c.as_ref().is_ok_and(|c| c.is_empty())))
    });
    step_until(&mut h, LONG, "its merge can be undone from the window", |h| {
        h.state().state.teams.teams.iter().any(|t| t.info.undoable.as_deref() == Some("ada · squad"))
    });

    // The reverse: a team made in the window is the command line's to list.
    let create = sidekicks::protocol::teams::TeamCommand::Create {
        name: "window team".into(),
        project: p.project.clone(),
        provider: sidekicks::protocol::teams::ProviderKind::Copy,
        agents: vec!["bob".into()],
        lead: None,
    };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(create)));
    step_until(&mut h, LONG, "the window's team", |h| h.state().state.teams.teams.len() == 2);
    let listed = p.json(&["list", "--json"]);
    let names: Vec<&str> = listed.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["squad", "window team"]);

    // Discarded from the command line: gone from the window, its member ended.
    let (code, out, err) = p.team(&["discard", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    step_until(&mut h, LONG, "the team gone from the window", |h| {
        h.state().state.teams.teams.iter().all(|t| t.info.record.name != "squad")
    });
    step_until(&mut h, LONG, "its member gone", |h| h.state().state.agent("ada · squad").is_none());
    h.state_mut().shutdown();
}

#[test]
fn a_closed_pipe_ends_a_command_cleanly_and_an_error_is_said_without_a_stack_trace() {
    let p = Person::new();
    let run = |args: &[&str]| {
        let mut command = Command::new(BIN);
        command
            .arg("--config")
            .arg(&p.config)
            .args(args)
            .env("HOME", p.root.join("user"))
            .env("XDG_DATA_HOME", p.root.join("user/data"))
            .env("XDG_CONFIG_HOME", p.root.join("user/config"))
            .env("XDG_STATE_HOME", p.root.join("user/state"))
            .env("XDG_RUNTIME_DIR", p.root.join("user"))
            .env("RUST_BACKTRACE", "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        command
    };
    // `… | head` that stopped reading before the command wrote: it ends as it would have.
    let mut child = run(&["team", "list"]).spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // A person's mistake is said in words, even with RUST_BACKTRACE set.
    let out = run(&["prompt", "--agent", "nobody", "hello"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains("nobody"), "the error names what was asked: {err}");
    assert!(!err.contains("Stack backtrace") && !err.contains("stack backtrace"), "{err}");
}
