//! The conflict radar's cost (issue 47) on a generated git project of 3,600 files, with a team of
//! 8 demo members each changing 20 files (every file but the first and last ten changed by two
//! members at the same line: 70 places that collide, each tried with the merge). In one run:
//! - a radar reading of the whole team, and what one copy's change costs (that member read again,
//!   the others' readings kept, every place tried with the merge again) — median and p95 of 20,
//!   and their CPU time; against finding the same collisions by hand, one `git merge-file` process
//!   per file two members changed (each member's version from the base);
//! - the window's frame (egui pass and tessellation, no GPU) with the team page shown, while a
//!   member's copy changes every 50 ms and the radar is read again and again, against the same
//!   page with nothing changing.
//!
//! Run: `cargo bench --bench radar`.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::app::{Startup, start};
use sidekicks::protocol::Command as AppCommand;
use sidekicks::protocol::teams::{MemberCopy, ProviderKind, TeamCommand};
use sidekicks::ui::SidekicksApp;

const BIN: &str = env!("CARGO_BIN_EXE_sidekicks");
const TRACKED: usize = 3600;
const MEMBERS: usize = 8;
const CHANGED: usize = 20;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn path_of(i: usize) -> String {
    format!("src/mod{}/file{i}.rs", i % 180)
}

fn generate(project: &Path) {
    for i in 0..TRACKED {
        let path = project.join(path_of(i));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = (0..60).map(|l| format!("// file {i}, line {l}: some code here\n")).collect();
        std::fs::write(path, text).unwrap();
    }
    git(project, &["init", "-q", "-b", "main"]);
    git(project, &["-c", "user.name=B", "-c", "user.email=b@x", "add", "-A"]);
    git(project, &["-c", "user.name=B", "-c", "user.email=b@x", "commit", "-q", "-m", "start"]);
}

/// The files member `k` changes: 20 from the `10 k`th (so neighbours share ten).
fn files_of(k: usize) -> std::ops::Range<usize> {
    k * CHANGED / 2..k * CHANGED / 2 + CHANGED
}

