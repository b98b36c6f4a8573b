//! Team operations as the front door serves them: each runs on a blocking thread and reports a
//! `TeamEvent`. Members work in their copies (`Command::SetWorkspace` to the manager); a merge with
//! conflicts tells the member in its conversation.

use std::path::PathBuf;

use super::Services;
use crate::model::conversation::MessageId;
use crate::protocol::teams::{TeamCommand, Told};
use crate::protocol::{Command, Event, TeamEvent, TeamInfo};
use crate::runtime::teams::{self, ConflictText, MemberCopy, TeamError, create_team, reattach_team};

impl Services {
    /// Follows the copies of team `team`'s members, and no other team's (`None`: none). A copy
    /// that cannot be watched is left unfollowed (its page still has Refresh).
    pub(super) fn follow_team(&mut self, team: Option<(String, Vec<(String, PathBuf)>)>) {
        let Some((id, copies)) = team else {
            self.team_followed = None;
            return;
        };
        self.team_followed = None;
        let rt = tokio::runtime::Handle::current();
        let mut followers = Vec::new();
        for (agent, copy) in copies {
            let (sink, handle, team) = (self.sink.clone(), rt.clone(), id.clone());
            let name = agent.clone();
            // Called from the watcher's own thread: the event goes through this runtime.
            let on_change = std::sync::Arc::new(move || {
                let (sink, team, agent) = (sink.clone(), team.clone(), agent.clone());
                handle.spawn(async move { sink.send(Event::Team(TeamEvent::CopyChanged { team, agent })).await });
            });
            match crate::runtime::workspace::watch_dir(&copy, on_change) {
                Ok(follower) => followers.push(follower),
                Err(e) => tracing::warn!("cannot follow the copy {}: {e}", copy.display()),
            }
            // What changed before the watch began is looked at once it has.
            let (sink, team) = (self.sink.clone(), id.clone());
            rt.spawn(async move { sink.send(Event::Team(TeamEvent::CopyChanged { team, agent: name })).await });
        }
        self.team_followed = Some((id, followers));
    }

    /// Runs `op` on a blocking thread and sends its event.
    fn team_op(&self, op: impl FnOnce() -> TeamEvent + Send + 'static) {
        let sink = self.sink.clone();
        let commands = self.manager.clone();
        tokio::spawn(async move {
            let Ok(mut event) = tokio::task::spawn_blocking(op).await else { return };
            // Members work in their copies; discarded ones go back to their own folder.
            let moves: Vec<(String, Option<PathBuf>)> = match &event {
                TeamEvent::Loaded { teams } => teams.iter().flat_map(member_folders).collect(),
                TeamEvent::Created { result: Ok(team) } => member_folders(team),
                TeamEvent::Discarded { agents, .. } => agents.iter().map(|a| (a.clone(), None)).collect(),
                _ => Vec::new(),
            };
            for (agent, workspace) in moves {
                let _ = commands.send(Command::SetWorkspace { agent, workspace }).await;
            }
            // Conflicts: the member is told in its conversation; the event says with which message.
            if let TeamEvent::Merged { agent, result: Ok(report), told, .. } = &mut event
                && !report.conflicts.is_empty()
            {
                let message =
                    Told { id: MessageId::by_sidekicks(), text: ConflictText::new(&report.conflicts).to_string() };
                let prompt = Command::Prompt {
                    agent: agent.clone(),
                    text: message.text.clone(),
                    context: None,
                    id: Some(message.id.clone()),
                    attachments: Vec::new(),
                };
                let _ = commands.send(prompt).await;
                *told = Some(message);
            }
            sink.send(Event::Team(event)).await;
        });
    }

    /// Loads the stored teams and reattaches their members (at start).
    pub(super) fn load_teams(&self) {
        let Some(store) = self.store.clone() else { return };
        self.team_op(move || {
            let records = store.teams().unwrap_or_else(|e| {
                tracing::warn!("cannot read the teams: {e}");
                Vec::new()
            });
            let teams = records
                .iter()
                .map(|r| TeamInfo {
                    record: r.clone(),
                    members: reattach_team(r),
                    channel: store.team_channel(&r.id).ok().flatten(),
                })
                .collect();
            TeamEvent::Loaded { teams }
        });
    }

