//! Where the runtime sends its events: a bounded channel to the UI plus a waker that asks the
//! UI for a frame (egui's `request_repaint`, or nothing in tests). Conversation events are also
//! copied to the history recorder when one is attached.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::protocol::AgentEvent;
use crate::protocol::Event;

/// Wakes the UI after an event was sent.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Capacity of the event channel: enough for bursts of streamed fragments.
pub const EVENT_CAPACITY: usize = 4096;

/// Sends events to the UI and wakes it.
#[derive(Clone)]
pub struct EventSink {
    tx: mpsc::Sender<Event>,
    waker: Waker,
    history: Option<super::history::History>,
    /// Where the channel service hears what agents say (see [`Said`]).
    said: Option<mpsc::Sender<Said>>,
    /// A copy of the team and agent events for doors inside the runtime (the lead's tools).
    tap: Option<tokio::sync::broadcast::Sender<Event>>,
}

/// What the channel service hears of the agents' conversations, to keep each member's answer.
#[derive(Clone, Debug)]
pub enum Said {
    /// A message was queued for `agent` (its turn comes in order).
    Queued {
        /// The agent.
        agent: String,
        /// The message's id.
        id: crate::model::conversation::MessageId,
    },
    /// A queued message was taken back, or (`None`) every queued one was dropped.
    Dropped {
        /// The agent.
        agent: String,
        /// The message's id.
        id: Option<crate::model::conversation::MessageId>,
    },
    /// The agent's turn on its next queued message began.
    Started {
        /// The agent.
        agent: String,
    },
    /// Text of its answer.
    Text {
        /// The agent.
        agent: String,
        /// The text.
        text: String,
    },
    /// It reported its context's use (and its session's cost, when it says).
    Usage {
        /// The agent.
        agent: String,
        /// Tokens in use.
        used: u64,
        /// The session's cost so far.
        cost: Option<crate::model::conversation::Cost>,
    },
    /// A permission was asked on its conversation.
    Asked {
        /// The agent.
        agent: String,
        /// The request's id.
        id: u64,
    },
    /// A permission asked on its conversation was answered.
    Answered {
        /// The agent.
        agent: String,
        /// The request's id.
        id: u64,
        /// It was allowed.
        allowed: bool,
    },
    /// Its turn ended.
    Ended {
        /// The agent.
        agent: String,
        /// Why it did not finish its answer (failed, cancelled, the agent ended), if so.
        failed: Option<String>,
    },
}

impl Said {
    /// What `event` says to the channel service, if anything.
    fn of(event: &Event) -> Option<Self> {
        use crate::model::conversation::Update;
        Some(match event {
            Event::Agent(agent, AgentEvent::UserMessage { id, .. }) => {
                Said::Queued { agent: agent.clone().0, id: id.clone() }
            }
            Event::Agent(agent, AgentEvent::Unqueued { id }) => {
                Said::Dropped { agent: agent.clone().0, id: Some(id.clone()) }
            }
            Event::Agent(agent, AgentEvent::QueueDropped) => Said::Dropped { agent: agent.clone().0, id: None },
            Event::Agent(agent, AgentEvent::TurnStarted) => Said::Started { agent: agent.clone().0 },
            Event::Agent(agent, AgentEvent::Update { update: Update::Text(text) }) => {
                Said::Text { agent: agent.clone().0, text: text.clone() }
            }
            Event::Agent(agent, AgentEvent::Update { update: Update::Usage { used, cost, .. } }) => {
                Said::Usage { agent: agent.clone().0, used: *used, cost: cost.clone() }
            }
            Event::Agent(agent, AgentEvent::PermissionRequested { request }) => {
                Said::Asked { agent: agent.clone().0, id: request.id }
            }
            Event::Agent(agent, AgentEvent::PermissionResolved { id, answer }) => {
                use crate::model::permission::{OptionKind, PermissionAnswer};
                let allowed = matches!(
                    answer,
                    PermissionAnswer::Selected { kind: OptionKind::AllowOnce | OptionKind::AllowAlways, .. }
                );
                Said::Answered { agent: agent.clone().0, id: *id, allowed }
            }
            Event::Agent(agent, AgentEvent::TurnEnded { end }) => {
                use crate::model::conversation::TurnEnd;
                let failed = match end {
                    TurnEnd::Failed { message } | TurnEnd::AuthRequired { message } => Some(message.clone()),
                    TurnEnd::Cancelled => Some("the turn was cancelled".to_string()),
                    TurnEnd::AgentExited => Some("the agent ended during the turn".to_string()),
                    _ => None,
                };
                Said::Ended { agent: agent.clone().0, failed }
            }
            _ => return None,
        })
    }
}

