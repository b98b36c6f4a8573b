//! A team whose project is on another machine (issue 49, item 4; ADR 0039): `team new --project
//! HOST:PATH` makes its members' copies there as git worktrees of the repository there, and the
//! merge, the conflict, the undo and the discard are done there, under the project's lock there
//! — held by someone else, the merge waits for it. Against the private sshd (the "other
//! machine" is a folder of its own: its data, cache and runtime folders).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::far_members::{Far, ONE_AT_A_TIME, copy_of, read};
use crate::common;
use common::{BIN, git};

/// The project there: a git repository in the other machine's folder.
fn project_there(p: &Far) -> PathBuf {
    let app = p.there.join("projects/app");
    std::fs::create_dir_all(app.join("src")).unwrap();
    std::fs::write(app.join("notes.txt"), "first\nsecond\nthird\n").unwrap();
    std::fs::write(app.join("src/lib.rs"), "pub fn one() -> u32 {\n    1\n}\n").unwrap();
    git(&app, &["init", "-q", "-b", "main"]);
    git(&app, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&app, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    app
}

/// The processes that hold `file` open.
fn holders(file: &Path) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let fds = std::fs::read_dir(entry.path().join("fd")).into_iter().flatten().flatten();
        if fds.into_iter().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == file)) {
            found.push(pid);
        }
    }
    found
}

