//! What the person asked of the messages shown, gathered while they are drawn.

use crate::app::Command;

/// What drawing a message asked for.
#[derive(Default)]
pub struct MessageActions {
    /// Commands for the runtime.
    pub commands: Vec<Command>,
    /// The person wants a transcript sent with the next message.
    pub attach_transcript: bool,
    /// Text to put in the composer (a message to edit and send again).
    pub draft: Option<String>,
    /// A message Stop dropped, to send again (its index).
    pub resend: Option<usize>,
    /// The person closed a restore's confirmation without restoring.
    pub cancel_restore: bool,
}