/// Member `k`'s work in `copy` (round `round`): line 30 of each of its files.
fn work(copy: &Path, k: usize, round: usize) {
    for i in files_of(k) {
        let path = copy.join(path_of(i));
        let text: String = (0..60)
            .map(|l| match l {
                30 => format!("// file {i}, line 30: member {k}'s code, round {round}\n"),
                _ => format!("// file {i}, line {l}: some code here\n"),
            })
            .collect();
        std::fs::write(&path, text).unwrap();
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    generate(&project);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let mut text = String::from("[defaults]\nidle_stop = 0\n");
    for k in 0..MEMBERS {
        text.push_str(&format!(
            "\n[[agent]]\nname = \"m{k}\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n",
            home.display().to_string()
        ));
    }
    let config = dir.path().join("sidekicks.toml");
    std::fs::write(&config, text).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let bridge = start(rt.handle(), Startup::new(config), Arc::new(|| {}));
    let mut h = Harness::builder().with_size(egui::vec2(1100.0, 720.0)).build_ui_state(
        |ui, app: &mut SidekicksApp| {
            app.logic(ui.ctx());
            app.ui(ui);
        },
        SidekicksApp::new(bridge),
    );
    until(&mut h, "the agents", |h| h.state().state.agent(&format!("m{}", MEMBERS - 1)).is_some());
    let create = TeamCommand::Create {
        name: "radar".into(),
        project: project.clone(),
        provider: ProviderKind::GitWorktree,
        agents: (0..MEMBERS).map(|k| format!("m{k}")).collect(),
        lead: None,
    };
    h.state_mut().send(AppCommand::Team(Box::new(create)));
    until(&mut h, "the team", |h| h.state().state.teams.teams.first().is_some_and(|t| t.info.members.len() == MEMBERS));
    let members: Vec<MemberCopy> =
        h.state().state.teams.teams[0].info.members.iter().map(|(_, m)| m.clone().unwrap()).collect();
    for (k, m) in members.iter().enumerate() {
        work(&m.copy, k, 0);
    }

    // Readings, in this process: the whole team, and what one copy's change costs (that member
    // read again, the others' readings kept, every place tried again).
    use sidekicks::runtime::teams::radar::{collisions, read};
    let found = sidekicks::runtime::teams::radar::radar(&members, 200);
    let collide = (MEMBERS - 1) * CHANGED / 2;
    assert_eq!(found.len(), collide, "every shared file collides");
    let whole = measure(|| {
        std::hint::black_box(sidekicks::runtime::teams::radar::radar(&members, 200));
    });
    let kept: Vec<_> = members.iter().map(|m| read(m, 200).unwrap()).collect();
    let mut round = 0;
    let one = measure(|| {
        round += 1;
        let k = round % MEMBERS;
        work(&members[k].copy, k, round);
        let fresh = read(&members[k], 200).unwrap();
        let all: Vec<_> = kept.iter().enumerate().map(|(i, r)| if i == k { &fresh } else { r }).collect();
        std::hint::black_box(collisions(&all, &project));
    });
    let by_hand = by_hand(&project, &members);
    println!(
        "radar: {MEMBERS} members × {CHANGED} files ({collide} collisions): whole team read median {:.1} ms p95 {:.1} ms CPU {:.1} ms; after one copy changed median {:.1} ms p95 {:.1} ms CPU {:.1} ms; git merge-file per shared file {by_hand:.1} ms; ratio (one copy) {:.2}",
        whole.0,
        whole.1,
        whole.2,
        one.0,
        one.1,
        one.2,
        one.0 / by_hand
    );

    // The window while copies change.
    h.get_all_by_label("radar").next().unwrap().click();
    until(&mut h, "the radar on the page", |h| !h.state().state.teams.teams[0].overlaps.is_empty());
    let still = frames(&mut h, 300, |_| {});
    let copies: Vec<_> = members.iter().map(|m| m.copy.clone()).collect();
    let mut round = 0;
    let busy = frames(&mut h, 300, |frame| {
        if frame % 3 == 0 {
            round += 1;
            work(&copies[round % MEMBERS], round % MEMBERS, round);
        }
    });
    println!(
        "radar: window frame, team page: still mean {:.2} ms p95 {:.2} ms; a copy changing every 50 ms mean {:.2} ms p95 {:.2} ms max {:.2} ms",
        still.0, still.1, busy.0, busy.1, busy.2
    );
    h.state_mut().shutdown();
}

/// Median, p95 and CPU time (ms) of 20 runs of `f`.
fn measure(mut f: impl FnMut()) -> (f64, f64, f64) {
    let (mut times, before) = (Vec::new(), cpu());
    for _ in 0..20 {
        let start = Instant::now();
        f();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let cpu_each = (cpu() - before) / 20.0 * 1000.0;
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (times[times.len() / 2], times[times.len() * 95 / 100], cpu_each)
}

/// Milliseconds of one `git merge-file` per file two members changed (their versions from the base).
fn by_hand(project: &Path, members: &[MemberCopy]) -> f64 {
    let scratch = tempfile::tempdir().unwrap();
    let start = Instant::now();
    for k in 0..MEMBERS - 1 {
        for i in files_of(k).filter(|i| files_of(k + 1).contains(i)) {
            let base = scratch.path().join("base");
            let out = Command::new("git")
                .arg("-C")
                .arg(project)
                .args(["show", &format!("HEAD:{}", path_of(i))])
                .output()
                .unwrap();
            std::fs::write(&base, out.stdout).unwrap();
            let ours = members[k].copy.join(path_of(i));
            let theirs = members[k + 1].copy.join(path_of(i));
            let status = Command::new("git")
                .args(["merge-file", "-p", "--quiet"])
                .arg(&ours)
                .arg(&base)
                .arg(&theirs)
                .output()
                .unwrap();
            std::hint::black_box(status);
        }
    }
    start.elapsed().as_secs_f64() * 1000.0
}

/// CPU seconds this process used so far.
fn cpu() -> f64 {
    // SAFETY: an empty rusage the kernel fills in for this process.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

fn until(h: &mut Harness<'static, SidekicksApp>, what: &str, done: impl Fn(&Harness<'static, SidekicksApp>) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done(h) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Mean, p95 and max of `n` frames (the pass and its tessellation), `each` run before each, a
/// 60 Hz frame's time apart.
fn frames(h: &mut Harness<'static, SidekicksApp>, n: usize, mut each: impl FnMut(usize)) -> (f64, f64, f64) {
    let mut times = Vec::with_capacity(n);
    for frame in 0..n {
        each(frame);
        let start = Instant::now();
        h.step();
        let output = h.output();
        std::hint::black_box(h.ctx.tessellate(output.shapes.clone(), output.pixels_per_point));
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        std::thread::sleep(Duration::from_millis(16));
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (times.iter().sum::<f64>() / n as f64, times[n * 95 / 100], times[n - 1])
}
