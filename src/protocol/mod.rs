//! The two enums that cross between the UI thread and the runtime: `Command` in, `Event` out.
//! Plain data, so the runtime can produce events without knowing anything about drawing.

pub mod agent;
pub mod attachments;
pub mod auth;
pub mod channels;
pub mod checkpoints;
pub mod config;
pub mod discovery;
pub mod notify;
pub mod picker;
pub mod registry;
pub mod ssh;
pub mod teams;
pub mod terminal;
pub mod threads;
pub mod workspace;

use std::path::PathBuf;

pub use self::agent::{AgentCommand, AgentEvent, AgentId};
pub use self::channels::{ChannelCommand, ChannelEvent};
pub use self::config::{ConfigCommand, ConfigEvent};
pub use self::ssh::SshFault;
pub use self::teams::{TeamEvent, TeamInfo};
pub use self::workspace::{WorkspaceCommand, WorkspaceEvent};

/// The state of an agent process, as shown by its dot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentState {
    /// Not running.
    Stopped,
    /// Being started (process spawned, ACP handshake in progress).
    Starting,
    /// Running, waiting for a message.
    Idle,
    /// Answering a message.
    Busy,
    /// Being stopped.
    Stopping,
    /// Exited on its own or failed to start.
    Crashed(CrashReport),
}

impl AgentState {
    /// Whether a process is there (or coming): starting, idle or busy.
    pub fn is_running(&self) -> bool {
        matches!(self, AgentState::Starting | AgentState::Idle | AgentState::Busy)
    }
}

/// Why an agent is not running although nobody stopped it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashReport {
    /// What happened, as a code the UI puts into words.
    pub reason: CrashReason,
    /// The last lines it wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// The last lines it wrote to stdout that were not the protocol's (an agent that explains in
    /// words why it stops, then exits before the handshake).
    pub stdout_tail: Vec<String>,
}

/// What went wrong with an agent process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CrashReason {
    /// It exited with this code.
    Exited {
        /// The exit code.
        code: i32,
    },
    /// It was ended by this signal.
    Signaled {
        /// The signal.
        signal: i32,
    },
    /// It could not be started.
    Spawn(SpawnFailure),
    /// It started but did not complete the ACP handshake.
    Handshake(HandshakeFailure),
    /// It closed its output (stopped talking) but kept running: it was stopped.
    StoppedTalking,
    /// The SSH connection to its machine was lost (ssh ended with 255).
    Disconnected {
        /// The host of the config.
        host: String,
    },
}

/// Something the person is told about the history when it is opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryNote {
    /// It could not be read: kept aside, and a fresh one started.
    Recovered {
        /// The history's file.
        path: PathBuf,
        /// Where the damaged file is now.
        kept_as: PathBuf,
        /// What SQLite said.
        error: String,
    },
    /// Saving fails (a full disk…): what was said is kept in memory and saved once it works.
    SaveFailed {
        /// Why.
        error: String,
    },
    /// Saving works again: everything kept is saved.
    Saved,
    /// Remembered answers that named no exact target (kept by an earlier Sidekicks) were dropped:
    /// the person will be asked again.
    RulesDropped {
        /// How many.
        count: usize,
    },
    /// It could not be opened at all: nothing is kept this run.
    Unavailable {
        /// The history's file.
        path: PathBuf,
        /// Why.
        error: String,
    },
}

/// Why an agent could not be started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpawnFailure {
    /// The program was not found.
    NotFound {
        /// The program.
        program: String,
    },
    /// The workspace folder does not exist.
    MissingFolder {
        /// The path it is about.
        path: String,
    },
    /// This runtime cannot start agents yet.
    NotSupported {
        /// The runtime (docker, podman, sbx, kubectl).
        runtime: String,
    },
    /// Anything else (the system's message).
    Other {
        /// The program.
        program: String,
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// The tool the runtime needs is not installed.
    ToolMissing {
        /// The tool.
        tool: String,
        /// The runtime (docker, podman, sbx, kubectl).
        runtime: String,
    },
    /// No container (sandbox, pod) of that name.
    ContainerMissing {
        /// The name.
        name: String,
    },
    /// The container exists but is not running.
    ContainerStopped {
        /// The name.
        name: String,
    },
    /// ssh could not reach or use the machine.
    Ssh {
        /// The host of the config.
        host: String,
        /// What went wrong.
        fault: SshFault,
    },
}

/// Why the ACP handshake failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandshakeFailure {
    /// No answer to `step` within `seconds`.
    Timeout {
        /// The step that failed.
        step: String,
        /// How many seconds.
        seconds: u64,
    },
    /// The agent answered `step` with an error (its own words).
    Error {
        /// The step that failed.
        step: String,
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// The agent speaks another protocol version.
    Version {
        /// The version.
        version: String,
    },
    /// The agent asks the person to log in first.
    AuthRequired {
        /// The agent's words.
        message: String,
        /// The ways to log in it offers.
        methods: Vec<auth::AuthMethod>,
    },
}

/// A line of an agent's Log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogEntry {
    /// A line it wrote to stderr.
    Stderr(String),
    /// A line on stdout that is not ACP (kept out of the protocol).
    NotAcp(String),
    /// A line on stdout too long to read (`megabytes` at least); its start.
    LongLine {
        /// Its size in megabytes (at least).
        megabytes: usize,
        /// Its beginning.
        start: String,
    },
    /// A session update that does not parse, skipped: the parser's error and the update.
    BadUpdate {
        /// The error, in words.
        error: String,
        /// The update.
        update: String,
    },
    /// A message for a session that is not the agent's, ignored (an update) or refused.
    OtherSession {
        /// The session id.
        session: String,
        /// The method.
        method: String,
    },
    /// An update for a tool call never announced, ignored.
    UnknownToolCall {
        /// Its id.
        id: String,
    },
}

