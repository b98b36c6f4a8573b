//! Copies kept for the next team (issue 50, `teams::spare`): a discarded member's worktree serves
//! the next team of its project, made exactly the commit again — whatever the member left in it
//! (changed, deleted, untracked and ignored files, a nested repository, a link out, its own git
//! folder whose settings would run a command) — and is never given to another project.

use std::path::{Path, PathBuf};

use crate::common;
use common::team_run::team;
use common::{BIN, config_text, git};

fn project(root: &Path, name: &str) -> PathBuf {
    let project = root.join(name);
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("notes.txt"), "one\n").unwrap();
    std::fs::write(project.join("src/lib.rs"), "pub fn one() {}\n").unwrap();
    std::fs::write(project.join(".gitignore"), "target/\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    project
}

/// A config of two demo agents, ada and bob, at home in `root/home`.
fn two_agents(root: &Path) -> PathBuf {
    let home = root.join("home");
    std::fs::create_dir(&home).unwrap();
    let config = root.join("sidekicks.toml");
    let agents = [("ada", BIN, &["demo-agent"][..]), ("bob", BIN, &["demo-agent"][..])];
    std::fs::write(&config, config_text("", &agents, &home)).unwrap();
    config
}

/// Makes team `name` of `agent` on `project`: its member's copy.
fn made(config: &Path, root: &Path, project: &Path, name: &str, agent: &str) -> PathBuf {
    let args = ["new", "--project", project.to_str().unwrap(), "--agent", agent, "--name", name, "--json"];
    let (code, out, err) = team(config, root, &args);
    assert_eq!(code, 0, "{out}{err}");
    let made: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    PathBuf::from(made["members"][0]["copy"].as_str().unwrap())
}

/// The spares kept for each project (their folders below the teams folder's `.spare`).
fn spares(root: &Path) -> Vec<PathBuf> {
    let dir = root.join("user/data/sidekicks/teams/.spare");
    let per_project = std::fs::read_dir(dir).into_iter().flatten().flatten();
    per_project.flat_map(|p| std::fs::read_dir(p.path()).unwrap().flatten().map(|e| e.path())).collect()
}

