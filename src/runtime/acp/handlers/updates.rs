//! Notifications from the agent: session updates (one that does not parse is logged and skipped,
//! nothing else is dropped; none while a loaded session replays what Sidekicks already shows) and
//! `elicitation/complete`.

use std::sync::atomic::Ordering;

use agent_client_protocol::UntypedMessage;
use agent_client_protocol::v1::schema::SessionNotification;

use super::super::convert;
use super::{Handlers, Result};
use crate::protocol::{AgentEvent, Event, LogEntry};

impl Handlers {
    pub(super) async fn notification(&self, n: UntypedMessage) -> Result {
        let ctx = &self.ctx;
        if n.method() == "elicitation/complete" {
            let done = serde_json::from_value::<agent_client_protocol::v1::schema::CompleteElicitationNotification>(
                n.params().clone(),
            );
            if let Ok(done) = done {
                let (agent, elicitation_id) = (ctx.agent.clone(), done.elicitation_id.0.to_string());
                ctx.events.send(Event::Agent(agent.into(), AgentEvent::ElicitationCompleted { elicitation_id })).await;
            }
            return Ok(());
        }
        if n.method() != "session/update" || ctx.replaying.load(Ordering::SeqCst) {
            return Ok(());
        }
        let agent = ctx.agent.clone();
        match serde_json::from_value::<SessionNotification>(n.params().clone()) {
            Ok(n) => {
                if let Some(update) = convert::update(n.update) {
                    self.gate.update(&agent, &ctx.events, &n.session_id.0, update).await;
                }
            }
            // Logged and skipped; nothing else is dropped.
            Err(e) => {
                tracing::warn!(agent, "skipped a session/update that does not parse: {e}");
                let update = ctx.redact.apply(n.params().to_string());
                let entry = LogEntry::BadUpdate { error: ctx.redact.apply(e.to_string()), update };
                ctx.events.send(Event::Agent(agent.into(), AgentEvent::Log { entry })).await;
            }
        }
        Ok(())
    }
}
