//! The attention inbox: everything that waits for the person across agents, channels and teams,
//! oldest first. An item is a key into the state it lives in (a permission card, a question, a
//! login, a conflicted merge), so answering it anywhere answers it here. "Not now" moves one to
//! the end without answering it.

/// Something that waits for the person.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InboxKey {
    /// A permission request of `agent`.
    Permission {
        /// The agent.
        agent: String,
        /// The request's id.
        id: u64,
    },
    /// A question (elicitation) of `agent`.
    Question {
        /// The agent.
        agent: String,
        /// Its id.
        id: u64,
    },
    /// `agent` asks to log in.
    Login {
        /// The agent.
        agent: String,
    },
    /// `member`'s merge into team `team` conflicted.
    Conflict {
        /// The team's id.
        team: String,
        /// The member.
        member: String,
    },
}
