//! Threads: several conversations per agent, each stored in the history (the source of truth)
//! and, while the agent runs, tied to one ACP session of it. The agent's own sessions
//! (`session/list`) can be opened as threads.

/// A thread's id (its row in the history).
pub type ThreadId = i64;

/// What the person does with an agent's threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadOp {
    /// Start a new, empty thread and make it the current one.
    New,
    /// Make thread `id` the current one (its session reopened when the agent can).
    Open(ThreadId),
    /// Name a thread (`None`: back to the agent's title or the first message).
    Rename(ThreadId, Option<String>),
    /// Delete a thread, its messages and (where the agent can) its session.
    Delete(ThreadId),
    /// Ask the agent for its own sessions (`session/list`) → `Event::AgentSessions`.
    ListAgentSessions,
    /// Open one of the agent's sessions as a new thread (what `session/load` replays is shown
    /// and stored; `session/resume` shows nothing of the past).
    OpenAgentSession {
        /// The agent's id for it.
        session_id: String,
        /// Its title, as the agent listed it.
        title: Option<String>,
    },
}

/// One thread as the list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadSummary {
    /// Its id.
    pub id: ThreadId,
    /// Its title: the person's, else the agent's, else the start of its first message; empty
    /// for a new thread.
    pub title: String,
    /// The person named it.
    pub renamed: bool,
    /// When it was last used (seconds since 1970).
    pub updated_at: i64,
    /// Its ACP session, if one was opened.
    pub session_id: Option<String>,
}

/// One of the agent's own sessions (`session/list`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentSession {
    /// The agent's id for it.
    pub session_id: String,
    /// Its title, if the agent gave one.
    pub title: Option<String>,
    /// When it was last active (ISO 8601, as the agent wrote it).
    pub updated_at: Option<String>,
    /// A thread of Sidekicks already holds it.
    pub known: bool,
}

/// Why an agent's sessions could not be listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListError {
    /// The agent is not running (listing asks the agent).
    NotRunning,
    /// The agent does not list its sessions (`sessionCapabilities.list`).
    Unsupported,
    /// The agent failed: its words.
    Failed(String),
}

/// What an agent can do with sessions besides opening new ones (from `initialize`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionAbilities {
    /// `session/load`: reopen a session, replaying it.
    pub load: bool,
    /// `session/resume`: reopen a session without replaying it.
    pub resume: bool,
    /// `session/list`.
    pub list: bool,
    /// `session/close`.
    pub close: bool,
    /// `session/delete`.
    pub delete: bool,
}

impl SessionAbilities {
    /// Whether an earlier session can be reopened at all.
    pub fn reopens(&self) -> bool {
        self.load || self.resume
    }
}

/// The longest title made from a first message, in characters.
const TITLE_CHARS: usize = 60;

/// A thread's title: the person's, else the agent's, else the first line of its first message
/// (cut at a word near [`TITLE_CHARS`]).
pub fn title(person: Option<&str>, agent: Option<&str>, first_message: Option<&str>) -> String {
    let pick = |t: Option<&str>| t.map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
    if let Some(t) = pick(person).or_else(|| pick(agent)) {
        return t;
    }
    let Some(first) = first_message.and_then(|m| m.lines().map(str::trim).find(|l| !l.is_empty())) else {
        return String::new();
    };
    if first.chars().count() <= TITLE_CHARS {
        return first.to_string();
    }
    let cut: String = first.chars().take(TITLE_CHARS).collect();
    let at_word = cut.rfind(' ').filter(|&i| i > TITLE_CHARS / 2).map_or(cut.as_str(), |i| &cut[..i]);
    format!("{}…", at_word.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_comes_from_the_person_the_agent_or_the_first_message() {
        assert_eq!(title(Some("Mine"), Some("Agent's"), Some("hello")), "Mine");
        assert_eq!(title(Some("  "), Some("Agent's"), Some("hello")), "Agent's");
        assert_eq!(title(None, None, Some("\n  fix the build\nand more")), "fix the build");
        assert_eq!(title(None, None, None), "");
        let long = "please look at every file in the src folder and tell me which ones are too long";
        let t = title(None, None, Some(long));
        assert!(t.ends_with('…') && t.chars().count() <= TITLE_CHARS + 1, "{t}");
        assert!(long.starts_with(t.trim_end_matches('…')), "cut at a word: {t}");
        // Cut by characters, never inside one.
        let wide = "é".repeat(100);
        assert_eq!(title(None, None, Some(&wide)).chars().count(), TITLE_CHARS + 1);
    }
}

/// A stored thread no agent of the loaded config owns (an agent removed, renamed outside the
/// form, or of another project): listed in All threads, read only, deletable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OtherThread {
    /// The agent it was with (its name then).
    pub agent: String,
    /// That agent's home: its workspace folder (or, for a thread older than issue 48, the config
    /// file it was in).
    pub home: String,
    /// The thread.
    pub summary: ThreadSummary,
}

/// What the person does with threads no agent of the config owns (→ `Event::History`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryCommand {
    /// Read a thread's messages (→ `HistoryEvent::Read`).
    Read(ThreadId),
    /// Delete a thread no agent owns (→ `HistoryEvent::Others` again).
    Delete(ThreadId),
}

/// What the history service tells.
#[derive(Clone, Debug, PartialEq)]
pub enum HistoryEvent {
    /// The stored threads no agent of the config owns, most recently used first (again after each
    /// change of the config and each deletion).
    Others {
        /// The threads.
        threads: Vec<OtherThread>,
    },
    /// A thread's messages, read (or why not).
    Read {
        /// The thread.
        thread: ThreadId,
        /// Its messages.
        messages: Result<Vec<crate::model::conversation::Message>, String>,
    },
}
