//! One agent process: its process group, its exit, its stderr, and the polite-then-firm stop
//! sequence (close stdin, wait; SIGTERM to the group, wait; SIGKILL).

use std::collections::VecDeque;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::watch;

use super::exec::RemoteTeardown;

/// How long each step of a stop waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StopTimeouts {
    /// After closing stdin.
    pub after_eof: Duration,
    /// After SIGTERM.
    pub after_term: Duration,
}

impl Default for StopTimeouts {
    fn default() -> Self {
        Self { after_eof: Duration::from_secs(5), after_term: Duration::from_secs(3) }
    }
}

/// Which step of the stop sequence ended the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopOutcome {
    /// It had already exited.
    AlreadyExited,
    /// It exited after stdin was closed.
    ExitedOnEof,
    /// It exited after SIGTERM.
    Terminated,
    /// It had to be killed.
    Killed,
}

/// The last lines an agent wrote to stderr, bounded.
#[derive(Clone, Debug, Default)]
pub struct StderrLog {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl StderrLog {
    /// Lines kept at most.
    pub const CAPACITY: usize = 2000;

    /// Adds a line, dropping the oldest past the capacity.
    pub fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == Self::CAPACITY {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The last `n` lines.
    pub fn tail(&self, n: usize) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines.iter().skip(lines.len().saturating_sub(n)).cloned().collect()
    }
}

/// A running agent process in its own process group.
pub struct AgentProcess {
    pgid: i32,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr: StderrLog,
    /// For an agent in a container: how to end it there.
    teardown: Option<RemoteTeardown>,
}

impl AgentProcess {
    /// Takes over a child started by an executor's `popen`. Each stderr line, with the values
    /// `redact` hides hidden, goes to the bounded log and to `on_stderr`.
    pub fn new<F>(
        mut child: Child,
        redact: super::redact::Redactor,
        on_stderr: impl Fn(String) -> F + Send + 'static,
    ) -> Self
    where
        F: Future<Output = ()> + Send,
    {
        let pgid = child.id().map_or(0, |id| id as i32);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr_log = StderrLog::default();
        let mut stderr_task = None;
        if let Some(stderr) = child.stderr.take() {
            let log = stderr_log.clone();
            stderr_task = Some(tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let line = redact.apply(line);
                    log.push(line.clone());
                    on_stderr(line).await;
                }
            }));
        }
        let (tx, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await;
            // Let the last stderr lines in before the exit is known (a crash report wants them);
            // a grandchild may keep stderr open, so do not wait long.
            if let Some(task) = stderr_task {
                let _ = tokio::time::timeout(Duration::from_millis(500), task).await;
            }
            if let Ok(status) = status {
                let _ = tx.send(Some(status));
            }
        });
        Self { pgid, stdin, stdout, exit, stderr: stderr_log, teardown: None }
    }

    /// Ends the agent inside its container too when stopping (see `RemoteTeardown`).
    pub fn with_teardown(mut self, teardown: Option<RemoteTeardown>) -> Self {
        self.teardown = teardown;
        self
    }

    /// The process id (also its process group id).
    pub fn pid(&self) -> i32 {
        self.pgid
    }

    /// The pipes to talk to it; `None` once taken.
    pub fn take_stdio(&mut self) -> Option<(ChildStdin, ChildStdout)> {
        Some((self.stdin.take()?, self.stdout.take()?))
    }

    /// Its stderr lines so far.
    pub fn stderr(&self) -> &StderrLog {
        &self.stderr
    }

    /// A receiver that sees the exit status once the process exits.
    pub fn exit_watch(&self) -> watch::Receiver<Option<ExitStatus>> {
        self.exit.clone()
    }

    /// Waits for the process to exit.
    pub async fn wait(&mut self) -> Option<ExitStatus> {
        let status = self.exit.wait_for(Option::is_some).await.ok()?;
        *status
    }

    async fn wait_for(&mut self, limit: Duration) -> bool {
        tokio::time::timeout(limit, self.wait()).await.is_ok()
    }

    /// Stops the process: close stdin and wait, then SIGTERM to its group and wait, then
    /// SIGKILL. Whatever else is left in its group is ended afterwards. The caller must have
    /// dropped any stdin it took (the ACP connection closes it).
    pub async fn stop(mut self, timeouts: StopTimeouts) -> StopOutcome {
        let outcome = if self.exit.borrow().is_some() {
            StopOutcome::AlreadyExited
        } else {
            drop(self.stdin.take());
            if self.wait_for(timeouts.after_eof).await {
                StopOutcome::ExitedOnEof
            } else {
                // In a container the signal goes to the agent there; its `… exec` client here
                // ends when it does. Signalling the client alone would leave the agent running.
                match &self.teardown {
                    Some(teardown) => teardown.signal("TERM").await,
                    None => {
                        signal_group(self.pgid, libc::SIGTERM);
                    }
                }
                if self.wait_for(timeouts.after_term).await {
                    StopOutcome::Terminated
                } else {
                    if let Some(teardown) = &self.teardown {
                        teardown.signal("KILL").await;
                    }
                    signal_group(self.pgid, libc::SIGKILL);
                    self.wait().await;
                    StopOutcome::Killed
                }
            }
        };
        end_group(self.pgid).await;
        if let Some(teardown) = &self.teardown {
            teardown.sweep().await;
        }
        outcome
    }

    /// How to end it where it runs, if elsewhere.
    pub fn teardown(&self) -> Option<RemoteTeardown> {
        self.teardown.clone()
    }
}

/// Sends `signal` to process group `pgid` (ignoring a group that is already gone).
pub fn signal_group(pgid: i32, signal: i32) -> bool {
    if pgid <= 1 {
        return false;
    }
    // SAFETY: killpg has no memory-safety preconditions; a stale group only yields ESRCH.
    unsafe { libc::killpg(pgid, signal) == 0 }
}

/// Ends what is left of a group whose leader has exited: SIGTERM, a short grace, SIGKILL.
pub async fn end_group(pgid: i32) {
    if !signal_group(pgid, libc::SIGTERM) {
        return;
    }
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(25)).await;
        if !signal_group(pgid, 0) {
            return;
        }
    }
    signal_group(pgid, libc::SIGKILL);
}
