//! The manager's side of checkpoints: each turn of an agent on this computer starts with a
//! checkpoint of its workspace (recorded on a blocking thread before the prompt goes out), and a
//! restore runs only while the agent is not in a turn.

use std::path::PathBuf;

use super::Manager;
use crate::model::config::RuntimeKind;
use crate::protocol::checkpoints::{CheckpointCommand, CheckpointEvent};
use crate::protocol::{AgentState, Event};
use crate::runtime::checkpoint::Checkpoints;

impl Manager {
    /// Where and how `agent`'s workspace is checkpointed; `None` when checkpoints are off or the
    /// agent does not work on this computer.
    pub(super) fn checkpointer(&self, agent: &str) -> Option<(Checkpoints, PathBuf)> {
        let config = self.loaded.as_ref()?.checkpoints.clone();
        let slot = self.slots.iter().find(|s| s.config.name == agent)?;
        if !config.enabled || slot.config.runtime.kind != RuntimeKind::Local {
            return None;
        }
        let root = match self.settings.checkpoints_root {
            Some(root) => root.to_path_buf(),
            None => self.config_path.as_ref()?.parent()?.join("sidekicks-checkpoints"),
        };
        let checkpoints = Checkpoints {
            root,
            keep: config.keep as usize,
            max_age: u64::from(config.max_age_days) * 86_400,
            max_file: crate::runtime::checkpoint::MAX_FILE,
        };
        Some((checkpoints, slot.config.workspace_path()))
    }

    pub(super) async fn checkpoint_command(&mut self, command: CheckpointCommand) {
        let CheckpointCommand::Restore { agent, checkpoint } = command;
        let refused = |why: &str| CheckpointEvent::Restored {
            agent: agent.clone(),
            checkpoint: checkpoint.clone(),
            result: Err(why.to_string()),
        };
        let busy = self.slots.iter().any(|s| s.config.name == agent && s.state == AgentState::Busy);
        let event = if busy {
            refused("the agent is in a turn: stop it first")
        } else {
            match self.checkpointer(&agent) {
                None => refused("checkpoints are off for this agent"),
                Some((checkpoints, workspace)) => {
                    let id = checkpoint.clone();
                    let done = tokio::task::spawn_blocking(move || checkpoints.restore(&workspace, &id)).await;
                    let result = match done {
                        Ok(Ok(undo)) => Ok(undo.id),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(e) => Err(e.to_string()),
                    };
                    CheckpointEvent::Restored { agent: agent.clone(), checkpoint: checkpoint.clone(), result }
                }
            }
        };
        self.events.send(Event::Checkpoint(event)).await;
    }
}

/// Records a checkpoint of `workspace` before the turn of message `id` and says so; a failure is
/// logged and the turn goes on without one.
pub(super) async fn record_before_turn(
    events: &crate::runtime::events::EventSink,
    agent: &str,
    id: crate::model::conversation::MessageId,
    checkpointer: Option<(Checkpoints, PathBuf)>,
) {
    let Some((checkpoints, workspace)) = checkpointer else { return };
    match tokio::task::spawn_blocking(move || checkpoints.record(&workspace)).await {
        Ok(Ok(checkpoint)) => {
            let recorded = CheckpointEvent::Recorded { agent: agent.to_string(), id, checkpoint: checkpoint.id };
            events.send(Event::Checkpoint(recorded)).await;
        }
        Ok(Err(e)) => tracing::warn!("no checkpoint of {agent}'s workspace before this turn: {e}"),
        Err(e) => tracing::warn!("no checkpoint of {agent}'s workspace before this turn: {e}"),
    }
}
