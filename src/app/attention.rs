//! What needs the person, seen from anywhere: per agent (a permission, a question, a login),
//! per team (a merge that conflicted), per channel (a member that needs you); whether an agent
//! finished with output not yet seen, or failed; and the count the window title shows.

use super::agent_view::AgentView;
use super::state::AppState;
use crate::model::conversation::{Notice, Part, Role, TurnEnd};
use crate::protocol::AgentState;

/// Why an agent needs the person, and how often.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// Permission requests waiting.
    pub permissions: usize,
    /// Questions (elicitations) waiting.
    pub questions: usize,
    /// Waiting for a login.
    pub login: bool,
}

impl Needs {
    /// How many things wait.
    pub fn count(&self) -> usize {
        self.permissions + self.questions + usize::from(self.login)
    }
}

impl AgentView {
    /// What waits for the person in this agent.
    pub fn needs(&self) -> Needs {
        Needs {
            permissions: self.waiting_permissions().count(),
            questions: self.elicitations.iter().filter(|e| e.answer.is_none()).count(),
            login: self.login.is_some(),
        }
    }

    /// It finished a turn whose output the person has not seen.
    pub fn unread(&self) -> bool {
        let messages = &self.conversation.messages;
        messages.len() > self.read && messages.last().is_some_and(|m| m.role == Role::Agent && m.end.is_some())
    }

    /// It crashed, its last turn failed, or it is going round in circles.
    pub fn failed(&self) -> bool {
        if matches!(self.state, AgentState::Crashed(_)) {
            return true;
        }
        let Some(last) = self.conversation.messages.iter().rev().find(|m| m.role != Role::User) else {
            return false;
        };
        matches!(last.end, Some(TurnEnd::Failed { .. }))
            || last.parts.iter().any(|p| matches!(p, Part::Notice(Notice::Loop { .. })))
    }
}

impl AppState {
    /// Merges of team `id` that conflicted (members whose last merge left conflicts).
    pub fn team_conflicts(&self, id: &str) -> usize {
        self.teams
            .teams
            .iter()
            .find(|t| t.info.record.id == id)
            .map_or(0, |t| t.merges.values().filter(|r| r.as_ref().is_ok_and(|r| !r.conflicts.is_empty())).count())
    }

    /// What waits for the person among channel `name`'s members.
    pub fn channel_needs(&self, name: &str) -> usize {
        let Some(channel) = self.channels.channels.iter().find(|c| c.name == name) else { return 0 };
        channel.members.iter().filter_map(|m| self.agent(m)).map(|a| a.needs().count()).sum()
    }

    /// Everything that waits for the person (the window title's count): agents' permissions,
    /// questions and logins, and teams' conflicts.
    pub fn needs_you(&self) -> usize {
        let agents: usize = self.agents.iter().map(|a| a.needs().count()).sum();
        let teams: usize = self.teams.teams.iter().map(|t| self.team_conflicts(&t.info.record.id)).sum();
        agents + teams
    }

    /// The person has seen agent `name`'s conversation as it is now.
    pub(super) fn seen(&mut self, name: &str) {
        if let Some(a) = self.agent_mut(name) {
            a.read = a.conversation.messages.len();
        }
    }
}
