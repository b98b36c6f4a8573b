//! Members whose copies are kept on another machine (issue 49), over SSH against the private
//! sshd of `scripts/ssh-test-env.sh` on 127.0.0.1 (the "other machine" is this one, its folders
//! its own; the network adds nothing). On a generated git project of 3,600 files, each side's
//! time the median of five rounds, the rounds alternating which side goes first, every command
//! through the same shared connection (ControlMaster), warmed first:
//! - making a member's copy there: the copy service making it from the project's files sent
//!   from here, against `ssh HOST git -C PROJECT worktree add` (the project already there);
//! - merging a member's 50 changed files: the copy service's merge (changes listed there, the
//!   sides read, git's merge here), against `git fetch ssh://HOST/…` + `git merge` of the same 50
//!   files committed there;
//! - the bytes the copy service moved per merge (both ways), beside the size of git's pack of the
//!   same commit.
//!
//! Run: `eval "$(scripts/ssh-test-env.sh)"; cargo bench --bench far_copies`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use sidekicks::runtime::copies::client::traffic;
use sidekicks::runtime::copies::place::{Place, use_binary};
use sidekicks::runtime::teams::{MemberCopy, far, merge};

const TRACKED: usize = 3600;
const CHANGED: usize = 50;
const ROUNDS: usize = 5;
const HOST: &str = "sidekicks-test-far";

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
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

/// A line changed in each of 50 files of `copy`.
fn work(copy: &Path, round: usize) {
    for i in 0..CHANGED {
        let path = copy.join(format!("src/mod{}/file{i}.rs", i % 180));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("line 30: some code", &format!("line 30: round {round}'s code"), 1))
            .unwrap();
    }
}

