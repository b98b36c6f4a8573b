//! A connection lost while an agent over SSH starts is said as a lost connection — the same words
//! as when it is lost mid-turn — by `sidekicks prompt` (issue 48, item 8: one run of two said "the
//! agent exited with code 255"). The connection is killed for real: its shared OpenSSH connection
//! (the ControlMaster) gets SIGKILL while the agent there has not answered `initialize`.

use std::time::{Duration, Instant};

use crate::common;
use common::ssh::{DROP, DROP_LOCK, available, master_pid, processes_with};

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn a_connection_lost_during_the_handshake_is_said_as_lost() {
    if !available() {
        return;
    }
    let _drop = DROP_LOCK.blocking_lock();
    let dir = tempfile::tempdir().unwrap();
    // An "agent" that never answers: the handshake waits on it.
    let seconds = format!("{}", 50_000 + std::process::id() % 10_000);
    let config = dir.path().join("sidekicks.toml");
    std::fs::write(
        &config,
        format!(
            "[[agent]]\nname = \"far\"\ncommand = \"sleep\"\nargs = [{seconds:?}]\nworkspace = {:?}\nruntime = {{ type = \"ssh\", host = {DROP:?} }}\n",
            dir.path().display().to_string()
        ),
    )
    .unwrap();
    let child = std::process::Command::new(common::BIN)
        .args(["prompt", "--agent", "far", "hello", "--config"])
        .arg(&config)
        .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let sleep = format!("sleep {seconds}");
    let deadline = Instant::now() + LIMIT;
    while !processes_with(&sleep).iter().any(|(_, line)| line.starts_with(&sleep)) {
        assert!(Instant::now() < deadline, "the agent never ran there");
        std::thread::sleep(Duration::from_millis(50));
    }
    let master = master_pid(DROP);
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(master, libc::SIGKILL) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("Disconnected from {DROP}: the SSH connection was lost")), "{stderr}");
    assert!(!stderr.contains("code 255"), "{stderr}");
}
