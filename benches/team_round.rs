//! A team's whole round trip through the command line (issue 33), on a generated git project of
//! 3,600 files: `sidekicks team new` with 2, 4 and 8 demo members (git worktrees), each member
//! changing 20 files of its copy, then `sidekicks team merge` of all of them — against doing the
//! same by hand: per member `git worktree add`, the same 20 files, `git add -A && git commit`,
//! then `git merge` of each member's branch. Both sides start processes the same way (one per
//! command) and write the same files; each side's time is the median of three rounds, the rounds
//! alternating which side goes first; the first round (the project's first team) is printed on its
//! own, the rounds after it make a team again (a discarded team's worktrees are kept for the
//! next, `teams::spare`). Memory: the largest resident size of the `team new` and
//! `team merge` processes (their own, not the agents': members are not started by a merge), per
//! member count. Last, the project's first team of another person whose copies were made while
//! the task was written (`sidekicks team prepare`, as the window's form asks; timed on its own).
//!
//! Run: `cargo perf --bench team_round`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "common/person.rs"]
mod person;

const TRACKED: usize = 3600;
const CHANGED: usize = 20;
const ROUNDS: usize = 3;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn generate(project: &Path) {
    for i in 0..TRACKED {
        let path = project.join(format!("src/mod{}/file{i}.rs", i % 180));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = (0..60).map(|l| format!("// file {i}, line {l}: some code here\n")).collect();
        std::fs::write(path, text).unwrap();
    }
    git(project, &["init", "-q", "-b", "main"]);
    git(project, &["-c", "user.name=B", "-c", "user.email=b@x", "add", "-A"]);
    git(project, &["-c", "user.name=B", "-c", "user.email=b@x", "commit", "-q", "-m", "start"]);
    git(project, &["gc", "-q"]);
}

/// Member `k`'s work in `copy`: a line changed in each of its 20 files.
fn work(copy: &Path, k: usize) {
    for i in k * CHANGED..(k + 1) * CHANGED {
        let path = copy.join(format!("src/mod{}/file{i}.rs", i % 180));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("line 30: some code", &format!("line 30: member {k}'s code"), 1)).unwrap();
    }
}

/// Runs `command` to its end (it must succeed); returns what it printed and its largest
/// resident size in KiB.
fn run(command: &mut Command) -> (String, u64) {
    use std::io::Read;
    let mut child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let pid = child.id() as i32;
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let mut status = 0;
    // SAFETY: an empty rusage the kernel fills in for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits once for our own child (std's handle is not waited on after).
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{stdout}{stderr}");
    drop(child);
    (stdout, usage.ru_maxrss as u64)
}

struct Person {
    root: PathBuf,
    config: PathBuf,
}

impl Person {
    fn new(root: &Path, members: usize) -> Self {
        let mut text = String::new();
        for k in 0..members {
            text.push_str(&format!(
                "[[agent]]\nname = \"m{k}\"\ncommand = {:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n\n",
                env!("CARGO_BIN_EXE_sidekicks"),
                root.display().to_string()
            ));
        }
        let config = root.join("sidekicks.toml");
        std::fs::write(&config, text).unwrap();
        Self { root: root.to_path_buf(), config }
    }

    fn team(&self, args: &[&str]) -> (String, u64) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_sidekicks"));
        run(person::as_person(command.arg("--config").arg(&self.config).arg("team").args(args), &self.root))
    }
}

