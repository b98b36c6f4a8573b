//! Channels as the window shows them, folded from the channel service's events (ADR 0028): each
//! channel with its members and timeline, which one is shown and which have unread answers. What
//! is sent to whom, the catch-ups, the lead's hand-overs and the answers kept are the runtime's
//! (`runtime/services/channels.rs`); the window sends `ChannelCommand::Say`.

use super::agent_view::AgentView;
use crate::model::channel::Entry;
use crate::model::conversation::{Message, MessageId, Role};
use crate::protocol::ChannelInfo;

/// One channel.
pub type ChannelState = ChannelInfo;

/// Every channel.
#[derive(Clone, Debug, Default)]
pub struct ChannelsState {
    /// The channels, in the config's order, then the teams'.
    pub channels: Vec<ChannelState>,
    /// The channel shown, if any (it has nothing unread).
    pub viewing: Option<String>,
    /// Channels with an answer not seen yet (their names).
    pub unread: std::collections::HashSet<String>,
}

/// Where the answer to a message starts and ends in `messages`: after the message with id `id`,
/// or (timelines stored before ids) after the last message of the person with text `prompt`.
pub fn answer_messages(messages: &[Message], prompt: &str, id: Option<&MessageId>) -> std::ops::Range<usize> {
    let asked = |m: &Message| match id {
        Some(id) => m.id.as_ref() == Some(id),
        None => m.role == Role::User && m.text_is(prompt),
    };
    let Some(at) = messages.iter().rposition(asked) else {
        return 0..0;
    };
    let end = messages[at + 1..].iter().position(|m| m.role == Role::User).map_or(messages.len(), |i| at + 1 + i);
    at + 1..end
}

/// The text of a member's answer to a message (see [`answer_messages`]).
pub fn answer_text(agents: &[AgentView], agent: &str, prompt: &str, id: Option<&MessageId>) -> String {
    let Some(view) = agents.iter().find(|a| a.config.name == agent) else { return String::new() };
    let messages = &view.conversation.messages;
    answer_messages(messages, prompt, id).map(|i| messages[i].text()).collect::<Vec<_>>().join("\n")
}

impl ChannelsState {
    /// The channel named `name`.
    pub fn channel(&self, name: &str) -> Option<&ChannelState> {
        self.channels.iter().find(|c| c.name == name)
    }

    /// Every channel, as the runtime holds them.
    pub fn all(&mut self, channels: Vec<ChannelInfo>) {
        self.unread.retain(|name| channels.iter().any(|c| c.name == *name));
        self.channels = channels;
    }

    /// One channel changed.
    pub fn updated(&mut self, channel: ChannelInfo) {
        match self.channels.iter_mut().find(|c| c.name == channel.name) {
            Some(c) => *c = channel,
            None => self.channels.push(channel),
        }
    }

    /// True when channel `name` has an answer not seen yet.
    pub fn is_unread(&self, name: &str) -> bool {
        self.unread.contains(name)
    }

    /// Channel `name` is shown (`None`: none is): it is read, and stays read while shown.
    pub fn show(&mut self, name: Option<&str>) {
        self.viewing = name.map(str::to_string);
        if let Some(name) = name {
            self.unread.remove(name);
        }
    }

    /// An agent's answer grew: the channel it answers in (the one whose timeline holds an answer
    /// of the agent to its latest message, by the message's id) is unread unless shown.
    pub fn answered(&mut self, agent: &AgentView) {
        let Some(asked) = agent.conversation.messages.iter().rev().find(|m| m.role == Role::User) else { return };
        let name = agent.config.name.as_str();
        for c in &self.channels {
            if self.viewing.as_deref() != Some(c.name.as_str()) && answers_in(c, name, asked) {
                self.unread.insert(c.name.clone());
            }
        }
    }
}

/// Whether `channel` waits for `agent`'s answer to message `asked`: by the message's id, or, in a
/// timeline stored before ids, by its text.
fn answers_in(channel: &ChannelState, agent: &str, asked: &Message) -> bool {
    channel.timeline.entries.iter().rev().any(|e| match e {
        Entry::Answer { agent: a, id, prompt, .. } if a == agent => match (id, &asked.id) {
            (Some(id), Some(asked)) => id == asked,
            (None, _) => asked.text_is(prompt),
            (Some(_), None) => false,
        },
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::conversation::Delivery;

    #[test]
    fn an_answer_is_found_by_the_id_of_its_message_even_when_the_text_repeats() {
        let mut messages = Vec::new();
        let (first, second) = (MessageId::new(), MessageId::new());
        assert_ne!(first, second);
        for (id, answer) in [(&first, "one"), (&second, "two")] {
            let mut asked = Message::new(Role::User, "[#c] same words");
            asked.id = Some(id.clone());
            asked.delivery = Delivery::Sent;
            messages.push(asked);
            messages.push(Message::new(Role::Agent, answer));
        }
        assert_eq!(answer_messages(&messages, "[#c] same words", Some(&first)), 1..2);
        assert_eq!(answer_messages(&messages, "[#c] same words", Some(&second)), 3..4);
        assert_eq!(answer_messages(&messages, "[#c] same words", Some(&MessageId::new())), 0..0, "not sent yet");
        // A timeline stored before ids: the text, the latest such message.
        assert_eq!(answer_messages(&messages, "[#c] same words", None), 3..4);
    }

    /// The channel an answer is for is found by the id of the message it answers, not by the
    /// words the message starts with (the person may write "[#c] " to the agent directly).
    #[test]
    fn an_answer_is_a_channels_by_the_id_of_the_message_not_its_words() {
        let sent = MessageId::new();
        let channel = ChannelInfo {
            name: "c".into(),
            title: "c".into(),
            timeline: crate::model::channel::Timeline {
                entries: vec![Entry::Answer {
                    agent: "ada".into(),
                    prompt: "[#c] hello".into(),
                    id: Some(sent.clone()),
                    text: None,
                }],
                ..Default::default()
            },
            ..Default::default()
        };
        let mut asked = Message::new(Role::User, "[#c] hello");
        asked.id = Some(sent);
        assert!(answers_in(&channel, "ada", &asked));
        assert!(!answers_in(&channel, "bob", &asked), "another member");
        let mut direct = Message::new(Role::User, "[#c] hello");
        direct.id = Some(MessageId::new());
        assert!(!answers_in(&channel, "ada", &direct), "written to the agent directly, same words");
        // A timeline stored before ids: by the words.
        let mut old = channel.clone();
        old.timeline.entries =
            vec![Entry::Answer { agent: "ada".into(), prompt: "[#c] hello".into(), id: None, text: None }];
        assert!(answers_in(&old, "ada", &direct));
    }
}
