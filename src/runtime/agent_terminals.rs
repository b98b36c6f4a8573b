//! Commands an agent asks the client to run (ACP `terminal/*`): started through the agent's
//! executor — on this computer or inside its container — in its workspace (a `cwd` outside it is
//! refused), with the environment asked. Output (stdout and stderr) is always read, kept up to the
//! agent's byte limit (cut from the start at a character boundary, `truncated` set) and streamed to
//! the window. Kill ends the command and everything it started: on this computer it runs under
//! the subreaper host (`sidekicks terminal-host`) whose whole tree is ended; in a container the
//! launch script's recorded pid and its descendants are. Release frees a terminal; every terminal
//! of a session ends with the session.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;
use tokio::sync::watch;

use super::events::EventSink;
use super::exec::{Executor, ProcessSpec, RemoteTeardown};
use crate::protocol::AgentEvent;
use crate::protocol::Event;

/// Output kept when the agent gives no limit.
pub const DEFAULT_LIMIT: usize = 1024 * 1024;

/// Commands one agent may have running at once; past it, `terminal/create` is refused in words
/// (an agent opened 500 terminals running `yes`: 700 MB, and a slow Stop).
pub const MAX_RUNNING: usize = 64;

/// How a command ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
    /// Its exit code, if it exited.
    pub code: Option<u32>,
    /// The signal that ended it, if any.
    pub signal: Option<String>,
}

/// Why a request was refused.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    /// The folder is outside the agent's workspace.
    #[error("{0} is outside the agent's workspace")]
    Outside(String),
    /// No such terminal (never created, or released).
    #[error("no terminal {0}")]
    Unknown(String),
    /// Too many of its commands run already.
    #[error(
        "{0} commands of this agent run already, the most Sidekicks runs at once: wait for one to end, or kill or release one"
    )]
    TooMany(usize),
    /// The command could not start.
    #[error("cannot start {command}: {message}")]
    Start {
        /// The command.
        command: String,
        /// Why.
        message: String,
    },
}

struct Output {
    bytes: Vec<u8>,
    truncated: bool,
    limit: usize,
}

impl Output {
    /// Appends, then cuts from the start (at a character boundary) down to the limit.
    fn push(&mut self, more: &[u8]) {
        self.bytes.extend_from_slice(more);
        if self.bytes.len() > self.limit {
            let mut cut = self.bytes.len() - self.limit;
            while cut < self.bytes.len() && (self.bytes[cut] & 0xC0) == 0x80 {
                cut += 1;
            }
            self.bytes.drain(..cut);
            self.truncated = true;
        }
    }

    /// The text so far: an incomplete character at the end waits for its other bytes.
    fn text(&self) -> String {
        match std::str::from_utf8(&self.bytes) {
            Ok(text) => text.to_string(),
            Err(e) if e.error_len().is_none() => String::from_utf8_lossy(&self.bytes[..e.valid_up_to()]).into_owned(),
            Err(_) => String::from_utf8_lossy(&self.bytes).into_owned(),
        }
    }
}

enum Killer {
    /// The subreaper host (its whole tree) or the process group on this computer.
    Local(u32),
    /// The recorded process in a container.
    Remote(RemoteTeardown),
}

struct Terminal {
    output: Mutex<Output>,
    exit: watch::Receiver<Option<Exit>>,
    killer: Killer,
    /// Sidekicks ended it (reported as SIGKILL: what reaches the host or `exec` client is only
    /// its own exit).
    killed: std::sync::atomic::AtomicBool,
}

/// The terminals of one agent session.
pub struct AgentTerminals {
    agent: String,
    events: EventSink,
    executor: Arc<dyn Executor>,
    /// The workspace on this computer, and as the agent names it.
    host_root: PathBuf,
    agent_root: PathBuf,
    /// The subreaper host for local commands (`None` in a container).
    host_exe: Option<PathBuf>,
    terminals: Mutex<HashMap<String, Arc<Terminal>>>,
    next: AtomicU64,
}

