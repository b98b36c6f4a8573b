//! A conversation with one agent: messages made of parts (text, thought, tool calls, plan), how
//! each turn ended, and the system notices Sidekicks adds. Plain data; the runtime's updates
//! extend it and the UI draws it.

use super::tool::{PlanItem, ToolCall, ToolCallPatch, ToolStatus};

mod fold;
mod turns;
mod versions;

pub use versions::Version;

/// How a turn ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TurnEnd {
    /// The agent finished its answer.
    EndTurn,
    /// The agent hit its token limit.
    MaxTokens,
    /// The agent hit its limit of model requests.
    MaxTurnRequests,
    /// The agent refused.
    Refusal,
    /// The turn was cancelled.
    Cancelled,
    /// The turn failed (the agent's own explanation, or the connection's).
    Failed {
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// The agent process ended during the turn.
    AgentExited,
    /// The agent asks the person to log in again (its words).
    AuthRequired {
        /// The message, in the words of whoever gave it.
        message: String,
    },
}

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Role {
    /// The person.
    User,
    /// The agent.
    Agent,
    /// Sidekicks itself (a notice in the conversation).
    System,
}

/// Where a message of the person stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Delivery {
    /// Sent to the agent.
    #[default]
    Sent,
    /// Waiting for the current turn to end.
    Queued,
    /// Dropped by Stop before it was sent.
    NotSent,
    /// Dropped by Stop, then sent again by the person (as a new message, below).
    Resent,
}

impl Delivery {
    /// Sent (the default).
    pub fn is_sent(&self) -> bool {
        *self == Delivery::Sent
    }
}

/// What a system message says, as a code the UI puts into words.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Notice {
    /// A new session was opened: the agent no longer remembers the beginning of the conversation.
    NewSession,
    /// An edit or another version was refused: a turn runs or messages wait.
    EditRefused,
    /// `failures` tool calls failed in a row: the agent may be going round in circles.
    Loop {
        /// How many failed.
        failures: u32,
    },
    /// The agent process ended on its own.
    AgentExited {
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// The agent did not end its turn when asked to, so it was stopped.
    Unresponsive,
    /// The conversation was restored from history but the agent cannot reopen its session:
    /// Sidekicks offers to send a transcript with the next message.
    TranscriptOffer,
    /// The session of the thread opened could not be opened: the agent was stopped (the next
    /// message starts it again in this thread).
    ThreadFailed {
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// The agent refused a setting the person chose (model, mode, …): its words.
    SettingRefused {
        /// The setting.
        setting: String,
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// The workspace was restored to `checkpoint`; `undo` brings back how it was just before.
    Restored {
        /// The checkpoint restored.
        checkpoint: String,
        /// The checkpoint that undoes the restore.
        undo: String,
    },
    /// A restore was undone: the workspace is as it was just before it (the `Restored` notice
    /// becomes this one).
    RestoreUndone,
    /// The agent's policy refused a request it made through Sidekicks (a file write, a command).
    PolicyDenied {
        /// A write (else a command).
        writes: bool,
        /// The path or the command line.
        what: String,
        /// Refused by the command line's `--allow reject` (the default), not by the config's
        /// policy.
        #[serde(default)]
        by_allow_reject: bool,
    },
    /// A restore failed: why.
    RestoreFailed {
        /// The message, in the words of whoever gave it.
        message: String,
    },
}

/// One part of a message.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Part {
    /// Markdown text, grown fragment by fragment.
    Text(String),
    /// Visible reasoning (shown folded).
    Thought(String),
    /// A tool call, replaced field by field on each update.
    Tool(ToolCall),
    /// The agent's plan (replaced as a whole on each update).
    Plan(Vec<PlanItem>),
    /// A notice from Sidekicks.
    Notice(Notice),
    /// An image (attached by the person, or sent by the agent).
    Image(super::content::Image),
    /// A file, folder or link (named by the person with `@`, or sent by the agent).
    Resource(super::content::Resource),
}

/// The id of a message of the person: what a channel or a merge links its answer by. ACP 1.17
/// has no stable `messageId` on a prompt, so Sidekicks makes its own (unique in practice: the time
/// of creation and a counter).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct MessageId(pub String);

impl MessageId {
    /// A new id.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let count = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        Self(format!("m{nanos:x}-{count:x}"))
    }

    /// A new id for a message Sidekicks itself sends an agent (not the person's words).
    pub fn by_sidekicks() -> Self {
        Self(format!("s{}", Self::new().0))
    }

    /// True for a message Sidekicks itself sent ([`MessageId::by_sidekicks`]).
    pub fn is_by_sidekicks(&self) -> bool {
        self.0.starts_with('s')
    }
}