/// From the UI (or a test) to the runtime.
#[derive(Clone, Debug)]
pub enum Command {
    /// To one agent (its name): its process, its turns, its sessions and threads, its
    /// permissions and logins — the agent service (the manager) serves it.
    Agent(AgentId, agent::AgentCommand),
    /// An agent's workspace, its branch, and the terminals there.
    Workspace(workspace::WorkspaceCommand),
    /// The config file: open, save, check, pick, find and add agents.
    Config(config::ConfigCommand),
    /// A team channel.
    Channel(channels::ChannelCommand),
    /// About checkpoints (restore one).
    Checkpoint(checkpoints::CheckpointCommand),
    /// The ACP Registry: list, add, update, remove (→ `Event::Registry`).
    Registry(registry::RegistryCommand),
    /// A team operation (→ `Event::Team`).
    Team(Box<teams::TeamCommand>),
    /// Search the stored conversations of config file `config_path` (answered by
    /// `Event::SearchResults`).
    Search {
        /// The config file whose threads are searched.
        config_path: PathBuf,
        /// What the person typed.
        query: String,
    },
    /// Threads no agent of the config owns: read, delete (→ `Event::History`).
    History(threads::HistoryCommand),
    /// Show a desktop notification (the window is not focused).
    Notify(Box<notify::DesktopNote>),
    /// Stop every agent and end the runtime.
    Shutdown,
}

impl Command {
    /// The person's `text` to `agent`, nothing attached, nothing said before it, an id of the
    /// runtime's choosing: what the composer sends most of the time.
    pub fn prompt(agent: impl Into<AgentId>, text: impl Into<String>) -> Self {
        let prompt = AgentCommand::Prompt {
            text: text.into(),
            context: None,
            with_transcript: false,
            id: None,
            attachments: Vec::new(),
        };
        Command::Agent(agent.into(), prompt)
    }
}

/// From the runtime to the UI.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// About one agent (its name): its state, its turns, its sessions and threads, its
    /// permissions and logins — what the agent service (the manager) tells.
    Agent(AgentId, agent::AgentEvent),
    /// About the config file: read, applied, opened, saved, checked; dialogs; agents found.
    Config(config::ConfigEvent),
    /// About the team channels.
    Channel(channels::ChannelEvent),
    /// A checkpoint recorded, a restore done.
    Checkpoint(checkpoints::CheckpointEvent),
    /// What a search found.
    SearchResults {
        /// The query it answers.
        query: String,
        /// The messages found, newest thread first, or why the search failed.
        hits: Result<Vec<crate::model::search::SearchHit>, String>,
    },
    /// About threads no agent of the config owns.
    History(threads::HistoryEvent),
    /// The person clicked a desktop notification: show what it is about.
    NotificationClicked {
        /// What it is about.
        target: notify::NoteTarget,
    },
    /// Every agent is stopped; the runtime has ended.
    ShutdownComplete,
    /// The desktop has no file dialog: the window shows its own picker.
    PickInWindow(picker::PickerStart),
    /// What the ACP Registry service did.
    Registry(registry::RegistryEvent),
    /// A workspace operation finished (or its folder changed).
    Workspace {
        /// The agent (its name).
        agent: String,
        /// The event.
        event: WorkspaceEvent,
    },
    /// A team operation finished.
    Team(TeamEvent),
    /// Something to tell about the history when it was opened (damaged and kept aside, or not
    /// available).
    HistoryNote {
        /// What.
        note: HistoryNote,
    },
}

impl Event {
    /// True for the events that change a conversation (the history recorder stores them).
    pub fn is_conversation(&self) -> bool {
        matches!(
            self,
            Event::Config(ConfigEvent::Loaded { .. } | ConfigEvent::Opened { .. })
                | Event::Checkpoint(_)
                | Event::Agent(
                    _,
                    AgentEvent::ThreadOpened { .. }
                        | AgentEvent::UserMessage { .. }
                        | AgentEvent::Retrying { .. }
                        | AgentEvent::Edited { .. }
                        | AgentEvent::VersionShown { .. }
                        | AgentEvent::Resent { .. }
                        | AgentEvent::Update { .. }
                        | AgentEvent::Notice { .. }
                        | AgentEvent::TurnStarted
                        | AgentEvent::QueueDropped
                        | AgentEvent::Unqueued { .. }
                        | AgentEvent::TurnEnded { .. }
                        | AgentEvent::PermissionRequested { .. }
                        | AgentEvent::PermissionResolved { .. }
                        | AgentEvent::Terminal { .. }
                        | AgentEvent::TerminalExited { .. }
                )
        )
    }
}

/// A channel as the runtime's channel service holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelInfo {
    /// Its name (a team channel's is `team:<id>`).
    pub name: String,
    /// What it is called in the window and in prompts (the team's name for a team channel).
    pub title: String,
    /// The team, for a team channel.
    pub team: Option<String>,
    /// The team's lead: its answers that @mention members hand the work over to them.
    pub lead: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// The members (the lead first in a team's channel).
    pub members: Vec<String>,
    /// What was said, with the members' answers once they ended.
    pub timeline: crate::model::channel::Timeline,
}

/// An MCP server of the config, as an agent's session got it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpStatus {
    /// Its name.
    pub name: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// Given to the session (false: the agent does not take this transport).
    pub given: bool,
}
