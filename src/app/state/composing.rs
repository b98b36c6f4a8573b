//! The composer's attachments and `@` paths, changed as the composer asks and as results come.

use super::AppState;
use crate::app::composing::AttachOp;
use crate::protocol::AgentEvent;
use crate::protocol::{Event, WorkspaceEvent};

impl AppState {
    /// Applies a change the composer asked for.
    pub(in crate::app) fn attach_op(&mut self, agent: &str, op: AttachOp) {
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
    pub(in crate::app) fn apply_composing_event(&mut self, event: &Event) -> bool {
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
