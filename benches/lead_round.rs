//! A lead's round trip (issue 47) against the same work done by hand, through the command line:
//! a team of 4 demo members and a demo lead; each member writes a note of its own. The lead side
//! is one `sidekicks team lead` whose lead assigns the 4 tasks with its `sidekicks-team` tools,
//! waits for them and merges them all (the recipe lets it: `lead_merges = "allow"`); the hand
//! side is what a person's script does without a lead: `sidekicks team prompt` to each member in
//! turn, then `sidekicks team merge`. Each round uses a fresh clone of the project and a new team
//! per side (not timed); each side's time is the median of three rounds, the rounds alternating
//! which side goes first.
//!
//! Run: `cargo bench --bench lead_round`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_sidekicks");
const MEMBERS: usize = 4;
const ROUNDS: usize = 3;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// `sidekicks --config CONFIG team ARGS` with the person's folders under `root/user`; must succeed.
fn team(root: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .arg("--config")
        .arg(root.join("sidekicks.toml"))
        .arg("team")
        .args(args)
        .env("HOME", root.join("user"))
        .env("XDG_DATA_HOME", root.join("user/data"))
        .env("XDG_CONFIG_HOME", root.join("user/config"))
        .env("XDG_STATE_HOME", root.join("user/state"))
        .env("XDG_RUNTIME_DIR", root.join("user"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "team {args:?}: {text}{}", String::from_utf8_lossy(&out.stderr));
    text
}

/// A fresh clone of `origin` with the recipe, and a team `name` of the members and the lead on it.
fn made(root: &Path, origin: &Path, name: &str) -> PathBuf {
    let project = root.join(name);
    let out = Command::new("git").args(["clone", "-q"]).arg(origin).arg(&project).output().unwrap();
    assert!(out.status.success());
    let project_arg = project.display().to_string();
    let mut args = vec!["new", "--project", &project_arg, "--name", name, "--lead", "lead"];
    let agents: Vec<String> = (0..MEMBERS).map(|k| format!("m{k}")).collect();
    for a in &agents {
        args.extend(["--agent", a.as_str()]);
    }
    team(root, &args);
    project
}

fn lead_side(root: &Path, origin: &Path, name: &str) -> f64 {
    let project = made(root, origin, name);
    let mut goal: Vec<String> = (0..MEMBERS)
        .map(|k| {
            format!(
                r#"call sidekicks-team assign {{"team": "{name}", "member": "m{k}", "task": "files into m{k}: work"}}"#
            )
        })
        .collect();
    // The lead leads every round's teams: each call names this one.
    goal.push(format!(r#"call sidekicks-team wait {{"team": "{name}", "timeout_s": 600}}"#));
    goal.push(format!(r#"call sidekicks-team merge {{"team": "{name}"}}"#));
    let goal = goal.join("\n");
    let start = Instant::now();
    let said = team(root, &["lead", name, "--allow", "once", &goal]);
    let took = start.elapsed().as_secs_f64();
    for k in 0..MEMBERS {
        assert!(project.join(format!("notes/m{k}.md")).is_file(), "the lead merged m{k}'s note: {said}");
    }
    took
}

fn hand_side(root: &Path, origin: &Path, name: &str) -> f64 {
    let project = made(root, origin, name);
    let start = Instant::now();
    for k in 0..MEMBERS {
        team(root, &["prompt", name, &format!("m{k}"), "--allow", "once", &format!("files into m{k}: work")]);
    }
    team(root, &["merge", name]);
    let took = start.elapsed().as_secs_f64();
    for k in 0..MEMBERS {
        assert!(project.join(format!("notes/m{k}.md")).is_file(), "m{k}'s note merged");
    }
    took
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let origin = root.join("origin");
    std::fs::create_dir_all(origin.join(".sidekicks")).unwrap();
    std::fs::write(origin.join("notes.txt"), "first\nsecond\nthird\n").unwrap();
    std::fs::write(origin.join(".sidekicks/team.toml"), "lead_merges = \"allow\"\n").unwrap();
    git(&origin, &["init", "-q", "-b", "main"]);
    git(&origin, &["-c", "user.name=B", "-c", "user.email=b@x", "add", "-A"]);
    git(&origin, &["-c", "user.name=B", "-c", "user.email=b@x", "commit", "-q", "-m", "start"]);
    let home = root.join("home");
    std::fs::create_dir(&home).unwrap();
    let mut config = String::from("[defaults]\n");
    for name in (0..MEMBERS).map(|k| format!("m{k}")).chain(["lead".to_string()]) {
        config.push_str(&format!(
            "\n[[agent]]\nname = {name:?}\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n",
            home.display().to_string()
        ));
    }
    std::fs::write(root.join("sidekicks.toml"), config).unwrap();
    let (mut lead, mut hand) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (l, h) = (format!("lead{round}"), format!("hand{round}"));
        if round % 2 == 0 {
            lead.push(lead_side(root, &origin, &l));
            hand.push(hand_side(root, &origin, &h));
        } else {
            hand.push(hand_side(root, &origin, &h));
            lead.push(lead_side(root, &origin, &l));
        }
    }
    let (l, h) = (median(lead.clone()), median(hand.clone()));
    println!(
        "lead_round: {MEMBERS} members, one note each: the lead (assign ×{MEMBERS}, wait, merge) {l:.2} s {lead:.2?}; by hand (team prompt ×{MEMBERS}, team merge) {h:.2} s {hand:.2?}; ratio lead / by hand {:.2}",
        l / h
    );
}
