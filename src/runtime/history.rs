//! The history recorder: follows the conversation events on its own thread, keeps a copy of each
//! conversation and saves what changed after each batch of events, so a kill mid-stream loses at
//! most the fragments not yet received. `History::flush` waits until everything sent before it is
//! saved: a process that exits (the `prompt` command, the window) calls it last.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::store::Store;
use crate::model::conversation::Conversation;
use crate::model::permission::{Answered, PermissionRequest};
use crate::model::tool::Ran;
use crate::protocol::AgentEvent;
use crate::protocol::ConfigEvent;
use crate::protocol::Event;

/// Capacity of the recorder's channel.
const CAPACITY: usize = 4096;

/// What the recorder receives.
enum Record {
    Event(Box<Event>),
    /// Save what is pending, then answer.
    Flush(oneshot::Sender<()>),
}

/// Where conversation events are copied to be saved.
#[derive(Clone)]
pub struct History {
    tx: mpsc::Sender<Record>,
    saving: Arc<Saving>,
}

/// How saving goes: the last failure (none: saving works), and whether that changed since it
/// was last told.
#[derive(Default)]
struct Saving {
    failure: std::sync::Mutex<Option<String>>,
    news: std::sync::atomic::AtomicBool,
}

impl Saving {
    fn set(&self, failure: Option<String>) {
        let mut now = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if now.is_some() != failure.is_some() {
            self.news.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        *now = failure;
    }
}

impl History {
    /// Hands `event` to the recorder (waiting if it is behind).
    pub async fn record(&self, event: Event) {
        let _ = self.tx.send(Record::Event(Box::new(event))).await;
    }

    /// Waits until every event recorded before is saved; false if the recorder is gone.
    pub async fn flush(&self) -> bool {
        let (tx, rx) = oneshot::channel();
        self.tx.send(Record::Flush(tx)).await.is_ok() && rx.await.is_ok()
    }

    /// Why the last save failed (a full disk…), while saving fails; what failed is saved again
    /// at each flush until it works.
    pub fn failing(&self) -> Option<String> {
        self.saving.failure.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// What changed about saving since it was last asked: `Some(Some(why))` it began to fail,
    /// `Some(None)` it works again.
    pub fn news(&self) -> Option<Option<String>> {
        self.saving.news.swap(false, std::sync::atomic::Ordering::SeqCst).then(|| self.failing())
    }
}

/// Starts the recorder; returns where to copy conversation events.
pub fn spawn_recorder(store: Arc<Store>) -> History {
    let (tx, rx) = mpsc::channel(CAPACITY);
    let saving: Arc<Saving> = Arc::default();
    let told = saving.clone();
    std::thread::Builder::new()
        .name("sidekicks-history".into())
        .spawn(move || {
            let (conversations, requests, outputs) = (HashMap::new(), HashMap::new(), HashMap::new());
            Recorder { store, conversations, requests, outputs, saving: told }.run(rx)
        })
        .expect("spawn the history thread");
    History { tx, saving }
}

struct Recorder {
    store: Arc<Store>,
    conversations: HashMap<String, (i64, Conversation)>,
    /// Permission requests waiting for their answer, by agent and id (the answer is kept with
    /// the tool call they are about).
    requests: HashMap<(String, u64), PermissionRequest>,
    /// The output of the commands agents run through Sidekicks, by agent and terminal id, until
    /// they end (their end is kept with the tool call that ran them).
    outputs: HashMap<(String, String), Vec<u8>>,
    /// How saving goes (told to the window and the command line).
    saving: Arc<Saving>,
}

impl Recorder {
    fn run(mut self, mut rx: mpsc::Receiver<Record>) {
        while let Some(record) = rx.blocking_recv() {
            let mut flushed = Vec::new();
            for record in std::iter::once(record).chain(std::iter::from_fn(|| rx.try_recv().ok())) {
                match record {
                    Record::Event(event) => self.apply(*event),
                    Record::Flush(done) => flushed.push(done),
                }
                if !flushed.is_empty() {
                    break;
                }
            }
            self.flush();
            for done in flushed {
                let _ = done.send(());
            }
        }
    }

    /// The conversation of `agent` as the manager opened it (`ThreadOpened`: every agent's thread
    /// is told when its slot is made and when it moves); an agent never told has nothing saved.
    fn conversation(&mut self, agent: &str) -> Option<&mut Conversation> {
        self.conversations.get_mut(agent).map(|(_, c)| c)
    }

    /// A session's title names a thread only while it holds one message of the person's (the
    /// store checks what it has saved; this, what is not saved yet).
    fn title(&mut self, agent: &str, title: Option<&str>) {
        let user = crate::model::conversation::Role::User;
        if self.conversation(agent).is_some_and(|c| c.messages.iter().filter(|m| m.role == user).count() <= 1)
            && let Some((id, _)) = self.conversations.get(agent)
            && let Err(e) = self.store.set_agent_title(*id, title)
        {
            tracing::warn!("{e}");
        }
    }

