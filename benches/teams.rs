//! Teams on a generated project like a real one: about 3,600 tracked files in 180 folders and an
//! ignored `node_modules` of 45,000 files. Each measure runs against its reference in the same run:
//! - member creation (git worktree provider) vs `git worktree add --detach` + `ln -s node_modules`,
//!   and vs `cp -a` of the project;
//! - the change scan of a member (50 files changed) vs `git status --porcelain` in its copy;
//! - a checkpoint of the project (50 files changed) vs `git stash create`;
//! - merging 1,000 files changed on both sides (different lines) vs one `git merge-file` process per
//!   file.
//!
//! Run: `cargo perf --bench teams` (`BENCH_BUSY=2`: with two busy processes beside;
//! `SIDEKICKS_BIN=target/release/sidekicks`: the command-line measures run the release binary).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use sidekicks::runtime::checkpoints::Checkpoints;
use sidekicks::runtime::teams::{GitWorktreeProvider, IsolationProvider, changes, merge};

#[path = "common/busy.rs"]
mod busy;
#[path = "../tests/common/history.rs"]
mod history;
#[path = "common/person.rs"]
mod person;

const TRACKED: usize = 3600;
const DEPENDENCIES: usize = 45_000;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn file_text(i: usize) -> String {
    (0..60).map(|l| format!("// file {i}, line {l}: some code here\n")).collect()
}

fn generate(project: &Path) {
    for i in 0..TRACKED {
        let path = project.join(format!("src/mod{}/file{i}.rs", i % 180));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, file_text(i)).unwrap();
    }
    for i in 0..DEPENDENCIES {
        let path = project.join(format!("node_modules/pkg{}/lib/f{i}.js", i % 900));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "module.exports = 1;\n").unwrap();
    }
    std::fs::write(project.join(".gitignore"), "node_modules/\n").unwrap();
    git(project, &["init", "-q", "-b", "main"]);
    git(project, &["-c", "user.name=B", "-c", "user.email=b@x", "add", "-A"]);
    git(project, &["-c", "user.name=B", "-c", "user.email=b@x", "commit", "-q", "-m", "start"]);
    // As a real repository: objects packed.
    git(project, &["gc", "-q"]);
}

fn secs(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

fn median(times: &[f64]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 }
}

