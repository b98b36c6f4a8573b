//! What the UI reads: the config in force, the last load's problems, and per agent its state,
//! conversation and log. Changed only by applying runtime events and by taking the window's
//! requests ([`AppState::request`]): views read it, and return what they ask for.

use std::collections::VecDeque;
use std::path::PathBuf;

use crate::model::config::{AgentConfig, Config, Language};
use crate::model::conversation::Update;
use crate::model::conversation::{Conversation, Delivery, Message, Part};
use crate::model::permission::{Decision, PermissionAnswer, PermissionRequest};
use crate::model::problem::Problem;
use crate::model::session_config::{ConfigOption, Modes, SlashCommand};
use crate::protocol::auth::AuthMethod;
use crate::protocol::{AgentState, Command, Event, LogEntry};

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
}

impl AgentView {
    /// What it cost in this run, per unit: its earlier sessions and the current one.
    pub fn total_cost(&self) -> Vec<crate::model::conversation::Cost> {
        crate::model::conversation::total_cost(self.past_costs.iter().chain(self.conversation.cost.as_ref()))
    }
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
            rules: Vec::new(),
            login: None,
            auth_methods: Vec::new(),
            can_logout: false,
            options: Vec::new(),
            modes: None,
            commands: Vec::new(),
            past_costs: Vec::new(),
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
    /// The agents, in the config's order.
    pub agents: Vec<AgentView>,
    /// Language of the interface.
    pub language: Language,
    /// The runtime has stopped every agent and ended.
    pub shutdown_complete: bool,
    /// Restored conversations waiting for their agent's view.
    pending_history: std::collections::HashMap<String, Vec<Message>>,
    /// Counts the loads of the config file (the settings editor compares it to see a change on disk).
    pub config_loads: u64,
    /// The outcome of the last save of the settings editor: `Some(None)` saved, `Some(Some(e))` failed.
    pub last_save: Option<Option<String>>,
    /// How many saves have been reported.
    pub saves: u64,
    /// The file the native dialog returned, until the UI takes it.
    pub picked_file: Option<Option<PathBuf>>,
    /// Agents found on this computer.
    pub found_agents: Vec<crate::runtime::discovery::FoundAgent>,
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
    /// The person's words in a channel (the prompts for its members are made here).
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
    /// Takes a view's request: records what it starts (a member busy, a team being made, the
    /// person's words in a channel) and returns the commands to send the runtime.
    pub fn request(&mut self, request: Request) -> Vec<Command> {
        match request {
            Request::Command(command) => {
                if let Command::Team(team) = &command {
                    self.teams.requested(team);
                }
                vec![command]
            }
            Request::Say { channel, text } => self.channels.say(&self.agents, &channel, &text),
            Request::AttachTranscript { agent, attach } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.attach_transcript = attach;
                }
                Vec::new()
            }
        }
    }

    /// The commands that events produced (a lead's hand-over, a channel to remember), taken.
    pub fn take_outbox(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.channels.outbox)
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
            Event::ConfigLoaded { path, result } => {
                self.config_loads += 1;
                self.config_path = Some(path);
                self.config_text = result.text;
                self.problems = result.problems;
                if self.config.is_none() {
                    // No config in force yet: the system locale decides the language.
                    self.language = Language::pick(None, sys_locale::get_locale().as_deref());
                }
            }
            Event::ConfigApplied { config } => {
                self.channels.sync(&config);
                self.apply_config(config);
            }
            Event::ChannelLoaded { name, timeline } => self.channels.loaded(&name, timeline),
            Event::AgentState { agent, state } => {
                if let Some(a) = self.agent_mut(&agent) {
                    if state == AgentState::Idle {
                        a.login = None;
                    }
                    a.state = state;
                }
            }
            Event::LoginNeeded { agent, message, methods } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.login = Some((message, methods));
                }
            }
            Event::SessionSettings { agent, options, modes } => {
                if let Some(a) = self.agent_mut(&agent) {
                    // A new session: what the last one cost goes to the total.
                    if let Some(cost) = a.conversation.cost.take() {
                        a.past_costs.push(cost);
                    }
                    a.options = options;
                    a.modes = modes;
                }
            }
            Event::AgentInfo { agent, auth_methods, can_logout } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.auth_methods = auth_methods;
                    a.can_logout = can_logout;
                }
            }
            Event::AgentLog { agent, entry: line } => {
                if let Some(a) = self.agent_mut(&agent) {
                    if a.log.len() == LOG_LINES {
                        a.log.pop_front();
                    }
                    a.log.push_back(line);
                }
            }
            Event::AgentUpdate { agent, update: Update::Options(options) } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.options = options;
                }
            }
            Event::AgentUpdate { agent, update: Update::Commands(commands) } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.commands = commands;
                }
            }
            Event::AgentUpdate { agent, update: Update::Mode(mode) } => {
                if let Some(modes) = self.agent_mut(&agent).and_then(|a| a.modes.as_mut()) {
                    modes.current = mode;
                }
            }
            Event::AgentUpdate { agent, update } => {
                if let Some(a) = self.agent_mut(&agent)
                    && let Some(notice) = a.conversation.apply(update)
                {
                    a.conversation.push_notice(notice);
                }
                if let Some(a) = self.agents.iter().find(|a| a.config.name == agent) {
                    self.channels.answered(a);
                }
            }
            Event::Notice { agent, notice } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.push_notice(notice);
                }
            }
            Event::PermissionRequested { agent, request } => {
                if let Some(a) = self.agent_mut(&agent) {
                    // The card goes under the latest call with that id (agents may reuse ids).
                    let message =
                        a.conversation.messages.iter().rposition(|m| {
                            m.parts.iter().any(|p| matches!(p, Part::Tool(t) if t.id == request.tool.id))
                        });
                    a.permissions.push(PermissionCard { request, answer: None, message });
                }
            }
            Event::PermissionResolved { agent, id, answer } => {
                if let Some(card) =
                    self.agent_mut(&agent).and_then(|a| a.permissions.iter_mut().find(|c| c.request.id == id))
                {
                    card.answer = Some(answer);
                }
            }
            Event::TurnStarted { agent } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.mark_first_queued_sent();
                }
            }
            Event::QueueDropped { agent } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.drop_queue();
                }
            }
            Event::TurnEnded { agent, end } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.end_turn(end);
                }
                self.channels.turn_ended(&self.agents, &agent);
            }
            Event::ShutdownComplete => self.shutdown_complete = true,
            Event::ConfigOpened { path } => {
                self.opened += 1;
                self.agents.clear();
                self.config = None;
                self.problems.clear();
                self.pending_history.clear();
                self.config_path = Some(path);
            }
            Event::ConfigSaved { error, .. } => {
                self.last_save = Some(error);
                self.saves += 1;
            }
            Event::FilePicked { path } => self.picked_file = Some(path),
            Event::AgentsFound { agents } => self.found_agents = agents,
            Event::Workspace { agent, event } => self.workspace_events.push((agent, event)),
            Event::AgentTerminal { agent, id, bytes } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.terminals.entry(id).or_default().push(&bytes);
                }
            }
            Event::AgentTerminalExited { agent, id, code, signal } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.terminals.entry(id).or_default().exit = Some((code, signal));
                }
            }
            Event::Team(event) => {
                if let crate::protocol::TeamEvent::Merged { team, agent, told: Some(told), .. } = &event {
                    self.channels.merge_conflicted(team, agent, told);
                }
                self.teams.apply(event);
                self.channels.sync_teams(&self.teams);
            }
            Event::UserMessage { agent, text, id } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.conversation.push_user(text, Delivery::Queued, Some(id));
                }
            }
            Event::RulesChanged { agent, rules } => {
                if let Some(a) = self.agent_mut(&agent) {
                    a.rules = rules;
                }
            }
            Event::RecentFiles { files } => self.recent = files,
            Event::ConfigChecked { text, problems } => self.checked = Some((text, problems)),
            Event::HistoryLoaded { agent, messages } => {
                // The view is created by ConfigApplied, which follows; keep the messages until then.
                self.pending_history.insert(agent, messages);
            }
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
                    if let Some(messages) = self.pending_history.remove(&agent.name) {
                        view.conversation = Conversation::restored(messages);
                    }
                    view
                }
            };
            agents.push(view);
        }
        self.agents = agents;
        self.language = Language::pick(config.defaults.language, sys_locale::get_locale().as_deref());
        self.config = Some(config);
    }
}
