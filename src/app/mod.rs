//! The window's side of the runtime: the `Bridge` (commands in, events out, a bounded batch per
//! frame) and the `AppState` the events are applied to and the views read.

pub mod agent_view;
pub mod alerts;
pub mod attention;
mod bridge;
pub mod channels_state;
pub mod composing;
pub mod files_state;
pub mod inbox;
pub mod registry_state;
pub mod review_state;
mod state;
pub mod teams_state;
pub mod terminals_state;
pub mod threads_state;

pub use crate::protocol::{
    AgentCommand, AgentEvent, AgentId, AgentState, ChannelCommand, ChannelEvent, Command, ConfigCommand, ConfigEvent,
    CrashReason, CrashReport, Event, HandshakeFailure, LogEntry, SpawnFailure, SshFault, TeamEvent, TeamInfo,
    WorkspaceCommand, WorkspaceEvent,
};
/// The idle-repaint benchmark's frame counter (its thread writes the file, not the window).
pub use crate::runtime::frame_stats::FrameStats;
pub use agent_view::{AgentView, CommandOutput, ElicitationCard, PermissionCard};
pub use bridge::{Bridge, Startup, start};
pub use state::{AppState, Request};
