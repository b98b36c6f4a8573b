//! Checkpoints between the window and the runtime: each turn of an agent on this computer starts
//! with one (`Recorded`, tied to the person's message), and the person can restore one
//! (`CheckpointCommand::Restore` → `Restored`, which carries the checkpoint that undoes it), or
//! review what changed since one (`Review` → `Review`) and revert a file or a hunk of it.

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
    /// Say what a restore to `checkpoint` would rewrite (`RestoreAsked`), changing nothing.
    AskRestore {
        /// The agent (its name).
        agent: String,
        /// The checkpoint's id.
        checkpoint: String,
    },
    /// Read what changed in `agent`'s workspace since `checkpoint`, with diffs, for review; the
    /// review stays open (read again after each turn and each revert) until `CloseReview`.
    Review {
        /// The agent (its name).
        agent: String,
        /// The checkpoint's id.
        checkpoint: String,
    },
    /// The person closed `agent`'s review: it is no longer read again.
    CloseReview {
        /// The agent (its name).
        agent: String,
    },
    /// Put `path` back as it was at `checkpoint` (`hunk`: only that hunk of it, as the person saw it).
    Revert {
        /// The agent (its name).
        agent: String,
        /// The checkpoint's id.
        checkpoint: String,
        /// The file.
        path: String,
        /// One hunk only.
        hunk: Option<crate::model::review::Hunk>,
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
    /// The turn after `checkpoint` ended: how many files of the workspace it changed.
    TurnChanged {
        /// The agent (its name).
        agent: String,
        /// The checkpoint recorded before the turn.
        checkpoint: String,
        /// The files that differ between the checkpoint and the workspace as the turn left it.
        files: u32,
    },
    /// What a restore to `checkpoint` would rewrite (asked before it, to confirm), or why it
    /// cannot run.
    RestoreAsked {
        /// The agent (its name).
        agent: String,
        /// The checkpoint.
        checkpoint: String,
        /// The files that differ from the checkpoint now, or why not known.
        result: Result<Vec<String>, String>,
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
    /// What changed since a checkpoint, or why it could not be read.
    Review {
        /// The agent (its name).
        agent: String,
        /// The checkpoint's id.
        checkpoint: String,
        /// The changed files with their diffs.
        result: Result<Vec<crate::protocol::teams::ReviewFile>, String>,
    },
    /// A file or a hunk was put back, or why not.
    Reverted {
        /// The agent (its name).
        agent: String,
        /// How it went.
        result: Result<(), String>,
    },
}

impl CheckpointEvent {
    /// The agent it is about.
    pub fn agent(&self) -> &str {
        match self {
            CheckpointEvent::Recorded { agent, .. }
            | CheckpointEvent::TurnChanged { agent, .. }
            | CheckpointEvent::RestoreAsked { agent, .. }
            | CheckpointEvent::Restored { agent, .. }
            | CheckpointEvent::Review { agent, .. }
            | CheckpointEvent::Reverted { agent, .. } => agent,
        }
    }

    /// Writes it into the agent's conversation: the message gets its checkpoint; a restore adds a
    /// notice (with the undo, or the error).
    pub fn apply_to(&self, conversation: &mut Conversation) {
        match self {
            CheckpointEvent::Recorded { id, checkpoint, .. } => conversation.checkpointed(id, checkpoint),
            CheckpointEvent::TurnChanged { checkpoint, files, .. } => conversation.turn_changed(checkpoint, *files),
            // The undo of a restore: that restore's notice says it was undone.
            CheckpointEvent::Restored { checkpoint, result: Ok(_), .. } if conversation.restore_undone(checkpoint) => {}
            CheckpointEvent::Restored { checkpoint, result, .. } => conversation.push_notice(match result {
                Ok(undo) => Notice::Restored { checkpoint: checkpoint.clone(), undo: undo.clone() },
                Err(message) => Notice::RestoreFailed { message: message.clone() },
            }),
            // The review panel's, not the conversation's.
            CheckpointEvent::Review { .. }
            | CheckpointEvent::Reverted { .. }
            | CheckpointEvent::RestoreAsked { .. } => {}
        }
    }
}