    /// Serves one team command.
    pub(super) fn team(&self, command: TeamCommand) {
        match command {
            TeamCommand::Create { name, project, provider, agents, lead } => {
                let (dir, store) = (self.teams_dir.clone(), self.store.clone());
                self.team_op(move || {
                    let result =
                        create_team(&dir, &name, &project, provider, &agents, lead).map(|(record, members)| {
                            if let Some(store) = &store
                                && let Err(e) = store.save_team(&record)
                            {
                                tracing::warn!("cannot remember the team: {e}");
                            }
                            TeamInfo {
                                record,
                                members: members.into_iter().map(|m| (m.name.clone(), Ok(m))).collect(),
                                channel: None,
                            }
                        });
                    TeamEvent::Created { result }
                });
            }
            TeamCommand::Changes { team, member } => self.team_op(move || TeamEvent::Changes {
                team,
                agent: member.name.clone(),
                result: teams::changes(&member),
            }),
            TeamCommand::Diff { team, member, path } => self.team_op(move || diff(team, member, path)),
            TeamCommand::Merge { team, member, selected } => self.team_op(move || TeamEvent::Merged {
                team,
                agent: member.name.clone(),
                result: teams::merge(&member, selected.as_deref()),
                told: None,
            }),
            TeamCommand::CommitBranch { team, member, branch, message } => self.team_op(move || {
                let result = teams::commit_as_branch(&member, &branch, &message);
                TeamEvent::Branched { team, agent: member.name.clone(), branch, result }
            }),
            TeamCommand::Discard { record, member } => {
                let store = self.store.clone();
                self.team_op(move || {
                    let mut record = record;
                    let discard = |m: &MemberCopy| -> Result<(), TeamError> { m.provider().discard(m) };
                    match member {
                        Some(m) => {
                            if let Err(e) = discard(&m) {
                                tracing::warn!("discarding {}: {e}", m.name);
                            }
                            record.members.retain(|r| r.agent != m.name);
                            if let Some(store) = &store {
                                let _ = store.save_team(&record);
                            }
                            TeamEvent::Discarded { team: record.id, agents: vec![m.name], whole_team: false }
                        }
                        None => {
                            let agents = record.members.iter().map(|m| m.agent.clone()).collect();
                            for (_, m) in reattach_team(&record) {
                                if let Ok(m) = m
                                    && let Err(e) = discard(&m)
                                {
                                    tracing::warn!("discarding {}: {e}", m.name);
                                }
                            }
                            if let Some(store) = &store {
                                let _ = store.delete_team(&record.id);
                            }
                            TeamEvent::Discarded { team: record.id, agents, whole_team: true }
                        }
                    }
                });
            }
        }
    }
}

/// A changed file's base and member versions for the diff view (text; `None` when absent or binary).
fn diff(team: String, member: MemberCopy, path: String) -> TeamEvent {
    let text = |side: teams::Side| match side {
        teams::Side::File { content, .. } if !crate::model::merge::is_binary(&content) => {
            Some(String::from_utf8_lossy(&content).into_owned())
        }
        teams::Side::Symlink { target } => Some(format!("-> {target}")),
        _ => None,
    };
    let base = teams::read_bases(&member, std::slice::from_ref(&path)).ok().and_then(|mut b| b.pop()).and_then(text);
    let mine = teams::read_side(&member.copy, &path).ok().and_then(text);
    TeamEvent::Diff { team, agent: member.name.clone(), path, base, member: mine }
}

/// Where each usable member of `team` works.
fn member_folders(team: &TeamInfo) -> Vec<(String, Option<PathBuf>)> {
    team.members.iter().filter_map(|(agent, m)| Some((agent.clone(), Some(m.as_ref().ok()?.copy.clone())))).collect()
}
