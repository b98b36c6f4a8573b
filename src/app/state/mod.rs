//! What the UI reads: the config in force, the last load's problems, and per agent its state,
//! conversation and log. Changed only by applying runtime events and by taking the window's
//! requests ([`AppState::request`]): views read it, and return what they ask for.

mod alerts;
mod composing;
mod inbox;
mod review;
mod threads;

use std::path::PathBuf;

use super::agent_view::{AgentView, CommandOutput, Effects};
use crate::model::config::{Config, Language};
use crate::model::conversation::Conversation;
use crate::model::conversation::Update;
use crate::model::problem::Problem;
use crate::protocol::AgentCommand;
use crate::protocol::AgentEvent;
use crate::protocol::ChannelCommand;
use crate::protocol::ChannelEvent;
use crate::protocol::ConfigEvent;
use crate::protocol::{Command, Event, WorkspaceEvent};

/// Everything the UI draws from.
#[derive(Clone, Debug, Default)]
pub struct AppState {
    /// The config file in use.
    pub config_path: Option<PathBuf>,
    /// How many times another config file was opened (views kept per agent start again).
    pub opened: u64,
    /// The config in force (the last one without problems).
    pub config: Option<Config>,
    /// Problems of the last load of the file.
    pub problems: Vec<Problem>,
    /// What to tell about the history as it was opened (damaged and kept aside, not available).
    pub history_note: Option<crate::protocol::HistoryNote>,
    /// The window's own picker to open (the desktop has no file dialog); taken by the window.
    pub picker: Option<crate::protocol::picker::PickerStart>,
    /// The last folder read for that picker.
    pub listing: Option<(std::path::PathBuf, Result<Vec<crate::protocol::picker::FolderEntry>, String>)>,
    /// The agents, in the config's order.
    pub agents: Vec<AgentView>,
    /// Language of the interface.
    pub language: Language,
    /// The runtime has stopped every agent and ended.
    pub shutdown_complete: bool,
    /// Restored threads waiting for their agent's view.
    pub(super) pending_history: std::collections::HashMap<String, super::threads_state::Threads>,
    /// Counts the loads of the config file (the settings editor compares it to see a change on disk).
    pub config_loads: u64,
    /// The outcome of the last save of the settings editor: `Some(None)` saved, `Some(Some(e))` failed.
    pub last_save: Option<Option<String>>,
    /// How many saves have been reported.
    pub saves: u64,
    /// The file the native dialog returned, until the UI takes it.
    pub picked_file: Option<Option<PathBuf>>,
    /// The window's zoom and place kept from the last run, once told (`None` until then).
    pub remembered: Option<(Option<f32>, Option<[f32; 4]>)>,
    /// A folder the native dialog gave (the new-team form's project), not yet taken.
    pub picked_folder: Option<PathBuf>,
    /// The ACP Registry ("Get agents").
    pub registry: super::registry_state::RegistryState,
    /// Agents found on this computer.
    pub found_agents: Option<Vec<crate::runtime::discovery::FoundAgent>>,
    /// Teams.
    pub teams: super::teams_state::TeamsState,
    /// Channels.
    pub channels: super::channels_state::ChannelsState,
    /// The recent config files, newest first, each with whether it still exists.
    pub recent: Vec<(PathBuf, bool)>,
    /// The config file's text as last loaded (`None`: unreadable).
    pub config_text: Option<String>,
    /// The last text the settings editor had checked, and its problems.
    pub checked: Option<(String, Vec<Problem>)>,
    /// What waits for the person, in the order it arrived (the inbox's order).
    pub(super) arrivals: Vec<super::inbox::InboxKey>,
    /// The last answer of a search across the stored conversations: its query and what it found
    /// (or why it failed).
    pub search: Option<(String, Result<Vec<crate::model::search::SearchHit>, String>)>,
    /// The stored threads no agent of the config owns (All threads lists them, read only).
    pub other_threads: Vec<crate::protocol::threads::OtherThread>,
    /// One of them read, to be shown: its id and messages (or why they could not be read).
    pub read_thread:
        Option<(crate::protocol::threads::ThreadId, Result<Vec<crate::model::conversation::Message>, String>)>,
    /// The desktop notification the person clicked, until the window shows what it is about.
    pub clicked: Option<crate::protocol::notify::NoteTarget>,
    /// What happened that may deserve a desktop notification, until the window takes it.
    pub(super) alerts: Vec<super::alerts::Alert>,
}

