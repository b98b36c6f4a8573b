//! What the UI reads: the config in force, the last load's problems, and per agent its state,
//! conversation and log. Changed only by applying runtime events and by taking the window's
//! requests ([`AppState::request`]): views read it, and return what they ask for.

use std::collections::VecDeque;
use std::path::PathBuf;

use crate::model::config::{AgentConfig, Config, Language};
use crate::model::conversation::Update;
use crate::model::conversation::{Conversation, Delivery, Part};
use crate::model::permission::{Decision, PermissionAnswer, PermissionRequest};
use crate::model::problem::Problem;
use crate::model::session_config::{ConfigOption, Modes, SlashCommand};
use crate::protocol::AgentCommand;
use crate::protocol::AgentEvent;
use crate::protocol::ChannelCommand;
use crate::protocol::ChannelEvent;
use crate::protocol::ConfigEvent;
use crate::protocol::auth::AuthMethod;
use crate::protocol::{AgentState, Command, Event, LogEntry, WorkspaceEvent};

/// Log lines kept per agent in the UI.
pub const LOG_LINES: usize = 2000;

/// The output of a command the agent runs, as the tool card shows it.
#[derive(Clone, Debug, Default)]
pub struct CommandOutput {
    /// The output's last bytes (at most [`CommandOutput::KEPT`]).
    pub bytes: Vec<u8>,
    /// Bytes dropped from the start.
    pub dropped: usize,
    /// How it ended: exit code, signal.
    pub exit: Option<(Option<u32>, Option<String>)>,
}

impl CommandOutput {
    /// Bytes kept for display.
    pub const KEPT: usize = 256 * 1024;

    /// The outputs of the commands the tool calls of `conversation` ran, as kept with them (a
    /// conversation restored from the history).
    pub fn restored(conversation: &Conversation) -> std::collections::HashMap<String, CommandOutput> {
        let calls = conversation.messages.iter().flat_map(|m| m.parts.iter()).filter_map(|p| match p {
            Part::Tool(call) => Some(call),
            _ => None,
        });
        calls
            .flat_map(|call| call.ran.iter())
            .map(|ran| {
                let output = CommandOutput {
                    bytes: ran.output.as_bytes().to_vec(),
                    dropped: 0,
                    exit: Some((ran.exit_code, ran.signal.clone())),
                };
                (ran.terminal.clone(), output)
            })
            .collect()
    }

    fn push(&mut self, more: &[u8]) {
        self.bytes.extend_from_slice(more);
        if self.bytes.len() > Self::KEPT {
            let cut = self.bytes.len() - Self::KEPT;
            self.bytes.drain(..cut);
            self.dropped += cut;
        }
    }
}

/// One agent as the UI shows it.
#[derive(Clone, Debug)]
pub struct AgentView {
    /// Its config entry.
    pub config: AgentConfig,
    /// Its state.
    pub state: AgentState,
    /// Its conversation.
    pub conversation: Conversation,
    /// Its stderr (and non-ACP stdout) lines, bounded.
    pub log: VecDeque<LogEntry>,
    /// Permission requests of the current agent process, answered or not.
    pub permissions: Vec<PermissionCard>,
    /// Output of the commands the agent runs (ACP terminals), by terminal id.
    pub terminals: std::collections::HashMap<String, CommandOutput>,
    /// The next message goes with a transcript of the earlier conversation.
    pub attach_transcript: bool,
    /// Remembered always/never answers (rule key, decision).
    pub rules: Vec<(String, Decision)>,
    /// The agent asks to log in: its words and the ways it offers.
    pub login: Option<(String, Vec<AuthMethod>)>,
    /// The ways to log in it offered when it last started.
    pub auth_methods: Vec<AuthMethod>,
    /// It can log out.
    pub can_logout: bool,
    /// Its session's options (model, mode, …), as they are now.
    pub options: Vec<ConfigOption>,
    /// Its session's modes (older agents).
    pub modes: Option<Modes>,
    /// The commands it offers (`/name` in the composer).
    pub commands: Vec<SlashCommand>,
    /// What its earlier sessions of this run cost (their last reports).
    pub past_costs: Vec<crate::model::conversation::Cost>,
    /// What it said it is, with its version, when it last started (`Claude Code 0.9.1`).
    pub implementation: Option<String>,
    /// Its place in the config's list of agents: it picks its colour (`ui::theme::member_color`).
    pub place: usize,
    /// The git branch its workspace is on, as the runtime last told (after the config is applied
    /// and after each turn; `None`: not told yet, or none).
    pub branch: Option<String>,
    /// Its threads and the one shown.
    pub threads: super::threads_state::Threads,
    /// What it can do with sessions, as it said when it last started.
    pub abilities: crate::protocol::threads::SessionAbilities,
    /// What it takes in a prompt besides text, as it said when it last started.
    pub prompts: crate::protocol::attachments::PromptAbilities,
    /// The composer's attachments and `@` paths.
    pub composing: super::composing::Composing,
    /// The MCP servers its session got (as it said when it last started).
    pub mcp: Vec<crate::protocol::McpStatus>,
    /// The agent's requests for input (forms, pages to open), answered or not.
    pub elicitations: Vec<ElicitationCard>,
    /// How many of its messages the person has seen (shown with its conversation).
    pub read: usize,
    /// Its changes since a checkpoint, when the person reviews them.
    pub review: Option<super::review_state::WorkspaceReview>,
}

