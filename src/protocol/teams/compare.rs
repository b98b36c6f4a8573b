//! Best of N's comparison (issue 47): the same task done by several members, side by side — what
//! each changed, the recipe's check in its copy, the time its turn took, tokens and cost where
//! the agent reports them, and the permissions it asked. Folded by each door from the same
//! answers of the team service (`Patch`, `Tasks`, `CheckCopy`), so the window's compare page and
//! `sidekicks team try|compare --json` say the same.

use serde_json::{Value, json};

use super::{FilePatch, Task, TaskState};
use crate::model::conversation::Cost;

/// One member's attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    /// The member (its name).
    pub member: String,
    /// The agent it was made from.
    pub agent: String,
    /// Files changed, lines added and removed.
    pub files: usize,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The recipe's check in its copy: passed, or how it failed (`None`: not run, or no check).
    pub check: Option<Result<(), String>>,
    /// Its latest task (the attempt), if it had one.
    pub task: Option<Task>,
}

impl Attempt {
    /// The attempt of `member` (made from `agent`) from its changed files, its tasks (the latest
    /// is the attempt) and its check.
    pub fn of(
        member: &str,
        agent: &str,
        files: &[FilePatch],
        tasks: &[Task],
        check: Option<Result<(), String>>,
    ) -> Self {
        Self {
            member: member.to_string(),
            agent: agent.to_string(),
            files: files.len(),
            added: files.iter().map(|f| f.added).sum(),
            removed: files.iter().map(|f| f.removed).sum(),
            check,
            task: tasks.iter().rev().find(|t| t.member == member).cloned(),
        }
    }

    /// Its state: the task's (`none` without one).
    pub fn state(&self) -> &'static str {
        self.task.as_ref().map_or("none", |t| t.state.code())
    }

    /// How long its turn took, in seconds.
    pub fn seconds(&self) -> Option<f64> {
        Some(self.task.as_ref()?.work.took_ms()? as f64 / 1000.0)
    }

    /// What its turn cost, when the agent said.
    pub fn cost(&self) -> Option<Cost> {
        let work = &self.task.as_ref()?.work;
        Some(Cost { millionths: work.cost_millionths?, currency: work.currency.clone()? })
    }

    /// As `--json` gives it.
    pub fn json(&self) -> Value {
        let work = self.task.as_ref().map(|t| t.work.clone()).unwrap_or_default();
        let why = match self.task.as_ref().map(|t| &t.state) {
            Some(TaskState::Failed { why }) => Some(why.clone()),
            _ => None,
        };
        json!({
            "member": self.member,
            "agent": self.agent,
            "state": self.state(),
            "why": why,
            "files": self.files,
            "added": self.added,
            "removed": self.removed,
            "check": self.check.as_ref().map(|c| match c {
                Ok(()) => "passed".to_string(),
                Err(why) => format!("failed: {why}"),
            }),
            "seconds": self.seconds(),
            "tokens": work.tokens,
            "cost": self.cost().map(|c| json!({"amount": c.millionths as f64 / 1e6, "currency": c.currency, "text": c.text()})),
            "permissions": {"asked": work.asked, "allowed": work.allowed},
            "answer": self.task.as_ref().and_then(|t| t.answer.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::teams::TaskWork;

    #[test]
    fn an_attempt_reads_its_latest_task_and_its_changes() {
        let task = |id: &str, state: TaskState, work: TaskWork| Task {
            id: id.into(),
            team: "t".into(),
            member: "ada · t".into(),
            text: "do it".into(),
            by: None,
            state,
            assigned_at: 1,
            updated_at: 2,
            answer: Some("done".into()),
            message: None,
            work,
        };
        let work = TaskWork {
            started_ms: Some(1_000),
            ended_ms: Some(3_500),
            tokens: Some(1200),
            cost_millionths: Some(12_300),
            currency: Some("USD".into()),
            asked: 2,
            allowed: 1,
        };
        let tasks = [task("old", TaskState::Merged, TaskWork::default()), task("new", TaskState::Done, work)];
        let files = [
            FilePatch { path: "a".into(), added: 3, removed: 1, ..Default::default() },
            FilePatch { path: "b".into(), added: 2, removed: 0, ..Default::default() },
        ];
        let a = Attempt::of("ada · t", "ada", &files, &tasks, Some(Err("exit code 1".into())));
        let json = a.json();
        assert_eq!(json["state"], "done");
        assert_eq!(
            (json["files"].as_u64(), json["added"].as_u64(), json["removed"].as_u64()),
            (Some(2), Some(5), Some(1))
        );
        assert_eq!(json["seconds"], 2.5);
        assert_eq!(json["tokens"], 1200);
        assert_eq!(json["cost"]["text"], "0.0123 USD");
        assert_eq!(json["permissions"], json!({"asked": 2, "allowed": 1}));
        assert_eq!(json["check"], "failed: exit code 1");
        let none = Attempt::of("bob · t", "bob", &[], &tasks, None);
        assert_eq!((none.state(), none.seconds(), none.json()["check"].clone()), ("none", None, Value::Null));
    }
}
