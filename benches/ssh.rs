//! How long things take on another machine over SSH, first (a new connection: TCP, key exchange,
//! login) and later (through the shared connection, ControlMaster): the connection check that
//! starts every agent, reading a file, an agent started and answering ACP `initialize`, and a
//! terminal's shell answering. Against the private sshd of `scripts/ssh-test-env.sh` on 127.0.0.1,
//! so the network adds nothing: what is left is ssh's own cost.
//!
//! Run: `eval "$(scripts/ssh-test-env.sh)"; cargo bench --bench ssh`

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::model::rel_path::RelPath;
use sidekicks::runtime::exec::{Executor, ProcessSpec, SshExecutor};
use sidekicks::runtime::terminal::TerminalSession;
use sidekicks::runtime::workspace::{RemoteWorkspace, Workspace};

const HOST: &str = "sidekicks-test";
const FIRST: usize = 10;
const LATER: usize = 30;

fn stats(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
    println!(
        "{name:<44} n={:<3} median {:>7.1} ms  p95 {:>7.1} ms  min {:>7.1}  max {:>7.1}",
        times.len(),
        ms(times[times.len() / 2]),
        ms(p95),
        ms(times[0]),
        ms(times[times.len() - 1])
    );
}

/// Times `what` `n` times; with `cold`, the shared connection is closed before each.
fn measure<F, Fut>(rt: &tokio::runtime::Runtime, ssh: &SshExecutor, n: usize, cold: bool, what: F) -> Vec<Duration>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    (0..n)
        .map(|_| {
            if cold {
                rt.block_on(ssh.disconnect());
            }
            let start = Instant::now();
            rt.block_on(what());
            start.elapsed()
        })
        .collect()
}

fn main() {
    if std::env::var_os("SIDEKICKS_SSH_CONFIG").is_none() {
        println!("skipped: run `eval \"$(scripts/ssh-test-env.sh)\"` first");
        return;
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_sidekicks"));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file.txt"), "x".repeat(10_000)).unwrap();
    let ssh = SshExecutor::new(HOST).unwrap();
    let executor: Arc<dyn Executor> = Arc::new(ssh.clone());
    let ws = RemoteWorkspace::new(executor.clone(), dir.path(), "ssh", HOST);
    rt.block_on(executor.preflight()).expect("the test sshd answers");

    let check = || async { executor.preflight().await.unwrap() };
    stats("connection check, first", measure(&rt, &ssh, FIRST, true, check));
    stats("connection check, later", measure(&rt, &ssh, LATER, false, check));

    let file = RelPath::new("file.txt").unwrap();
    let read = || async { assert_eq!(ws.read(&file).await.unwrap().0.len(), 10_000) };
    stats("read a 10 kB file, first", measure(&rt, &ssh, FIRST, true, read));
    stats("read a 10 kB file, later", measure(&rt, &ssh, LATER, false, read));

    let spec = ProcessSpec {
        argv: vec![bin.display().to_string(), "demo-agent".into()],
        cwd: dir.path().to_path_buf(),
        env: [("SK_MARK".to_string(), "bench".to_string())].into(),
    };
    let agent = || async {
        executor.preflight().await.unwrap();
        let mut launched = executor.popen(&spec).unwrap();
        let stdin = launched.child.stdin.take().unwrap();
        let stdout = launched.child.stdout.take().unwrap();
        let (mut stdin, stdout) = (own(stdin), own(stdout));
        let init =
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;
        writeln!(stdin, "{init}").unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        assert!(line.contains("\"id\":1"), "{line}");
        drop(stdin);
        let _ = launched.child.wait().await;
        if let Some(teardown) = launched.teardown {
            teardown.sweep().await;
        }
    };
    stats("agent started, answers initialize, first", measure(&rt, &ssh, FIRST, true, agent));
    stats("agent started, answers initialize, later", measure(&rt, &ssh, LATER, false, agent));

    let terminal = || async {
        let command = ws.shell_command(true);
        let t = TerminalSession::spawn(bin, &command, 80, 24, Arc::new(|| {})).unwrap();
        t.write(b"echo ready-$((20+22))\r").unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !t.screen_text().contains("ready-42") {
            assert!(Instant::now() < deadline, "{}", t.screen_text());
            std::thread::sleep(Duration::from_millis(1));
        }
        // Closing (ending every job there) is not part of opening.
        std::thread::spawn(move || t.close());
    };
    stats("terminal opened, shell answers, first", measure(&rt, &ssh, FIRST, true, terminal));
    stats("terminal opened, shell answers, later", measure(&rt, &ssh, LATER, false, terminal));

    // What every session there pays before any of it runs: sshd runs commands through the user's
    // login shell, and bash then reads ~/.bashrc.
    let start_shell = || async {
        let out = tokio::process::Command::new("bash").args(["-c", ". ~/.bashrc; true"]).output();
        out.await.unwrap();
    };
    stats("bash reading this user's ~/.bashrc alone", measure(&rt, &ssh, LATER, false, start_shell));
    let bare = || async {
        let out = tokio::process::Command::new("sh").args(["-c", "true"]).output();
        out.await.unwrap();
    };
    stats("sh alone", measure(&rt, &ssh, LATER, false, bare));
}

/// A pipe of the child as a blocking file (the bench reads and writes in line).
fn own<T: std::os::fd::AsFd>(pipe: T) -> std::fs::File {
    use std::os::fd::AsRawFd;
    let fd = pipe.as_fd().try_clone_to_owned().unwrap();
    // SAFETY: fcntl on a valid descriptor we own; only its flags change.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
    }
    std::fs::File::from(fd)
}