/// Our round trip; returns its seconds and the largest resident size (KiB) of its processes.
fn ours(dir: &Path, project: &Path, members: usize) -> (f64, u64) {
    let person = Person::new(dir, members);
    let t = Instant::now();
    let mut args: Vec<String> = vec!["new".into(), "--project".into(), project.display().to_string()];
    for k in 0..members {
        args.extend(["--agent".into(), format!("m{k}")]);
    }
    args.extend(["--name".into(), "bench".into(), "--json".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (made, rss_new) = person.team(&args);
    let made: serde_json::Value = serde_json::from_str(made.trim()).unwrap();
    for k in 0..members {
        work(Path::new(made["members"][k]["copy"].as_str().unwrap()), k);
    }
    let (merged, rss_merge) = person.team(&["merge", "bench"]);
    let seconds = t.elapsed().as_secs_f64();
    assert_eq!(merged.matches(&format!("merged: {CHANGED} applied")).count(), members, "{merged}");
    // The team goes and the project is put back, so the next round starts from the same one.
    person.team(&["discard", "bench"]);
    git(project, &["reset", "-q", "--hard"]);
    (seconds, rss_new.max(rss_merge))
}

/// The same by hand with git; returns its seconds.
fn by_hand(dir: &Path, project: &Path, members: usize) -> f64 {
    let t = Instant::now();
    let head = {
        let out = Command::new("git").arg("-C").arg(project).args(["rev-parse", "HEAD"]).output().unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    for k in 0..members {
        let wt = dir.join(format!("hand{k}"));
        git(project, &["worktree", "add", "--quiet", "-b", &format!("hand{k}"), wt.to_str().unwrap()]);
        work(&wt, k);
        git(&wt, &["add", "-A"]);
        git(&wt, &["-c", "user.name=B", "-c", "user.email=b@x", "commit", "-q", "-m", "work"]);
    }
    for k in 0..members {
        git(project, &["-c", "user.name=B", "-c", "user.email=b@x", "merge", "-q", "--no-edit", &format!("hand{k}")]);
    }
    let seconds = t.elapsed().as_secs_f64();
    // Back to where it was, so the next round starts from the same project.
    git(project, &["reset", "-q", "--hard", &head]);
    for k in 0..members {
        git(project, &["worktree", "remove", "--force", dir.join(format!("hand{k}")).to_str().unwrap()]);
        git(project, &["branch", "-q", "-D", &format!("hand{k}")]);
    }
    seconds
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    generate(&project);
    for members in [2, 4, 8] {
        // One person for every round: the first team of the project, then teams made again (a
        // discarded team's worktrees are kept for the next, `teams::spare`).
        let here = dir.path().join(format!("m{members}"));
        std::fs::create_dir_all(&here).unwrap();
        let (mut first, mut again, mut hand, mut rss) = (0.0, Vec::new(), Vec::new(), Vec::new());
        for round in 0..=ROUNDS {
            let mut measure_ours = || {
                let (s, r) = ours(&here, &project, members);
                match round {
                    0 => first = s,
                    _ => again.push(s),
                }
                rss.push(r);
            };
            if round % 2 == 0 {
                measure_ours();
                hand.push(by_hand(&here, &project, members));
            } else {
                hand.push(by_hand(&here, &project, members));
                measure_ours();
            }
        }
        // The project's first team again, for another person, its copies made while the task is
        // written (`sidekicks team prepare`, as the window's form does): timed on its own.
        let ahead_dir = dir.path().join(format!("ahead{members}"));
        std::fs::create_dir_all(&ahead_dir).unwrap();
        let t = Instant::now();
        let (said, _) = Person::new(&ahead_dir, members).team(&[
            "prepare",
            "--project",
            project.to_str().unwrap(),
            "--members",
            &members.to_string(),
        ]);
        let made_ahead = t.elapsed().as_secs_f64();
        assert!(said.contains(&format!("{members} copies")), "{said}");
        let (first_ahead, _) = ours(&ahead_dir, &project, members);
        let (m, h) = (median(&mut again), median(&mut hand));
        let rss = rss.iter().max().copied().unwrap_or(0);
        println!(
            "round trip, {members} members x {CHANGED} files: sidekicks team {:.0} ms (the project's first team {:.0} ms), by hand with git {:.0} ms ({:.2}x git; first team {:.2}x); largest sidekicks process {} MiB",
            m * 1000.0,
            first * 1000.0,
            h * 1000.0,
            m / h,
            first / h,
            rss / 1024
        );
        println!(
            "  the project's first team with its copies made ahead: {:.0} ms ({:.2}x git; the copies took {:.0} ms while the task was written)",
            first_ahead * 1000.0,
            first_ahead / h,
            made_ahead * 1000.0
        );
    }
}