/// One message of a conversation. Two messages are equal when they say the same (their time is
/// not compared: the window and the history recorder each stamp their copy as they see it).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Message {
    /// Its id (messages of the person; older stored ones have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<MessageId>,
    /// Who wrote it.
    pub role: Role,
    /// Its parts, in order.
    pub parts: Vec<Part>,
    /// How the turn ended, once it has (agent messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<TurnEnd>,
    /// Where it stands (messages of the person). Not stored when sent (most messages): the
    /// history holds less than the text beside each one.
    #[serde(default, skip_serializing_if = "Delivery::is_sent")]
    pub delivery: Delivery,
    /// When it was written (Unix seconds); messages stored before times were kept have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
    /// The checkpoint of the agent's workspace recorded before the turn this message started
    /// (messages of the person; see `runtime::checkpoint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// Earlier answers to the same question, oldest first (an answer retried: its parts then).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier: Vec<Vec<Part>>,
    /// How many files the turn this message started changed in the workspace (its checkpoint
    /// against the workspace when the turn ended); `None` until known, or without checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<u32>,
    /// The other versions of a message of the person that was edited (oldest first; see
    /// `versions.rs`), and where the one shown stands among them all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<Version>,
    /// The position of this version among them all (0-based).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub version_at: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        (&self.id, &self.role, &self.parts, &self.end, &self.delivery, &self.checkpoint, &self.earlier, self.changed)
            == (
                &other.id,
                &other.role,
                &other.parts,
                &other.end,
                &other.delivery,
                &other.checkpoint,
                &other.earlier,
                other.changed,
            )
            && (&self.versions, self.version_at) == (&other.versions, other.version_at)
    }
}

impl Eq for Message {}

impl Message {
    /// A new message with one text part (none if `text` is empty).
    pub fn new(role: Role, text: impl Into<String>) -> Self {
        let text = text.into();
        let parts = if text.is_empty() { Vec::new() } else { vec![Part::Text(text)] };
        Self {
            id: None,
            role,
            parts,
            end: None,
            delivery: Delivery::Sent,
            at: None,
            checkpoint: None,
            earlier: Vec::new(),
            changed: None,
            versions: Vec::new(),
            version_at: 0,
        }
    }

    /// All its text parts joined (what a transcript or a test reads).
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// True when its text parts, joined, are exactly `text` (without building the joined text:
    /// channel views ask this of many messages each frame).
    pub fn text_is(&self, text: &str) -> bool {
        let mut rest = text;
        for part in &self.parts {
            if let Part::Text(t) = part {
                match rest.strip_prefix(t.as_str()) {
                    Some(r) => rest = r,
                    None => return false,
                }
            }
        }
        rest.is_empty()
    }

    /// All its thought parts joined.
    pub fn thought(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Thought(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    fn tool_mut(&mut self, id: &str) -> Option<&mut ToolCall> {
        self.parts.iter_mut().find_map(|p| match p {
            Part::Tool(t) if t.id == id => Some(t),
            _ => None,
        })
    }
}

/// Something the agent sent during a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// A fragment of reply text.
    Text(String),
    /// A fragment of reasoning.
    Thought(String),
    /// A new tool call.
    ToolCall(ToolCall),
    /// Changes to a tool call.
    ToolCallPatch(ToolCallPatch),
    /// The whole plan.
    Plan(Vec<PlanItem>),
    /// Context window use, and what the session cost so far.
    Usage {
        /// How much is used.
        used: u64,
        /// The size.
        size: u64,
        /// The session's cost so far, when the agent says.
        cost: Option<Cost>,
    },
    /// The session's options, all of them, as they are now.
    Options(Vec<super::session_config::ConfigOption>),
    /// The session's current mode (older agents' modes).
    Mode(String),
    /// The commands the agent offers now.
    Commands(Vec<super::session_config::SlashCommand>),
    /// The session's title, as the agent names it (`None`: cleared).
    Title(Option<String>),
    /// An image in the agent's answer.
    Image(super::content::Image),
    /// A resource (file, link) in the agent's answer.
    Resource(super::content::Resource),
}

/// An amount of money (or credits) an agent reports, kept exact to the millionth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// The amount in millionths of the unit.
    pub millionths: i64,
    /// The unit: an ISO 4217 currency code (`USD`) or another unit (`credits`).
    pub currency: String,
}