    fn apply(&mut self, event: Event) {
        match event {
            Event::Config(ConfigEvent::Opened { .. }) => {
                self.flush();
                self.conversations.clear();
            }
            Event::Agent(agent, AgentEvent::ThreadOpened { thread, messages }) => {
                // What was pending for the thread left is saved first, in that thread.
                self.flush();
                self.conversations.insert(agent.0, (thread, Conversation::restored(messages)));
            }
            Event::Agent(agent, AgentEvent::Update { update: crate::model::conversation::Update::Title(title) }) => {
                self.title(&agent, title.as_deref());
            }
            Event::Agent(agent, AgentEvent::UserMessage { text, id, attached }) => {
                if let Some(c) = self.conversation(&agent) {
                    c.push_user_with(text, attached, crate::model::conversation::Delivery::Queued, Some(id));
                }
            }
            Event::Agent(agent, AgentEvent::Update { update }) => {
                if let Some(c) = self.conversation(&agent) {
                    c.apply(update);
                }
            }
            Event::Agent(agent, AgentEvent::Resent { id }) => {
                if let Some(c) = self.conversation(&agent) {
                    c.resent(&id);
                }
            }
            Event::Agent(agent, AgentEvent::Retrying { question }) => {
                if let Some(c) = self.conversation(&agent) {
                    c.retry(&question);
                }
            }
            Event::Agent(agent, event @ (AgentEvent::Edited { .. } | AgentEvent::VersionShown { .. })) => {
                self.rewrite(&agent, event);
            }
            Event::Agent(agent, AgentEvent::Notice { notice }) => {
                if let Some(c) = self.conversation(&agent) {
                    c.push_notice(notice);
                }
            }
            Event::Agent(agent, AgentEvent::TurnStarted) => {
                if let Some(c) = self.conversation(&agent) {
                    c.mark_first_queued_sent();
                }
            }
            Event::Agent(agent, AgentEvent::QueueDropped) => {
                if let Some(c) = self.conversation(&agent) {
                    c.drop_queue();
                }
            }
            Event::Agent(agent, AgentEvent::Unqueued { id }) => {
                if let Some(c) = self.conversation(&agent) {
                    c.unqueue(&id);
                }
            }
            Event::Checkpoint(e) => {
                if let Some(c) = self.conversation(e.agent()) {
                    e.apply_to(c);
                }
            }
            Event::Agent(agent, AgentEvent::TurnEnded { end }) => {
                if let Some(c) = self.conversation(&agent) {
                    c.end_turn(end);
                }
            }
            Event::Agent(agent, AgentEvent::PermissionRequested { request }) => {
                self.requests.insert((agent.0, request.id), request);
            }
            Event::Agent(agent, AgentEvent::PermissionResolved { id, answer }) => {
                if let Some(request) = self.requests.remove(&(agent.clone().0, id))
                    && let Some(c) = self.conversation(&agent)
                {
                    c.record_answer(&request.tool.id, Answered::of(&request, &answer));
                }
            }
            Event::Agent(agent, AgentEvent::Terminal { id, bytes }) => {
                let kept = self.outputs.entry((agent.0, id)).or_default();
                kept.extend_from_slice(&bytes);
                if kept.len() > 2 * Ran::KEPT {
                    kept.drain(..kept.len() - Ran::KEPT);
                }
            }
            Event::Agent(agent, AgentEvent::TerminalExited { id, code, signal }) => {
                let bytes = self.outputs.remove(&(agent.clone().0, id.clone())).unwrap_or_default();
                if let Some(c) = self.conversation(&agent) {
                    c.record_run(Ran::new(&id, &bytes, code, signal));
                }
            }
            _ => {}
        }
    }

    /// An edit, or another version shown: the conversation is rewritten from that message on.
    fn rewrite(&mut self, agent: &crate::protocol::AgentId, event: AgentEvent) {
        let Some(c) = self.conversation(agent) else { return };
        match event {
            AgentEvent::Edited { message, id, text } => _ = c.edit(&message, id, &text),
            AgentEvent::VersionShown { message, version } => _ = c.show_version_of(&message, version),
            _ => {}
        }
    }

    fn flush(&mut self) {
        let mut failure = None;
        for (id, conversation) in self.conversations.values_mut() {
            if let Some(len) = conversation.take_cut()
                && let Err(e) = self.store.cut_messages(*id, len)
            {
                tracing::warn!("{e}");
                failure = Some(e.to_string());
            }
            if let Some(from) = conversation.take_dirty()
                && let Err(e) = self.store.save_messages(*id, from, &conversation.messages)
            {
                // Kept here and saved again at the next flush (when the disk has room again).
                conversation.mark_dirty(from);
                if self.saving.failure.lock().unwrap_or_else(|e| e.into_inner()).is_none() {
                    tracing::warn!("{e}");
                }
                failure = Some(e.to_string());
            }
        }
        self.saving.set(failure);
    }
}
