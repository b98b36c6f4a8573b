//! Channels as the UI knows them: each channel of the config with its members (the agents that
//! list it), its timeline, and an unread marker. Saying something in a channel produces the
//! prompts for the members it is for, each with its catch-up.

use super::state::AgentView;
use super::teams_state::TeamsState;
use crate::model::channel::{Timeline, recipients};
use crate::model::config::Config;
use crate::model::conversation::{Message, MessageId, Role};
use crate::protocol::Command;

/// One channel.
#[derive(Clone, Debug, Default)]
pub struct ChannelState {
    /// Its name (a team channel's is `team:<id>`).
    pub name: String,
    /// What it is called in the window and in prompts (the team's name for a team channel).
    pub title: String,
    /// The team, for a team channel.
    pub team: Option<String>,
    /// The team's lead: its answers that @mention members hand the work over to them.
    pub lead: Option<String>,
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
    /// Commands produced by events (a lead's hand-over), for the window to send.
    pub outbox: Vec<Command>,
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

    /// Follows the config: its channels, their members (agents listing them), timelines kept.
    pub fn sync(&mut self, config: &Config) {
        let mut channels = Vec::new();
        for c in &config.channels {
            let members =
                config.agents.iter().filter(|a| a.channels.contains(&c.name)).map(|a| a.name.clone()).collect();
            let old = self.channels.iter().find(|o| o.name == c.name);
            channels.push(ChannelState {
                name: c.name.clone(),
                title: c.name.clone(),
                team: None,
                lead: None,
                description: c.description.clone(),
                members,
                timeline: old.map(|o| o.timeline.clone()).unwrap_or_default(),
                unread: old.is_some_and(|o| o.unread),
            });
        }
        channels.extend(self.channels.iter().filter(|c| c.team.is_some()).cloned());
        self.channels = channels;
    }

    /// Follows the teams: one channel per team, its lead first, then its members.
    pub fn sync_teams(&mut self, teams: &TeamsState) {
        self.channels.retain(|c| c.team.as_ref().is_none_or(|id| teams.team(id).is_some()));
        for team in &teams.teams {
            let record = &team.info.record;
            let name = format!("team:{}", record.id);
            let members: Vec<String> =
                record.lead.iter().cloned().chain(record.members.iter().map(|m| m.agent.clone())).collect();
            match self.channels.iter_mut().find(|c| c.name == name) {
                Some(c) => c.members = members,
                None => self.channels.push(ChannelState {
                    name,
                    title: record.name.clone(),
                    team: Some(record.id.clone()),
                    lead: record.lead.clone(),
                    description: None,
                    members,
                    timeline: team.info.channel.clone().unwrap_or_default(),
                    unread: false,
                }),
            }
        }
    }

    /// The command that remembers channel `c`'s timeline.
    fn save(c: &ChannelState) -> Command {
        match &c.team {
            Some(team) => Command::SaveTeamChannel { team: team.clone(), timeline: c.timeline.clone() },
            None => Command::SaveChannel { name: c.name.clone(), timeline: c.timeline.clone() },
        }
    }

    /// A turn ended: if it was a team lead's answer in its channel that @mentions members, the
    /// answer goes to them (with their catch-up). Members' answers are never relayed, so agents
    /// cannot keep one another talking.
    pub fn turn_ended(&mut self, agents: &[AgentView], agent: &str) {
        for c in self.channels.iter_mut().filter(|c| c.lead.as_deref() == Some(agent)) {
            let Some((prompt, id)) = c.timeline.entries.iter().rev().find_map(|e| match e {
                crate::model::channel::Entry::Answer { agent: who, prompt, id } if who == agent => {
                    Some((prompt.clone(), id.clone()))
                }
                _ => None,
            }) else {
                continue;
            };
            // Handed over once: the lead's answer is the last entry it made.
            if !matches!(c.timeline.entries.last(), Some(crate::model::channel::Entry::Answer { agent: who, .. }) if who == agent)
            {
                continue;
            }
            let said = answer_text(agents, agent, &prompt, id.as_ref());
            let others: Vec<String> = c.members.iter().filter(|m| m.as_str() != agent).cloned().collect();
            let to = recipients(&said, &others);
            let mentioned = |m: &String| {
                let short = crate::model::member_name::short_name(m);
                [m.as_str(), short].iter().any(|n| said.to_lowercase().contains(&format!("@{}", n.to_lowercase())))
            };
            if to.len() == others.len() && !others.iter().any(mentioned) {
                continue; // No mention: the lead answered the person.
            }
            let catch_ups: Vec<Option<String>> = to
                .iter()
                .map(|m| c.timeline.catch_up(&c.title, m, |who, p, id| answer_text(agents, who, p, id)))
                .collect();
            let prompts = c.timeline.say_as(Some(agent), &c.title, said.trim(), &to);
            for (prompt, context) in prompts.into_iter().zip(catch_ups) {
                self.outbox.push(Command::Prompt {
                    agent: prompt.agent,
                    text: prompt.text,
                    context,
                    id: Some(prompt.id),
                    attachments: Vec::new(),
                });
            }
            self.outbox.push(Self::save(c));
        }
    }

    /// A merge of `agent`'s work in team `team` conflicted: the message the member was sent
    /// (`told`) shows in the team's channel, with the member's answer.
    pub fn merge_conflicted(&mut self, team: &str, agent: &str, told: &crate::protocol::teams::Told) {
        if let Some(c) = self.channels.iter_mut().find(|c| c.team.as_deref() == Some(team)) {
            c.timeline
                .entries
                .push(crate::model::channel::Entry::Notice { text: told.text.clone(), to: vec![agent.into()] });
            c.timeline.entries.push(crate::model::channel::Entry::Answer {
                agent: agent.into(),
                prompt: told.text.clone(),
                id: Some(told.id.clone()),
            });
            self.outbox.push(Self::save(c));
        }
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
        let title = channel.title.clone();
        let catch_ups: Vec<Option<String>> = to
            .iter()
            .map(|agent| channel.timeline.catch_up(&title, agent, |who, p, id| answer_text(agents, who, p, id)))
            .collect();
        let prompts = channel.timeline.say(&title, text, &to);
        let mut commands: Vec<Command> = prompts
            .into_iter()
            .zip(catch_ups)
            .map(|(p, context)| Command::Prompt {
                agent: p.agent,
                text: p.text,
                context,
                id: Some(p.id),
                attachments: Vec::new(),
            })
            .collect();
        commands.push(Self::save(channel));
        commands
    }

    /// Channel `name` is shown (`None`: none is): it is read, and stays read while shown.
    pub fn show(&mut self, name: Option<&str>) {
        self.viewing = name.map(str::to_string);
        if let Some(c) = self.channels.iter_mut().find(|c| Some(c.name.as_str()) == name) {
            c.unread = false;
        }
    }

    /// An agent's answer grew: the channel it answers in (its latest prompt says `[#name]`) is
    /// unread unless shown.
    pub fn answered(&mut self, agent: &AgentView) {
        let Some(prompt) = agent.conversation.messages.iter().rev().find(|m| m.role == Role::User) else { return };
        let text = prompt.text();
        for c in &mut self.channels {
            if text.starts_with(&format!("[#{}] ", c.title)) && self.viewing.as_deref() != Some(c.name.as_str()) {
                c.unread = true;
            }
        }
    }
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
}