fn best(times: &[f64]) -> f64 {
    times.iter().cloned().fold(f64::INFINITY, f64::min)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    // `BENCH_BUSY=2` runs the whole bench with two busy processes (`yes`) beside.
    let busy: usize = std::env::var("BENCH_BUSY").ok().and_then(|n| n.parse().ok()).unwrap_or(0);
    println!("busy processes beside: {busy}");
    let _busy = busy::Busy::start(busy);
    // `BENCH_ONLY=real` runs only the small real merges (with `SIDEKICKS_MERGE_CORPUS`).
    if std::env::var("BENCH_ONLY").as_deref() == Ok("real") {
        real_merges(dir.path());
        return;
    }
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let start = Instant::now();
    generate(&project);
    println!("generated {TRACKED} tracked files and {DEPENDENCIES} dependency files in {:.1} s", secs(start));
    let provider = GitWorktreeProvider;
    // `BENCH_ONLY=checkpoint` runs only the checkpoint before a turn.
    if std::env::var("BENCH_ONLY").as_deref() == Ok("checkpoint") {
        checkpoints(&project, dir.path());
        return;
    }

    // `BENCH_ONLY=scan` runs only the change scan, `BENCH_ONLY=create` only the creation.
    let only_scan = std::env::var("BENCH_ONLY").as_deref() == Ok("scan");
    // Creation, six rounds, each side alternating. Each timed side starts with the disk's
    // writeback done (`sync`), so none pays for another's, and nothing is deleted until the rounds
    // are over: this machine's disk is mounted with `discard`, and files made just after a large
    // deletion (a 48,600-file copy) took 10-30x longer for either side while the discards ran.
    let (mut ours, mut worktree, mut copy) = (Vec::new(), Vec::new(), Vec::new());
    let (mut members, mut made) = (Vec::new(), Vec::new());
    let sync = || assert!(Command::new("sync").status().unwrap().success());
    // Round 0 warms up and is not counted: the first files made after generating the project
    // (whose `git gc` deleted its 3,600 loose objects) took 3-7x longer for whichever side came
    // first.
    for round in 0..if only_scan { 0 } else { 7 } {
        // Alternating which goes first, so neither always runs on a cache the other warmed.
        let ours_first = round % 2 == 0;
        let wt = dir.path().join(format!("wt{round}"));
        let reference = |worktree: &mut Vec<f64>| {
            sync();
            let t = Instant::now();
            git(&project, &["worktree", "add", "--detach", "--quiet", wt.to_str().unwrap(), "HEAD"]);
            std::os::unix::fs::symlink(project.join("node_modules"), wt.join("node_modules")).unwrap();
            worktree.push(secs(t));
        };
        if !ours_first {
            reference(&mut worktree);
        }
        sync();
        let t = Instant::now();
        let member = provider
            .create(
                &project,
                &dir.path().join(format!("m{round}")),
                &dir.path().join(format!("s{round}")),
                &format!("b{round}"),
                "Bench",
            )
            .unwrap();
        ours.push(secs(t));
        members.push(member);
        if ours_first {
            reference(&mut worktree);
        }
        made.push(wt);

        let cp = dir.path().join(format!("cp{round}"));
        sync();
        let t = Instant::now();
        assert!(Command::new("cp").arg("-a").arg(&project).arg(&cp).status().unwrap().success());
        copy.push(secs(t));
        made.push(cp);
        println!(
            "  round {round}: Sidekicks {:.3} s, worktree + ln -s {:.3} s, cp -a {:.3} s{}",
            ours[ours.len() - 1],
            worktree[worktree.len() - 1],
            copy[copy.len() - 1],
            if round == 0 { " (warm-up, not counted)" } else { "" }
        );
        if round == 0 {
            ours.clear();
            worktree.clear();
            copy.clear();
        }
    }
    for member in &members {
        provider.discard(member).unwrap();
    }
    for path in &made {
        std::fs::remove_dir_all(path).unwrap();
    }
    git(&project, &["worktree", "prune"]);
    sync();
    if !only_scan {
        println!(
            "creation: Sidekicks {:.3} s, git worktree add + ln -s {:.3} s (ratio {:.2}), cp -a {:.3} s ({:.1}x faster)",
            best(&ours),
            best(&worktree),
            best(&ours) / best(&worktree),
            best(&copy),
            best(&copy) / best(&ours)
        );
        println!(
            "creation, medians: Sidekicks {:.3} s, git worktree add + ln -s {:.3} s (ratio {:.2}), cp -a {:.3} s ({:.1}x faster)",
            median(&ours),
            median(&worktree),
            median(&ours) / median(&worktree),
            median(&copy),
            median(&copy) / median(&ours)
        );
    }

    if std::env::var("BENCH_ONLY").as_deref() == Ok("create") {
        return;
    }

    // The change scan: 50 files changed in the member's copy.
    let member = provider.create(&project, &dir.path().join("m"), &dir.path().join("s"), "bm", "Bench").unwrap();
    for i in 0..50 {
        let path = member.copy.join(format!("src/mod{}/file{i}.rs", i % 180));
        std::fs::write(&path, file_text(i).replace("line 3:", "line 3 (changed):")).unwrap();
    }
    let (mut scan, mut status) = (Vec::new(), Vec::new());
    for round in 0..10 {
        // Alternating which goes first.
        if round % 2 == 1 {
            let t = Instant::now();
            git(&member.copy, &["status", "--porcelain"]);
            status.push(secs(t));
        }
        let t = Instant::now();
        let found = changes(&member).unwrap();
        scan.push(secs(t));
        assert_eq!(found.len(), 50);
        if round % 2 == 0 {
            let t = Instant::now();
            git(&member.copy, &["status", "--porcelain"]);
            status.push(secs(t));
        }
    }
    println!(
        "change scan (50 changed): Sidekicks {:.1} ms, git status {:.1} ms (ratio {:.2})",
        best(&scan) * 1000.0,
        best(&status) * 1000.0,
        best(&scan) / best(&status)
    );
    provider.discard(&member).unwrap();
    if only_scan {
        return;
    }

    checkpoints(&project, dir.path());

    // Merging 1,000 files changed on both sides, on different lines: against one `git merge-file`
    // per file, and against what peers do (commit the member's copy and `git merge` it), in a clone.
    let clone = dir.path().join("clone");
    git(dir.path(), &["clone", "-q", project.to_str().unwrap(), clone.to_str().unwrap()]);
    let member = provider.create(&project, &dir.path().join("m2"), &dir.path().join("s2"), "bm2", "Bench").unwrap();
    let peer = provider.create(&clone, &dir.path().join("m3"), &dir.path().join("s3"), "bm3", "Bench").unwrap();
    let sides = dir.path().join("sides");
    std::fs::create_dir(&sides).unwrap();
    for i in 0..1000 {
        let rel = format!("src/mod{}/file{i}.rs", i % 180);
        let base = file_text(i);
        let main = base.replace("line 5:", "line 5 (main):");
        let mine = base.replace("line 50:", "line 50 (member):");
        for root in [&project, &clone] {
            std::fs::write(root.join(&rel), &main).unwrap();
        }
        for root in [&member.copy, &peer.copy] {
            std::fs::write(root.join(&rel), &mine).unwrap();
        }
        for (name, text) in [("base", &base), ("main", &main), ("mine", &mine)] {
            std::fs::write(sides.join(format!("{i}.{name}")), text).unwrap();
        }
    }
    // git merges commits: the project's own change is committed first (not timed).
    git(&clone, &["-c", "user.name=B", "-c", "user.email=b@x", "commit", "-qam", "main"]);
    sync();
    let t = Instant::now();
    let report = merge(&member, None).unwrap();
    let ours = secs(t);
    assert_eq!((report.applied.len(), report.conflicts.len()), (1000, 0));
    sync();
    let t = Instant::now();
    let merged = peer_merge(&peer.copy, &clone);
    let peers = secs(t);
    assert!(merged, "git merges the 1,000 files cleanly");
    let t = Instant::now();
    for i in 0..1000 {
        let file = |n: &str| sides.join(format!("{i}.{n}"));
        let out = Command::new("git")
            .args(["merge-file", "-p"])
            .args([file("main"), file("base"), file("mine")])
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    let reference = secs(t);
    println!(
        "merge of 1,000 files: Sidekicks {:.3} s (scan, three-way merge, durable all-or-nothing apply); \
         git add -A && git commit && git merge {:.3} s ({:.1}x faster); 1,000 git merge-file {:.3} s ({:.1}x faster)",
        ours,
        peers,
        peers / ours,
        reference,
        reference / ours
    );
    provider.discard(&member).unwrap();
    provider.discard(&peer).unwrap();
    real_merges(dir.path());
}

/// A checkpoint before a turn (issue 20) of the project with 50 files changed, against
/// `git stash create` (a commit of the working tree, no ref) in the same run; alternating, best
/// of 5 each. The project is put back after.
fn checkpoints(project: &Path, dir: &Path) {
    let checkpoints = Checkpoints {
        root: dir.join("checkpoints"),
        keep: 100,
        max_age: 86_400,
        max_file: sidekicks::runtime::checkpoints::MAX_FILE,
    };
    for i in 0..50 {
        let path = project.join(format!("src/mod{}/file{i}.rs", i % 180));
        std::fs::write(&path, file_text(i).replace("line 7:", "line 7 (turn):")).unwrap();
    }
    let (mut ours, mut stash) = (Vec::new(), Vec::new());
    for round in 0..10 {
        if round % 2 == 0 {
            let t = Instant::now();
            checkpoints.record(project).unwrap();
            ours.push(secs(t));
        } else {
            let t = Instant::now();
            let out = Command::new("git").arg("-C").arg(project).args(["stash", "create"]).output().unwrap();
            assert!(out.status.success() && !out.stdout.is_empty());
            stash.push(secs(t));
        }
    }
    println!(
        "checkpoint (3,600 files, 50 changed): Sidekicks {:.1} ms, git stash create {:.1} ms (ratio {:.2})",
        best(&ours) * 1000.0,
        best(&stash) * 1000.0,
        best(&ours) / best(&stash)
    );
    git(project, &["checkout", "--quiet", "--", "src"]);
}

/// Flushes what earlier steps wrote, so neither side of a measure pays for the other's writeback.
fn sync() {
    assert!(Command::new("sync").status().unwrap().success());
}

/// What peers do to bring a member's work back: commit its copy, merge the commit. True when clean.
fn peer_merge(copy: &Path, project: &Path) -> bool {
    let id = ["-c", "user.name=B", "-c", "user.email=b@x"];
    git(copy, &[&id[..], &["add", "-A"]].concat());
    git(copy, &[&id[..], &["commit", "-qm", "member"]].concat());
    let head =
        String::from_utf8(Command::new("git").arg("-C").arg(copy).args(["rev-parse", "HEAD"]).output().unwrap().stdout)
            .unwrap();
    let out = Command::new("git")
        .arg("-C")
        .arg(project)
        .args([&id[..], &["merge", "--no-edit", "-q", head.trim()]].concat())
        .output()
        .unwrap();
    out.status.success()
}

/// Small real merges: merge commits of the repositories in `SIDEKICKS_MERGE_CORPUS` (see
/// tests/contracts/merge_corpus.rs). For each, a project at the first parent and a member whose copy (made
/// at the merge base) holds the second parent's tree; Sidekicks' merge against the peers' way, each
/// on its own clone.
fn real_merges(dir: &Path) {
    let Some(repos) = history::corpus_repositories() else {
        println!("small real merges: skipped (set SIDEKICKS_MERGE_CORPUS to a folder of git repositories)");
        return;
    };
    let provider = GitWorktreeProvider;
    let (mut ours, mut peers, mut count, mut conflicts, mut differ) = (0.0, 0.0, 0, 0, 0);
    // Through the command line: one `sidekicks team-merge` process per merge, its start included.
    let mut cli = 0.0;
    // And the person's command: `sidekicks team merge TEAM` (the door: config, history, the team).
    let person = Person::new(dir);
    let (mut door, mut door_count, mut door_peers) = (0.0, 0, 0.0);
    for (r, repo) in repos.iter().enumerate() {
        for (k, (first, second, base)) in history::small_merges(repo, 6).into_iter().enumerate() {
            // A snapshot without its largest files (fetch leaves out files of 4 MiB and more)
            // cannot check some commits out: those merges are left out.
            let setup = |side: &str| {
                let root = dir.join(format!("real{r}-{k}-{side}"));
                let project = root.join("project");
                let (repo, project_arg) = (repo.to_str().unwrap(), project.to_str().unwrap());
                let ok = |d: &Path, args: &[&str]| {
                    Command::new("git").arg("-C").arg(d).args(args).output().is_ok_and(|o| o.status.success())
                };
                let ready = ok(dir, &["clone", "-q", "--shared", "--no-checkout", repo, project_arg])
                    && ok(&project, &["checkout", "-q", "--detach", &base]);
                let member = provider.create(&project, &root.join("copy"), &root.join("state"), "real", "Real");
                let member = member.ok().filter(|_| ready)?;
                (ok(&member.copy, &["read-tree", "-u", "--reset", &second])
                    && ok(&project, &["checkout", "-q", "--detach", &first]))
                .then_some((project, member))
            };
            let (Some(a), Some(b), Some(c)) = (setup("ours"), setup("peer"), setup("cli")) else { continue };
            let team = format!("real{r}-{k}");
            let door_copy = person.team_at(repo, &dir.join(format!("{team}-door")), &team, [&base, &first, &second]);
            let setups = [a, b, c];
            sync();
            let t = Instant::now();
            let report = merge(&setups[0].1, None).unwrap();
            ours += secs(t);
            sync();
            let t = Instant::now();
            let out = Command::new(sidekicks_bin()).arg("team-merge").arg(&setups[2].1.state).output();
            cli += secs(t);
            let code = out.unwrap().status.code();
            assert!(matches!(code, Some(0 | 1)), "team-merge failed: {code:?}");
            sync();
            let t = Instant::now();
            let clean = peer_merge(&setups[1].1.copy, &setups[1].0);
            let peer_time = secs(t);
            peers += peer_time;
            // The person's own command, `sidekicks team merge TEAM`, on the merges both make
            // without conflicts (one that conflicts tells the member, who then answers).
            if let (true, Some(_)) = (clean && report.conflicts.is_empty(), &door_copy) {
                sync();
                let t = Instant::now();
                let out = person.run(&["merge", &team, "--json"]);
                door += secs(t);
                let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                assert!(out.status.success(), "team merge: {:?} {said}", out.status.code());
                (door_count, door_peers) = (door_count + 1, door_peers + peer_time);
            }
            if door_copy.is_some() {
                let _ = person.run(&["discard", &team]);
            }
            if report.conflicts.is_empty() != clean {
                println!("  {} {first}+{second}: git clean {clean}, Sidekicks {:?}", repo.display(), report.conflicts);
                differ += 1;
            }
            count += 1;
            conflicts += usize::from(!clean);
            for (_, member) in setups {
                provider.discard(&member).unwrap();
            }
        }
    }
    println!(
        "{count} small real merges ({conflicts} with conflicts in git, {differ} verdicts differ): Sidekicks {:.3} s in all, git add -A && git commit && git merge {:.3} s ({:.1}x faster)",
        ours,
        peers,
        peers / ours
    );
    println!(
        "the same through the command line, one `sidekicks team-merge` process per merge: {cli:.3} s in all ({:.1}x faster than git's way, process start included)",
        peers / cli
    );
    println!(
        "{door_count} of them clean in git and here, through `sidekicks team merge TEAM` (a team of one member, its process start included): {door:.3} s in all, git's way {door_peers:.3} s ({:.1}x faster)",
        door_peers / door
    );
}

/// The binary the command-line measures run: the bench's build, or `SIDEKICKS_BIN` (the release
/// binary, `target/release/sidekicks`, to measure what people run).
fn sidekicks_bin() -> std::path::PathBuf {
    std::env::var_os("SIDEKICKS_BIN").map_or_else(|| env!("CARGO_BIN_EXE_sidekicks").into(), Into::into)
}

/// A person's own Sidekicks for `sidekicks team …`: folders of its own, a config with one demo
/// agent (`Real`).
struct Person {
    root: std::path::PathBuf,
    config: std::path::PathBuf,
}

impl Person {
    fn new(dir: &Path) -> Self {
        let root = dir.join("person");
        std::fs::create_dir_all(root.join("home")).unwrap();
        let config = root.join("sidekicks.toml");
        let text = format!(
            "[defaults]\n\n[[agent]]\nname = \"Real\"\ncommand = {:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n",
            sidekicks_bin(),
            root.join("home").display().to_string()
        );
        std::fs::write(&config, text).unwrap();
        Self { root, config }
    }

    /// `sidekicks --config C team ARGS`, as this person.
    fn run(&self, args: &[&str]) -> std::process::Output {
        let mut command = Command::new(sidekicks_bin());
        person::as_person(command.arg("--config").arg(&self.config).arg("team").args(args), &self.root)
            .output()
            .unwrap()
    }

    /// Team `name` of one member on a clone of `repo` at `root`: made at the merge base, its
    /// member's copy then holding the second parent's tree and the project at the first parent.
    /// The member's copy; `None` when a commit cannot be checked out.
    fn team_at(
        &self,
        repo: &Path,
        root: &Path,
        name: &str,
        [base, first, second]: [&str; 3],
    ) -> Option<std::path::PathBuf> {
        let project = root.join("project");
        let ok = |d: &Path, args: &[&str]| {
            Command::new("git").arg("-C").arg(d).args(args).output().is_ok_and(|o| o.status.success())
        };
        std::fs::create_dir_all(root).ok()?;
        let (repo, project_arg) = (repo.to_str()?, project.to_str()?);
        (ok(root, &["clone", "-q", "--shared", "--no-checkout", repo, project_arg])
            && ok(&project, &["checkout", "-q", "--detach", base]))
        .then_some(())?;
        let made = self.run(&["new", "--project", project_arg, "--agent", "Real", "--name", name, "--json"]);
        let made: serde_json::Value = serde_json::from_slice(&made.stdout).ok()?;
        let copy = std::path::PathBuf::from(made["members"][0]["copy"].as_str()?);
        (ok(&copy, &["read-tree", "-u", "--reset", second]) && ok(&project, &["checkout", "-q", "--detach", first]))
            .then_some(copy)
    }
}
