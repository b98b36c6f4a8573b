//! The agent service's protocol: what a door asks of one agent — its process, its turns, its
//! sessions and threads, its permissions and logins — served by the agent manager
//! (`runtime/agents.rs`). The agent is named beside it: `Command::Agent(name, AgentCommand)`.

use crate::model::conversation::{Message, MessageId, Notice, TurnEnd, Update};
use crate::model::permission::{Decision, PermissionAnswer, PermissionRequest};

use super::{AgentState, LogEntry, McpStatus};

/// What a door asks of one agent.
#[derive(Clone, Debug)]
pub enum AgentCommand {
    /// Start an agent (no-op if running).
    Start,
    /// Stop an agent.
    Stop,
    /// Stop an agent at once: no grace for it to end its turn or exit (a second Ctrl+C).
    Kill,
    /// Stop then start an agent.
    Restart,
    /// Send a user message to an agent (starting it if needed). `context` (a transcript of an
    /// earlier conversation) goes to the agent before the text but is not shown as said.
    /// `id` names the message (a channel or a merge links its answer by it); `None`: the runtime
    /// gives it one.
    Prompt {
        /// The text.
        text: String,
        /// Said before the text (a channel's catch-up), not shown as said.
        context: Option<String>,
        /// Say the thread's transcript before it (for an agent that no longer remembers the
        /// conversation): the runtime reads it from the history.
        with_transcript: bool,
        /// Its id.
        id: Option<MessageId>,
        /// Images and files sent with it.
        attachments: Vec<super::attachments::Attachment>,
    },
    /// Send again the person's message `message`, which Stop dropped: it is marked so
    /// (`Resent`) and its text and attachments go as a new message.
    SendAgain {
        /// The dropped message.
        message: MessageId,
    },
    /// Ask the person's message `question` again (Retry): its answer is replaced by the new one
    /// and stays reachable; no new message of the person.
    Retry {
        /// The question.
        question: MessageId,
    },
    /// Edit the person's message `message` in place: it becomes `text`, what it was (and all after
    /// it) is kept as an earlier version, and the agent answers it in a session of its own that
    /// knows only what comes before it (refused while a turn runs or messages wait).
    Edit {
        /// The message edited (the version shown).
        message: MessageId,
        /// Its new words.
        text: String,
    },
    /// Show version `version` (0-based, oldest first) of the person's message `message` in place of
    /// the one shown; the agent's next message goes to a session that knows what is shown.
    ShowVersion {
        /// The message (the version shown now).
        message: MessageId,
        /// The version to show.
        version: usize,
    },
    /// Answer an elicitation of the agent.
    AnswerElicitation {
        /// Its id.
        id: u64,
        /// The answer.
        answer: crate::model::elicitation::ElicitAnswer,
    },
    /// Read images or files to send with the next message (→ `Event::Attached`).
    Attach {
        /// Where from.
        source: super::attachments::AttachSource,
    },
    /// Take back one message still waiting for the agent (→ `Event::Unqueued` if it was waiting).
    Unqueue {
        /// The message.
        id: crate::model::conversation::MessageId,
    },
    /// Cancel the agent's current turn: session/cancel, pending permission requests answered
    /// "cancelled", queued messages dropped.
    Cancel,
    /// Answer a permission request of the agent.
    AnswerPermission {
        /// Its id.
        id: u64,
        /// The answer.
        answer: PermissionAnswer,
    },
    /// Sidekicks asks the person something on this agent's behalf (a team lead's merge, ADR
    /// 0035): shown as the agent's permission request; its answer comes back as
    /// `PermissionResolved` and goes to no agent.
    AskPerson {
        /// The question, as a permission request (its id made by the asker).
        request: Box<PermissionRequest>,
    },
    /// Forget a remembered always/never answer of an agent.
    ForgetRule {
        /// The key it is about.
        key: String,
    },
    /// Choose a setting of the agent's sessions (model, mode, …): applied now if it runs, and
    /// remembered for its next sessions.
    SetOption {
        /// Which option (by id, or by category: `--model`).
        key: crate::model::session_config::OptionKey,
        /// Its value.
        value: crate::model::session_config::OptionValue,
    },
    /// Log the agent in: `values` go to its environment (for this run, hidden in logs), and the
    /// agent (re)starts, calling `authenticate` with `method` first when given.
    Login {
        /// The way to log in the person chose (`None`: done already, in a terminal).
        method: Option<String>,
        /// Variables for an `env_var` way (name, value).
        values: Vec<(String, String)>,
    },
    /// Do something with an agent's threads.
    Thread {
        /// What.
        op: super::threads::ThreadOp,
    },
    /// Log the agent out (where it can), forget what was given to log in, and stop it.
    Logout,
}

