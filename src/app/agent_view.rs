//! One agent as the window shows it, and the agent slice's reducer: its events folded into its
//! view ([`AgentView::apply`]), with what they ask of the rest of the window (an alert, an inbox
//! item, a channel's unread mark) given back as [`Effects`].

use std::collections::VecDeque;

use super::alerts::Alert;
use super::inbox::InboxKey;
use crate::model::config::AgentConfig;
use crate::model::conversation::{Conversation, Delivery, Part, Update};
use crate::model::permission::{Decision, PermissionAnswer, PermissionRequest};
use crate::model::session_config::{ConfigOption, Modes, SlashCommand};
use crate::protocol::auth::AuthMethod;
use crate::protocol::{AgentEvent, AgentState, LogEntry};

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
    /// Its workspace's Files page: the folders read, the open file.
    pub files: super::files_state::FilesState,
    /// The terminals open in its workspace.
    pub shells: super::terminals_state::TerminalsState,
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
    /// A restore asked for, to confirm: the checkpoint, and the files it would rewrite (`None`
    /// while they are read; `Err`: why it cannot run).
    pub restore_asked: Option<(String, Option<RestoreFiles>)>,
}

/// The files a restore would put back, or why it cannot run.
pub type RestoreFiles = Result<Vec<String>, String>;

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
    pub(super) fn new(config: AgentConfig) -> Self {
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
            restore_asked: None,
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
            files: Default::default(),
            shells: Default::default(),
            abilities: Default::default(),
        }
    }
}

/// What an agent's event asks of the window beyond the agent's own view.
#[derive(Default)]
pub(super) struct Effects {
    /// An alert to raise (a crash, a turn that ended badly).
    pub alert: Option<Alert>,
    /// Something that now waits for the person (a permission, a question, a login).
    pub arrived: Option<InboxKey>,
    /// Its answer grew: a channel waiting for it may be unread.
    pub answered: bool,
}

impl AgentView {
    /// Folds one of its events in (those about its threads and its composer are folded by
    /// their own reducers); gives what it asks of the rest of the window.
    pub(super) fn apply(&mut self, agent: &str, event: AgentEvent) -> Effects {
        let mut effects = Effects::default();
        match event {
            AgentEvent::State { state } => {
                if state == AgentState::Idle {
                    self.login = None;
                }
                let crashed = matches!(state, AgentState::Crashed(_)) && !matches!(self.state, AgentState::Crashed(_));
                self.state = state;
                if crashed {
                    effects.alert = Some(Alert::Crashed { agent: agent.to_string() });
                }
            }
            AgentEvent::LoginNeeded { message, methods } => {
                self.login = Some((message, methods));
                effects.arrived = Some(InboxKey::Login { agent: agent.to_string() });
            }
            AgentEvent::SessionSettings { options, modes } => {
                // A new session: what the last one cost goes to the total.
                if let Some(cost) = self.conversation.cost.take() {
                    self.past_costs.push(cost);
                }
                self.options = options;
                self.modes = modes;
            }
            AgentEvent::Info { auth_methods, can_logout, sessions, prompts, mcp, implementation } => {
                self.mcp = mcp;
                self.prompts = prompts;
                self.auth_methods = auth_methods;
                self.can_logout = can_logout;
                self.abilities = sessions;
                self.implementation = implementation;
            }
            AgentEvent::Log { entry } => {
                if self.log.len() == LOG_LINES {
                    self.log.pop_front();
                }
                self.log.push_back(entry);
            }
            AgentEvent::Update { update: Update::Options(options) } => self.options = options,
            AgentEvent::Update { update: Update::Commands(commands) } => self.commands = commands,
            AgentEvent::Update { update: Update::Mode(mode) } => {
                if let Some(modes) = self.modes.as_mut() {
                    modes.current = mode;
                }
            }
            AgentEvent::Update { update } => {
                // (A loop notice goes into the answer itself.)
                self.conversation.apply(update);
                effects.answered = true;
            }
            AgentEvent::Notice { notice } => self.conversation.push_notice(notice),
            event @ (AgentEvent::PermissionRequested { .. }
            | AgentEvent::PermissionResolved { .. }
            | AgentEvent::ElicitationRequested { .. }
            | AgentEvent::ElicitationResolved { .. }
            | AgentEvent::ElicitationCompleted { .. }) => effects.arrived = self.apply_asked(agent, event),
            AgentEvent::TurnStarted => self.conversation.mark_first_queued_sent(),
            AgentEvent::QueueDropped => self.conversation.drop_queue(),
            AgentEvent::Unqueued { id } => self.conversation.unqueue(&id),
            AgentEvent::TurnEnded { end } => {
                effects.alert = Alert::turn_ended(agent, &end);
                self.conversation.end_turn(end);
            }
            AgentEvent::Branch { branch } => self.branch = branch,
            AgentEvent::Terminal { id, bytes } => self.terminals.entry(id).or_default().push(&bytes),
            AgentEvent::TerminalExited { id, code, signal } => {
                let output = self.terminals.entry(id.clone()).or_default();
                output.exit = Some((code, signal.clone()));
                let ran = crate::model::tool::Ran::new(&id, &output.bytes, code, signal);
                self.conversation.record_run(ran);
            }
            AgentEvent::Resent { id } => self.conversation.resent(&id),
            AgentEvent::Retrying { question } => {
                self.conversation.retry(&question);
            }
            AgentEvent::Edited { message, id, text } => {
                self.conversation.edit(&message, id, &text);
            }
            AgentEvent::VersionShown { message, version } => {
                self.conversation.show_version_of(&message, version);
            }
            AgentEvent::UserMessage { text, id, attached } => {
                self.conversation.push_user_with(text, attached, Delivery::Queued, Some(id));
            }
            AgentEvent::RulesChanged { rules } => self.rules = rules,
            // Folded by the threads' and the composer's reducers (`AppState::apply_agent`).
            AgentEvent::ThreadOpened { .. }
            | AgentEvent::Threads { .. }
            | AgentEvent::Sessions { .. }
            | AgentEvent::ThreadWait { .. }
            | AgentEvent::TranscriptOffer { .. }
            | AgentEvent::Attached { .. } => {}
        }
        effects
    }

