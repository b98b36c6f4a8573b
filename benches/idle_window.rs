//! Idle cost of the window, measured under a virtual X display (Xvfb):
//! - frames drawn during 10 s of idleness after start-up (the design's budget: 0);
//! - resident memory of Sidekicks with the demo agent listed, against a bare eframe window with the same
//!   renderer (this very binary, run with `--bare-window`).
//!
//! Run: `cargo bench --bench idle_window` (needs `Xvfb`; skips with a message when it is missing).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const SETTLE: Duration = Duration::from_secs(5);
const IDLE: Duration = Duration::from_secs(10);

fn main() {
    if std::env::args().any(|a| a == "--bare-window") {
        bare_window();
        return;
    }
    if Command::new("Xvfb").arg("-help").stderr(Stdio::null()).status().is_err() {
        println!("idle_window: skipped, Xvfb is not installed (apt-get install xvfb)");
        return;
    }
    let display = format!(":{}", 150 + std::process::id() % 50);
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

    let mut app = Command::new(bin)
        .arg("--config")
        .arg(&config)
        .env("DISPLAY", &display)
        .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("SIDEKICKS_FRAME_STATS", &stats)
        .stderr(Stdio::null())
        .spawn()
        .expect("start sidekicks");
    std::thread::sleep(SETTLE);
    let before = frames(&stats);
    std::thread::sleep(IDLE);
    let after = frames(&stats);
    let app_rss = rss_kib(&app);
    stop(&mut app);

    let mut bare = Command::new(std::env::current_exe().unwrap())
        .arg("--bare-window")
        .env("DISPLAY", &display)
        .stderr(Stdio::null())
        .spawn()
        .expect("start the bare window");
    std::thread::sleep(SETTLE);
    let bare_rss = rss_kib(&bare);
    stop(&mut bare);
    stop(&mut xvfb);

    println!("idle_window: frames drawn at start-up (first {} s): {before}", SETTLE.as_secs());
    println!("idle_window: frames drawn while idle for {} s: {}", IDLE.as_secs(), after - before);
    println!(
        "idle_window: RSS sidekicks {app_rss} KiB, bare eframe window {bare_rss} KiB, ratio {:.2}",
        app_rss as f64 / bare_rss.max(1) as f64
    );
}

fn frames(path: &Path) -> u64 {
    std::fs::read_to_string(path).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0)
}

fn rss_kib(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn stop(child: &mut Child) {
    // SAFETY: plain signal to a child we own.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    for _ in 0..50 {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn bare_window() {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_inner_size([1100.0, 720.0]),
        ..Default::default()
    };
    let _ = eframe::run_ui_native("bare window", options, |ui, _frame| {
        egui::CentralPanel::default().show(ui, |ui| ui.label("bare eframe window"));
    });
}