#[test]
fn a_discarded_worktree_serves_the_next_team_exactly_as_the_commit_and_trusted_in_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let config = two_agents(root);
    let app = project(root, "app");
    let ada = made(&config, root, &app, "first", "ada");

    // Ada leaves all she can.
    std::fs::write(ada.join("notes.txt"), "changed\n").unwrap();
    std::fs::remove_file(ada.join("src/lib.rs")).unwrap();
    std::fs::write(ada.join("untracked.txt"), "mine\n").unwrap();
    std::fs::create_dir_all(ada.join("target")).unwrap();
    std::fs::write(ada.join("target/out.o"), "built\n").unwrap();
    let nested = ada.join("vendor/thing");
    std::fs::create_dir_all(&nested).unwrap();
    git(&nested, &["init", "-q"]);
    let outside = root.join("outside.txt");
    std::fs::write(&outside, "keep me\n").unwrap();
    std::os::unix::fs::symlink(&outside, ada.join("link-out")).unwrap();
    std::os::unix::fs::symlink(root, ada.join("src/dir-out")).unwrap();
    // Her own git folder, whose settings would run a command, named by her copy's `.git`.
    let ran = root.join("ran");
    let evil = ada.join(".evil-git");
    let copied = std::process::Command::new("cp").arg("-r").arg(app.join(".git")).arg(&evil).status().unwrap();
    assert!(copied.success());
    let _ = std::fs::remove_dir_all(evil.join("worktrees"));
    let hook = format!("echo ran >> {}", ran.display());
    git(&evil, &["config", "core.fsmonitor", &hook]);
    git(&evil, &["config", "core.hooksPath", "/nonexistent"]);
    std::fs::write(ada.join(".git"), "gitdir: .evil-git\n").unwrap();

    let (code, out, err) = team(&config, root, &["discard", "first"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!ada.exists());
    assert_eq!(spares(root).len(), 1, "kept for the next team");

    // The next team of the project gets it: exactly the commit, nothing of Ada's.
    let bob = made(&config, root, &app, "second", "bob");
    assert!(spares(root).is_empty(), "the spare was taken");
    assert_eq!(std::fs::read_to_string(bob.join("notes.txt")).unwrap(), "one\n");
    assert_eq!(std::fs::read_to_string(bob.join("src/lib.rs")).unwrap(), "pub fn one() {}\n");
    for left in ["untracked.txt", "target", "vendor", "link-out", "src/dir-out", ".evil-git"] {
        assert!(std::fs::symlink_metadata(bob.join(left)).is_err(), "{left} is still there");
    }
    let dot_git = std::fs::read_to_string(bob.join(".git")).unwrap();
    let admin = dot_git.trim().strip_prefix("gitdir: ").unwrap();
    assert!(Path::new(admin).starts_with(app.join(".git/worktrees")), "{dot_git}");
    assert_eq!(git(&bob, &["status", "--porcelain", "--ignored"]), "");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me\n");
    assert!(root.join("home").exists() && app.join("notes.txt").exists(), "nothing outside was touched");
    assert!(!ran.exists(), "a member's git settings ran: {}", std::fs::read_to_string(&ran).unwrap_or_default());
    // Bob's team works as any: his change merges.
    std::fs::write(bob.join("notes.txt"), "one\ntwo\n").unwrap();
    let (code, out, err) = team(&config, root, &["merge", "second"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(app.join("notes.txt")).unwrap(), "one\ntwo\n");

    // A spare is never another project's.
    let (code, out, err) = team(&config, root, &["discard", "second"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(spares(root).len(), 1);
    let other = project(root, "other");
    let copy = made(&config, root, &other, "third", "ada");
    assert_eq!(spares(root).len(), 1, "the other project's team made its own");
    assert_eq!(git(&copy, &["status", "--porcelain", "--ignored"]), "");
    assert!(git(&other, &["worktree", "list"]).contains(copy.to_str().unwrap()));
}

/// The spares of each project, not counting copies being made (`.spare/.making`).
fn ready(root: &Path) -> Vec<PathBuf> {
    spares(root).into_iter().filter(|p| !p.parent().unwrap().ends_with(".making")).collect()
}

#[test]
fn copies_made_ahead_serve_the_next_team_and_a_half_copy_left_behind_is_removed_without_following_its_links() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let config = two_agents(root);
    let app = project(root, "app");
    let prepare = |members: &str| {
        team(&config, root, &["prepare", "--project", app.to_str().unwrap(), "--members", members, "--json"])
    };

    let (code, out, err) = prepare("1");
    assert_eq!(code, 0, "{out}{err}");
    let said: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(said["ready"], 1, "{out}");
    assert_eq!(ready(root).len(), 1);
    // A process that ended while making a copy left half of one, with links out of it.
    let key = ready(root)[0].parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
    let half = root.join(format!("user/data/sidekicks/teams/.spare/.making/{key}-1"));
    std::fs::create_dir_all(half.join("src")).unwrap();
    let outside = root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "keep me\n").unwrap();
    std::os::unix::fs::symlink(&outside, half.join("src/out")).unwrap();
    std::os::unix::fs::symlink(outside.join("keep.txt"), half.join("keep-link")).unwrap();
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 3600);
    std::fs::File::open(&half).unwrap().set_modified(two_hours_ago).unwrap();
    // One being made now by another process is left alone.
    let young = half.with_file_name(format!("{key}-2"));
    std::fs::create_dir_all(&young).unwrap();

    let (code, out, err) = prepare("2");
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(serde_json::from_str::<serde_json::Value>(out.trim()).unwrap()["ready"], 2, "{out}");
    assert!(!half.exists(), "the half copy left behind is removed");
    assert!(young.exists(), "a copy another process is making is not touched");
    assert_eq!(std::fs::read_to_string(outside.join("keep.txt")).unwrap(), "keep me\n", "its links were not followed");
    // The copies are worktrees of the project, exactly its commit.
    let listed = git(&app, &["worktree", "list"]);
    for spare in ready(root) {
        assert!(listed.contains(spare.to_str().unwrap()), "{listed}");
        assert_eq!(git(&spare, &["status", "--porcelain", "--ignored"]), "");
    }

    // A copy made ahead is given as it is only when it is exactly the commit (no git process):
    // what was written into one meanwhile is not trusted — an ignored file in one, a file changed
    // in the other with its size and time put back.
    let spares = ready(root);
    std::fs::create_dir(spares[0].join("target")).unwrap();
    std::fs::write(spares[0].join("target/out.o"), "built\n").unwrap();
    let notes = spares[1].join("notes.txt");
    let written_at = std::fs::metadata(&notes).unwrap().modified().unwrap();
    std::fs::write(&notes, "two\n").unwrap();
    std::fs::File::options().write(true).open(&notes).unwrap().set_modified(written_at).unwrap();

    // The team of two takes both, its members' copies exactly the commit.
    let args =
        ["new", "--project", app.to_str().unwrap(), "--agent", "ada", "--agent", "bob", "--name", "duo", "--json"];
    let (code, out, err) = team(&config, root, &args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(ready(root).is_empty(), "both were taken: {:?}", ready(root));
    let made: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let copies: Vec<PathBuf> = (0..2).map(|k| PathBuf::from(made["members"][k]["copy"].as_str().unwrap())).collect();
    for copy in &copies {
        assert_eq!(std::fs::read_to_string(copy.join("notes.txt")).unwrap(), "one\n");
        assert!(!copy.join("target").exists());
        assert_eq!(git(copy, &["status", "--porcelain", "--ignored"]), "");
    }
    std::fs::write(copies[1].join("notes.txt"), "one\ntwo\n").unwrap();
    let (code, out, err) = team(&config, root, &["merge", "duo"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(app.join("notes.txt")).unwrap(), "one\ntwo\n");

    // What cannot have copies made ahead says why, in words.
    let plain = root.join("plain");
    std::fs::create_dir(&plain).unwrap();
    let (code, out, err) = team(&config, root, &["prepare", "--project", plain.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("git"), "{err}");
}