    /// Folds in what the agent asks the person (a permission, a question) and their answers;
    /// gives the inbox item that arrived, if one did.
    fn apply_asked(&mut self, agent: &str, event: AgentEvent) -> Option<InboxKey> {
        let mut arrived = None;
        match event {
            AgentEvent::PermissionRequested { request } => {
                // The card goes under the latest call with that id (agents may reuse ids).
                let message = self
                    .conversation
                    .messages
                    .iter()
                    .rposition(|m| m.parts.iter().any(|p| matches!(p, Part::Tool(t) if t.id == request.tool.id)));
                arrived = Some(InboxKey::Permission { agent: agent.to_string(), id: request.id });
                let after = self.conversation.messages.len();
                self.permissions.push(PermissionCard { request, answer: None, message, after });
            }
            AgentEvent::ElicitationRequested { request } => {
                arrived = Some(InboxKey::Question { agent: agent.to_string(), id: request.id });
                self.elicitations.push(ElicitationCard { request, answer: None, completed: false });
            }
            AgentEvent::ElicitationResolved { id, answer } => {
                if let Some(card) = self.elicitations.iter_mut().find(|c| c.request.id == id) {
                    card.answer = Some(answer);
                }
            }
            AgentEvent::ElicitationCompleted { elicitation_id } => {
                for card in &mut self.elicitations {
                    if matches!(&card.request.kind, crate::model::elicitation::ElicitKind::Url { elicitation_id: e, .. } if *e == elicitation_id)
                    {
                        card.completed = true;
                    }
                }
            }
            AgentEvent::PermissionResolved { id, answer } => {
                // The card waiting for it (the latest with that id should one be left from before).
                if let Some(card) = self.permissions.iter_mut().rev().find(|c| c.request.id == id && c.answer.is_none())
                {
                    let answered = crate::model::permission::Answered::of(&card.request, &answer);
                    card.answer = Some(answer);
                    let tool = card.request.tool.id.clone();
                    self.conversation.record_answer(&tool, answered);
                }
            }
            _ => {}
        }
        arrived
    }
}

impl AgentView {
    /// The checkpoint its open review compares with.
    pub fn reviewed(&self) -> Option<String> {
        self.review.as_ref().map(|r| r.checkpoint.clone())
    }
}
