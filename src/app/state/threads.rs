//! The threads of each agent, changed as the runtime tells.

use super::AppState;
use crate::app::threads_state::Threads;
use crate::model::conversation::{Conversation, Update};
use crate::protocol::AgentEvent;
use crate::protocol::Event;

impl AppState {
    /// The threads of `agent`: its view's, or those kept until its view exists.
    fn threads_mut(&mut self, agent: &str) -> &mut Threads {
        match self.agents.iter().position(|a| a.config.name == agent) {
            Some(i) => &mut self.agents[i].threads,
            None => self.pending_history.entry(agent.to_string()).or_default(),
        }
    }

    /// Applies an event about threads.
    pub(in crate::app) fn apply_thread_event(&mut self, event: Event) {
        match event {
            Event::Agent(agent, AgentEvent::ThreadOpened { thread, messages }) => {
                if let Some(a) = self.agent_mut(&agent) {
                    // What the thread left cost stays in the run's total.
                    if let Some(cost) = a.conversation.cost.take() {
                        a.past_costs.push(cost);
                    }
                    a.conversation = Conversation::restored(messages);
                    a.terminals = crate::app::CommandOutput::restored(&a.conversation);
                    a.read = a.conversation.messages.len();
                    a.permissions.clear();
                    a.elicitations.clear();
                    a.attach_transcript = false;
                    a.threads.current = Some(thread);
                    a.threads.offered = false;
                } else {
                    let pending = self.threads_mut(&agent);
                    pending.current = Some(thread);
                    pending.pending_messages = messages;
                }
            }
            Event::Agent(agent, AgentEvent::Threads { threads }) => self.threads_mut(&agent).list = threads,
            Event::Agent(agent, AgentEvent::ThreadWait { holder, waiting, returned }) => {
                let threads = self.threads_mut(&agent);
                threads.held_elsewhere = holder.map(|h| (h, waiting));
                threads.returned.extend(returned);
            }
            Event::Agent(agent, AgentEvent::Sessions { sessions }) => {
                self.threads_mut(&agent).agent_sessions = Some(sessions)
            }
            Event::Agent(agent, AgentEvent::TranscriptOffer { offered }) => {
                self.threads_mut(&agent).offered = offered;
                if !offered && let Some(a) = self.agent_mut(&agent) {
                    a.attach_transcript = false;
                }
            }
            Event::Agent(agent, AgentEvent::Update { update: Update::Title(Some(title)) }) => {
                let threads = self.threads_mut(&agent);
                let current = threads.current;
                if let Some(t) = threads.list.iter_mut().find(|t| Some(t.id) == current && !t.renamed) {
                    t.title = title;
                }
            }
            _ => {}
        }
    }
}