/// What a view asks for.
#[derive(Clone, Debug)]
pub enum Request {
    /// A command for the runtime.
    Command(Command),
    /// Send (or not) a transcript of the earlier conversation with the agent's next message.
    AttachTranscript {
        /// The agent.
        agent: String,
        /// Attach it.
        attach: bool,
    },
    /// Put an inbox item off: it goes to the end, unanswered.
    NotNow(super::inbox::InboxKey),
    /// The messages given back unsent (see `Threads::returned`) were put back in the composer.
    TakeReturned {
        /// The agent.
        agent: String,
    },
    /// The person closed a restore's confirmation without restoring.
    CancelRestore {
        /// The agent.
        agent: String,
    },
    /// The person closed the review of this agent's changes.
    CloseReview {
        /// The agent.
        agent: String,
    },
    /// The person sees this agent's conversation: what it wrote is read.
    Seen {
        /// The agent.
        agent: String,
    },
    /// A change to the attachments of an agent's composer.
    Attachments {
        /// The agent.
        agent: String,
        /// What to do.
        op: super::composing::AttachOp,
    },
    /// Send again message `index` of an agent, which Stop dropped.
    SendAgain {
        /// The agent.
        agent: String,
        /// The message.
        index: usize,
    },
    /// What an agent's Files page asks for.
    Files {
        /// The agent.
        agent: String,
        /// What it asks.
        request: super::files_state::FilesRequest,
    },
    /// What an agent's Terminal page asks for.
    Terminals {
        /// The agent.
        agent: String,
        /// What it asks.
        request: super::terminals_state::TerminalsRequest,
    },
    /// The person closed a team's review: it is not read again as the member writes.
    CloseTeamReview {
        /// The team.
        team: String,
    },
    /// The person's words in a channel (the runtime's channel service sends them on).
    Say {
        /// The channel.
        channel: String,
        /// The words.
        text: String,
    },
}

impl From<Command> for Request {
    fn from(command: Command) -> Self {
        Request::Command(command)
    }
}

