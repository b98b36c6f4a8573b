//! The teams' tasks (issue 47), kept by the channel service beside the answers it already links
//! to the messages that asked for them: a task is assigned (its message queued for the member),
//! working (the member's turn on that message began), done or failed (the turn ended), then
//! merged or in conflict (the member's merge ended). Each change is saved in the history before
//! it is told (`TeamEvent::Task`), so another process — a window beside `sidekicks team` — reads
//! the same list when the teams' marks move.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::conversation::MessageId;
use crate::protocol::teams::{Task, TaskState};
use crate::runtime::store::Store;

/// The tasks of the teams this process knows.
#[derive(Default)]
pub(super) struct Tasks {
    store: Option<Arc<Store>>,
    /// Every task, oldest first.
    list: Vec<Task>,
    /// The task each message carries (the member's answer to it ends the task).
    by_message: HashMap<MessageId, String>,
    /// The teams whose tasks were read from the history.
    read: std::collections::HashSet<String>,
}

/// Seconds since the epoch.
pub(super) fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs()
}

impl Tasks {
    pub fn new(store: Option<Arc<Store>>) -> Self {
        Self { store, ..Self::default() }
    }

    /// The tasks of `team`, oldest first.
    pub fn of(&self, team: &str) -> Vec<Task> {
        self.list.iter().filter(|t| t.team == team).cloned().collect()
    }

    /// Reads the tasks of `teams` from the history again (another process may have changed
    /// them); gives the teams whose tasks changed.
    pub async fn reload(&mut self, teams: Vec<String>) -> Vec<String> {
        let Some(store) = self.store.clone() else { return Vec::new() };
        let asked = teams.clone();
        let read = tokio::task::spawn_blocking(move || {
            asked.iter().map(|t| store.team_tasks(t).map(|tasks| (t.clone(), tasks))).collect::<Result<Vec<_>, _>>()
        })
        .await;
        let read = match read {
            Ok(Ok(read)) => read,
            Ok(Err(e)) => {
                tracing::warn!("cannot read the teams' tasks: {e}");
                return Vec::new();
            }
            Err(_) => return Vec::new(),
        };
        let mut changed = Vec::new();
        self.read.extend(teams.iter().cloned());
        self.list.retain(|t| teams.contains(&t.team));
        for (team, tasks) in read {
            if self.of(&team) != tasks {
                self.list.retain(|t| t.team != team);
                self.list.extend(tasks);
                changed.push(team);
            }
        }
        changed
    }

    /// The tasks of `team`, read from the history first if they were not yet (a door may ask
    /// as soon as it is told of the team, before this service has followed the teams).
    pub async fn of_read(&mut self, team: &str) -> Vec<Task> {
        if !self.read.contains(team) && self.store.is_some() {
            let mut teams: Vec<String> = self.read.iter().cloned().collect();
            teams.push(team.to_string());
            self.reload(teams).await;
        }
        self.of(team)
    }

    /// Records a new task, carried by message `message`.
    pub async fn add(&mut self, mut task: Task, message: Option<MessageId>) -> Task {
        if let Some(message) = message {
            task.message = Some(message.0.clone());
            self.by_message.insert(message, task.id.clone());
        }
        self.put(task.clone()).await;
        task
    }

    /// The member's turn on `message` began: its task, now working.
    pub async fn started(&mut self, message: &MessageId) -> Option<Task> {
        self.change(message, |t| (t.state == TaskState::Assigned).then(|| t.state = TaskState::Working)).await
    }

    /// The member's turn on `message` ended (`failed`: why it did not finish): its task, done or
    /// failed, with the answer.
    pub async fn ended(
        &mut self,
        message: &MessageId,
        answer: &str,
        failed: Option<String>,
        work: crate::protocol::teams::TaskWork,
    ) -> Option<Task> {
        let task = self
            .change(message, |t| {
                t.answer = Some(answer.to_string());
                t.work = work;
                t.state = match failed {
                    Some(why) => TaskState::Failed { why },
                    None => TaskState::Done,
                };
                Some(())
            })
            .await;
        self.by_message.remove(message);
        task
    }

    /// A queued message was taken back: its task failed.
    pub async fn dropped(&mut self, message: &MessageId) -> Option<Task> {
        let why = "its message was taken back before the member began".to_string();
        let task = self
            .change(message, |t| {
                t.state = TaskState::Failed { why };
                Some(())
            })
            .await;
        self.by_message.remove(message);
        task
    }

    /// Member `member` of `team` had its work merged (`conflicts`: the merge met conflicts, and
    /// the member was told): its finished tasks say so.
    pub async fn merged(&mut self, team: &str, member: &str, conflicts: bool) -> Vec<Task> {
        let state = if conflicts { TaskState::Conflict } else { TaskState::Merged };
        let ids: Vec<String> = self
            .list
            .iter()
            .filter(|t| t.team == team && t.member == member)
            .filter(|t| matches!(t.state, TaskState::Done | TaskState::Conflict) && t.state != state)
            .map(|t| t.id.clone())
            .collect();
        let mut changed = Vec::new();
        for id in ids {
            let Some(mut task) = self.list.iter().find(|t| t.id == id).cloned() else { continue };
            task.state = state.clone();
            task.updated_at = now();
            self.put(task.clone()).await;
            changed.push(task);
        }
        changed
    }

    /// Forgets the tasks of teams no longer there (the history keeps them until the team is
    /// forgotten).
    pub fn keep_teams(&mut self, teams: &[String]) {
        self.list.retain(|t| teams.contains(&t.team));
        self.read.retain(|t| teams.contains(t));
    }

    async fn change(&mut self, message: &MessageId, f: impl FnOnce(&mut Task) -> Option<()>) -> Option<Task> {
        let id = self.by_message.get(message)?.clone();
        let mut task = self.list.iter().find(|t| t.id == id)?.clone();
        f(&mut task)?;
        task.updated_at = now();
        self.put(task.clone()).await;
        Some(task)
    }

    /// Saves `task` (before it is told), and keeps it.
    async fn put(&mut self, task: Task) {
        if let Some(store) = self.store.clone() {
            let saved = task.clone();
            match tokio::task::spawn_blocking(move || store.save_task(&saved)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!("cannot remember the task {}: {e}", task.id),
                Err(_) => {}
            }
        }
        match self.list.iter_mut().find(|t| t.id == task.id) {
            Some(t) => *t = task,
            None => self.list.push(task),
        }
    }
}
