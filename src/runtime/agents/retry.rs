//! Retry: the person's question asked again under its own id (its answer becomes an earlier one).

use super::{Manager, Then};
use crate::protocol::{AgentState, Event};

impl Manager {
    /// Asks `question` again (Retry): said as `Retrying` (its answer becomes an earlier one, no
    /// new message of the person), then queued as a prompt with the question's id. While another
    /// process holds the thread it waits there as a message sent anew.
    pub(super) async fn retry(&mut self, agent: String, text: String, question: crate::model::conversation::MessageId) {
        let idle = self.slot(&agent).is_some_and(|s| s.queue.is_empty() && s.state != AgentState::Busy);
        if !idle || !self.hold_thread(&agent).await {
            return self.prompt(agent, text, None, None, Vec::new()).await;
        }
        self.events.send(Event::Retrying { agent: agent.clone(), question: question.clone() }).await;
        let Some(slot) = self.slot(&agent) else { return };
        slot.queue.push_back((question, text, Vec::new()));
        match slot.state {
            AgentState::Idle => self.dispatch(&agent).await,
            AgentState::Stopped | AgentState::Crashed(_) => self.start(&agent).await,
            AgentState::Stopping => slot.then(Then::Restart),
            AgentState::Starting | AgentState::Busy => {}
        }
    }
}