impl AppState {
    /// Takes a view's request: records what the view shows until the answer comes (a team being made,
    /// a review being read) and returns the commands to send the runtime.
    pub fn request(&mut self, request: Request) -> Vec<Command> {
        match request {
            Request::Command(command) => {
                if let Command::Team(team) = &command {
                    self.teams.requested(team);
                }
                if let Command::Checkpoint(checkpoint) = &command {
                    self.review_requested(checkpoint);
                }
                if let Command::Registry(asked) = &command {
                    self.registry.requested(asked);
                }
                vec![command]
            }
            Request::Say { channel, text } => vec![Command::Channel(ChannelCommand::Say { channel, text })],
            Request::SendAgain { agent, index } => {
                let Some((message, ..)) = self.agent(&agent).and_then(|a| a.conversation.dropped(index)) else {
                    return Vec::new();
                };
                vec![Command::Agent(agent.into(), AgentCommand::SendAgain { message })]
            }
            Request::NotNow(key) => {
                self.not_now(key);
                Vec::new()
            }
            Request::CancelRestore { agent } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.restore_asked = None;
                }
                Vec::new()
            }
            Request::CloseReview { agent } => {
                self.close_review(&agent);
                vec![Command::Checkpoint(crate::protocol::checkpoints::CheckpointCommand::CloseReview { agent })]
            }
            Request::Files { agent, request } => {
                self.agent_mut(&agent).map(|a| a.files.request(&agent, request)).unwrap_or_default()
            }
            Request::Terminals { agent, request } => {
                self.agent_mut(&agent).map(|a| a.shells.request(&agent, request)).unwrap_or_default()
            }
            Request::CloseTeamReview { team } => {
                self.teams.close_review(&team);
                vec![Command::Team(Box::new(crate::protocol::teams::TeamCommand::CloseReview { team }))]
            }
            Request::Seen { agent } => {
                self.seen(&agent);
                Vec::new()
            }
            Request::Attachments { agent, op } => {
                self.attach_op(&agent, op);
                Vec::new()
            }
            Request::TakeReturned { agent } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.threads.returned.clear();
                }
                Vec::new()
            }
            Request::AttachTranscript { agent, attach } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.attach_transcript = attach;
                    // Taken or declined: the offer is answered.
                    a.threads.offered &= attach;
                }
                Vec::new()
            }
        }
    }

    /// The agent named `name`.
    pub fn agent(&self, name: &str) -> Option<&AgentView> {
        self.agents.iter().find(|a| a.config.name == name)
    }

    /// The agent named `name`, mutable.
    pub fn agent_mut(&mut self, name: &str) -> Option<&mut AgentView> {
        self.agents.iter_mut().find(|a| a.config.name == name)
    }

    /// Applies one runtime event.
    pub fn apply(&mut self, event: Event) {
        match event {
            Event::Agent(agent, event) => self.apply_agent(agent.0, event),
            Event::Config(event) => self.apply_config_event(event),
            Event::Channel(ChannelEvent::Listed { channels }) => self.channels.all(channels),
            Event::Channel(ChannelEvent::Updated { channel }) => self.channels.updated(channel),
            Event::Checkpoint(e) => {
                self.apply_review_event(&e);
                if let Some(a) = self.agent_mut(e.agent()) {
                    e.apply_to(&mut a.conversation);
                }
            }
            Event::Team(event) => {
                let conflicted = match &event {
                    crate::protocol::TeamEvent::Merged { team, agent, result: Ok(report), .. }
                        if !report.conflicts.is_empty() =>
                    {
                        Some(super::inbox::InboxKey::Conflict { team: team.clone(), member: agent.clone() })
                    }
                    _ => None,
                };
                self.teams.apply(event);
                if let Some(key) = conflicted {
                    self.arrived(key);
                }
            }
            Event::Registry(event) => self.registry.apply(event),
            event @ Event::Workspace { event: WorkspaceEvent::Paths { .. }, .. } => {
                self.apply_composing_event(&event);
            }
            Event::Workspace { agent, event: WorkspaceEvent::TerminalOpened { result } } => {
                if let Some(view) = self.agent_mut(&agent) {
                    view.shells.opened(result);
                }
            }
            Event::Workspace { agent, event } => {
                if let Some(view) = self.agent_mut(&agent) {
                    let local = view.config.runtime.kind == crate::model::config::RuntimeKind::Local;
                    view.files.apply(local, event);
                }
            }
            Event::ShutdownComplete => self.shutdown_complete = true,
            Event::NotificationClicked { target } => self.clicked = Some(target),
            Event::SearchResults { query, hits } => self.search = Some((query, hits)),
            Event::PickInWindow(start) => self.picker = Some(start),
            Event::HistoryNote { note } => self.history_note = Some(note),
            Event::History(crate::protocol::threads::HistoryEvent::Others { threads }) => {
                // A thread read and then deleted (or owned again) is not shown any more.
                if let Some((id, _)) = &self.read_thread
                    && !threads.iter().any(|t| t.summary.id == *id)
                {
                    self.read_thread = None;
                }
                self.other_threads = threads;
            }
            Event::History(crate::protocol::threads::HistoryEvent::Read { thread, messages }) => {
                self.read_thread = Some((thread, messages));
            }
        }
    }

    /// One agent's event: its threads' and the composer's go to their reducers, the rest to the
    /// agent's view, and what it asks beyond the view (an alert, the inbox, a channel's unread
    /// mark) is done here.
    fn apply_agent(&mut self, agent: String, event: AgentEvent) {
        match event {
            event @ (AgentEvent::Update { update: Update::Title(_) }
            | AgentEvent::ThreadOpened { .. }
            | AgentEvent::Threads { .. }
            | AgentEvent::Sessions { .. }
            | AgentEvent::ThreadWait { .. }
            | AgentEvent::TranscriptOffer { .. }) => self.apply_thread_event(Event::Agent(agent.into(), event)),
            event @ AgentEvent::Attached { .. } => {
                self.apply_composing_event(&Event::Agent(agent.into(), event));
            }
            event => {
                let Some(view) = self.agent_mut(&agent) else { return };
                let Effects { alert, arrived, answered } = view.apply(&agent, event);
                if answered && let Some(view) = self.agents.iter().find(|a| a.config.name == agent) {
                    self.channels.answered(view);
                }
                if let Some(alert) = alert {
                    self.alert(alert);
                }
                if let Some(key) = arrived {
                    self.arrived(key);
                }
            }
        }
    }

    /// The config service's event.
    fn apply_config_event(&mut self, event: ConfigEvent) {
        match event {
            ConfigEvent::Remembered { zoom, window } => self.remembered = Some((zoom, window)),
            ConfigEvent::Loaded { path, result, language } => {
                self.config_loads += 1;
                self.config_path = Some(path);
                self.config_text = result.text;
                self.problems = result.problems;
                if self.config.is_none() {
                    // No config in force yet: the system's language.
                    self.language = language;
                }
            }
            ConfigEvent::Applied { config, language } => {
                self.apply_config(config);
                self.language = language;
            }
            ConfigEvent::Opened { path } => {
                self.opened += 1;
                self.agents.clear();
                self.config = None;
                self.problems.clear();
                self.pending_history.clear();
                self.config_path = Some(path);
            }
            ConfigEvent::Saved { error, .. } => {
                self.last_save = Some(error);
                self.saves += 1;
            }
            ConfigEvent::FilePicked { path } => self.picked_file = Some(path),
            ConfigEvent::FolderPicked { path } => self.picked_folder = Some(path),
            ConfigEvent::FolderListed { path, result } => self.listing = Some((path, result)),
            ConfigEvent::AgentsFound { agents } => self.found_agents = Some(agents),
            ConfigEvent::RecentFiles { files } => self.recent = files,
            ConfigEvent::Checked { text, problems } => self.checked = Some((text, problems)),
        }
    }

    fn apply_config(&mut self, config: Config) {
        let mut agents = Vec::with_capacity(config.agents.len());
        for agent in &config.agents {
            // Keep the conversation and log of an agent that stays.
            let view = match self.agents.iter().position(|a| a.config.name == agent.name) {
                Some(i) => {
                    let mut view = self.agents.swap_remove(i);
                    view.config = agent.clone();
                    view
                }
                None => {
                    let mut view = AgentView::new(agent.clone());
                    if let Some(mut threads) = self.pending_history.remove(&agent.name) {
                        view.conversation = Conversation::restored(std::mem::take(&mut threads.pending_messages));
                        view.terminals = CommandOutput::restored(&view.conversation);
                        // From the history: seen before.
                        view.read = view.conversation.messages.len();
                        view.threads = threads;
                    }
                    view
                }
            };
            agents.push(AgentView { place: agents.len(), ..view });
        }
        self.agents = agents;
        self.config = Some(config);
    }
}
