//! Checkpoints between the window and the runtime: each turn of an agent on this computer starts
//! with one (`Recorded`, tied to the person's message), and the person can restore one
//! (`CheckpointCommand::Restore` → `Restored`, which carries the checkpoint that undoes it).

use crate::model::conversation::{Conversation, MessageId, Notice};

/// What the person asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckpointCommand {
    /// Make `agent`'s workspace as it was at `checkpoint` (refused while a turn runs).
    Restore {
        /// The agent (its name).
        agent: String,
        /// The checkpoint's id.
        checkpoint: String,
    },
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckpointEvent {
    /// `agent`'s workspace was recorded before the turn of the person's message `id`.
    Recorded {
        /// The agent (its name).
        agent: String,
        /// The message whose turn it precedes.
        id: MessageId,
        /// The checkpoint's id.
        checkpoint: String,
    },
    /// A restore ended: `Ok` with the checkpoint of how the workspace was just before (to undo
    /// it), or why it failed (nothing was changed, or the error says what was).
    Restored {
        /// The agent (its name).
        agent: String,
        /// The checkpoint restored.
        checkpoint: String,
        /// The undo checkpoint, or the error.
        result: Result<String, String>,
    },
}

impl CheckpointEvent {
    /// The agent it is about.
    pub fn agent(&self) -> &str {
        match self {
            CheckpointEvent::Recorded { agent, .. } | CheckpointEvent::Restored { agent, .. } => agent,
        }
    }

    /// Writes it into the agent's conversation: the message gets its checkpoint; a restore adds a
    /// notice (with the undo, or the error).
    pub fn apply_to(&self, conversation: &mut Conversation) {
        match self {
            CheckpointEvent::Recorded { id, checkpoint, .. } => conversation.checkpointed(id, checkpoint),
            CheckpointEvent::Restored { checkpoint, result, .. } => conversation.push_notice(match result {
                Ok(undo) => Notice::Restored { checkpoint: checkpoint.clone(), undo: undo.clone() },
                Err(message) => Notice::RestoreFailed { message: message.clone() },
            }),
        }
    }
}
