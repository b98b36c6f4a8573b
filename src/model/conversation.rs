//! A conversation with one agent: the messages and how each turn ended. Plain data; the UI
//! draws it and the runtime's events extend it.

/// How a turn ended.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// The turn failed (the agent's or the connection's error message).
    Failed { message: String },
}

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The person.
    User,
    /// The agent.
    Agent,
    /// Sidekicks itself (a notice in the conversation).
    System,
}

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text (Markdown for the agent), grown fragment by fragment while streaming.
    pub text: String,
    /// Visible reasoning of the agent, if any.
    pub thought: String,
    /// How the turn ended, once it has.
    pub end: Option<TurnEnd>,
}

impl Message {
    /// A new message.
    pub fn new(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            text: text.into(),
            thought: String::new(),
            end: None,
        }
    }
}

/// The messages exchanged with one agent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversation {
    /// In order.
    pub messages: Vec<Message>,
}

impl Conversation {
    /// Adds what the person sent.
    pub fn push_user(&mut self, text: impl Into<String>) {
        self.messages.push(Message::new(Role::User, text));
    }

    /// The agent message being streamed, created if the last message is not an open agent one.
    fn open_agent_message(&mut self) -> &mut Message {
        let open = matches!(self.messages.last(), Some(m) if m.role == Role::Agent && m.end.is_none());
        if !open {
            self.messages.push(Message::new(Role::Agent, ""));
        }
        self.messages.last_mut().expect("just pushed")
    }

    /// Appends a fragment of the agent's reply.
    pub fn append_agent_text(&mut self, text: &str) {
        self.open_agent_message().text.push_str(text);
    }

    /// Appends a fragment of the agent's reasoning.
    pub fn append_agent_thought(&mut self, text: &str) {
        self.open_agent_message().thought.push_str(text);
    }

    /// Closes the turn: the open agent message (created if the agent said nothing) gets `end`.
    pub fn end_turn(&mut self, end: TurnEnd) {
        self.open_agent_message().end = Some(end);
    }

    /// True while an agent message is open.
    pub fn is_streaming(&self) -> bool {
        matches!(self.messages.last(), Some(m) if m.role == Role::Agent && m.end.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_join_into_one_message_until_the_turn_ends() {
        let mut c = Conversation::default();
        c.push_user("hello");
        c.append_agent_text("Hel");
        c.append_agent_text("lo!");
        assert!(c.is_streaming());
        c.end_turn(TurnEnd::EndTurn);
        c.append_agent_text("next");
        assert_eq!(c.messages.len(), 3);
        assert_eq!(c.messages[1].text, "Hello!");
        assert_eq!(c.messages[1].end, Some(TurnEnd::EndTurn));
        assert_eq!(c.messages[2].text, "next");
    }

    #[test]
    fn a_silent_failed_turn_still_gets_a_message() {
        let mut c = Conversation::default();
        c.push_user("hi");
        c.end_turn(TurnEnd::Failed {
            message: "boom".into(),
        });
        assert_eq!(c.messages.len(), 2);
        assert_eq!(c.messages[1].role, Role::Agent);
    }
}
