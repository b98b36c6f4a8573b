//! Terminals in a container: the shell opens in the workspace folder inside the container, and
//! closing ends the shell and every kind of background job it started there (through /proc in the
//! container: the session's mark and its recorded pid), 100 terminals over, nothing left; the
//! same in a Podman container (20 terminals).

use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::runtime::exec::{RemoteExecutor, RemoteKind};
use sidekicks::runtime::terminal::TerminalSession;
use sidekicks::runtime::workspace::{RemoteWorkspace, Workspace};

use crate::common;

use common::docker::{Container, DOCKER, Engine, PODMAN};
use common::{BIN, JOBS, pids_on, wait_screen};

/// How long a screen may take to show what is awaited.
const LIMIT: Duration = Duration::from_secs(30);

/// The background sleepers of `JOBS` running in the container.
fn sleepers(container: &Container) -> Vec<String> {
    container.processes().into_iter().filter(|p| p.starts_with("sleep 100")).collect()
}

#[test]
fn closing_a_container_terminal_ends_every_kind_of_background_job() {
    closing_ends_every_job(DOCKER, RemoteKind::Docker, 10);
}

#[test]
fn closing_a_podman_container_terminal_ends_every_kind_of_background_job() {
    closing_ends_every_job(PODMAN, RemoteKind::Podman, 2);
}

/// Opens a terminal, then `rounds` × 10 terminals with every kind of job, in a container of
/// `engine`.
fn closing_ends_every_job(engine: Engine, kind: RemoteKind, rounds: usize) {
    if !engine.available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("inside.txt"), "").unwrap();
    let container = Container::start_in(engine, &[(dir.path(), "/work/ws")]);
    let executor = Arc::new(RemoteExecutor::new(kind, container.name.clone()));
    let ws = RemoteWorkspace::new(executor, "/work/ws", engine.0, &container.name);
    let open = || {
        let command = ws.shell_command(true);
        TerminalSession::spawn(std::path::Path::new(BIN), &command, 80, 24, Arc::new(|| {})).unwrap()
    };

    // The shell is in the workspace folder, inside the container.
    let t = open();
    t.write(b"pwd; ls; echo in-$((3*3))\r").unwrap();
    let screen = wait_screen(&t, "in-9", LIMIT);
    assert!(screen.contains("/work/ws") && screen.contains("inside.txt"), "{screen}");
    t.close();

    // Ten terminals at a time, each with the six kinds of background job.
    for round in 0..rounds {
        let terminals: Vec<TerminalSession> = (0..10).map(|_| open()).collect();
        for t in &terminals {
            t.write(JOBS.as_bytes()).unwrap();
        }
        for t in &terminals {
            let mut screen = wait_screen(t, "all-2", LIMIT);
            let deadline = Instant::now() + Duration::from_secs(20);
            while pids_on(&screen).len() < 6 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
                screen = t.screen_text();
            }
            assert_eq!(pids_on(&screen).len(), 6, "{screen}");
        }
        assert_eq!(sleepers(&container).len(), 60, "round {round}: every job runs before closing");
        let closing: Vec<_> = terminals.into_iter().map(|t| std::thread::spawn(move || t.close())).collect();
        for c in closing {
            c.join().unwrap();
        }
        // A teardown slower than 10 s (an engine on loaded cores) finishes after `close`.
        let deadline = Instant::now() + Duration::from_secs(90);
        let mut left = sleepers(&container);
        while !left.is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
            left = sleepers(&container);
        }
        assert!(left.is_empty(), "round {round}: {} processes left in the container: {left:?}", left.len());
    }
    let shells: Vec<String> = container.processes().into_iter().filter(|p| p.contains("bash")).collect();
    assert!(shells.is_empty(), "shells left: {shells:?}");
}
