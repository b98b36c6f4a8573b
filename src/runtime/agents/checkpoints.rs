//! The manager's side of checkpoints: each turn of an agent on this computer starts with a
//! checkpoint of its workspace (recorded on a blocking thread before the prompt goes out), and a
//! restore runs only while the agent is not in a turn.

use std::path::PathBuf;

use super::Manager;
use crate::model::config::RuntimeKind;
use crate::protocol::checkpoints::{CheckpointCommand, CheckpointEvent};
use crate::protocol::{AgentState, Event};
use crate::runtime::checkpoints::Checkpoints;
use crate::runtime::checkpoints::review::{revert, review_since};

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
            max_file: crate::runtime::checkpoints::MAX_FILE,
        };
        Some((checkpoints, slot.config.workspace_path()))
    }

    pub(super) async fn checkpoint_command(&mut self, command: CheckpointCommand) {
        let (agent, checkpoint) = match command {
            CheckpointCommand::Restore { agent, checkpoint } => (agent, checkpoint),
            CheckpointCommand::Review { agent, checkpoint } => {
                if let Some(slot) = self.slot(&agent) {
                    slot.reviewed = Some(checkpoint.clone());
                }
                return self.review(agent, checkpoint);
            }
            CheckpointCommand::CloseReview { agent } => {
                if let Some(slot) = self.slot(&agent) {
                    slot.reviewed = None;
                }
                return;
            }
            CheckpointCommand::Revert { agent, checkpoint, path, hunk } => {
                return self.revert(agent, checkpoint, path, hunk);
            }
            CheckpointCommand::AskRestore { agent, checkpoint } => return self.ask_restore(agent, checkpoint),
        };
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

impl Manager {
    /// Reads what changed in `agent`'s workspace since `checkpoint`, on a blocking thread.
    fn review(&self, agent: String, checkpoint: String) {
        let checkpointer = self.checkpointer(&agent);
        let events = self.events.clone();
        tokio::spawn(read_review(events, checkpointer, agent, checkpoint));
    }

    /// Says what a restore to `checkpoint` would rewrite, on a blocking thread; nothing changes.
    fn ask_restore(&self, agent: String, checkpoint: String) {
        let busy = self.slots.iter().any(|s| s.config.name == agent && s.state == AgentState::Busy);
        let checkpointer = self.checkpointer(&agent);
        let events = self.events.clone();
        tokio::spawn(async move {
            let result = match (busy, checkpointer) {
                (true, _) => Err("the agent is in a turn: stop it first".to_string()),
                (false, None) => Err("checkpoints are off for this agent".to_string()),
                (false, Some((cps, workspace))) => {
                    let id = checkpoint.clone();
                    let done = tokio::task::spawn_blocking(move || cps.changed_since(&workspace, &id)).await;
                    done.map_err(|e| e.to_string()).and_then(|r| r.map_err(|e| e.to_string()))
                }
            };
            events.send(Event::Checkpoint(CheckpointEvent::RestoreAsked { agent, checkpoint, result })).await;
        });
    }

    /// `agent`'s open review, if any, is read again: its files changed (a turn ended).
    pub(super) fn review_again(&self, agent: &str) {
        let reviewed = self.slots.iter().find(|s| s.config.name == agent).and_then(|s| s.reviewed.clone());
        if let Some(checkpoint) = reviewed {
            self.review(agent.to_string(), checkpoint);
        }
    }

    /// Puts a file (or one hunk of it) back as it was at a checkpoint; refused during a turn.
    /// The open review is read again after it.
    fn revert(&self, agent: String, checkpoint: String, path: String, hunk: Option<crate::model::review::Hunk>) {
        let busy = self.slots.iter().any(|s| s.config.name == agent && s.state == AgentState::Busy);
        let checkpointer = self.checkpointer(&agent);
        let reviewed = self.slots.iter().find(|s| s.config.name == agent).and_then(|s| s.reviewed.clone());
        let events = self.events.clone();
        tokio::spawn(async move {
            let again = checkpointer.clone();
            let result = match (busy, checkpointer) {
                (true, _) => Err("the agent is in a turn: stop it first".to_string()),
                (false, None) => Err("checkpoints are off for this agent".to_string()),
                (false, Some((cps, workspace))) => {
                    let done = tokio::task::spawn_blocking(move || {
                        revert(&cps, &workspace, &checkpoint, &path, hunk.as_ref())
                    })
                    .await;
                    done.map_err(|e| e.to_string()).and_then(|r| r.map_err(|e| e.to_string()))
                }
            };
            events.send(Event::Checkpoint(CheckpointEvent::Reverted { agent: agent.clone(), result })).await;
            if let Some(checkpoint) = reviewed {
                read_review(events, again, agent, checkpoint).await;
            }
        });
    }
}

/// Reads what changed in a workspace since `checkpoint` and tells it as `agent`'s review.
async fn read_review(
    events: crate::runtime::events::EventSink,
    checkpointer: Option<(Checkpoints, PathBuf)>,
    agent: String,
    checkpoint: String,
) {
    let result = match checkpointer {
        None => Err("checkpoints are off for this agent".to_string()),
        Some((cps, workspace)) => {
            let id = checkpoint.clone();
            let done = tokio::task::spawn_blocking(move || review_since(&cps, &workspace, &id)).await;
            done.map_err(|e| e.to_string()).and_then(|r| r.map_err(|e| e.to_string()))
        }
    };
    events.send(Event::Checkpoint(CheckpointEvent::Review { agent, checkpoint, result })).await;
}

/// Records a checkpoint of `workspace` before the turn of message `id` and says so; a failure is
/// logged and the turn goes on without one. Gives the checkpoint's id.
pub(super) async fn record_before_turn(
    events: &crate::runtime::events::EventSink,
    agent: &str,
    id: crate::model::conversation::MessageId,
    checkpointer: Option<(Checkpoints, PathBuf)>,
) -> Option<String> {
    let (checkpoints, workspace) = checkpointer?;
    match tokio::task::spawn_blocking(move || checkpoints.record(&workspace)).await {
        Ok(Ok(checkpoint)) => {
            let recorded =
                CheckpointEvent::Recorded { agent: agent.to_string(), id, checkpoint: checkpoint.id.clone() };
            events.send(Event::Checkpoint(recorded)).await;
            Some(checkpoint.id)
        }
        Ok(Err(e)) => {
            tracing::warn!("no checkpoint of {agent}'s workspace before this turn: {e}");
            None
        }
        Err(e) => {
            tracing::warn!("no checkpoint of {agent}'s workspace before this turn: {e}");
            None
        }
    }
}

/// Once a turn ended: how many files it changed since `checkpoint`, told (Changes and Restore
/// then show only on turns that changed files). A failure is logged; nothing is told.
pub(super) async fn count_after_turn(
    events: &crate::runtime::events::EventSink,
    agent: &str,
    checkpoint: String,
    checkpointer: Option<(Checkpoints, PathBuf)>,
) {
    let Some((checkpoints, workspace)) = checkpointer else { return };
    let id = checkpoint.clone();
    match tokio::task::spawn_blocking(move || checkpoints.changed_since(&workspace, &id)).await {
        Ok(Ok(files)) => {
            let files = u32::try_from(files.len()).unwrap_or(u32::MAX);
            let changed = CheckpointEvent::TurnChanged { agent: agent.to_string(), checkpoint, files };
            events.send(Event::Checkpoint(changed)).await;
        }
        Ok(Err(e)) => tracing::warn!("what {agent}'s turn changed could not be read: {e}"),
        Err(e) => tracing::warn!("what {agent}'s turn changed could not be read: {e}"),
    }
}
