//! Channels as the UI knows them: each channel of the config with its members (the agents that
//! list it), its timeline, and an unread marker. Saying something in a channel produces the
//! prompts for the members it is for, each with its catch-up.

use super::protocol::Command;
use super::state::AgentView;
use crate::model::channel::{Timeline, recipients};
use crate::model::config::Config;
use crate::model::conversation::{Message, Role};

/// One channel.
#[derive(Clone, Debug, Default)]
pub struct ChannelState {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// The member agents, in the config's order.
    pub members: Vec<String>,
    /// What was said.
    pub timeline: Timeline,
    /// An answer arrived while the channel was not shown.
    pub unread: bool,
}

/// Every channel.
#[derive(Clone, Debug, Default)]
pub struct ChannelsState {
    /// The channels, in the config's order.
    pub channels: Vec<ChannelState>,
    /// The channel shown, if any (it has nothing unread).
    pub viewing: Option<String>,
}

/// Where the answer to `prompt` starts in `messages`: after the last user message with that text.
pub fn answer_messages(messages: &[Message], prompt: &str) -> std::ops::Range<usize> {
    let Some(at) = messages.iter().rposition(|m| m.role == Role::User && m.text() == prompt) else {
        return 0..0;
    };
    let end = messages[at + 1..].iter().position(|m| m.role == Role::User).map_or(messages.len(), |i| at + 1 + i);
    at + 1..end
}

/// The text of a member's answer to `prompt`.
pub fn answer_text(agents: &[AgentView], agent: &str, prompt: &str) -> String {
    let Some(view) = agents.iter().find(|a| a.config.name == agent) else { return String::new() };
    let messages = &view.conversation.messages;
    answer_messages(messages, prompt).map(|i| messages[i].text()).collect::<Vec<_>>().join("\n")
}

impl ChannelsState {
    /// The channel named `name`.
    pub fn channel(&self, name: &str) -> Option<&ChannelState> {
        self.channels.iter().find(|c| c.name == name)
    }

    /// Follows the config: its channels, their members (agents listing them), timelines kept.
    pub fn sync(&mut self, config: &Config) {
        let mut channels = Vec::new();
        for c in &config.channels {
            let members =
                config.agents.iter().filter(|a| a.channels.contains(&c.name)).map(|a| a.name.clone()).collect();
            let old = self.channels.iter().find(|o| o.name == c.name);
            channels.push(ChannelState {
                name: c.name.clone(),
                description: c.description.clone(),
                members,
                timeline: old.map(|o| o.timeline.clone()).unwrap_or_default(),
                unread: old.is_some_and(|o| o.unread),
            });
        }
        self.channels = channels;
    }

    /// A stored timeline (taken unless more was said since).
    pub fn loaded(&mut self, name: &str, timeline: Timeline) {
        if let Some(c) = self.channels.iter_mut().find(|c| c.name == name)
            && c.timeline.entries.len() <= timeline.entries.len()
        {
            c.timeline = timeline;
        }
    }

    /// The person says `text` in channel `name`: the prompts for the members it is for (each with
    /// its catch-up), then the timeline to remember.
    pub fn say(&mut self, agents: &[AgentView], name: &str, text: &str) -> Vec<Command> {
        let Some(channel) = self.channels.iter_mut().find(|c| c.name == name) else { return Vec::new() };
        let to = recipients(text, &channel.members);
        let catch_ups: Vec<Option<String>> = to
            .iter()
            .map(|agent| channel.timeline.catch_up(name, agent, |who, prompt| answer_text(agents, who, prompt)))
            .collect();
        let prompts = channel.timeline.say(name, text, &to);
        let mut commands: Vec<Command> = prompts
            .into_iter()
            .zip(catch_ups)
            .map(|((agent, text), context)| Command::Prompt { agent, text, context })
            .collect();
        commands.push(Command::SaveChannel { name: name.into(), timeline: channel.timeline.clone() });
        commands
    }

    /// An agent's answer grew: the channel it answers in (its latest prompt says `[#name]`) is
    /// unread unless shown.
    pub fn answered(&mut self, agent: &AgentView) {
        let Some(prompt) = agent.conversation.messages.iter().rev().find(|m| m.role == Role::User) else { return };
        let text = prompt.text();
        for c in &mut self.channels {
            if text.starts_with(&format!("[#{}] ", c.name)) && self.viewing.as_deref() != Some(c.name.as_str()) {
                c.unread = true;
            }
        }
    }
}
