//! The one place a Sidekicks process starts its runtime, for every door: the window's bridge,
//! `sidekicks prompt`, `sidekicks team`, `sidekicks registry` (and next the team lead's tools).
//! It builds the Tokio runtime, opens the history, and starts the front door
//! ([`services`](super::services)) with the history's recorder; a door then only sends
//! `Command`s and reads `Event`s, so every door gives the same answer to the same words.
//! (The demo agent and the demo MCP server are other programs that live in the same binary: they
//! build their own small runtime, as any agent does.)

use std::sync::Arc;

use anyhow::Context as _;
use tokio::sync::mpsc;

use super::config::file::AppDirs;
use super::events::{EventSink, Waker};
use super::history::spawn_recorder;
pub use super::services::Startup;
use super::services::spawn_services;
use super::store::Store;
use crate::protocol::{Command, Event, HistoryNote};

/// The runtime of a Sidekicks process: two workers (the machines it is made for have few cores,
/// and the work is waiting on agents, files and processes, not computing).
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).thread_name("sidekicks-rt").enable_all().build()
}

/// The history in the user's data folder, opened; a damaged one is kept aside and a fresh one
/// started, which the note says.
pub fn open_history(dirs: &AppDirs) -> anyhow::Result<(Arc<Store>, Option<HistoryNote>)> {
    let path = dirs.data_dir.join("sidekicks.db");
    Store::open_or_recover(&path).with_context(|| format!("opening the history {}", path.display()))
}

/// A door's handle on the running front door.
pub struct Host {
    /// Where the door sends its commands.
    pub commands: mpsc::Sender<Command>,
    /// What the runtime says.
    pub events: mpsc::Receiver<Event>,
    /// The events' sink, with the history's recorder: to wait until what was said is stored.
    pub history: EventSink,
}

impl Host {
    /// Starts the front door on the current runtime (inside it, or with its guard entered);
    /// `waker` is called after each event (the window repaints).
    pub fn start(startup: Startup, waker: Waker) -> Self {
        let (mut sink, events) = EventSink::new(waker);
        if let Some(store) = &startup.store {
            sink = sink.with_history(spawn_recorder(store.clone()));
        }
        let commands = spawn_services(startup, sink.clone());
        Self { commands, events, history: sink }
    }
}
