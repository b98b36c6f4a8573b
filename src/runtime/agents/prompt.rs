//! The person (or a channel) speaks to an agent: the message shown, queued, sent when the agent
//! is free — and held while another process answers in its thread.

use super::{Manager, Then, shared_thread};
use crate::protocol::attachments::Attachment;
use crate::protocol::{AgentEvent, AgentState, Event};

impl Manager {
    /// The person (or a channel) sends `text` to `agent`: shown, queued, sent when the agent is
    /// free; it waits while another process answers in the agent's thread.
    pub(super) async fn prompt(
        &mut self,
        agent: String,
        text: String,
        context: Option<String>,
        id: Option<crate::model::conversation::MessageId>,
        attachments: Vec<Attachment>,
    ) {
        let id = id.unwrap_or_else(crate::model::conversation::MessageId::new);
        if self.slot(&agent).is_none() {
            return;
        }
        if !self.hold_thread(&agent).await {
            let Some(slot) = self.slot(&agent) else { return };
            slot.shared.waiting.push(shared_thread::Waiting { id, text, context, attachments });
            let holder = slot.shared.held_by.clone();
            let waiting = slot.shared.waiting.iter().map(|w| w.text.clone()).collect();
            self.events
                .send(Event::Agent(agent.into(), AgentEvent::ThreadWait { holder, waiting, returned: Vec::new() }))
                .await;
            return;
        }
        // Another version shown since the last message: the new session hears what is shown.
        let shown = match self.slot(&agent).map(|s| std::mem::take(&mut s.memory.tell_shown)) {
            Some(true) => self.shown_before(&agent, None).await,
            _ => None,
        };
        let context = match (shown, context) {
            (Some(shown), Some(context)) => Some(shown + &context),
            (shown, context) => shown.or(context),
        };
        let Some(slot) = self.slot(&agent) else { return };
        let attached = crate::runtime::acp::content::shown(&attachments, &slot.config.workspace_path());
        slot.said.note(id.clone(), text.clone(), attachments.clone());
        let said = Event::Agent(
            agent.clone().into(),
            AgentEvent::UserMessage { text: text.clone(), id: id.clone(), attached },
        );
        self.events.send(said).await;
        let Some(slot) = self.slot(&agent) else { return };
        let text = match context {
            Some(context) => format!("{context}{text}"),
            None => text,
        };
        slot.queue.push_back((id, text, attachments));
        match slot.state {
            AgentState::Idle => self.dispatch(&agent).await,
            AgentState::Stopped | AgentState::Crashed(_) => self.start(&agent).await,
            AgentState::Stopping => slot.then(Then::Restart),
            AgentState::Starting | AgentState::Busy => {}
        }
    }
}
