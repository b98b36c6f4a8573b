//! `sidekicks team …` run as a person's script would, in a folder of the person's own (history,
//! teams, logs, locks under `ROOT/user`), ended after two minutes with what it printed should an
//! agent hang.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `sidekicks --config CONFIG team ARGS` with its folders under `root/user`, its output piped
/// (started by the caller: several can run at once).
pub fn command(config: &Path, root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(super::BIN);
    command
        .arg("--config")
        .arg(config)
        .arg("team")
        .args(args)
        .env("HOME", root.join("user"))
        .env("XDG_DATA_HOME", root.join("user/data"))
        .env("XDG_CONFIG_HOME", root.join("user/config"))
        .env("XDG_STATE_HOME", root.join("user/state"))
        .env("XDG_RUNTIME_DIR", root.join("user"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs `sidekicks --config CONFIG team ARGS` with its folders under `root/user`: exit code,
/// stdout, stderr.
pub fn team(config: &Path, root: &Path, args: &[&str]) -> (i32, String, String) {
    team_within(config, root, args, Duration::from_secs(120))
}

/// [`team`], ended after `limit` should an agent hang.
pub fn team_within(config: &Path, root: &Path, args: &[&str], limit: Duration) -> (i32, String, String) {
    let mut child = command(config, root, args).spawn().unwrap();
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            let (out, err) = (out.join().unwrap(), err.join().unwrap());
            panic!("{args:?} still running after {limit:?}:\n{out}\n{err}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (status.code().unwrap_or(-1), out.join().unwrap(), err.join().unwrap())
}
