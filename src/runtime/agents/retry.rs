//! Retry and Send again: the person's message named by its id, asked again (Retry: its answer
//! becomes an earlier one) or sent anew (Send again: a message Stop dropped). The manager keeps
//! the person's last messages of each agent's thread ([`Said`]), so a door names only the
//! message — the window, and the command line alike. (The transcript of a thread, for an agent
//! that no longer remembers it, is read from the history by `edit.rs`'s `shown_before`.)

use std::collections::VecDeque;

use super::{Manager, Then};
use crate::model::conversation::{Message, MessageId, Part, Role};
use crate::protocol::attachments::Attachment;
use crate::protocol::{AgentEvent, AgentState, Event};

/// The person's last messages in an agent's current thread: their text and what was attached.
#[derive(Default)]
pub(super) struct Said(VecDeque<(MessageId, String, Vec<Attachment>)>);

impl Said {
    /// How many are kept: Retry names the last question, Send again the messages a Stop dropped.
    const KEPT: usize = 64;

    /// The person said `text` (with `attachments`) as message `id`.
    pub(super) fn note(&mut self, id: MessageId, text: String, attachments: Vec<Attachment>) {
        self.0.retain(|(i, ..)| *i != id);
        if self.0.len() == Self::KEPT {
            self.0.pop_front();
        }
        self.0.push_back((id, text, attachments));
    }

    /// The thread opened holds `messages`: the person's are what can be named now.
    pub(super) fn thread(&mut self, messages: &[Message]) {
        self.0.clear();
        let theirs = messages.iter().filter(|m| m.role == Role::User).filter_map(|m| {
            let images = m.parts.iter().filter_map(|p| match p {
                Part::Image(image) => Some(Attachment::Image(image.clone())),
                _ => None,
            });
            Some((m.id.clone()?, m.text(), images.collect()))
        });
        for (id, text, attachments) in theirs {
            self.note(id, text, attachments);
        }
    }

    /// Message `id`'s text and attachments, if it is one of the last.
    pub(super) fn get(&self, id: &MessageId) -> Option<(String, Vec<Attachment>)> {
        self.0.iter().find(|(i, ..)| i == id).map(|(_, text, attachments)| (text.clone(), attachments.clone()))
    }
}

impl Manager {
    /// Asks `question` again (Retry): said as `Retrying` (its answer becomes an earlier one, no
    /// new message of the person), then queued as a prompt with the question's id. While another
    /// process holds the thread it waits there as a message sent anew.
    pub(super) async fn retry(&mut self, agent: String, question: MessageId) {
        let Some((text, attachments)) = self.slot(&agent).and_then(|s| s.said.get(&question)) else {
            return tracing::warn!("retry: no message {question:?} of the person in {agent}'s thread");
        };
        let idle = self.slot(&agent).is_some_and(|s| s.queue.is_empty() && s.state != AgentState::Busy);
        if !idle || !self.hold_thread(&agent).await {
            return self.prompt(agent, text, None, None, attachments).await;
        }
        self.events.send(Event::Agent(agent.clone().into(), AgentEvent::Retrying { question: question.clone() })).await;
        let Some(slot) = self.slot(&agent) else { return };
        slot.queue.push_back((question, text, attachments));
        match slot.state {
            AgentState::Idle => self.dispatch(&agent).await,
            AgentState::Stopped | AgentState::Crashed(_) => self.start(&agent).await,
            AgentState::Stopping => slot.then(Then::Restart),
            AgentState::Starting | AgentState::Busy => {}
        }
    }

    /// Sends the person's `message` again, which a Stop dropped: it is marked so (`Resent`) and
    /// its text and attachments go as a new message.
    pub(super) async fn send_again(&mut self, agent: String, message: MessageId) {
        let Some((text, attachments)) = self.slot(&agent).and_then(|s| s.said.get(&message)) else {
            return tracing::warn!("send again: no message {message:?} of the person in {agent}'s thread");
        };
        self.events.send(Event::Agent(agent.clone().into(), AgentEvent::Resent { id: message })).await;
        self.prompt(agent, text, None, None, attachments).await;
    }
}
