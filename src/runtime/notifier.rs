//! Desktop notifications through the desktop's own service: freedesktop notifications over the
//! session D-Bus on Linux and the BSDs (a click on one brings its conversation back), the
//! platform's on macOS and Windows (shown only). Where no service runs (headless, CI) a note is
//! dropped with one line in the log; nothing waits on it.

use std::collections::HashMap;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::events::EventSink;
use crate::protocol::Event;
use crate::protocol::notify::{DesktopNote, NoteTarget};

/// The one action a note offers; freedesktop's "default" is a click on the note itself.
const OPEN: &str = "default";

/// Shows notes one after another, on a task of its own.
#[derive(Clone)]
pub struct Notifier {
    tx: mpsc::UnboundedSender<DesktopNote>,
}

impl Notifier {
    /// Starts the notifier on the current runtime; clicks go to `sink`.
    pub fn spawn(sink: EventSink) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(run(rx, sink));
        Self { tx }
    }

    /// Shows `note` (replacing the last one about the same target).
    pub fn show(&self, note: DesktopNote) {
        let _ = self.tx.send(note);
    }
}

/// The last note shown per target: its id (a later note replaces it) and the task waiting for
/// its click (ended when it is replaced).
type Shown = HashMap<NoteTarget, (u32, JoinHandle<()>)>;

async fn run(mut rx: mpsc::UnboundedReceiver<DesktopNote>, sink: EventSink) {
    let mut shown = Shown::new();
    let mut failing = false;
    while let Some(note) = rx.recv().await {
        match show(&note, &mut shown, &sink).await {
            Ok(()) => failing = false,
            // Said once per outage, not once per note.
            Err(e) if !failing => {
                failing = true;
                tracing::info!("no desktop notification: {e}");
            }
            Err(_) => {}
        }
    }
    for (_, (_, waiter)) in shown {
        waiter.abort();
    }
}

#[cfg(all(unix, not(target_os = "macos")))]
async fn show(note: &DesktopNote, shown: &mut Shown, sink: &EventSink) -> Result<(), String> {
    use notify_rust::{Notification, NotificationResponse};
    let mut n = Notification::new();
    n.appname("Sidekicks")
        .summary(&note.summary)
        .body(&note.body)
        .icon("utilities-terminal")
        .action(OPEN, &note.open_label)
        .hint(notify_rust::Hint::DesktopEntry("sidekicks".into()));
    if let Some((id, _)) = shown.get(&note.target) {
        n.id(*id);
    }
    // A bus that does not answer must not hold the notes behind it for long.
    let handle = tokio::time::timeout(std::time::Duration::from_secs(5), n.show_async())
        .await
        .map_err(|_| "the notification service did not answer".to_string())?
        .map_err(|e| e.to_string())?;
    let id = handle.id();
    let (target, sink) = (note.target.clone(), sink.clone());
    let waiter = tokio::spawn(async move {
        let mut clicked = false;
        handle
            .wait_for_action_async(|response| {
                clicked = matches!(response, NotificationResponse::Default)
                    || matches!(response, NotificationResponse::Action(a) if a == OPEN);
            })
            .await;
        if clicked {
            sink.send(Event::NotificationClicked { target }).await;
        }
    });
    if let Some((_, old)) = shown.insert(note.target.clone(), (id, waiter)) {
        old.abort();
    }
    Ok(())
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
async fn show(note: &DesktopNote, _shown: &mut Shown, _sink: &EventSink) -> Result<(), String> {
    let mut n = notify_rust::Notification::new();
    n.appname("Sidekicks").summary(&note.summary).body(&note.body);
    tokio::task::spawn_blocking(move || n.show().map(|_| ()).map_err(|e| e.to_string()))
        .await
        .map_err(|e| e.to_string())?
}
