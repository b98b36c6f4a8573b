//! What the composer of an agent holds besides its text: the images and files to send with the
//! next message, why a file could not be attached, and the workspace's paths for `@`.

use super::state::AppState;
use crate::protocol::AgentEvent;
use crate::protocol::attachments::Attachment;
use crate::protocol::{Event, WorkspaceEvent};

/// The most paths asked of a workspace for `@` (a bigger project completes from the first ones).
pub const MENTION_PATHS: usize = 50_000;

/// The composer's attachments and `@` paths, per agent.
#[derive(Clone, Debug, Default)]
pub struct Composing {
    /// Sent with the next message.
    pub pending: Vec<Attachment>,
    /// Files that could not be attached, in words.
    pub errors: Vec<String>,
    /// The workspace's files and folders, once asked for (`@`).
    pub paths: Option<Result<Vec<(String, bool)>, String>>,
}

/// A change to the composer's attachments.
#[derive(Clone, Debug)]
pub enum AttachOp {
    /// Add one (a `@` completion).
    Add(Attachment),
    /// Remove the one at this index.
    Remove(usize),
    /// Forget them all (sent).
    Clear,
    /// Forget the errors shown.
    DismissErrors,
    /// The paths for `@` are old: ask again next time.
    ForgetPaths,
}

impl AppState {
    /// Applies a change the composer asked for.
    pub(super) fn attach_op(&mut self, agent: &str, op: AttachOp) {
        let Some(a) = self.agent_mut(agent) else { return };
        let c = &mut a.composing;
        match op {
            AttachOp::Add(attachment) => {
                if !c.pending.contains(&attachment) {
                    c.pending.push(attachment);
                }
            }
            AttachOp::Remove(i) if i < c.pending.len() => {
                c.pending.remove(i);
            }
            AttachOp::Remove(_) => {}
            AttachOp::Clear => c.pending.clear(),
            AttachOp::DismissErrors => c.errors.clear(),
            AttachOp::ForgetPaths => c.paths = None,
        }
    }

    /// Applies attachments read, and the workspace's paths. False for other events.
    pub(super) fn apply_composing_event(&mut self, event: &Event) -> bool {
        match event {
            Event::Agent(agent, AgentEvent::Attached { results }) => {
                if let Some(a) = self.agent_mut(agent) {
                    for result in results {
                        match result {
                            Ok(attachment) if !a.composing.pending.contains(attachment) => {
                                a.composing.pending.push(attachment.clone());
                            }
                            Ok(_) => {}
                            Err(e) => a.composing.errors.push(e.clone()),
                        }
                    }
                }
                true
            }
            Event::Workspace { agent, event: WorkspaceEvent::Paths { result } } => {
                if let Some(a) = self.agent_mut(agent) {
                    a.composing.paths = Some(result.clone().map_err(|e| e.to_string()));
                }
                true
            }
            _ => false,
        }
    }
}
