//! Channels, pure: several agents in one conversation. A message goes to the members it
//! @mentions, or to every member when it mentions none. The channel's timeline holds the person's
//! messages and, for each member asked, a reference to its answer in its own conversation, and
//! the answer's text once it ended (so the channel keeps what it showed when the member opens
//! another thread). Before
//! each turn a member receives what was said in the channel since it last spoke: the catch-up.

use serde::{Deserialize, Serialize};

use super::conversation::MessageId;

/// The line that ends a catch-up (the demo agent reads only what follows it).
pub const CATCH_UP_END: &str = "--- end of the channel's news; the new message follows ---\n";

/// One entry of a channel's timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Entry {
    /// The person (or, with `from`, a team's lead) said `text` to `to`.
    User {
        /// What was said.
        text: String,
        /// The members it went to.
        to: Vec<String>,
        /// The lead who handed work over; `None`: the person.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        /// When it was said (Unix seconds; none in timelines stored before times were kept).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<u64>,
    },
    /// A message Sidekicks itself sent members `to` (a merge's conflicts, to the member whose
    /// work it was).
    Notice {
        /// What was said.
        text: String,
        /// The members it went to.
        to: Vec<String>,
    },
    /// A member's answer: the agent messages that follow the message it was sent in its
    /// conversation.
    Answer {
        /// The member.
        agent: String,
        /// The text it was sent.
        prompt: String,
        /// The id of the message it was sent (its answer follows it); timelines stored before ids
        /// have none and are matched by `prompt`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<MessageId>,
        /// Its text once it ended (kept, so the channel shows it whatever thread the member has
        /// open later); none while it answers, and in timelines stored before answers were kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
}

/// A message for a member, made by [`Timeline::say`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// The member.
    pub agent: String,
    /// What it is sent.
    pub text: String,
    /// The message's id (its answer entry points at it).
    pub id: MessageId,
}

/// A channel's timeline and what each member has seen of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    /// The entries, oldest first.
    pub entries: Vec<Entry>,
    /// For each member, how many entries it had seen when it was last asked.
    pub seen: std::collections::BTreeMap<String, usize>,
}

/// The members `text` is for: those it @mentions (`@name`, case-insensitive), in the channel's
/// order, or every member when it mentions none.
pub fn recipients(text: &str, members: &[String]) -> Vec<String> {
    let lower = text.to_lowercase();
    let said = |name: &str| {
        let tag = format!("@{}", name.to_lowercase());
        // Part of a word (a name continues) — a full stop after the name ends a sentence.
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        lower.match_indices(&tag).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + tag.len()..].chars().next();
            !word(before) && before != Some('.') && !word(after)
        })
    };
    // A team member answers to its name and to its agent's (`@Demo` for `Demo · squad`).
    let mentioned: Vec<String> = members
        .iter()
        .filter(|m| {
            said(m) || (m.as_str() != super::member_name::short_name(m) && said(super::member_name::short_name(m)))
        })
        .cloned()
        .collect();
    if mentioned.is_empty() { members.to_vec() } else { mentioned }
}

impl Timeline {
    /// The catch-up of `agent`: every entry since it was last asked that it did not write itself,
    /// as a transcript (`answer` gives the text of an answer entry: member, prompt, its id). `None`
    /// when there is nothing.
    pub fn catch_up(
        &self,
        channel: &str,
        agent: &str,
        answer: impl Fn(&str, &str, Option<&MessageId>) -> String,
    ) -> Option<String> {
        let from = self.seen.get(agent).copied().unwrap_or(0);
        let mut lines = Vec::new();
        for entry in self.entries.iter().skip(from) {
            match entry {
                Entry::User { text, to, from, .. }
                    if !to.iter().any(|t| t == agent) && from.as_deref() != Some(agent) =>
                {
                    let who = from.as_deref().unwrap_or("the person");
                    lines.push(format!("[{who}, to {}] {text}", to.join(", ")));
                }
                Entry::Notice { text, to } if !to.iter().any(|t| t == agent) => {
                    lines.push(format!("[Sidekicks, to {}] {text}", to.join(", ")));
                }
                Entry::Answer { agent: who, prompt, id, text } if who != agent => {
                    let said = text.clone().unwrap_or_else(|| answer(who, prompt, id.as_ref()));
                    if !said.trim().is_empty() {
                        lines.push(format!("[{who}] {}", said.trim()));
                    }
                }
                _ => {}
            }
        }
        if lines.is_empty() {
            return None;
        }
        Some(format!(
            "News from the channel #{channel} since you last spoke there:\n{}\n{CATCH_UP_END}",
            lines.join("\n")
        ))
    }