impl AgentView {
    /// What it cost in this run, per unit: its earlier sessions and the current one.
    pub fn total_cost(&self) -> Vec<crate::model::conversation::Cost> {
        crate::model::conversation::total_cost(self.past_costs.iter().chain(self.conversation.cost.as_ref()))
    }
}

/// An agent's request for input as the conversation shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitationCard {
    /// The request.
    pub request: crate::model::elicitation::Elicitation,
    /// Its answer, once given (by the person, or a cancel).
    pub answer: Option<crate::model::elicitation::ElicitAnswer>,
    /// A URL elicitation the agent says is done.
    pub completed: bool,
}

/// A permission request as the conversation shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionCard {
    /// The request.
    pub request: PermissionRequest,
    /// Its answer, once given (by the person, a remembered rule, or a cancel).
    pub answer: Option<PermissionAnswer>,
    /// The message holding the tool call it is about, if any.
    pub message: Option<usize>,
    /// How many messages there were when it came: a card about no call of the conversation (one
    /// of Sidekicks' own policy) stays after the message then last once answered, rather than
    /// following the end of the conversation.
    pub after: usize,
}

impl AgentView {
    /// The requests still waiting for the person.
    pub fn waiting_permissions(&self) -> impl Iterator<Item = &PermissionCard> {
        self.permissions.iter().filter(|c| c.answer.is_none())
    }
}

