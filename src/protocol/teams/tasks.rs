//! A team's tasks (issue 47): work given to one member — by the person or by the team's lead —
//! followed from the moment it is sent until its work is merged. Recorded by the team's
//! conversation service (`runtime/services/channels.rs`, which already links each answer to the
//! message that asked for it), kept in the history, shown on the team's page and in its channel,
//! listed by `sidekicks team tasks` and the lead's `members` and `wait` tools.

use serde::{Deserialize, Serialize};

/// Where a task is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum TaskState {
    /// Sent to the member; its turn has not begun (it is answering something else).
    Assigned,
    /// The member is working on it.
    Working,
    /// The member's turn on it ended; its work is in its copy.
    Done,
    /// The member's work after it was merged into the project.
    Merged,
    /// A merge of the member's work after it met conflicts (the member was told).
    Conflict,
    /// It could not be done: why, in words.
    Failed {
        /// Why.
        why: String,
    },
}

impl TaskState {
    /// The task no longer runs (done, merged, in conflict or failed).
    pub fn finished(&self) -> bool {
        !matches!(self, TaskState::Assigned | TaskState::Working)
    }

    /// Its name, as `--json` and the tools give it.
    pub fn code(&self) -> &'static str {
        match self {
            TaskState::Assigned => "assigned",
            TaskState::Working => "working",
            TaskState::Done => "done",
            TaskState::Merged => "merged",
            TaskState::Conflict => "conflict",
            TaskState::Failed { .. } => "failed",
        }
    }
}

/// One task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Its id (short, made by the door that assigned it: the door then knows it at once).
    pub id: String,
    /// The team (its id).
    pub team: String,
    /// The member (its name).
    pub member: String,
    /// What the member was asked.
    pub text: String,
    /// Who asked: the lead's name, or `None` for the person.
    pub by: Option<String>,
    /// Where it is.
    #[serde(flatten)]
    pub state: TaskState,
    /// When it was assigned (seconds since the epoch).
    pub assigned_at: u64,
    /// When its state last changed (seconds since the epoch).
    pub updated_at: u64,
    /// The member's final answer, once its turn ended.
    pub answer: Option<String>,
    /// The message that carried it to the member (its answer is linked by it).
    pub message: Option<String>,
    /// What the member's turn on it took (time, tokens, cost, permissions), as far as known.
    #[serde(default)]
    pub work: TaskWork,
}

/// What a member's turn on a task took: what best of N compares beside the diffs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskWork {
    /// When the turn began and ended (milliseconds since the epoch).
    pub started_ms: Option<u64>,
    /// When the turn ended.
    pub ended_ms: Option<u64>,
    /// The context's use the agent reported last during the turn (`usage_update`: tokens).
    pub tokens: Option<u64>,
    /// What the turn cost, in millionths of `currency`, when the agent reports its session's cost
    /// (the difference from the cost reported before the turn).
    pub cost_millionths: Option<i64>,
    /// The cost's unit (`USD`, `credits`).
    pub currency: Option<String>,
    /// Permission requests during the turn.
    pub asked: u32,
    /// Of them, allowed.
    pub allowed: u32,
}

impl TaskWork {
    /// How long the turn took, in milliseconds, once it ended.
    pub fn took_ms(&self) -> Option<u64> {
        Some(self.ended_ms?.saturating_sub(self.started_ms?))
    }
}

impl Task {
    /// A new task id: eight hex digits from the clock and a counter (unique within a process;
    /// the history's key adds the team).
    pub fn new_id() -> String {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().subsec_nanos();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        format!("t{:08x}", nanos.rotate_left(7) ^ n.wrapping_mul(0x9e37_79b9) ^ std::process::id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_differ_and_states_read_as_their_codes() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| Task::new_id()).collect();
        assert_eq!(ids.len(), 1000);
        let task = Task {
            id: "t1".into(),
            team: "team".into(),
            member: "Demo · squad".into(),
            text: "write a.txt".into(),
            by: Some("Lead".into()),
            state: TaskState::Failed { why: "it crashed".into() },
            assigned_at: 1,
            updated_at: 2,
            answer: None,
            message: None,
            work: TaskWork::default(),
        };
        let json = serde_json::to_value(&task).unwrap();
        assert_eq!(json["state"], "failed");
        assert_eq!(json["why"], "it crashed");
        assert_eq!(serde_json::from_value::<Task>(json).unwrap(), task);
        assert!(task.state.finished() && !TaskState::Working.finished());
        // A task saved before it had `work` still reads.
        let mut old = serde_json::to_value(&task).unwrap();
        old.as_object_mut().unwrap().remove("work");
        assert_eq!(serde_json::from_value::<Task>(old).unwrap(), task);
    }
}
