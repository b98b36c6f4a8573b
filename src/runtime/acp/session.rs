//! Which session an agent's messages may speak for. Updates and requests name a session; only the
//! connection's own is shown, stored or answered. Updates that arrive while the session is being
//! opened (before its id is known) wait here and are let through, in order, once it is. An update
//! for a tool call never announced (by a `tool_call` or a permission request) is logged and dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Mutex;

use crate::model::conversation::Update;
use crate::model::tool::{ToolCall, ToolCallPatch};
use crate::protocol::AgentEvent;
use crate::protocol::{Event, LogEntry};
use crate::runtime::events::EventSink;

/// Updates kept while the session is being opened, at most.
const EARLY_LIMIT: usize = 1024;

#[derive(Default)]
struct State {
    /// The session in use; `None` while it is being opened.
    current: Option<String>,
    /// Updates received before the id was known, with the session they named.
    early: Vec<(String, Update)>,
    /// The tool calls announced so far, with what a permission request about one needs (title,
    /// kind, raw input, locations, diffs; not their output).
    tools: std::collections::HashMap<String, ToolCall>,
}

/// The session gate of one connection (cheap to clone).
#[derive(Clone, Default)]
pub struct SessionGate {
    state: Arc<Mutex<State>>,
    /// Set from `session/cancel` (or close) until the next prompt: permission requests are
    /// answered "cancelled" at once instead of being shown.
    cancelling: Arc<AtomicBool>,
}

impl SessionGate {
    /// Shows `update` if it is for the session in use (or keeps it until the session is known);
    /// one for another session is logged and dropped.
    pub async fn update(&self, agent: &str, events: &EventSink, session: &str, update: Update) {
        // The lock is held while sending, so updates keep their order.
        let mut state = self.state.lock().await;
        match &state.current {
            Some(current) if current == session => send(&mut state, agent, events, update).await,
            None if state.early.len() < EARLY_LIMIT => state.early.push((session.to_string(), update)),
            None => tracing::warn!(agent, "dropped an update sent before the session was opened"),
            Some(_) => foreign(agent, events, session, "session/update").await,
        }
    }

    /// Whether a request naming `session` may be served; if not, it is logged.
    pub async fn admits(&self, agent: &str, events: &EventSink, session: &str, method: &str) -> bool {
        let own = self.state.lock().await.current.as_deref() == Some(session);
        if !own {
            foreign(agent, events, session, method).await;
        }
        own
    }

    /// The session in use is `session` from now on (`None`: being opened again). The updates
    /// that waited for it are shown; those for other sessions are dropped.
    pub async fn open(&self, agent: &str, events: &EventSink, session: Option<String>) {
        let mut state = self.state.lock().await;
        state.current = session.clone();
        let Some(session) = session else { return };
        for (named, update) in std::mem::take(&mut state.early) {
            if named == session {
                send(&mut state, agent, events, update).await;
            } else {
                foreign(agent, events, &named, "session/update").await;
            }
        }
    }

    /// A permission request about tool call `patch.id`: the call as announced so far (its
    /// `tool_call` and updates) with what the request says on top, remembered from then on.
    /// ACP lets a request name its call by id alone; the person must see what was announced.
    pub async fn requested(&self, mut patch: ToolCallPatch) -> ToolCall {
        // An empty title says nothing: the announced one stays.
        if patch.title.as_deref().is_some_and(|t| t.trim().is_empty()) {
            patch.title = None;
        }
        let mut state = self.state.lock().await;
        let call = match state.tools.get(&patch.id) {
            Some(known) => {
                let mut call = known.clone();
                call.patch(patch);
                call
            }
            None => ToolCall::from_patch(patch),
        };
        state.tools.insert(call.id.clone(), kept(&call));
        call
    }

    /// A turn is being cancelled (`true`) or a new one starts (`false`).
    pub fn set_cancelling(&self, cancelling: bool) {
        self.cancelling.store(cancelling, Ordering::SeqCst);
    }

    /// Whether the turn is being cancelled.
    pub fn cancelling(&self) -> bool {
        self.cancelling.load(Ordering::SeqCst)
    }
}

/// Shows `update`, unless it is for a tool call never announced.
async fn send(state: &mut State, agent: &str, events: &EventSink, update: Update) {
    match &update {
        Update::ToolCall(call) => {
            state.tools.insert(call.id.clone(), kept(call));
        }
        Update::ToolCallPatch(patch) if !state.tools.contains_key(&patch.id) => {
            tracing::warn!(agent, tool_call = patch.id, "ignored an update for a tool call never announced");
            let entry = LogEntry::UnknownToolCall { id: patch.id.clone() };
            events.send(Event::Agent(agent.into(), AgentEvent::Log { entry })).await;
            return;
        }
        Update::ToolCallPatch(patch) => {
            if let Some(known) = state.tools.get_mut(&patch.id) {
                let mut what = patch.clone();
                (what.output, what.content, what.terminals) = (None, None, None);
                known.patch(what);
            }
        }
        _ => {}
    }
    events.send(Event::Agent(agent.into(), AgentEvent::Update { update })).await;
}

/// What is kept of an announced call for the permission requests about it (no output).
fn kept(call: &ToolCall) -> ToolCall {
    ToolCall { output: None, content: Vec::new(), terminals: Vec::new(), ..call.clone() }
}

async fn foreign(agent: &str, events: &EventSink, session: &str, method: &str) {
    tracing::warn!(agent, session, method, "ignored a message for a session that is not the agent's");
    let entry = LogEntry::OtherSession { session: session.to_string(), method: method.to_string() };
    events.send(Event::Agent(agent.into(), AgentEvent::Log { entry })).await;
}
