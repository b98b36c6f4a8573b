//! A thread shared with other processes (a second window, `sidekicks prompt`): one answers in it
//! at a time (see `thread_lock`), and what another wrote is shown here (ADR 0029).
//!
//! Whoever sends a message takes the thread's lock first and keeps it until its queue is empty and
//! no turn runs. Taken, the thread is read again if another process wrote it since it was read
//! (the agent's session reopened on it too). Not taken, the messages wait (`ThreadWait`) and are
//! sent once the lock is free. Idle, a thread another process wrote is read again.

use super::{Manager, Slot};
use crate::model::conversation::MessageId;
use crate::protocol::AgentEvent;
use crate::protocol::attachments::Attachment;
use crate::protocol::{AgentState, Event};
use crate::runtime::thread_lock::{Taken, ThreadLock};

/// A message waiting for another process to end its turn in the thread.
pub(super) struct Waiting {
    pub id: MessageId,
    pub text: String,
    pub context: Option<String>,
    pub attachments: Vec<Attachment>,
}

impl Slot {
    /// Lets go of its thread once nothing of it runs or waits.
    pub(super) fn let_go_if_done(&mut self) {
        if self.shared.answering.is_some() && self.turn.is_none() && self.queue.is_empty() {
            self.shared.answering = None;
        }
    }
}

impl Manager {
    /// When another process last wrote thread `id` (none: never, or no history file).
    pub(super) fn others_wrote(&self, id: i64) -> Option<i64> {
        let store = self.store.as_ref()?;
        store.path()?;
        store.others_wrote(id).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            None
        })
    }

    /// Whether another process wrote `name`'s thread since it was read here.
    fn written_elsewhere(&mut self, name: &str) -> bool {
        let Some((id, seen)) = self.slot(name).and_then(|s| Some((s.conversation_id?, s.shared.seen_others))) else {
            return false;
        };
        self.others_wrote(id).is_some_and(|at| Some(at) > seen)
    }

    /// Takes `name`'s thread for a message, reading it again first if another process wrote
    /// it; false when another process holds it (told, once per holder).
    pub(super) async fn hold_thread(&mut self, name: &str) -> bool {
        let db = self.store.as_ref().and_then(|s| s.path().map(std::path::Path::to_path_buf));
        let Some(slot) = self.slot(name) else { return false };
        if slot.shared.answering.is_some() {
            return true;
        }
        let (Some(db), Some(thread)) = (db, slot.conversation_id) else { return true };
        let what = format!("answering in {name}'s thread");
        match ThreadLock::try_take(&db, thread, &what) {
            Ok(Taken::Lock(lock)) => {
                slot.shared.answering = Some(lock);
                let was_waiting = slot.shared.held_by.take().is_some();
                if self.written_elsewhere(name) {
                    tracing::info!(agent = name, "the thread was written by another process: read again");
                    self.enter(name, thread, false).await;
                }
                if was_waiting {
                    self.tell_waiting(name, Vec::new()).await;
                }
                true
            }
            Ok(Taken::Busy(holder)) => {
                if slot.shared.held_by.as_deref() != Some(holder.as_str()) {
                    slot.shared.held_by = Some(holder);
                    self.tell_waiting(name, Vec::new()).await;
                }
                false
            }
            Err(e) => {
                tracing::warn!("cannot take the thread's lock, answering anyway: {e}");
                true
            }
        }
    }

    /// Tells what waits for `name`'s thread (and what is given back).
    async fn tell_waiting(&mut self, name: &str, returned: Vec<String>) {
        let Some(slot) = self.slot(name) else { return };
        let holder = slot.shared.held_by.clone().filter(|_| !slot.shared.waiting.is_empty());
        let waiting = slot.shared.waiting.iter().map(|w| w.text.clone()).collect();
        self.events.send(Event::Agent(name.into(), AgentEvent::ThreadWait { holder, waiting, returned })).await;
    }

    /// Gives back the messages waiting for `name`'s thread (Stop, another thread).
    pub(super) async fn return_waiting(&mut self, name: &str) {
        let Some(slot) = self.slot(name) else { return };
        if slot.shared.waiting.is_empty() {
            return;
        }
        let returned = slot.shared.waiting.drain(..).map(|w| w.text).collect();
        slot.shared.held_by = None;
        self.tell_waiting(name, returned).await;
    }

    /// Each second: messages waiting for a thread go once it is free; an idle agent's thread
    /// another process wrote is read again.
    pub(super) async fn look_at_threads(&mut self) {
        self.events.retry_history().await;
        let Some(store) = self.store.clone() else { return };
        if store.path().is_none() {
            return;
        }
        let version = store.data_version();
        let changed = std::mem::replace(&mut self.data_version, version) != version;
        let names: Vec<String> = self.slots.iter().map(|s| s.config.name.clone()).collect();
        for name in names {
            let Some(slot) = self.slot(&name) else { continue };
            if !slot.shared.waiting.is_empty() {
                if self.hold_thread(&name).await {
                    let waiting: Vec<Waiting> =
                        self.slot(&name).map(|s| s.shared.waiting.drain(..).collect()).unwrap_or_default();
                    self.tell_waiting(&name, Vec::new()).await;
                    for w in waiting {
                        self.prompt(name.clone(), w.text, w.context, Some(w.id), w.attachments).await;
                    }
                }
                continue;
            }
            let quiet = slot.shared.answering.is_none()
                && slot.turn.is_none()
                && slot.queue.is_empty()
                && matches!(slot.state, AgentState::Idle | AgentState::Stopped | AgentState::Crashed(_));
            if changed && quiet && self.written_elsewhere(&name) {
                let Some(id) = self.slot(&name).and_then(|s| s.conversation_id) else { continue };
                tracing::info!(agent = %name, "the thread was written by another process: read again");
                self.enter(&name, id, false).await;
            }
        }
    }
}