/// This bench's SSH config: the far host with its folders below `there`.
fn ssh_config(dir: &Path, there: &Path) -> PathBuf {
    let base =
        std::fs::read_to_string(std::env::var("SIDEKICKS_SSH_CONFIG").expect("run scripts/ssh-test-env.sh")).unwrap();
    let block: Vec<&str> = base
        .lines()
        .skip_while(|l| l.trim() != format!("Host {HOST}"))
        .skip(1)
        .take_while(|l| !l.starts_with("Host "))
        .filter(|l| !l.trim().starts_with("SetEnv"))
        .collect();
    assert!(!block.is_empty(), "{HOST} is not in the SSH config: run scripts/ssh-test-env.sh again");
    let mut text = format!("Host {HOST}\n{}\n", block.join("\n"));
    let (data, cache) = (there.join("data"), there.join("cache"));
    text.push_str(&format!("  SetEnv XDG_DATA_HOME={} XDG_CACHE_HOME={}\n", data.display(), cache.display()));
    let path = dir.join("ssh_config");
    std::fs::write(&path, text).unwrap();
    path
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[derive(Clone)]
struct Bench {
    dir: PathBuf,
    project: PathBuf,
    place: Place,
    ssh: Vec<String>,
}

impl Bench {
    /// `ssh HOST words…` through the shared connection.
    fn ssh(&self, words: &[&str]) {
        let out = Command::new(&self.ssh[0]).args(&self.ssh[1..]).arg(HOST).args(words).output().unwrap();
        assert!(out.status.success(), "ssh {words:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    fn member(&self, round: usize, side: &str) -> MemberCopy {
        let state = self.dir.join(format!("state-{side}-{round}"));
        far::create(&self.project, &self.place, &state, (&format!("bench-{round}"), side), (side, side)).unwrap()
    }

    /// Ours: a member's copy made there.
    fn make_ours(&self, round: usize) -> Duration {
        let start = Instant::now();
        let member = self.member(round, "made");
        let took = start.elapsed();
        member.provider().discard(&member).unwrap();
        took
    }

    /// git's: a worktree added there, through ssh.
    fn make_git(&self, round: usize) -> Duration {
        let wt = self.dir.join(format!("wt-{round}"));
        let (project, wt_text) = (self.project.display().to_string(), wt.display().to_string());
        let start = Instant::now();
        self.ssh(&["git", "-C", &project, "worktree", "add", "-q", "--detach", &wt_text]);
        let took = start.elapsed();
        git(&self.project, &["worktree", "remove", "--force", &wt_text]);
        took
    }

    /// Ours: a member's 50 changed files merged here; the bytes moved.
    fn merge_ours(&self, round: usize) -> (Duration, u64) {
        let member = self.member(round, "merged");
        work(&member.copy, round);
        let (sent, received) = traffic();
        let start = Instant::now();
        let report = merge(&member, None).unwrap();
        let took = start.elapsed();
        let (sent2, received2) = traffic();
        assert_eq!(report.applied.len(), CHANGED, "{report:?}");
        member.provider().discard(&member).unwrap();
        git(&self.project, &["checkout", "-q", "--", "."]);
        (took, sent2 - sent + received2 - received)
    }

    /// git's: the same 50 files committed there, fetched over ssh and merged; the pack's size.
    fn merge_git(&self, round: usize) -> (Duration, u64) {
        let far = self.dir.join(format!("far-{round}"));
        git(&self.dir, &["clone", "-q", &self.project.display().to_string(), &far.display().to_string()]);
        work(&far, round);
        git(&far, &["-c", "user.name=M", "-c", "user.email=m@x", "commit", "-qam", "work"]);
        let pack = Command::new("sh")
            .arg("-c")
            .arg("git -C \"$1\" rev-list --objects HEAD~1..HEAD | git -C \"$1\" pack-objects --stdout | wc -c")
            .arg("sh")
            .arg(&far)
            .output()
            .unwrap();
        let pack: u64 = String::from_utf8_lossy(&pack.stdout).trim().parse().unwrap_or(0);
        let url = format!("ssh://{HOST}{}", far.display());
        let ssh_command = self.ssh.join(" ");
        let start = Instant::now();
        let fetch = Command::new("git")
            .arg("-C")
            .arg(&self.project)
            .args(["fetch", "-q", &url, "HEAD"])
            .env("GIT_SSH_COMMAND", &ssh_command)
            .output()
            .unwrap();
        assert!(fetch.status.success(), "{}", String::from_utf8_lossy(&fetch.stderr));
        git(&self.project, &["-c", "user.name=B", "-c", "user.email=b@x", "merge", "-q", "--no-edit", "FETCH_HEAD"]);
        let took = start.elapsed();
        git(&self.project, &["reset", "-q", "--hard", "main@{1}"]);
        std::fs::remove_dir_all(&far).unwrap();
        (took, pack)
    }
}

fn main() {
    if std::env::var_os("SIDEKICKS_SSH_CONFIG").is_none() {
        println!("skipped: run eval \"$(scripts/ssh-test-env.sh)\" first");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let there = root.join("there");
    let runtime_dir = root.join("run");
    std::fs::create_dir_all(&runtime_dir).unwrap();
    let config = ssh_config(&root, &there);
    // SAFETY: set once at start, before any thread of this process reads the environment.
    unsafe {
        std::env::set_var("SIDEKICKS_SSH_CONFIG", &config);
        std::env::set_var("XDG_RUNTIME_DIR", &runtime_dir);
    }
    use_binary(env!("CARGO_BIN_EXE_sidekicks").into());
    let project = root.join("project");
    std::fs::create_dir(&project).unwrap();
    generate(&project);
    let control = runtime_dir.join("sidekicks-ssh");
    std::fs::create_dir_all(&control).unwrap();
    std::fs::set_permissions(&control, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let ssh: Vec<String> = [
        "ssh".to_string(),
        "-F".into(),
        config.display().to_string(),
        "-o".into(),
        "ControlMaster=auto".into(),
        "-o".into(),
        format!("ControlPath={}/%C", control.display()),
        "-o".into(),
        "ControlPersist=60".into(),
        "-o".into(),
        "BatchMode=yes".into(),
    ]
    .into();
    let bench = Bench { dir: root.clone(), project, place: Place { runtime: "ssh".into(), target: HOST.into() }, ssh };
    // Warm: the shared connection, the binary sent there, the copy service started.
    bench.ssh(&["true"]);
    let warm = bench.member(99, "warm");
    warm.provider().discard(&warm).unwrap();

    // The same copy made by a copy service on this computer (no ssh): what the wire and the far
    // side's writing cost alone.
    let here = Bench { place: Place { runtime: "local".into(), target: String::new() }, ..bench.clone() };
    let local: Vec<Duration> = (0..ROUNDS).map(|round| here.make_ours(100 + round)).collect();
    println!("member copy by a copy service on this computer: {:>8.1} ms", ms(median(local)));

    let (mut made_ours, mut made_git, mut merged_ours, mut merged_git) = (vec![], vec![], vec![], vec![]);
    let (mut bytes, mut packs) = (vec![], vec![]);
    for round in 0..ROUNDS {
        let ours_first = round % 2 == 0;
        for side in [ours_first, !ours_first] {
            if side {
                made_ours.push(bench.make_ours(round));
                let (took, moved) = bench.merge_ours(round);
                merged_ours.push(took);
                bytes.push(moved);
            } else {
                made_git.push(bench.make_git(round));
                let (took, pack) = bench.merge_git(round);
                merged_git.push(took);
                packs.push(pack);
            }
        }
    }
    let (a, b) = (median(made_ours), median(made_git));
    println!(
        "member copy there, {TRACKED} files: copy service {:>8.1} ms   ssh git worktree add {:>8.1} ms   ratio {:.2}",
        ms(a),
        ms(b),
        ms(a) / ms(b)
    );
    let (a, b) = (median(merged_ours), median(merged_git));
    println!(
        "merge of {CHANGED} files from there:   copy service {:>8.1} ms   git fetch + merge    {:>8.1} ms   ratio {:.2}",
        ms(a),
        ms(b),
        ms(a) / ms(b)
    );
    bytes.sort();
    packs.sort();
    println!(
        "bytes per merge of {CHANGED} files:     copy service {:>8} (both ways)   git's pack of the commit {:>8}",
        bytes[bytes.len() / 2],
        packs[packs.len() / 2]
    );
}