impl AgentView {
    fn new(config: AgentConfig) -> Self {
        Self {
            config,
            state: AgentState::Stopped,
            conversation: Conversation::default(),
            log: VecDeque::new(),
            permissions: Vec::new(),
            terminals: Default::default(),
            attach_transcript: false,
            prompts: Default::default(),
            composing: Default::default(),
            mcp: Vec::new(),
            elicitations: Vec::new(),
            read: 0,
            review: None,
            rules: Vec::new(),
            login: None,
            auth_methods: Vec::new(),
            can_logout: false,
            options: Vec::new(),
            modes: None,
            commands: Vec::new(),
            past_costs: Vec::new(),
            implementation: None,
            place: 0,
            branch: None,
            threads: Default::default(),
            abilities: Default::default(),
        }
    }
}

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
    /// A folder the native dialog gave (the new-team form's project), not yet taken.
    pub picked_folder: Option<PathBuf>,
    /// The ACP Registry ("Get agents").
    pub registry: super::registry_state::RegistryState,
    /// Agents found on this computer.
    pub found_agents: Option<Vec<crate::runtime::discovery::FoundAgent>>,
    /// Workspace results waiting for the workspace view (it takes them each frame).
    pub workspace_events: Vec<(String, crate::protocol::WorkspaceEvent)>,
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
                vec![Command::Agent(agent, AgentCommand::SendAgain { message })]
            }
            Request::NotNow(key) => {
                self.not_now(key);
                Vec::new()
            }
            Request::CloseReview { agent } => {
                self.close_review(&agent);
                vec![Command::Checkpoint(crate::protocol::checkpoints::CheckpointCommand::CloseReview { agent })]
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
        if matches!(event, Event::Agent(_, AgentEvent::Update { update: Update::Title(_), .. })) {
            return self.apply_thread_event(event);
        }
        match event {
            Event::Config(ConfigEvent::Loaded { path, result }) => {
                self.config_loads += 1;
                self.config_path = Some(path);
                self.config_text = result.text;
                self.problems = result.problems;
                if self.config.is_none() {
                    // No config in force yet: the system locale decides the language.
                    self.language = Language::pick(None, sys_locale::get_locale().as_deref());
                }
            }
            Event::Config(ConfigEvent::Applied { config }) => self.apply_config(config),
            Event::Channel(ChannelEvent::Listed { channels }) => self.channels.all(channels),
            Event::Channel(ChannelEvent::Updated { channel }) => self.channels.updated(channel),
            Event::Agent(agent, AgentEvent::State { state }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    if state == AgentState::Idle {
                        a.login = None;
                    }
                    let crashed = matches!(state, AgentState::Crashed(_)) && !matches!(a.state, AgentState::Crashed(_));
                    a.state = state;
                    if crashed {
                        self.alert(super::alerts::Alert::Crashed { agent });
                    }
                }
            }
            Event::Agent(agent, AgentEvent::LoginNeeded { message, methods }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.login = Some((message, methods));
                    self.arrived(super::inbox::InboxKey::Login { agent });
                }
            }
            Event::Agent(agent, AgentEvent::SessionSettings { options, modes }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    // A new session: what the last one cost goes to the total.
                    if let Some(cost) = a.conversation.cost.take() {
                        a.past_costs.push(cost);
                    }
                    a.options = options;
                    a.modes = modes;
                }
            }
            Event::Agent(
                agent,
                AgentEvent::Info { auth_methods, can_logout, sessions, prompts, mcp, implementation },
            ) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.mcp = mcp;
                    a.prompts = prompts;
                    a.auth_methods = auth_methods;
                    a.can_logout = can_logout;
                    a.abilities = sessions;
                    a.implementation = implementation;
                }
            }
            Event::Agent(agent, AgentEvent::Log { entry: line }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    if a.log.len() == LOG_LINES {
                        a.log.pop_front();
                    }
                    a.log.push_back(line);
                }
            }
            Event::Agent(agent, AgentEvent::Update { update: Update::Options(options) }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.options = options;
                }
            }
            Event::Agent(agent, AgentEvent::Update { update: Update::Commands(commands) }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.commands = commands;
                }
            }
            Event::Agent(agent, AgentEvent::Update { update: Update::Mode(mode) }) => {
                if let Some(modes) = self.agent_mut(&agent).and_then(|a| a.modes.as_mut()) {
                    modes.current = mode;
                }
            }
            Event::Agent(agent, AgentEvent::Update { update }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    // (A loop notice goes into the answer itself.)
                    a.conversation.apply(update);
                }
                if let Some(a) = self.agents.iter().find(|a| a.config.name == agent) {
                    self.channels.answered(a);
                }
            }
            Event::Agent(agent, AgentEvent::Notice { notice }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.push_notice(notice);
                }
            }
            Event::Agent(agent, AgentEvent::PermissionRequested { request }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    // The card goes under the latest call with that id (agents may reuse ids).
                    let message =
                        a.conversation.messages.iter().rposition(|m| {
                            m.parts.iter().any(|p| matches!(p, Part::Tool(t) if t.id == request.tool.id))
                        });
                    let key = super::inbox::InboxKey::Permission { agent: agent.clone(), id: request.id };
                    let after = a.conversation.messages.len();
                    a.permissions.push(PermissionCard { request, answer: None, message, after });
                    self.arrived(key);
                }
            }
            Event::Agent(agent, AgentEvent::ElicitationRequested { request }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    let key = super::inbox::InboxKey::Question { agent: agent.clone(), id: request.id };
                    a.elicitations.push(ElicitationCard { request, answer: None, completed: false });
                    self.arrived(key);
                }
            }
            Event::Agent(agent, AgentEvent::ElicitationResolved { id, answer }) => {
                if let Some(card) =
                    self.agent_mut(&agent).and_then(|a| a.elicitations.iter_mut().find(|c| c.request.id == id))
                {
                    card.answer = Some(answer);
                }
            }
            Event::Agent(agent, AgentEvent::ElicitationCompleted { elicitation_id }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    for card in &mut a.elicitations {
                        if matches!(&card.request.kind, crate::model::elicitation::ElicitKind::Url { elicitation_id: e, .. } if *e == elicitation_id)
                        {
                            card.completed = true;
                        }
                    }
                }
            }
            Event::Agent(agent, AgentEvent::PermissionResolved { id, answer }) => {
                // The card waiting for it (the latest with that id should one be left from before).
                let card = |c: &PermissionCard| c.request.id == id && c.answer.is_none();
                if let Some(a) = self.agent_mut(&agent)
                    && let Some(card) = a.permissions.iter_mut().rev().find(|c| card(c))
                {
                    let answered = crate::model::permission::Answered::of(&card.request, &answer);
                    card.answer = Some(answer);
                    let tool = card.request.tool.id.clone();
                    a.conversation.record_answer(&tool, answered);
                }
            }
            Event::Agent(agent, AgentEvent::TurnStarted) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.mark_first_queued_sent();
                }
            }
            Event::Agent(agent, AgentEvent::QueueDropped) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.drop_queue();
                }
            }
            Event::Agent(agent, AgentEvent::Unqueued { id }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.unqueue(&id);
                }
            }
            Event::Checkpoint(e) => {
                self.apply_review_event(&e);
                if let Some(a) = self.agent_mut(e.agent()) {
                    e.apply_to(&mut a.conversation);
                }
            }
            Event::Agent(agent, AgentEvent::TurnEnded { end }) => {
                if let Some(alert) = super::alerts::Alert::turn_ended(&agent, &end) {
                    self.alert(alert);
                }
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.end_turn(end);
                }
            }
            Event::ShutdownComplete => self.shutdown_complete = true,
            Event::NotificationClicked { target } => self.clicked = Some(target),
            Event::SearchResults { query, hits } => self.search = Some((query, hits)),
            Event::Config(ConfigEvent::Opened { path }) => {
                self.opened += 1;
                self.agents.clear();
                self.config = None;
                self.problems.clear();
                self.pending_history.clear();
                self.config_path = Some(path);
            }
            Event::Config(ConfigEvent::Saved { error, .. }) => {
                self.last_save = Some(error);
                self.saves += 1;
            }
            Event::Config(ConfigEvent::FilePicked { path }) => self.picked_file = Some(path),
            Event::Config(ConfigEvent::FolderPicked { path }) => self.picked_folder = Some(path),
            Event::PickInWindow(start) => self.picker = Some(start),
            Event::Config(ConfigEvent::FolderListed { path, result }) => self.listing = Some((path, result)),
            Event::Config(ConfigEvent::AgentsFound { agents }) => self.found_agents = Some(agents),
            Event::Registry(event) => self.registry.apply(event),
            Event::Agent(agent, AgentEvent::Branch { branch }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.branch = branch;
                }
            }
            event @ (Event::Agent(_, AgentEvent::Attached { .. })
            | Event::Workspace { event: WorkspaceEvent::Paths { .. }, .. }) => {
                self.apply_composing_event(&event);
            }
            Event::Workspace { agent, event } => self.workspace_events.push((agent, event)),
            Event::Agent(agent, AgentEvent::Terminal { id, bytes }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.terminals.entry(id).or_default().push(&bytes);
                }
            }
            Event::Agent(agent, AgentEvent::TerminalExited { id, code, signal }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    let output = a.terminals.entry(id.clone()).or_default();
                    output.exit = Some((code, signal.clone()));
                    let ran = crate::model::tool::Ran::new(&id, &output.bytes, code, signal);
                    a.conversation.record_run(ran);
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
            Event::Agent(agent, AgentEvent::Resent { id }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.resent(&id);
                }
            }
            Event::Agent(agent, AgentEvent::Retrying { question }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.retry(&question);
                }
            }
            Event::Agent(agent, AgentEvent::UserMessage { text, id, attached }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.push_user_with(text, attached, Delivery::Queued, Some(id));
                }
            }
            Event::Agent(agent, AgentEvent::RulesChanged { rules }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.rules = rules;
                }
            }
            Event::Config(ConfigEvent::RecentFiles { files }) => self.recent = files,
            Event::Config(ConfigEvent::Checked { text, problems }) => self.checked = Some((text, problems)),
            Event::HistoryNote { note } => self.history_note = Some(note),
            Event::Agent(_, AgentEvent::ThreadOpened { .. })
            | Event::Agent(_, AgentEvent::Threads { .. })
            | Event::Agent(_, AgentEvent::Sessions { .. })
            | Event::Agent(_, AgentEvent::ThreadWait { .. })
            | Event::Agent(_, AgentEvent::TranscriptOffer { .. }) => self.apply_thread_event(event),
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
        self.language = Language::pick(config.defaults.language, sys_locale::get_locale().as_deref());
        self.config = Some(config);
    }
}
