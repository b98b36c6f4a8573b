//! The review of an agent's workspace: asked for, answered, closed.

use super::AppState;
use crate::app::review_state::WorkspaceReview;
use crate::protocol::checkpoints::{CheckpointCommand, CheckpointEvent};

impl AppState {
    /// A review asked for: the agent's review is being read (the files shown stay meanwhile). A
    /// restore asked for: its confirmation waits for the files it would rewrite; once it runs, the
    /// confirmation goes.
    pub(in crate::app) fn review_requested(&mut self, command: &CheckpointCommand) {
        match command {
            CheckpointCommand::AskRestore { agent, checkpoint } => {
                if let Some(a) = self.agent_mut(agent) {
                    a.restore_asked = Some((checkpoint.clone(), None));
                }
                return;
            }
            CheckpointCommand::Restore { agent, .. } => {
                if let Some(a) = self.agent_mut(agent) {
                    a.restore_asked = None;
                }
                return;
            }
            _ => {}
        }
        let CheckpointCommand::Review { agent, checkpoint } = command else { return };
        let Some(a) = self.agent_mut(agent) else { return };
        match &mut a.review {
            Some(r) if r.checkpoint == *checkpoint => {}
            _ => {
                a.review = Some(WorkspaceReview {
                    checkpoint: checkpoint.clone(),
                    files: None,
                    generation: 0,
                    error: None,
                    done: false,
                })
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
            CheckpointEvent::RestoreAsked { agent, checkpoint, result } => {
                if let Some(a) = self.agent_mut(agent)
                    && a.restore_asked.as_ref().is_some_and(|(c, _)| c == checkpoint)
                {
                    a.restore_asked = Some((checkpoint.clone(), Some(result.clone())));
                }
            }
            CheckpointEvent::Reverted { agent, result } => {
                if let Some(r) = self.agent_mut(agent).and_then(|a| a.review.as_mut()) {
                    r.error = result.clone().err();
                    r.done = result.is_ok();
                }
            }
            _ => {}
        }
    }
}
