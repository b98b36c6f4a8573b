//! Time to the first frame (issue 22), under a virtual X display (Xvfb): from starting the process
//! to its first frame drawn, for Sidekicks (the demo agent listed, its history folder kept between
//! runs as a person's is) and for a bare eframe window with the same renderer (this binary run
//! with `--bare-window`), on an idle machine and with two busy processes (a loaded 2-core machine).
//! Ten starts each; the first frame is seen through `SIDEKICKS_FRAME_STATS` (the count of frames,
//! written by a thread of the app's own), polled every 2 ms.
//!
//! Run: `cargo bench --bench first_window` (needs `Xvfb`; skips with a message when it is missing).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const STARTS: usize = 10;

fn main() {
    if let Some(i) = std::env::args().position(|a| a == "--bare-window") {
        bare_window(std::env::args().nth(i + 1).expect("stats file"));
        return;
    }
    if Command::new("Xvfb").arg("-help").stderr(Stdio::null()).status().is_err() {
        println!("first_window: skipped, Xvfb is not installed (apt-get install xvfb)");
        return;
    }
    let display = format!(":{}", 100 + std::process::id() % 50);
    let mut xvfb = Command::new("Xvfb")
        .args([display.as_str(), "-screen", "0", "1400x900x24", "-nolisten", "tcp"])
        .stderr(Stdio::null())
        .spawn()
        .expect("start Xvfb");
    std::thread::sleep(Duration::from_secs(1));
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let config = dir.path().join("sidekicks.toml");
    let bin = env!("CARGO_BIN_EXE_sidekicks");
    std::fs::write(
        &config,
        format!(
            "[[agent]]\nname = \"Demo\"\ncommand = {bin:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n",
            ws.display().to_string()
        ),
    )
    .unwrap();
    let stats = dir.path().join("frames");
    let sidekicks = |stats: &Path| {
        let mut cmd = Command::new(bin);
        cmd.arg("--config")
            .arg(&config)
            .env("DISPLAY", &display)
            .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .env("SIDEKICKS_FRAME_STATS", stats);
        cmd
    };
    let bare = |stats: &Path| {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.arg("--bare-window").arg(stats).env("DISPLAY", &display);
        cmd
    };
    // One start first, so the history folder exists as it does for a person.
    first_frame(sidekicks(&stats), &stats);
    for loaded in [false, true] {
        let mut hogs: Vec<Child> = if loaded {
            (0..2).map(|_| Command::new("sh").args(["-c", "while :; do :; done"]).spawn().unwrap()).collect()
        } else {
            Vec::new()
        };
        let (mut ours, mut reference) = (Vec::new(), Vec::new());
        for _ in 0..STARTS {
            ours.push(first_frame(sidekicks(&stats), &stats));
            reference.push(first_frame(bare(&stats), &stats));
        }
        for hog in &mut hogs {
            let _ = hog.kill();
            let _ = hog.wait();
        }
        let machine = if loaded { "loaded (two busy processes)" } else { "idle" };
        println!(
            "first_window: {machine}: Sidekicks median {:.0} ms (p90 {:.0}); bare eframe window median {:.0} ms (p90 {:.0})",
            pct(&mut ours, 50),
            pct(&mut ours, 90),
            pct(&mut reference, 50),
            pct(&mut reference, 90)
        );
    }
    let _ = xvfb.kill();
    let _ = xvfb.wait();
}

/// Milliseconds from starting `cmd` until `stats` counts a frame; then the process is ended.
fn first_frame(mut cmd: Command, stats: &Path) -> f64 {
    let _ = std::fs::remove_file(stats);
    let start = Instant::now();
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("start");
    let deadline = start + Duration::from_secs(30);
    loop {
        let drawn = std::fs::read_to_string(stats).ok().and_then(|s| s.trim().parse::<u64>().ok()).unwrap_or(0);
        if drawn > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "no frame in 30 s");
        std::thread::sleep(Duration::from_millis(2));
    }
    let took = start.elapsed().as_secs_f64() * 1000.0;
    // SAFETY: a plain signal to a child we own.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    for _ in 0..100 {
        if child.try_wait().ok().flatten().is_some() {
            return took;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    took
}

fn pct(times: &mut [f64], p: usize) -> f64 {
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[((times.len() - 1) * p) / 100]
}

/// A bare eframe window that writes its frame count to `stats` (from a thread, as the app does).
fn bare_window(stats: String) {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_inner_size([1100.0, 720.0]),
        ..Default::default()
    };
    let (tx, rx) = std::sync::mpsc::channel::<u64>();
    std::thread::spawn(move || {
        while let Ok(n) = rx.recv() {
            let _ = std::fs::write(&stats, n.to_string());
        }
    });
    let mut frames = 0;
    let _ = eframe::run_ui_native("bare window", options, move |ui, _frame| {
        frames += 1;
        let _ = tx.send(frames);
        egui::CentralPanel::default().show(ui, |ui| ui.label("bare eframe window"));
    });
}