impl EventSink {
    /// A sink and the receiver the UI drains.
    pub fn new(waker: Waker) -> (Self, mpsc::Receiver<Event>) {
        let (tx, rx) = mpsc::channel(EVENT_CAPACITY);
        (Self { tx, waker, history: None, said: None, tap: None }, rx)
    }

    /// Copies conversation events to `history` from now on.
    pub fn with_history(mut self, history: super::history::History) -> Self {
        self.history = Some(history);
        self
    }

    /// Waits until the history has saved every event sent before (at once without a history).
    pub async fn flush_history(&self) {
        if let Some(history) = &self.history {
            history.flush().await;
        }
    }

    /// Says that saving the history began to fail (a full disk), or works again, if it did.
    pub async fn tell_history_news(&self) {
        let Some(news) = self.history.as_ref().and_then(|h| h.news()) else { return };
        let note = match news {
            Some(error) => crate::protocol::HistoryNote::SaveFailed { error },
            None => crate::protocol::HistoryNote::Saved,
        };
        if self.tx.send(Event::HistoryNote { note }).await.is_ok() {
            (self.waker)();
        }
    }

    /// Saves again what could not be saved, when saving fails (each tick), and says how it went.
    pub async fn retry_history(&self) {
        if self.history_failing().is_some() {
            self.flush_history().await;
        }
        self.tell_history_news().await;
    }

    /// Why saving the history fails, while it does.
    pub fn history_failing(&self) -> Option<String> {
        self.history.as_ref().and_then(|h| h.failing())
    }

    /// The waker: asks the window for a frame (a terminal's output is read from its screen, not sent
    /// as events).
    pub fn waker(&self) -> Waker {
        self.waker.clone()
    }

    /// The same sink, also telling the channel service what agents say.
    pub fn with_said(mut self, said: mpsc::Sender<Said>) -> Self {
        self.said = Some(said);
        self
    }

    /// The same sink, also copying team and agent events (but their streamed fragments and
    /// logs) to `tap`, for a door inside the runtime.
    pub fn with_tap(mut self, tap: tokio::sync::broadcast::Sender<Event>) -> Self {
        self.tap = Some(tap);
        self
    }

    /// Sends an event, waiting if the UI is behind (back-pressure instead of dropping).
    pub async fn send(&self, event: Event) {
        if let Some(history) = &self.history
            && event.is_conversation()
        {
            history.record(event.clone()).await;
            self.tell_history_news().await;
        }
        if let Some(said) = &self.said
            && let Some(heard) = Said::of(&event)
        {
            let _ = said.send(heard).await;
        }
        if let Some(tap) = &self.tap
            && tapped(&event)
            && tap.receiver_count() > 0
        {
            let _ = tap.send(event.clone());
        }
        if self.tx.send(event).await.is_ok() {
            (self.waker)();
        }
    }
}

/// What a door inside the runtime hears: team events, and agents' states, turns and questions.
fn tapped(event: &Event) -> bool {
    match event {
        Event::Team(_) => true,
        Event::Agent(_, e) => matches!(
            e,
            AgentEvent::State { .. }
                | AgentEvent::TurnStarted
                | AgentEvent::TurnEnded { .. }
                | AgentEvent::PermissionRequested { .. }
                | AgentEvent::PermissionResolved { .. }
        ),
        _ => false,
    }
}