/// What the agent service tells about one agent.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// An agent changed state.
    State {
        /// The state.
        state: AgentState,
    },
    /// A line for the agent's Log.
    Log {
        /// The entry.
        entry: LogEntry,
    },
    /// Something the agent sent during a turn (text, thought, tool call, plan, usage).
    Update {
        /// The update.
        update: Update,
    },
    /// A notice to show in the conversation.
    Notice {
        /// The notice.
        notice: Notice,
    },
    /// The agent asks for permission.
    PermissionRequested {
        /// The request.
        request: PermissionRequest,
    },
    /// The agent asks for input (a form, or a page to open).
    ElicitationRequested {
        /// The request.
        request: crate::model::elicitation::Elicitation,
    },
    /// An elicitation was answered (by the person, or a cancel).
    ElicitationResolved {
        /// Its id.
        id: u64,
        /// The answer.
        answer: crate::model::elicitation::ElicitAnswer,
    },
    /// The agent says a URL elicitation is done (`elicitation/complete`).
    ElicitationCompleted {
        /// The agent's id for it.
        elicitation_id: String,
    },
    /// A permission request was answered (by the person, a remembered rule, or a cancel).
    PermissionResolved {
        /// Its id.
        id: u64,
        /// The answer.
        answer: PermissionAnswer,
    },
    /// A turn began (the first queued message of the person was sent).
    TurnStarted,
    /// The messages waiting for the agent were dropped (Cancel or Stop): they were not sent.
    QueueDropped,
    /// One message waiting for the agent was taken back by the person: it was not sent.
    Unqueued {
        /// The message.
        id: crate::model::conversation::MessageId,
    },
    /// The turn ended.
    TurnEnded {
        /// How it ended.
        end: TurnEnd,
    },
    /// The person's message, as the runtime received it (queued until its turn starts).
    UserMessage {
        /// The text.
        text: String,
        /// Its id.
        id: MessageId,
        /// What it carries besides text (images, resources), as shown.
        attached: Vec<crate::model::conversation::Part>,
    },
    /// The dropped message `id` is sent again (as a new message, below it).
    Resent {
        /// The dropped message's id.
        id: MessageId,
    },
    /// The person's message `message` was edited: it is now `text` (message `id`), what it was is
    /// an earlier version.
    Edited {
        /// The message edited.
        message: MessageId,
        /// The new message's id.
        id: MessageId,
        /// Its words.
        text: String,
    },
    /// Version `version` of the person's message `message` is shown in its place.
    VersionShown {
        /// The message shown before.
        message: MessageId,
        /// The version shown now.
        version: usize,
    },
    /// The person's message `question` is asked again: its answer becomes an earlier one.
    Retrying {
        /// The question's id.
        question: MessageId,
    },
    /// The git branch the workspace of `agent` is on (`None`: not a git folder, or not on this
    /// computer).
    Branch {
        /// The branch, or the commit when none is checked out.
        branch: Option<String>,
    },
    /// Output of a command the agent runs (ACP terminal).
    Terminal {
        /// Its id.
        id: String,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A command the agent ran ended.
    TerminalExited {
        /// Its id.
        id: String,
        /// The exit code.
        code: Option<u32>,
        /// The signal.
        signal: Option<String>,
    },
    /// The remembered always/never answers of an agent (in its workspace).
    RulesChanged {
        /// The remembered rules.
        rules: Vec<(String, Decision)>,
    },
    /// The thread an agent is in now, with its stored messages (when the config is applied,
    /// and when the person opens or starts another).
    ThreadOpened {
        /// The thread.
        thread: super::threads::ThreadId,
        /// Its messages.
        messages: Vec<Message>,
    },
    /// An agent's threads, most recently used first.
    Threads {
        /// The threads.
        threads: Vec<super::threads::ThreadSummary>,
    },
    /// The agent's own sessions (`session/list`), or why they could not be listed.
    Sessions {
        /// The sessions, or why not.
        sessions: Result<Vec<super::threads::AgentSession>, super::threads::ListError>,
    },
    /// Another process (a second window, `sidekicks prompt`) is answering in the agent's thread:
    /// the messages sent meanwhile wait for it to end, then go (ADR 0029).
    ThreadWait {
        /// What the other process said it does; `None`: no longer waiting.
        holder: Option<String>,
        /// The messages waiting.
        waiting: Vec<String>,
        /// Messages given back unsent (the person stopped, or opened another thread, while they
        /// waited).
        returned: Vec<String>,
    },
    /// The agent does not remember the thread shown (it cannot reopen its session): offer to
    /// send a transcript with the next message (`false`: the offer is void, it remembers).
    TranscriptOffer {
        /// Offered or withdrawn.
        offered: bool,
    },
    /// The agent asks the person to log in (at start, or later in a session).
    LoginNeeded {
        /// Its words.
        message: String,
        /// The ways to log in it offers.
        methods: Vec<super::auth::AuthMethod>,
    },
    /// Attachments read for the next message, or why one could not be.
    Attached {
        /// One per file (none when the dialog was cancelled).
        results: Vec<Result<super::attachments::Attachment, String>>,
    },
    /// What a started agent said about itself.
    Info {
        /// The ways to log in it offers.
        auth_methods: Vec<super::auth::AuthMethod>,
        /// It can log out.
        can_logout: bool,
        /// What it can do with sessions.
        sessions: super::threads::SessionAbilities,
        /// What it takes in a prompt besides text.
        prompts: super::attachments::PromptAbilities,
        /// The MCP servers of the config for it, each given to its session or not.
        mcp: Vec<McpStatus>,
        /// What it said it is, with its version, if it said.
        implementation: Option<String>,
    },
    /// A session opened: its options and modes.
    SessionSettings {
        /// Its options.
        options: Vec<crate::model::session_config::ConfigOption>,
        /// Its modes (older agents).
        modes: Option<crate::model::session_config::Modes>,
    },
}