/// Waits until `done` (two minutes at most: then the test fails, saying `what`).
fn wait_for(what: &str, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "{what}: never");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_project_on_another_machine_is_merged_there_under_its_lock_there() {
    if !common::ssh::available() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let p = Far::new(&["ada", "bob"], &[], None);
    // An agent of this computer too.
    let mut config = std::fs::read_to_string(&p.config).unwrap();
    let home = p.root.join("home");
    config.push_str(&format!(
        "\n[[agent]]\nname = \"cleo\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {home:?}\n"
    ));
    std::fs::write(&p.config, config).unwrap();
    let app = project_there(&p);
    let far = format!("{}:{}", common::ssh::FAR, app.display());

    // Its members are agents that run there: one of this computer is refused in words.
    let (code, out, err) = p.team(&["new", "--project", &far, "--agent", "cleo", "--name", "no"]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(err.contains("cleo does not run there"), "{err}");

    let made = p.json(&["new", "--project", &far, "--agent", "ada", "--agent", "bob", "--name", "app", "--json"]);
    assert_eq!(made["project"], far.as_str(), "{made}");
    let (ada, kept) = copy_of(&made, "ada · app");
    let (bob, _) = copy_of(&made, "bob · app");
    assert_eq!(kept, format!("ssh {}", common::ssh::FAR), "{made}");
    // Git worktrees of the repository there, in the other machine's teams folder.
    let far_teams = p.there.join("data/sidekicks/far-teams");
    assert!(ada.starts_with(&far_teams) && bob.starts_with(&far_teams), "{made}");
    let worktrees = git(&app, &["worktree", "list"]);
    assert!(worktrees.contains(ada.to_str().unwrap()) && worktrees.contains(bob.to_str().unwrap()), "{worktrees}");
    // Nothing of it on this computer but the team's record.
    let here = p.root.join("user/data/sidekicks/teams");
    let copies_here: Vec<_> = walk(&here).into_iter().filter(|f| f.ends_with("notes.txt")).collect();
    assert!(copies_here.is_empty(), "{copies_here:?}");

    // Ada's member works there: the demo agent, started over SSH in her copy.
    let (code, out, err) = p.team(&["prompt", "app", "ada", "--allow", "once", "files"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(ada.join("notes/demo.md").is_file(), "{out}{err}");
    std::fs::write(ada.join("notes.txt"), "first\nsecond (Ada)\nthird\n").unwrap();
    std::fs::write(bob.join("notes.txt"), "first\nsecond (Bob)\nthird\n").unwrap();
    std::fs::write(bob.join("src/bob.rs"), "pub const BOB: u32 = 2;\n").unwrap();
    let (code, diff, err) = p.team(&["diff", "app", "ada"]);
    assert_eq!(code, 0, "{err}");
    assert!(diff.contains("-second\n+second (Ada)\n"), "{diff}");

    // Ada merges there; Bob's same line is a conflict told in his copy, nothing of his applied.
    let (code, out, err) = p.team(&["merge", "app", "ada"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&app, "notes.txt"), "first\nsecond (Ada)\nthird\n");
    assert_eq!(read(&app, "notes/demo.md"), read(&ada, "notes/demo.md"));
    let (code, out, err) = p.team(&["merge", "app", "bob"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("bob · app: conflicts: 1 (nothing applied)"), "{out}");
    assert!(read(&bob, "notes.txt").contains("<<<<<<< main\n"), "told in his copy there");
    assert!(!app.join("src/bob.rs").exists());
    std::fs::write(bob.join("notes.txt"), "first\nsecond (Ada and Bob)\nthird\n").unwrap();
    // The radar reads the project there: Bob's change of a file the project kept as it was is
    // no collision.
    std::fs::write(bob.join("src/lib.rs"), "pub fn one() -> u32 {\n    1 // Bob\n}\n").unwrap();
    std::fs::write(app.join("notes.txt"), "first\nsecond (Ada)\nthird, later\n").unwrap();
    let status = p.json(&["status", "app", "--json"]);
    let overlaps: Vec<String> =
        status["overlaps"].as_array().unwrap().iter().map(|o| o["path"].as_str().unwrap().to_string()).collect();
    assert_eq!(overlaps, ["notes.txt"], "{status}");
    std::fs::write(app.join("notes.txt"), "first\nsecond (Ada)\nthird\n").unwrap();

    // Someone else holds the project's lock there: Bob's merge waits for it, and writes nothing.
    let locks = p.there.join("run/sidekicks/locks");
    let lock: Vec<PathBuf> = std::fs::read_dir(&locks).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(lock.len(), 1, "the project's lock is there: {lock:?}");
    let lock = lock[0].clone();
    let mut holder = Command::new("flock")
        .arg(&lock)
        .args(["sh", "-c", "echo held; exec cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(holder.stdout.take().unwrap()), &mut said).unwrap();
    assert_eq!(said, "held\n");
    let ours = holders(&lock);
    let mut merging = p.spawn_team(&["merge", "app", "bob"]);
    // Its lock is the first thing a merge takes: once the far side has the file open, it waits.
    wait_for("the merge there waiting for the project's lock", || holders(&lock).iter().any(|pid| !ours.contains(pid)));
    assert!(merging.try_wait().unwrap().is_none(), "the merge waits");
    assert!(!app.join("src/bob.rs").exists(), "nothing written while the lock is held");
    assert_eq!(read(&app, "notes.txt"), "first\nsecond (Ada)\nthird\n");
    drop(holder.stdin.take());
    holder.wait().unwrap();
    let out = merging.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(read(&app, "notes.txt"), "first\nsecond (Ada and Bob)\nthird\n");
    assert_eq!(read(&app, "src/bob.rs"), "pub const BOB: u32 = 2;\n");
    assert_eq!(read(&app, "src/lib.rs"), "pub fn one() -> u32 {\n    1 // Bob\n}\n");
    let status = p.json(&["status", "app", "--json"]);
    for member in status["members"].as_array().unwrap() {
        assert_eq!(member["changes"], serde_json::json!([]), "the bases moved there: {status}");
    }

    // Undone there.
    let (code, out, err) = p.team(&["undo", "app"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&app, "notes.txt"), "first\nsecond (Ada)\nthird\n");
    assert!(!app.join("src/bob.rs").exists());
    let (code, out, err) = p.team(&["undo", "app"]);
    assert_ne!(code, 0, "only the last merge: {out}{err}");

    // Changes chosen from both copies, taken into the project there at once.
    std::fs::write(ada.join("notes.txt"), "first (Ada)\nsecond (Ada)\nthird\n").unwrap();
    let (code, out, err) = p.team(&["take", "app", "ada:notes.txt:1", "bob:src/bob.rs:1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&app, "notes.txt"), "first (Ada)\nsecond (Ada)\nthird\n");
    assert_eq!(read(&app, "src/bob.rs"), "pub const BOB: u32 = 2;\n");
    assert_eq!(read(&app, "src/lib.rs"), "pub fn one() -> u32 {\n    1\n}\n", "only what was chosen");

    // Discarded: the worktrees there are removed.
    let (code, out, err) = p.team(&["discard", "app"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!ada.exists() && !bob.exists(), "the copies there are removed");
    // Their worktrees are kept there for a next team of the project (`teams::spare`).
    let worktrees = git(&app, &["worktree", "list"]);
    let others: Vec<&str> = worktrees.lines().skip(1).collect();
    assert!(others.len() == 2 && others.iter().all(|w| w.contains("/far-teams/.spare/")), "{worktrees}");
}

/// Every file below `root`.
fn walk(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type().is_ok_and(|t| t.is_dir()) {
                true => stack.push(path),
                false => found.push(path),
            }
        }
    }
    found
}

/// The project's recipe there: its files copied and its setup run in each copy there, its check
/// run in the project there after a merge; a recipe a member wrote runs there only once the
/// person accepts it.
#[test]
fn the_recipe_of_a_project_there_works_there_and_a_members_runs_only_once_accepted() {
    if !common::ssh::available() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let p = Far::new(&["ada"], &[], None);
    let app = project_there(&p);
    std::fs::create_dir_all(app.join(".sidekicks")).unwrap();
    std::fs::write(app.join(".gitignore"), ".env\n").unwrap();
    std::fs::write(app.join(".env"), "SECRET=there\n").unwrap();
    std::fs::write(app.join("status.txt"), "ok\n").unwrap();
    let recipe = "copy = [\".env\"]\nsetup = \"cat .env > setup-saw.txt; echo port $PORT >> setup-saw.txt\"\n\
                  [check]\ncommand = \"grep -q '^ok' status.txt || { echo 'status is not ok'; exit 1; }\"\n\
                  [ports]\nbase = 4300\nnames = [\"PORT\"]\n";
    std::fs::write(app.join(".sidekicks/team.toml"), recipe).unwrap();
    git(&app, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&app, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "recipe"]);
    let far = format!("{}:{}", common::ssh::FAR, app.display());

    let made = p.json(&["new", "--project", &far, "--agent", "ada", "--name", "app", "--json"]);
    let (ada, _) = copy_of(&made, "ada · app");
    assert_eq!(read(&ada, ".env"), "SECRET=there\n", "the recipe's file, copied there");
    assert_eq!(read(&ada, "setup-saw.txt"), "SECRET=there\nport 4310\n", "the setup ran there with its port");

    // A merge that breaks the check: applied, the check failed there, said; undone.
    std::fs::write(ada.join("status.txt"), "broken\n").unwrap();
    let (code, out, err) = p.team(&["merge", "app", "ada"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("the check after the merge failed (exit code 1)"), "{out}{err}");
    assert_eq!(read(&app, "status.txt"), "broken\n");
    let (code, out, err) = p.team(&["undo", "app"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&app, "status.txt"), "ok\n");

    // Ada writes a recipe whose check would run a command of hers there: merged, never run.
    let ran = p.there.join("ran");
    let hers = format!("[check]\ncommand = \"echo ran >> {}\"\n", ran.display());
    std::fs::write(ada.join(".sidekicks/team.toml"), &hers).unwrap();
    std::fs::write(ada.join("status.txt"), "ok\nstill\n").unwrap();
    let (code, out, err) = p.team(&["merge", "app", "ada"]);
    let said = format!("{out}{err}");
    assert_eq!(read(&app, ".sidekicks/team.toml"), hers, "{said}");
    assert!(!ran.exists(), "the member's check ran after its own merge: {said}");
    assert_ne!(code, 0, "{said}");
    assert!(said.contains("written by ada · app") && said.contains("accept-recipe"), "{said}");
    // Accepted by name (there): it runs.
    let (code, out, err) = p.team(&["accept-recipe", "app"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("written by ada · app"), "{out}");
    std::fs::write(ada.join("status.txt"), "ok\nstill\nagain\n").unwrap();
    let (code, out, err) = p.team(&["merge", "app", "ada"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "ran\n");
    let (code, out, err) = p.team(&["discard", "app"]);
    assert_eq!(code, 0, "{out}{err}");
}
