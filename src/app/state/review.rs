//! The review of an agent's workspace: asked for, answered, closed.

use super::AppState;
use crate::app::review_state::WorkspaceReview;
use crate::protocol::checkpoints::{CheckpointCommand, CheckpointEvent};

impl AppState {
    /// A review asked for: the agent's review is being read (the files shown stay meanwhile).
    pub(in crate::app) fn review_requested(&mut self, command: &CheckpointCommand) {
        let CheckpointCommand::Review { agent, checkpoint } = command else { return };
        let Some(a) = self.agent_mut(agent) else { return };
        match &mut a.review {
            Some(r) if r.checkpoint == *checkpoint => {}
            _ => {
                a.review =
                    Some(WorkspaceReview { checkpoint: checkpoint.clone(), files: None, generation: 0, error: None })
            }
        }
    }

    /// The person closed `agent`'s review.
    pub(in crate::app) fn close_review(&mut self, agent: &str) {
        if let Some(a) = self.agent_mut(agent) {
            a.review = None;
        }
    }

    /// A review's answer, or a revert's (then the review is read again).
    pub(in crate::app) fn apply_review_event(&mut self, event: &CheckpointEvent) {
        match event {
            CheckpointEvent::Review { agent, checkpoint, result } => {
                if let Some(r) = self.agent_mut(agent).and_then(|a| a.review.as_mut())
                    && r.checkpoint == *checkpoint
                {
                    r.files = Some(result.clone());
                    r.generation += 1;
                }
            }
            CheckpointEvent::Reverted { agent, result } => {
                if let Some(r) = self.agent_mut(agent).and_then(|a| a.review.as_mut()) {
                    r.error = result.clone().err();
                }
            }
            _ => {}
        }
    }
}
