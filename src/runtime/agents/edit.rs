//! Edit in place and versions (issue 48, item 4; ADR 0036). An agent cannot be made to forget part
//! of a session, so the conversation goes on from an edited message — or from a version shown
//! again — in a session of its own that is told what is shown before it (the transcript, read from
//! the history once it holds the change). Refused while a turn runs or messages wait: what they
//! would answer belongs to the conversation as it was.

use super::{Internal, Manager, Then};
use crate::model::conversation::{MessageId, Notice, Role};
use crate::protocol::{AgentEvent, AgentState, Event};

/// Longest transcript said to a new session (an edit, a version shown, an agent that forgot).
const TRANSCRIPT_CHARS: usize = 12_000;

impl Manager {
    /// The person's message `message` becomes `text`: said as `Edited`, then answered in a new
    /// session told the conversation before it.
    pub(super) async fn edit(&mut self, agent: String, message: MessageId, text: String) {
        if !self.may_rewrite(&agent).await {
            return;
        }
        let attachments = self.slot(&agent).and_then(|s| s.said.get(&message)).map(|(_, a)| a).unwrap_or_default();
        let id = MessageId::new();
        let edited = AgentEvent::Edited { message, id: id.clone(), text: text.clone() };
        self.events.send(Event::Agent(agent.clone().into(), edited)).await;
        let context = self.shown_before(&agent, Some(&id)).await;
        let Some(slot) = self.slot(&agent) else { return };
        slot.said.note(id.clone(), text.clone(), attachments.clone());
        slot.queue.push_back((id, format!("{}{text}", context.unwrap_or_default()), attachments));
        self.fresh_session(&agent).await;
    }

    /// Version `version` of the person's message `message` is shown in its place: said as
    /// `VersionShown`; the next message goes to a new session told what is shown.
    pub(super) async fn show_version(&mut self, agent: String, message: MessageId, version: usize) {
        if !self.may_rewrite(&agent).await {
            return;
        }
        let shown = AgentEvent::VersionShown { message, version };
        self.events.send(Event::Agent(agent.clone().into(), shown)).await;
        if let Some(slot) = self.slot(&agent) {
            slot.memory.tell_shown = true;
        }
        self.fresh_session(&agent).await;
    }

    /// The context a new session is told before message `upto` (`None`: all of the thread): the
    /// transcript of what the history holds before it, once it holds what was just said.
    pub(super) async fn shown_before(&mut self, agent: &str, upto: Option<&MessageId>) -> Option<String> {
        let id = self.slot(agent)?.conversation_id?;
        let store = self.store.clone()?;
        self.events.flush_history().await;
        let stored = tokio::task::spawn_blocking(move || store.thread(id)).await.ok()?;
        let messages = match stored {
            Ok(stored) => stored.messages,
            Err(e) => {
                tracing::warn!("the conversation of {agent} cannot be read for its new session: {e}");
                return None;
            }
        };
        let end = upto
            .and_then(|upto| messages.iter().rposition(|m| m.role == Role::User && m.id.as_ref() == Some(upto)))
            .unwrap_or(messages.len());
        (end > 0).then(|| crate::model::conversation::transcript(&messages[..end], TRANSCRIPT_CHARS))
    }

    /// Whether the conversation may be rewritten now: not while a turn runs or messages wait (said
    /// in the conversation), and only in a thread this process holds.
    async fn may_rewrite(&mut self, agent: &str) -> bool {
        let Some(slot) = self.slot(agent) else { return false };
        if slot.state == AgentState::Busy || !slot.queue.is_empty() {
            let notice = Notice::EditRefused;
            self.events.send(Event::Agent(agent.into(), AgentEvent::Notice { notice })).await;
            return false;
        }
        self.hold_thread(agent).await
    }

    /// The agent's next turn goes to a new session (its thread's session id forgotten): the
    /// running agent opens one now, a stopped one at its start; what is queued follows.
    async fn fresh_session(&mut self, agent: &str) {
        let store = self.store.clone();
        let Some(slot) = self.slot(agent) else { return };
        if let (Some(store), Some(id)) = (store, slot.conversation_id)
            && let Err(e) = store.set_session(id, None)
        {
            tracing::warn!("{e}");
        }
        slot.memory.resume = None;
        slot.memory.restored = false;
        slot.memory.turns_in_session = 0;
        let (chosen, generation, thread) = (slot.memory.chosen.clone(), slot.generation, slot.conversation_id);
        match (&slot.running, &slot.state, thread) {
            (Some(running), AgentState::Idle, Some(thread)) => {
                let conn = running.conn.clone();
                self.set_state(agent, AgentState::Starting).await;
                let internal = self.internal_tx.clone();
                let name = agent.to_string();
                tokio::spawn(async move {
                    let result = conn.switch(None, chosen).await;
                    let report = Internal::Switched { agent: name, generation, thread, had_messages: false, result };
                    let _ = internal.send(report).await;
                });
            }
            (_, AgentState::Stopped | AgentState::Crashed(_), _) if !slot.queue.is_empty() => self.start(agent).await,
            (_, AgentState::Stopping, _) if !slot.queue.is_empty() => slot.then(Then::Restart),
            _ => {}
        }
    }
}
