//! The manager's side of threads: the history holds every thread of an agent (the source of
//! truth); the agent's connection follows the thread shown, switching sessions without a restart.

use std::sync::Arc;

use super::{Internal, Manager};
use crate::model::conversation::Notice;
use crate::protocol::AgentEvent;
use crate::protocol::threads::{AgentSession, ListError, ThreadId, ThreadOp, ThreadSummary};
use crate::protocol::{AgentState, Event};
use crate::runtime::acp::client::{AcpError, Reopen};
use crate::runtime::store::Store;

impl Manager {
    /// Applies a thread operation of the person's.
    pub(super) async fn thread(&mut self, name: &str, op: ThreadOp) {
        let Some((store, path)) = self.home(name) else { return };
        let Some(slot) = self.slot(name) else { return };
        let moving =
            matches!(op, ThreadOp::New | ThreadOp::Open(_) | ThreadOp::Delete(_) | ThreadOp::OpenAgentSession { .. });
        if moving && matches!(slot.state, AgentState::Starting | AgentState::Stopping) {
            // Its session is changing already (the window waits for it to settle).
            tracing::info!(agent = name, "thread change refused while the agent starts or stops");
            return;
        }
        let owned = |id: ThreadId| store.threads(&path, name).is_ok_and(|rows| rows.iter().any(|r| r.id == id));
        let result = match op {
            ThreadOp::New => match store.new_thread(&path, name, None) {
                Ok(id) => {
                    self.enter(name, id, false).await;
                    Ok(())
                }
                Err(e) => Err(e),
            },
            ThreadOp::Open(id) if owned(id) => {
                if self.slot(name).and_then(|s| s.conversation_id) == Some(id) {
                    return;
                }
                match store.set_current_thread(id) {
                    Ok(()) => {
                        self.enter(name, id, false).await;
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            ThreadOp::Rename(id, new_title) if owned(id) => {
                let result = store.rename_thread(id, new_title.as_deref().map(str::trim).filter(|t| !t.is_empty()));
                self.send_threads(name).await;
                result
            }
            ThreadOp::Delete(id) if owned(id) => self.delete(name, &store, id).await,
            ThreadOp::ListAgentSessions => {
                self.list(name);
                Ok(())
            }
            ThreadOp::OpenAgentSession { session_id, title } => {
                let known = store.threads(&path, name).map(|rows| {
                    rows.into_iter().find(|r| r.session_id.as_deref() == Some(session_id.as_str())).map(|r| r.id)
                });
                match known {
                    Ok(Some(id)) => {
                        if let Err(e) = store.set_current_thread(id) {
                            tracing::warn!("{e}");
                        }
                        self.enter(name, id, false).await;
                        Ok(())
                    }
                    Ok(None) => match store.new_thread(&path, name, Some(&session_id)) {
                        Ok(id) => {
                            if let Err(e) = store.set_agent_title(id, title.as_deref()) {
                                tracing::warn!("{e}");
                            }
                            self.enter(name, id, true).await;
                            Ok(())
                        }
                        Err(e) => Err(e),
                    },
                    Err(e) => Err(e),
                }
            }
            // A thread of another agent (or gone meanwhile): nothing to do.
            ThreadOp::Open(_) | ThreadOp::Rename(..) | ThreadOp::Delete(_) => Ok(()),
        };
        if let Err(e) = result {
            tracing::warn!(agent = name, "thread: {e}");
        }
    }

    /// Shows thread `id` (already the current one in the store) and moves the agent's session to
    /// it: the running agent switches sessions now, a stopped one reopens it when it starts.
    /// `show_replay`: the thread is one of the agent's sessions never seen here.
    pub(super) async fn enter(&mut self, name: &str, id: ThreadId, show_replay: bool) {
        let Some(store) = self.store.clone() else { return };
        let stored = match store.thread(id) {
            Ok(stored) => stored,
            Err(e) => {
                tracing::warn!("{e}");
                return;
            }
        };
        // Messages waiting, and the turn in flight, were meant for the thread left.
        self.drop_queue(name).await;
        self.end_turn_for_switch(name).await;
        if self.slot(name).is_some_and(|s| s.conversation_id != Some(id)) {
            self.return_waiting(name).await;
            if let Some(slot) = self.slot(name) {
                slot.shared.answering = None;
            }
        }
        let had_messages = !stored.messages.is_empty();
        if let Some(slot) = self.slot(name) {
            slot.said.thread(&stored.messages);
        }
        self.events
            .send(Event::Agent(name.into(), AgentEvent::ThreadOpened { thread: id, messages: stored.messages }))
            .await;
        self.send_threads(name).await;
        let reopen = stored.session_id.map(|session_id| Reopen { session_id, show_replay });
        let seen = self.others_wrote(id);
        let Some(slot) = self.slot(name) else { return };
        slot.conversation_id = Some(id);
        slot.shared.seen_others = seen;
        slot.memory.turns_in_session = 0;
        slot.memory.forgot = false;
        let chosen = slot.memory.chosen.clone();
        let generation = slot.generation;
        match (&slot.running, &slot.state) {
            (Some(running), AgentState::Idle | AgentState::Busy) => {
                let conn = running.conn.clone();
                self.set_state(name, AgentState::Starting).await;
                let internal = self.internal_tx.clone();
                let agent = name.to_string();
                tokio::spawn(async move {
                    let result = conn.switch(reopen, chosen).await;
                    let report = Internal::Switched { agent, generation, thread: id, had_messages, result };
                    let _ = internal.send(report).await;
                });
            }
            _ => {
                slot.memory.restored = had_messages;
                slot.memory.resume = reopen;
                // Known not to remember: offered now, before the person writes.
                let offer = had_messages && slot.memory.abilities.is_some_and(|a| !a.reopens());
                self.events.send(Event::Agent(name.into(), AgentEvent::TranscriptOffer { offered: offer })).await;
            }
        }
    }

    /// Ends the turn in flight, if any: it belongs to the thread being left (its late updates
    /// are not shown in the next one: the switch closes the gate on its session).
    async fn end_turn_for_switch(&mut self, name: &str) {
        let Some(slot) = self.slot(name) else { return };
        let (Some(running), Some(_)) = (&slot.running, slot.turn) else { return };
        let ids = (running.conn.cancel(), running.conn.cancel_elicitations());
        slot.turn = None;
        self.report_cancelled(name, ids).await;
        let end = crate::model::conversation::TurnEnd::Cancelled;
        self.events.send(Event::Agent(name.into(), AgentEvent::TurnEnded { end })).await;
    }

    /// The switch to another thread's session ended.
    pub(super) async fn switched(
        &mut self,
        name: &str,
        generation: u64,
        thread: ThreadId,
        had_messages: bool,
        result: Result<bool, AcpError>,
    ) {
        let Some(slot) = self.slot(name) else { return };
        if slot.generation != generation {
            return;
        }
        let Some(conn) = slot.running.as_ref().map(|r| r.conn.clone()) else { return };
        match result {
            Ok(resumed) => {
                let settings = Event::Agent(
                    name.into(),
                    AgentEvent::SessionSettings { options: conn.options(), modes: conn.modes() },
                );
                self.events.send(settings).await;
                if let Some(store) = &self.store
                    && let Err(e) = store.set_session(thread, Some(&conn.session_id()))
                {
                    tracing::warn!("{e}");
                }
                let offered = had_messages && !resumed;
                self.events.send(Event::Agent(name.into(), AgentEvent::TranscriptOffer { offered })).await;
                self.set_state(name, AgentState::Idle).await;
                if self.slot(name).is_some_and(|s| !s.queue.is_empty()) {
                    self.dispatch(name).await;
                }
            }
            Err(AcpError::AuthRequired { message, methods, .. }) => {
                self.events.send(Event::Agent(name.into(), AgentEvent::LoginNeeded { message, methods })).await;
                self.stop(name).await;
            }
            Err(e) => {
                // The agent is left in a state of its own: stopped, the next message starts it
                // afresh in this thread.
                let notice = Notice::ThreadFailed { message: e.to_string() };
                self.events.send(Event::Agent(name.into(), AgentEvent::Notice { notice })).await;
                if let Some(slot) = self.slot(name) {
                    slot.memory.restored = had_messages;
                }
                self.stop(name).await;
            }
        }
    }

    /// Deletes thread `id` (and the agent's session, where it can); the agent moves to its most
    /// recent other thread, or a new one, if it was in it.
    async fn delete(
        &mut self,
        name: &str,
        store: &Arc<Store>,
        id: ThreadId,
    ) -> Result<(), crate::runtime::store::StoreError> {
        let session = store.thread(id)?.session_id;
        let conn = self.slot(name).and_then(|s| s.running.as_ref()).map(|r| r.conn.clone());
        if let (Some(conn), Some(session)) = (conn, session)
            && conn.abilities.delete
        {
            let agent = name.to_string();
            let deleting = conn.delete_session(session);
            tokio::spawn(async move {
                if let Err(e) = deleting.await {
                    tracing::info!(agent, "session/delete: {e}");
                }
            });
        }
        store.delete_thread(id)?;
        if self.slot(name).and_then(|s| s.conversation_id) == Some(id)
            && let Some((_, path)) = self.home(name)
        {
            let next = match store.threads(&path, name)?.first() {
                Some(row) => {
                    store.set_current_thread(row.id)?;
                    row.id
                }
                None => store.new_thread(&path, name, None)?,
            };
            self.enter(name, next, false).await;
        } else {
            self.send_threads(name).await;
        }
        Ok(())
    }

    /// Asks the running agent for its sessions; the answer comes back as a report.
    fn list(&mut self, name: &str) {
        let internal = self.internal_tx.clone();
        let agent = name.to_string();
        let Some(slot) = self.slot(name) else { return };
        match slot.running.as_ref().map(|r| r.conn.clone()) {
            Some(conn) if conn.abilities.list => {
                let listing = conn.list_sessions();
                tokio::spawn(async move {
                    let result = listing.await.map_err(ListError::Failed);
                    let _ = internal.send(Internal::Listed { agent, result }).await;
                });
            }
            running => {
                let result = Err(if running.is_some() { ListError::Unsupported } else { ListError::NotRunning });
                tokio::spawn(async move {
                    let _ = internal.send(Internal::Listed { agent, result }).await;
                });
            }
        }
    }

    /// The agent's sessions, each marked when a thread holds it already.
    pub(super) async fn listed(&mut self, name: &str, result: Result<Vec<AgentSession>, ListError>) {
        let known: Vec<String> = match self.home(name) {
            Some((store, path)) => store
                .threads(&path, name)
                .map(|rows| rows.into_iter().filter_map(|r| r.session_id).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let sessions = result.map(|mut sessions| {
            for s in &mut sessions {
                s.known = known.contains(&s.session_id);
            }
            sessions
        });
        self.events.send(Event::Agent(name.into(), AgentEvent::Sessions { sessions })).await;
    }

    /// Tells the window the threads of `name`, most recently used first.
    pub(super) async fn send_threads(&mut self, name: &str) {
        let Some((store, path)) = self.home(name) else { return };
        let Some(threads) = listed(&store, &path, name) else { return };
        self.events.send(Event::Agent(name.into(), AgentEvent::Threads { threads })).await;
    }

    /// Tells the window the threads of `name` again once what its turn said is saved (the title
    /// from its first message, its last activity), off the manager's task: a thread stayed "New
    /// thread" in the bar and in All threads until a restart.
    pub(super) fn send_threads_when_saved(&self, name: &str) {
        let Some((store, path)) = self.home(name) else { return };
        let (events, name) = (self.events.clone(), name.to_string());
        tokio::spawn(async move {
            events.flush_history().await;
            let agent = name.clone();
            let read = tokio::task::spawn_blocking(move || listed(&store, &path, &agent)).await;
            if let Ok(Some(threads)) = read {
                events.send(Event::Agent(name.into(), AgentEvent::Threads { threads })).await;
            }
        });
    }
}

/// The threads of `name` at home `path`, as the window lists them.
fn listed(store: &crate::runtime::store::Store, path: &std::path::Path, name: &str) -> Option<Vec<ThreadSummary>> {
    match store.threads(path, name) {
        Ok(rows) => Some(rows.into_iter().map(crate::runtime::store::ThreadRow::summary).collect()),
        Err(e) => {
            tracing::warn!("{e}");
            None
        }
    }
}
