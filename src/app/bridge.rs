//! The UI's handle on the runtime, and nothing more: the command channel in, the event channel
//! out, and the waker the runtime calls after each event. Commands are sent without blocking;
//! events are applied to the `AppState` on a time budget per frame. Every request, whatever it
//! is about (agents, the config file, workspaces, teams), is a `Command` served on the runtime
//! (`runtime/services`), and every result an `Event`.

use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::state::AppState;
use crate::protocol::{Command, Event};
use crate::runtime::events::{EventSink, Waker};
use crate::runtime::host::Host;
pub use crate::runtime::host::Startup;

/// The UI's handle on the runtime.
pub struct Bridge {
    commands: mpsc::Sender<Command>,
    events: mpsc::Receiver<Event>,
    /// Kept to wait for the history before the window goes.
    sink: EventSink,
    rt: tokio::runtime::Handle,
}

/// Starts the runtime's services on `rt` (they load and follow the config file).
pub fn start(rt: &tokio::runtime::Handle, startup: Startup, waker: Waker) -> Bridge {
    let _guard = rt.enter();
    let Host { commands, events, history: sink } = Host::start(startup, waker);
    Bridge { commands, events, sink, rt: rt.clone() }
}

impl Bridge {
    /// Sends a command without blocking the UI; a full queue is logged and the command dropped.
    pub fn send(&self, command: Command) {
        if let Err(e) = self.commands.try_send(command) {
            tracing::warn!("command not sent: {e}");
        }
    }

    /// Applies pending events to `state` for at most `budget`. Returns true if some remain.
    pub fn drain(&mut self, state: &mut AppState, budget: Duration) -> bool {
        let start = Instant::now();
        loop {
            match self.events.try_recv() {
                Ok(event) => state.apply(event),
                Err(_) => return false,
            }
            if start.elapsed() >= budget {
                return !self.events.is_empty();
            }
        }
    }

    /// Stops every agent and waits (up to `limit`) until they are all gone and the history has
    /// saved everything they sent.
    pub fn shutdown_blocking(&mut self, state: &mut AppState, limit: Duration) {
        let _ = self.commands.try_send(Command::Shutdown);
        let deadline = Instant::now() + limit;
        while !state.shutdown_complete && Instant::now() < deadline {
            match self.events.try_recv() {
                Ok(event) => state.apply(event),
                Err(mpsc::error::TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(10)),
                Err(mpsc::error::TryRecvError::Disconnected) => break,
            }
        }
        let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_secs(1));
        let sink = &self.sink;
        let _ = self.rt.block_on(async move { tokio::time::timeout(left, sink.flush_history()).await });
    }
}