/// `path` with `.` and `..` resolved lexically (no filesystem access).
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl AgentTerminals {
    /// Terminals for `agent`, run through `executor`; `host_exe` (this binary) hosts local ones.
    pub fn new(
        agent: String,
        events: EventSink,
        executor: Arc<dyn Executor>,
        host_root: PathBuf,
        agent_root: PathBuf,
        host_exe: Option<PathBuf>,
    ) -> Self {
        Self {
            agent,
            events,
            executor,
            host_root,
            agent_root,
            host_exe,
            terminals: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
        }
    }

    /// The folder to run in: the workspace, or `cwd` when it is inside it (on this computer, after
    /// following symbolic links).
    fn folder(&self, cwd: Option<&Path>) -> Result<PathBuf, TerminalError> {
        let Some(cwd) = cwd else { return Ok(self.agent_root.clone()) };
        let asked = normalized(&self.agent_root.join(cwd));
        let outside = || TerminalError::Outside(cwd.display().to_string());
        let rel = asked.strip_prefix(&self.agent_root).map_err(|_| outside())?;
        if self.host_exe.is_some() {
            let real = self.host_root.join(rel).canonicalize().map_err(|_| outside())?;
            let root = self.host_root.canonicalize().map_err(|_| outside())?;
            if !real.starts_with(&root) {
                return Err(outside());
            }
        }
        Ok(asked)
    }

    /// Starts `command` with `args` in `cwd` with `env`; returns the terminal's id.
    pub fn create(
        &self,
        command: &str,
        args: &[String],
        env: BTreeMap<String, String>,
        cwd: Option<&Path>,
        limit: Option<u64>,
    ) -> Result<String, TerminalError> {
        let cwd = self.folder(cwd)?;
        let running = lock(&self.terminals).values().filter(|t| t.exit.borrow().is_none()).count();
        if running >= MAX_RUNNING {
            return Err(TerminalError::TooMany(MAX_RUNNING));
        }
        let mut argv = Vec::new();
        if let Some(host) = &self.host_exe {
            argv.extend([host.display().to_string(), "terminal-host".into(), "--".into()]);
        }
        argv.push(command.to_string());
        argv.extend(args.iter().cloned());
        let spec = ProcessSpec { argv, cwd, env };
        let mut launched = self
            .executor
            .popen(&spec)
            .map_err(|e| TerminalError::Start { command: command.into(), message: e.to_string() })?;
        let id = format!("term-{}", self.next.fetch_add(1, Ordering::Relaxed));
        let killer = match launched.teardown.take() {
            Some(teardown) => Killer::Remote(teardown),
            None => Killer::Local(launched.child.id().unwrap_or(0)),
        };
        let (exit_tx, exit_rx) = watch::channel(None);
        let limit = limit.map_or(DEFAULT_LIMIT, |l| l as usize);
        let terminal = Arc::new(Terminal {
            output: Mutex::new(Output { bytes: Vec::new(), truncated: false, limit }),
            exit: exit_rx,
            killer,
            killed: std::sync::atomic::AtomicBool::new(false),
        });
        let mut child = launched.child;
        drop(child.stdin.take());
        let readers: Vec<_> = [
            child.stdout.take().map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            child.stderr.take().map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        .map(|mut pipe| {
            let (terminal, events, agent, id) = (terminal.clone(), self.events.clone(), self.agent.clone(), id.clone());
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                loop {
                    match pipe.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            lock(&terminal.output).push(&buf[..n]);
                            let bytes = buf[..n].to_vec();
                            events
                                .send(Event::Agent(
                                    agent.clone().into(),
                                    AgentEvent::Terminal { id: id.clone(), bytes },
                                ))
                                .await;
                        }
                    }
                }
            })
        })
        .collect();
        let (events, agent, terminal_id) = (self.events.clone(), self.agent.clone(), id.clone());
        let ended = terminal.clone();
        tokio::spawn(async move {
            let status = child.wait().await;
            for reader in readers {
                let _ = reader.await;
            }
            use std::os::unix::process::ExitStatusExt;
            let exit = match status {
                _ if ended.killed.load(Ordering::SeqCst) => Exit { code: None, signal: Some("SIGKILL".into()) },
                Ok(s) => Exit {
                    code: s.code().map(|c| c as u32),
                    signal: s.signal().map(|sig| signal_name(sig).to_string()),
                },
                Err(_) => Exit { code: None, signal: None },
            };
            // What it left running where it ran (over SSH: also when the connection was lost).
            if let Killer::Remote(teardown) = &ended.killer {
                teardown.sweep().await;
            }
            let _ = exit_tx.send(Some(exit.clone()));
            events
                .send(Event::Agent(
                    agent.into(),
                    AgentEvent::TerminalExited { id: terminal_id, code: exit.code, signal: exit.signal },
                ))
                .await;
        });
        lock(&self.terminals).insert(id.clone(), terminal);
        Ok(id)
    }

    fn get(&self, id: &str) -> Result<Arc<Terminal>, TerminalError> {
        lock(&self.terminals).get(id).cloned().ok_or_else(|| TerminalError::Unknown(id.into()))
    }

    /// The output so far, whether it was cut, and how the command ended if it did.
    pub fn output(&self, id: &str) -> Result<(String, bool, Option<Exit>), TerminalError> {
        let t = self.get(id)?;
        let out = lock(&t.output);
        Ok((out.text(), out.truncated, t.exit.borrow().clone()))
    }

    /// Waits until the command ends.
    pub async fn wait(&self, id: &str) -> Result<Exit, TerminalError> {
        let mut exit = self.get(id)?.exit.clone();
        loop {
            if let Some(e) = exit.borrow_and_update().clone() {
                return Ok(e);
            }
            if exit.changed().await.is_err() {
                return Ok(Exit { code: None, signal: None });
            }
        }
    }

    /// Ends the command and everything it started (the terminal stays, for its output).
    pub async fn kill(&self, id: &str) -> Result<(), TerminalError> {
        let t = self.get(id)?;
        end(&t).await;
        Ok(())
    }

    /// Ends the command if it runs and forgets the terminal.
    pub async fn release(&self, id: &str) -> Result<(), TerminalError> {
        let t = lock(&self.terminals).remove(id).ok_or_else(|| TerminalError::Unknown(id.into()))?;
        if t.exit.borrow().is_none() {
            end(&t).await;
        }
        Ok(())
    }

    /// Ends every terminal (the session or the agent ended).
    pub async fn close_all(&self) {
        let all: Vec<Arc<Terminal>> = lock(&self.terminals).drain().map(|(_, t)| t).collect();
        // All at once: each end waits a moment for its tree to go.
        let running = all.iter().filter(|t| t.exit.borrow().is_none());
        futures::future::join_all(running.map(|t| end(t))).await;
    }
}

