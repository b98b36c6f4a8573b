//! Starting the runtime side (agent manager, config load and watcher) and the UI's handle on
//! it: commands are sent without blocking, events are drained on a time budget per frame.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::protocol::{Command, Event};
use super::state::AppState;
use crate::runtime::agents::{ManagerSettings, spawn_manager};
use crate::runtime::config_file::{AppDirs, load_file};
use crate::runtime::config_watch::{ConfigWatcher, watch_config};
use crate::runtime::events::{EventSink, Waker};
use crate::runtime::history::spawn_recorder;
use crate::runtime::store::Store;

/// What the runtime needs to start.
#[derive(Clone)]
pub struct Startup {
    /// The config file to load and follow.
    pub config_path: PathBuf,
    /// The user's folders (for `~/`).
    pub dirs: Option<AppDirs>,
    /// Manager timings.
    pub settings: ManagerSettings,
    /// The history database (`None`: nothing is remembered between runs).
    pub store: Option<Arc<Store>>,
}

/// The UI's handle on the runtime.
pub struct Bridge {
    commands: mpsc::Sender<Command>,
    events: mpsc::Receiver<Event>,
    _watcher: Option<ConfigWatcher>,
}

/// Starts the manager on `rt`, loads the config and follows the file.
pub fn start(rt: &tokio::runtime::Handle, startup: Startup, waker: Waker) -> Bridge {
    let _guard = rt.enter();
    let (mut sink, events) = EventSink::new(waker);
    if let Some(store) = &startup.store {
        sink = sink.with_history(spawn_recorder(store.clone()));
    }
    let commands = spawn_manager(startup.settings, sink, startup.store.clone());
    let home = startup.dirs.as_ref().and_then(|d| d.home.clone());
    let path = startup.config_path;
    let initial = std::fs::read_to_string(&path).ok();
    let result = load_file(&path, home.as_deref());
    let _ = commands.try_send(Command::ConfigLoaded { path: path.clone(), result });
    let watcher = match watch_config(path, home, initial, commands.clone()) {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!("cannot follow the config file: {e}");
            None
        }
    };
    Bridge { commands, events, _watcher: watcher }
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

    /// Stops every agent and waits (up to `limit`) until they are all gone.
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
    }
}