/// An agent's name as the doors and the runtime address it (`Command::Agent`, `Event::Agent`): the
/// name of its config entry, or a team member's (`Agent · team`). It reads as a `str`, compares
/// with one, and is made from one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct AgentId(pub String);

impl AgentId {
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for AgentId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for AgentId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for AgentId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for AgentId {
    fn from(name: String) -> Self {
        Self(name)
    }
}

impl From<&str> for AgentId {
    fn from(name: &str) -> Self {
        Self(name.to_string())
    }
}

impl From<&String> for AgentId {
    fn from(name: &String) -> Self {
        Self(name.clone())
    }
}

impl From<AgentId> for String {
    fn from(id: AgentId) -> Self {
        id.0
    }
}

impl PartialEq<str> for AgentId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for AgentId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for AgentId {
    fn eq(&self, other: &String) -> bool {
        self.0 == *other
    }
}

impl PartialEq<AgentId> for String {
    fn eq(&self, other: &AgentId) -> bool {
        *self == other.0
    }
}

impl PartialEq<AgentId> for &str {
    fn eq(&self, other: &AgentId) -> bool {
        *self == other.0
    }
}

impl PartialEq<AgentId> for str {
    fn eq(&self, other: &AgentId) -> bool {
        self == other.0
    }
}
