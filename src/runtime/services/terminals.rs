//! The workspaces' terminals, owned by the runtime: opened in an agent's workspace on request
//! (on a blocking thread: a PTY and a process), each handed to the window as a
//! [`TerminalHandle`]; closed on request, when their agent leaves the config, when another config
//! file is opened, and before the runtime ends. Closing waits for the shell's whole process tree.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::protocol::{Event, WorkspaceEvent};
use crate::runtime::events::EventSink;
use crate::runtime::terminal::TerminalSession;
use crate::runtime::workspace::{ShellCommand, Workspace};

/// The open terminals, by id, each with its agent.
pub(super) struct Terminals {
    /// The program that hosts the shells (this binary: `sidekicks terminal-host`).
    host: PathBuf,
    sink: EventSink,
    open: Arc<Mutex<HashMap<u64, (String, TerminalSession)>>>,
}

impl Terminals {
    pub(super) fn new(host: PathBuf, sink: EventSink) -> Self {
        Self { host, sink, open: Default::default() }
    }

    /// Opens a terminal in `workspace` (of `agent`) and hands it to the window.
    pub(super) fn open(&self, agent: String, workspace: Arc<dyn Workspace>) {
        self.run(agent, workspace.shell_command(true), Box::new(|_| {}));
    }

    /// Runs `shell` in a terminal of `agent`'s workspace and hands it to the window; `on_exit` is
    /// told whether it succeeded.
    pub(super) fn run(&self, agent: String, shell: ShellCommand, on_exit: Box<dyn FnOnce(bool) + Send>) {
        let (host, sink, open) = (self.host.clone(), self.sink.clone(), self.open.clone());
        let waker = sink.waker();
        tokio::spawn(async move {
            let started = tokio::task::spawn_blocking(move || {
                TerminalSession::spawn_then(&host, &shell, 80, 24, Arc::new(move || waker()), on_exit)
            })
            .await;
            let result = match started {
                Ok(Ok(session)) => {
                    let handle = session.handle().clone();
                    open.lock().unwrap_or_else(|e| e.into_inner()).insert(handle.id, (agent.clone(), session));
                    Ok(handle)
                }
                Ok(Err(e)) => Err(e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            sink.send(Event::Workspace { agent, event: WorkspaceEvent::TerminalOpened { result } }).await;
        });
    }

    /// Ends terminal `id` (in the background).
    pub(super) fn close(&self, id: u64) {
        let session = self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        if let Some((_, session)) = session {
            tokio::task::spawn_blocking(move || session.close());
        }
    }

    /// Ends, in the background, the terminals of the agents `keep` says no to.
    pub(super) fn close_where(&self, keep: impl Fn(&str) -> bool) {
        for session in self.take_where(keep) {
            tokio::task::spawn_blocking(move || session.close());
        }
    }

    /// Ends every terminal and waits until all are closed.
    pub(super) async fn close_all(&self) {
        let waits: Vec<_> =
            self.take_where(|_| false).into_iter().map(|s| tokio::task::spawn_blocking(move || s.close())).collect();
        for wait in waits {
            let _ = wait.await;
        }
    }

    fn take_where(&self, keep: impl Fn(&str) -> bool) -> Vec<TerminalSession> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let ids: Vec<u64> = open.iter().filter(|(_, (agent, _))| !keep(agent)).map(|(id, _)| *id).collect();
        ids.into_iter().filter_map(|id| open.remove(&id)).map(|(_, s)| s).collect()
    }
}
