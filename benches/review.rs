//! The review panel with a large diff: 1,000 changed files, 10,000 changed lines (each file five
//! lines replaced, so five removed and five added), built from this project's own sources (real
//! Rust for the syntax colours). One egui pass of the panel (no GPU, as benches/conversation.rs)
//! per frame while the wheel scrolls through it and `n` jumps file to file; unified, then side by
//! side. Goal (issue 20): ≤ 16 ms a frame.
//!
//! Run: `cargo bench --bench review`.

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use sidekicks::app::AppState;
use sidekicks::model::config::Language;
use sidekicks::model::review::diff;
use sidekicks::protocol::teams::{Change, ChangeKind, MemberCopy, ProviderKind, ReviewFile, TeamCommand};
use sidekicks::protocol::{TeamEvent, TeamInfo, teams::MemberRecord, teams::TeamRecord};
use sidekicks::ui::review::{ReviewView, team_review_ui};

const FILES: usize = 1_000;

fn sources() -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(std::fs::read_to_string(path).unwrap());
            }
        }
    }
    out.sort();
    out
}

/// The review: file `i` is source `i mod n` with five lines (spread over it) changed.
fn files() -> Vec<ReviewFile> {
    let sources = sources();
    (0..FILES)
        .map(|i| {
            let old = &sources[i % sources.len()];
            let lines: Vec<&str> = old.lines().collect();
            let step = (lines.len() / 5).max(1);
            let new: String = lines
                .iter()
                .enumerate()
                .map(|(n, l)| {
                    if n % step == step / 2 && n / step < 5 {
                        format!("{l} // changed {i}\n")
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            let old: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let path = format!("crate{}/src/module{}/file{i}.rs", i % 7, i % 31);
            let change = Change { path, kind: ChangeKind::Modified, binary: false, symlink: false, markers: false };
            ReviewFile { change, diff: Some(diff(&old, &new)) }
        })
        .collect()
}

fn state(files: Vec<ReviewFile>) -> AppState {
    let member = MemberCopy {
        id: "t-ada".into(),
        name: "ada".into(),
        agent: "ada".into(),
        project: "/project".into(),
        copy: "/copies/ada".into(),
        state: "/state/ada".into(),
        provider: ProviderKind::Copy,
        base: String::new(),
        dependencies: Vec::new(),
        number: 1,
        env: Default::default(),
        ready: true,
        container: None,
        far: None,
    };
    let record = TeamRecord {
        id: "t".into(),
        name: "T".into(),
        project: "/project".into(),
        provider: ProviderKind::Copy,
        members: vec![MemberRecord { agent: "ada".into(), state: "/state/ada".into(), from: "ada".into() }],
        lead: None,
    };
    let mut state = AppState::default();
    let info = TeamInfo {
        record,
        members: vec![("ada".into(), Ok(member.clone()))],
        channel: None,
        undoable: None,
        bytes: None,
    };
    state.teams.apply(TeamEvent::Loaded { teams: vec![info], discarded: Vec::new(), leftovers: Vec::new() });
    state.teams.requested(&TeamCommand::Review { team: "t".into(), member: member.name.clone() });
    state.teams.apply(TeamEvent::Review { team: "t".into(), agent: "ada".into(), result: Ok(files) });
    state
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p) as usize].as_secs_f64() * 1000.0
}

/// Frame times (ms: mean, p95, max) over `frames` frames, each scrolling by the wheel; every
/// 20th frame presses `n`.
fn run(state: &AppState, split: bool, frames: usize) -> (f64, f64, f64) {
    let mut view = ReviewView::new("t", "ada");
    view.set_split(split);
    let mut h = Harness::builder().with_size(egui::vec2(1100.0, 720.0)).build_ui_state(
        |ui, view: &mut ReviewView| {
            // As the window does: fonts for every glyph, and no panic on one missing.
            sidekicks::ui::glyphs::install(ui.ctx());
            let _ = team_review_ui(ui, Language::En, state, view);
        },
        view,
    );
    sidekicks::ui::glyphs::install_fallback(&h.ctx);
    for _ in 0..5 {
        h.step();
    }
    let mut times = Vec::with_capacity(frames);
    for i in 0..frames {
        h.event(egui::Event::PointerMoved(egui::pos2(700.0, 400.0)));
        if i % 20 == 19 {
            h.key_press(egui::Key::N);
        } else {
            h.event(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Point,
                delta: egui::vec2(0.0, -240.0),
                phase: egui::TouchPhase::Move,
                source: egui::MouseWheelSource::Wheel,
                modifiers: egui::Modifiers::NONE,
            });
        }
        let start = Instant::now();
        h.step();
        times.push(start.elapsed());
    }
    times.sort();
    let mean = times.iter().map(Duration::as_secs_f64).sum::<f64>() / times.len() as f64 * 1000.0;
    (mean, percentile(&times, 0.95), percentile(&times, 1.0))
}

fn main() {
    let start = Instant::now();
    let files = files();
    let lines: usize = files.iter().filter_map(|f| f.diff.as_ref()).map(|d| d.added + d.removed).sum();
    println!(
        "review: {} files, {lines} changed lines, diffs computed in {:.0} ms",
        files.len(),
        start.elapsed().as_secs_f64() * 1000.0
    );
    let state = state(files);
    for split in [false, true] {
        let (mean, p95, max) = run(&state, split, 600);
        let mode = if split { "side by side" } else { "unified" };
        println!("review: {mode}, scrolling and n: frame mean {mean:.2} ms, p95 {p95:.2} ms, max {max:.2} ms");
    }
}