async fn end(t: &Terminal) {
    t.killed.store(true, Ordering::SeqCst);
    match &t.killer {
        Killer::Local(pid) => {
            let pid = *pid;
            let _ = tokio::task::spawn_blocking(move || super::terminal::kill_tree_and_root(pid)).await;
        }
        Killer::Remote(teardown) => teardown.signal("KILL").await,
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGPIPE => "SIGPIPE",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_cut_from_the_start_at_a_character_boundary() {
        let mut out = Output { bytes: Vec::new(), truncated: false, limit: 5 };
        out.push("ab".as_bytes());
        assert_eq!((out.text().as_str(), out.truncated), ("ab", false));
        out.push("cdéf".as_bytes());
        assert!(out.truncated);
        assert_eq!(out.text(), "cdéf", "the last five bytes");
        let mut cut = Output { bytes: Vec::new(), truncated: false, limit: 2 };
        cut.push("éz".as_bytes());
        assert_eq!(cut.text(), "z", "two bytes would start inside é: the cut moves past it");
        let mut half = Output { bytes: Vec::new(), truncated: false, limit: 100 };
        half.push(&"é".as_bytes()[..1]);
        assert_eq!(half.text(), "", "an incomplete character waits");
        half.push(&"é".as_bytes()[1..]);
        assert_eq!(half.text(), "é");
    }

    #[test]
    fn folders_outside_the_workspace_are_refused_lexically() {
        assert_eq!(normalized(Path::new("/w/a/../b/./c")), PathBuf::from("/w/b/c"));
        assert_eq!(normalized(Path::new("/w/../../etc")), PathBuf::from("/etc"));
    }
}
