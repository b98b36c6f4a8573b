//! Terminals for real: a shell in a PTY under the subreaper host; the screen shows what a command
//! printed; a resize reaches the program (`stty size`); closing ends the shell and every kind of
//! background job (`&`, `setsid`, `setsid -f`, `nohup`, `disown`, `(cmd &)`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::runtime::terminal::{TerminalSession, descendants};
use sidekicks::runtime::workspace::{LocalWorkspace, Workspace};

use crate::common;

use common::{BIN, JOBS, alive, pids_on, wait_screen};

/// How long a screen may take to show what is awaited.
const LIMIT: Duration = Duration::from_secs(10);

fn shell(dir: &std::path::Path) -> TerminalSession {
    let mut command = LocalWorkspace::new(dir).shell_command(true);
    // bash without the user's files, the same on every machine (the app uses the user's $SHELL).
    command.argv = vec!["/bin/bash".into(), "--noprofile".into(), "--norc".into()];
    TerminalSession::spawn(std::path::Path::new(BIN), &command, 80, 24, Arc::new(|| {})).unwrap()
}

#[test]
fn a_command_prints_on_the_screen_in_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("marker.txt"), "").unwrap();
    let t = shell(dir.path());
    t.write(b"ls; echo done-$((6*7))\n").unwrap();
    let screen = wait_screen(&t, "done-42", LIMIT);
    assert!(screen.contains("marker.txt"), "{screen}");
    t.close();
}

/// A flood while no window draws (nothing calls `pump`): the output is applied off the window, by
/// the terminal's own threads, and what waits stays under the limit; a frame then applies the rest.
#[test]
fn a_flood_nobody_draws_is_applied_and_stays_bounded() {
    use sidekicks::runtime::terminal::{APPLY_OFF_WINDOW, PENDING_MAX};
    let dir = tempfile::tempdir().unwrap();
    let t = shell(dir.path());
    // About 3.5 MB of numbered lines, then an end mark.
    t.write(b"seq 1 500000; echo flood-$((6*7))\n").unwrap();
    let screen = t.handle().screen();
    let applied = |s: &str| s.lines().filter_map(|l| l.trim().parse::<u32>().ok()).max().unwrap_or(0);
    let deadline = Instant::now() + LIMIT * 3;
    let mut most_waiting = 0;
    loop {
        most_waiting = most_waiting.max(screen.waiting());
        // The screen as it is, nothing applied by this look.
        let shown = applied(&screen.lock().text());
        if shown > 400_000 && screen.waiting() <= APPLY_OFF_WINDOW {
            break;
        }
        assert!(Instant::now() < deadline, "applied up to {shown}, {} bytes waiting", screen.waiting());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(most_waiting <= PENDING_MAX + 64 * 1024, "{most_waiting} bytes waited at most");
    // A frame applies what is left.
    wait_screen(&t, "flood-42", LIMIT);
    assert!(t.screen_text().contains("500000"));
    t.close();
}

#[test]
fn a_resize_reaches_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let t = shell(dir.path());
    t.write(b"stty size\n").unwrap();
    wait_screen(&t, "24 80", LIMIT);
    t.resize(100, 30).unwrap();
    t.write(b"stty size\n").unwrap();
    wait_screen(&t, "30 100", LIMIT);
    t.close();
}

#[test]
fn closing_ends_every_kind_of_background_job() {
    let dir = tempfile::tempdir().unwrap();
    let mut sleepers = Vec::new();
    for _ in 0..100 {
        let t = shell(dir.path());
        t.write(JOBS.as_bytes()).unwrap();
        // Only the output says `all-2` (the echoed command line says `all-$((1+1))`).
        let screen = wait_screen(&t, "all-2", LIMIT);
        // The setsid ones print from their own process: give them a moment.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut screen = screen;
        while pids_on(&screen).len() < 6 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            screen = t.screen_text();
        }
        let pids = pids_on(&screen);
        assert_eq!(pids.len(), 6, "{screen}");
        // They are all in the host's tree (the subreaper keeps the ones that left their parent).
        let tree = descendants(t.pid());
        for pid in &pids {
            assert!(tree.contains(&(*pid as u32)), "{pid} escaped the host before closing: {tree:?}");
        }
        sleepers.extend(pids);
        t.close();
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left: Vec<&i32> = sleepers.iter().filter(|p| alive(**p)).collect();
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "{} processes left: {left:?}", left.len());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_full_screen_program_draws_its_rows_and_quits_on_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (1..=100).map(|i| format!("row number {i}\n")).collect();
    std::fs::write(dir.path().join("long.txt"), lines).unwrap();
    let t = shell(dir.path());
    // `less` from this machine, or busybox's where there is no other.
    let less = if std::path::Path::new("/usr/bin/less").exists() { "less" } else { "busybox less" };
    t.write(format!("{less} long.txt\n").as_bytes()).unwrap();
    let screen = wait_screen(&t, "row number 23", LIMIT);
    assert!(screen.starts_with("row number 1\n"), "{screen}");
    assert!(!screen.contains("row number 30"), "one screenful: {screen}");
    assert!(t.handle().screen().lock().alternate());
    t.write(b"q").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while {
        while t.pump() {}
        t.handle().screen().lock().alternate()
    } {
        assert!(Instant::now() < deadline, "less did not quit");
        std::thread::sleep(Duration::from_millis(20));
    }
    t.write(b"echo back-$((2+3))\n").unwrap();
    wait_screen(&t, "back-5", LIMIT);
    t.close();
}

#[test]
fn the_login_shell_of_the_workspace_stays_open() {
    let dir = tempfile::tempdir().unwrap();
    let command = LocalWorkspace::new(dir.path()).shell_command(true);
    let t = TerminalSession::spawn(std::path::Path::new(BIN), &command, 80, 24, Arc::new(|| {})).unwrap();
    // It answers (a shell that exited at once would not), and is still there after.
    t.write(b"echo login-$((1+1))\r").unwrap();
    wait_screen(&t, "login-2", LIMIT);
    assert!(!t.has_exited(), "the shell exited: {}", t.screen_text());
    t.close();
}

/// A program that ends at once after saying why: once its end is known, what it said last is on
/// the screen (the window shows those last words beside "The shell has ended"). Twenty times, as
/// the reader that might lag behind the end is a thread of its own.
#[test]
fn a_programs_last_words_are_on_the_screen_once_it_has_ended() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..20 {
        let mut command = LocalWorkspace::new(dir.path()).shell_command(true);
        let words = format!("seq 1 300; echo why-it-ended-{round}; exit 3");
        command.argv = vec!["/bin/sh".into(), "-c".into(), words];
        let t = TerminalSession::spawn(std::path::Path::new(BIN), &command, 80, 24, Arc::new(|| {})).unwrap();
        let deadline = Instant::now() + LIMIT;
        while !t.has_exited() {
            assert!(Instant::now() < deadline, "round {round}: it did not end");
            std::thread::sleep(Duration::from_millis(5));
        }
        let screen = t.screen_text();
        assert!(screen.contains(&format!("why-it-ended-{round}")), "round {round}: {screen}");
        t.close();
    }
}
