//! The bridge between the UI thread and the runtime: `Command`s go in, `Event`s come out and
//! are applied to the `AppState` the UI reads, a bounded batch per frame.

mod bridge;
pub mod channels_state;
mod state;
pub mod teams_state;

pub use crate::protocol::{
    AgentState, Command, CrashReason, CrashReport, Event, HandshakeFailure, LogEntry, SpawnFailure, TeamEvent,
    TeamInfo, WorkspaceEvent,
};
pub use bridge::{Bridge, Startup, start};
pub use state::{AgentView, AppState, CommandOutput, PermissionCard};
