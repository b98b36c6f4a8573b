//! What the window knows of an agent's workspace under review: the checkpoint it is compared
//! with, the changed files with their diffs (the runtime reads them again after a revert and after
//! each turn, until the review is closed), and why the last revert failed.

use super::agent_view::AgentView;
use super::state::AppState;
use crate::protocol::checkpoints::{CheckpointCommand, CheckpointEvent};
use crate::protocol::teams::ReviewFile;

/// An agent's changes since a checkpoint, under review.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkspaceReview {
    /// The checkpoint compared with.
    pub checkpoint: String,
    /// The changed files (`None`: being read), or why they could not be read.
    pub files: Option<Result<Vec<ReviewFile>, String>>,
    /// Counts the results received (the panel lays out its rows again when it changes).
    pub generation: u64,
    /// Why the last revert was not done.
    pub error: Option<String>,
}

impl AppState {
    /// A review asked for: the agent's review is being read (the files shown stay meanwhile).
    pub(super) fn review_requested(&mut self, command: &CheckpointCommand) {
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
    pub(super) fn close_review(&mut self, agent: &str) {
        if let Some(a) = self.agent_mut(agent) {
            a.review = None;
        }
    }

    /// A review's answer, or a revert's (then the review is read again).
    pub(super) fn apply_review_event(&mut self, event: &CheckpointEvent) {
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

impl AgentView {
    /// The checkpoint its open review compares with.
    pub fn reviewed(&self) -> Option<String> {
        self.review.as_ref().map(|r| r.checkpoint.clone())
    }
}