    /// Records the person's `text` to `to`; returns, for each of them, the prompt to send (the
    /// channel's name and the text) and its id — the caller sends it with that member's catch-up,
    /// taken before this call.
    pub fn say(&mut self, channel: &str, text: &str, to: &[String]) -> Vec<Prompt> {
        self.say_as(None, channel, text, to)
    }

    /// [`Timeline::say`] by `from` (a lead handing work over; `None`: the person).
    pub fn say_as(&mut self, from: Option<&str>, channel: &str, text: &str, to: &[String]) -> Vec<Prompt> {
        let at = Some(super::when::now());
        self.entries.push(Entry::User { text: text.into(), to: to.to_vec(), from: from.map(String::from), at });
        // They have seen everything up to this message; the other answers to it are news next time.
        let seen = self.entries.len();
        let mut prompts = Vec::new();
        for agent in to {
            let prompt = match from {
                Some(lead) => format!("[#{channel}] (from {lead}) {text}"),
                None => format!("[#{channel}] {text}"),
            };
            let id = MessageId::new();
            self.entries.push(Entry::Answer {
                agent: agent.clone(),
                prompt: prompt.clone(),
                id: Some(id.clone()),
                text: None,
            });
            prompts.push(Prompt { agent: agent.clone(), text: prompt, id });
        }
        for agent in to {
            self.seen.insert(agent.clone(), seen);
        }
        prompts
    }
}

impl Timeline {
    /// Keeps the text of the answer to message `id` (it ended); false when no entry awaits it.
    pub fn answered(&mut self, id: &MessageId, said: &str) -> bool {
        let entry = self.entries.iter_mut().find(|e| matches!(e, Entry::Answer { id: Some(i), .. } if i == id));
        match entry {
            Some(Entry::Answer { text, .. }) => {
                *text = Some(said.to_string());
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members() -> Vec<String> {
        vec!["Ada".into(), "bob".into()]
    }

    #[test]
    fn mentions_choose_the_recipients() {
        assert_eq!(recipients("hello all", &members()), members());
        assert_eq!(recipients("@ada please look", &members()), vec!["Ada".to_string()]);
        assert_eq!(recipients("@Bob, @ada: both", &members()), members());
        assert_eq!(recipients("@bobby is not bob", &members()), members(), "no member mentioned: all");
        assert_eq!(recipients("mail ada@bob.com", &members()), members());
        let team = vec!["Demo · squad".to_string(), "Beta 2 · squad".to_string()];
        assert_eq!(recipients("@Demo please", &team), vec![team[0].clone()], "a member by its agent's name");
        assert_eq!(recipients("@beta 2 · squad and", &team), vec![team[1].clone()], "by its own");
        assert_eq!(recipients("@Beta do", &team), vec![team[1].clone()]);
    }

    #[test]
    fn a_member_catches_up_on_what_it_did_not_see() {
        let mut t = Timeline::default();
        let answer = |who: &str, _: &str, _: Option<&MessageId>| format!("{who}'s answer");
        assert_eq!(t.catch_up("c", "Ada", answer), None);
        t.say("c", "first, to all", &members());
        assert_eq!(
            t.catch_up("c", "Ada", answer),
            Some(format!("News from the channel #c since you last spoke there:\n[bob] bob's answer\n{CATCH_UP_END}"))
        );
        let to_bob = vec!["bob".to_string()];
        assert_eq!(t.catch_up("c", "bob", answer).unwrap().lines().nth(1), Some("[Ada] Ada's answer"));
        t.say("c", "@bob only", &to_bob);
        let ada = t.catch_up("c", "Ada", answer).unwrap();
        assert!(ada.contains("[bob] bob's answer\n[the person, to bob] @bob only\n[bob] bob's answer"), "{ada}");
        assert_eq!(t.catch_up("c", "bob", answer), None, "bob saw everything");
    }
}