impl Cost {
    /// `amount` of `currency`.
    pub fn new(amount: f64, currency: impl Into<String>) -> Self {
        Self { millionths: (amount * 1_000_000.0).round() as i64, currency: currency.into() }
    }

    /// As shown: two decimals, up to four below one unit (`0.0123 USD`, `0.50 USD`, `12.34 USD`).
    pub fn text(&self) -> String {
        let amount = self.millionths as f64 / 1_000_000.0;
        let mut number =
            if self.millionths.abs() < 1_000_000 { format!("{amount:.4}") } else { format!("{amount:.2}") };
        while number.len() - number.find('.').unwrap_or(number.len()) > 3 && number.ends_with('0') {
            number.pop();
        }
        format!("{number} {}", self.currency)
    }
}

/// The sum of `costs`, per unit, in the order units first appear.
pub fn total_cost<'a>(costs: impl IntoIterator<Item = &'a Cost>) -> Vec<Cost> {
    let mut totals: Vec<Cost> = Vec::new();
    for c in costs {
        match totals.iter_mut().find(|t| t.currency == c.currency) {
            Some(t) => t.millionths += c.millionths,
            None => totals.push(c.clone()),
        }
    }
    totals
}

/// The messages exchanged with one agent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversation {
    /// In order.
    pub messages: Vec<Message>,
    /// The last context-window use the agent reported: (used, size) in tokens.
    pub usage: Option<(u64, u64)>,
    /// What the current session cost so far, when the agent says.
    pub cost: Option<Cost>,
    /// Tool calls that failed in a row, across turns (reset by any success).
    pub failures_in_a_row: u32,
    /// The first message changed since the last `take_dirty` (for saving only what changed).
    dirty_from: Option<usize>,
    /// The length it was cut to since the last `take_cut` (an edit, a version shown).
    cut_to: Option<usize>,
    /// Where each tool call is, to find it at once.
    tools: ToolIndex,
}

/// Where each tool call is: (message, part) by id, the latest of each id, for every part up to
/// `upto` — caught up on use, rebuilt when the messages shrank, a found place checked. Finding a
/// call by scanning made a turn of 100,000 tool calls and their updates quadratic (457 s).
#[derive(Clone, Default)]
struct ToolIndex {
    at: std::collections::HashMap<String, (usize, usize)>,
    upto: (usize, usize),
}

// A cache: two conversations with the same messages are equal whatever it holds.
impl PartialEq for ToolIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ToolIndex {}

impl std::fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ToolIndex({} calls)", self.at.len())
    }
}

/// A compact transcript of `messages` for an agent that does not remember them: the text of
/// each message of the person and the agent, the most recent ones, within `max_chars`.
pub fn transcript(messages: &[Message], max_chars: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut used = 0;
    for m in messages.iter().rev() {
        let who = match m.role {
            Role::User if m.delivery == Delivery::Sent => "User",
            Role::Agent => "Agent",
            _ => continue,
        };
        let text = m.text();
        if text.trim().is_empty() {
            continue;
        }
        let line = format!("{who}: {}", text.trim());
        if used + line.len() > max_chars {
            break;
        }
        used += line.len() + 1;
        lines.push(line);
    }
    lines.reverse();
    format!(
        "[Transcript of our earlier conversation, which you no longer remember]\n{}\n[End of transcript]\n\n",
        lines.join("\n")
    )
}

/// Failed tool calls in a row that make Sidekicks say the agent goes round in circles.
pub const LOOP_THRESHOLD: u32 = 3;

#[cfg(test)]
mod tests;
