//! Best of N in the team service (issue 47): a new team's members all given the same task,
//! each as soon as it can work; the recipe's check run in each member's copy; hunks chosen from
//! several members' attempts merged, or none (`teams::picks`).

use super::team_outcome::Outcome;
use super::teams::TeamCtx;
use crate::protocol::TeamEvent;
use crate::runtime::teams::{self, TeamError};

impl TeamCtx {
    /// Gives every member of the new team `info` the task `task` (best of N): now if it can work,
    /// else when its setup succeeds.
    pub(super) async fn give_all(&self, info: &crate::protocol::TeamInfo, task: &str) {
        for (name, member) in &info.members {
            let Ok(member) = member else { continue };
            if member.ready {
                self.give(&info.record.id, name, task).await;
            } else {
                self.book().tries.insert((info.record.id.clone(), name.clone()), task.to_string());
            }
        }
    }

    /// Gives `member` of `team` the person's task `task`.
    pub(super) async fn give(&self, team: &str, member: &str, task: &str) {
        let assign = super::channels::ChannelCommand::Assign {
            team: team.to_string(),
            member: member.to_string(),
            text: task.to_string(),
            by: None,
            id: crate::protocol::teams::Task::new_id(),
        };
        let _ = self.channels.send(assign).await;
    }

    /// Runs the recipe's check in `agent`'s copy (best of N compares them).
    pub(super) fn check_copy(&self, team: String, agent: String) {
        let member = self.book().member(&team, &agent);
        let ctx = self.clone();
        tokio::spawn(async move {
            let event = match member {
                Ok(member) => super::team_setup::check_copy(&ctx.sink, &team, &member).await,
                Err(error) => TeamEvent::Failed { team, agent, error },
            };
            ctx.tell(event).await;
        });
    }

    /// Merges hunks chosen from several members' attempts, or none (`teams::picks`).
    pub(super) fn take_hunks(&self, team: String, picks: Vec<crate::protocol::teams::Pick>) {
        let located: Result<Vec<_>, TeamError> = {
            let book = self.book();
            picks.into_iter().map(|p| Ok((book.member(&team, &p.member)?, p.path, p.hunk))).collect()
        };
        let id = team.clone();
        let members: Vec<String> =
            located.as_ref().map(|l| l.iter().map(|(m, _, _)| m.name.clone()).collect()).unwrap_or_default();
        self.op_then(
            move || {
                let result = located.and_then(|picks| teams::picks::take_hunks(&picks));
                let wrote = result.is_ok();
                Outcome::wrote(TeamEvent::HunksTaken { team: id, result }, wrote)
            },
            move |ctx: TeamCtx, _| async move {
                for agent in members {
                    ctx.moved(&team, &agent);
                }
            },
        );
    }
}
