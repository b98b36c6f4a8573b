//! An agent's threads as the window shows them: the list, the one shown, the agent's own sessions
//! when asked for, and whether a transcript is offered (the agent does not remember the thread).

use crate::model::conversation::Message;
use crate::protocol::threads::{AgentSession, ListError, ThreadId, ThreadSummary};

/// The threads of one agent.
#[derive(Clone, Debug, Default)]
pub struct Threads {
    /// The thread shown.
    pub current: Option<ThreadId>,
    /// Every thread, most recently used first.
    pub list: Vec<ThreadSummary>,
    /// The agent's own sessions, once asked for.
    pub agent_sessions: Option<Result<Vec<AgentSession>, ListError>>,
    /// The agent does not remember the thread shown: a transcript is offered.
    pub offered: bool,
    /// Messages of a thread restored before its agent's view exists.
    pub(super) pending_messages: Vec<Message>,
    /// Another process answers in the thread: who, and the messages waiting for it.
    pub held_elsewhere: Option<(String, Vec<String>)>,
    /// Messages given back unsent while they waited (the person may put them back).
    pub returned: Vec<String>,
}

impl Threads {
    /// The thread shown, as listed.
    pub fn shown(&self) -> Option<&ThreadSummary> {
        self.list.iter().find(|t| Some(t.id) == self.current)
    }
}
