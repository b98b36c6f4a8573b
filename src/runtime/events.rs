//! Where the runtime sends its events: a bounded channel to the UI plus a waker that asks the
//! UI for a frame (egui's `request_repaint`, or nothing in tests). Conversation events are also
//! copied to the history recorder when one is attached.

use std::sync::Arc;

use tokio::sync::mpsc;

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
}

impl EventSink {
    /// A sink and the receiver the UI drains.
    pub fn new(waker: Waker) -> (Self, mpsc::Receiver<Event>) {
        let (tx, rx) = mpsc::channel(EVENT_CAPACITY);
        (Self { tx, waker, history: None }, rx)
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

    /// The waker: asks the window for a frame (a terminal's output is read from its screen, not sent
    /// as events).
    pub fn waker(&self) -> Waker {
        self.waker.clone()
    }

    /// Sends an event, waiting if the UI is behind (back-pressure instead of dropping).
    pub async fn send(&self, event: Event) {
        if let Some(history) = &self.history
            && event.is_conversation()
        {
            history.record(event.clone()).await;
        }
        if self.tx.send(event).await.is_ok() {
            (self.waker)();
        }
    }
}
