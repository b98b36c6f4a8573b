//! Team operations as the front door serves them: each runs on a blocking thread and reports a
//! `TeamEvent`. Members are agents of their own in their copies (`Command::SetMember` to the manager); a merge with
//! conflicts tells the member in its conversation.

use std::path::{Path, PathBuf};

use super::Services;
use crate::model::config::AgentConfig;
use crate::model::conversation::MessageId;
use crate::protocol::teams::{MemberAgent, TeamCommand, Told};
use crate::protocol::{Command, Event, TeamEvent, TeamInfo};
use crate::runtime::store::Store;
use crate::runtime::teams::{
    self, ConflictText, MemberCopy, MergeReport, TeamError, TeamRecord, create_team, reattach_team,
};

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
        self.team_op_checked(op, None);
    }

    /// Runs `op` (a merge of `checked`'s work) on a blocking thread, sends its event, and after a
    /// merge that applied files runs the recipe's check in the project; a failed check is told to
    /// the member.
    fn team_op_checked(&self, op: impl FnOnce() -> TeamEvent + Send + 'static, checked: Option<MemberCopy>) {
        let sink = self.sink.clone();
        let commands = self.manager.clone();
        let waits = sink.clone();
        tokio::spawn(async move {
            // Waiting for another writer of the project is shown while it lasts.
            let rt = tokio::runtime::Handle::current();
            let report = move |project: &Path, holder: Option<&str>| {
                let waiting = TeamEvent::Waiting { project: project.into(), holder: holder.map(str::to_string) };
                rt.block_on(waits.send(Event::Team(waiting)));
            };
            let op = move || teams::lock::reporting_busy(report, op);
            let Ok(mut event) = tokio::task::spawn_blocking(op).await else { return };
            // Members are agents of their own, working in their copies; discarded ones end.
            let members: Vec<Command> = match &event {
                TeamEvent::Loaded { teams, .. } => teams.iter().flat_map(ready_members).collect(),
                TeamEvent::Created { result: Ok(team) } | TeamEvent::WorkRestored { result: Ok(team), .. } => {
                    ready_members(team)
                }
                TeamEvent::SetupDone { team, result: Ok(m), .. } => vec![set_member(team, m)],
                TeamEvent::Discarded { agents, .. } => {
                    agents.iter().map(|a| Command::SetMember { name: a.clone(), member: None }).collect()
                }
                _ => Vec::new(),
            };
            for command in members {
                let _ = commands.send(command).await;
            }
            // New members whose copy needs the recipe's setup first.
            let setups: Vec<(String, MemberCopy)> = match &event {
                TeamEvent::Created { result: Ok(team) } | TeamEvent::WorkRestored { result: Ok(team), .. } => team
                    .members
                    .iter()
                    .filter_map(|(_, m)| {
                        m.as_ref().ok().filter(|m| !m.ready).map(|m| (team.record.id.clone(), m.clone()))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            // Conflicts: the member is told in its conversation; the event says with which message.
            if let TeamEvent::Merged { agent, result: Ok(report), told, .. } = &mut event
                && ConflictText::new(report).needed()
            {
                let message = Told { id: MessageId::by_sidekicks(), text: ConflictText::new(report).to_string() };
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
            let applied = matches!(&event, TeamEvent::Merged { result: Ok(r), .. } if r.conflicts.is_empty() && !r.applied.is_empty());
            let team = match &event {
                TeamEvent::Merged { team, .. } => team.clone(),
                _ => String::new(),
            };
            let checked: Option<MemberCopy> = checked;
            // The recipe's check ran in a scratch copy before the merge: its result is shown; a
            // failure (nothing merged) is told to the member.
            let scratch = match &event {
                TeamEvent::Merged { result: Ok(MergeReport { checked: Some(output), .. }), .. } => {
                    Some((output.clone(), Ok(())))
                }
                TeamEvent::Merged { result: Err(TeamError::CheckFailed { why, output }), .. } => {
                    Some((output.clone(), Err(why.clone())))
                }
                _ => None,
            };
            sink.send(Event::Team(event)).await;
            // Started only once the window knows the team: their output would find no team.
            for (team, member) in setups {
                setup(&sink, &commands, team, member);
            }
            if let (Some((output, result)), Some(member)) = (scratch, &checked) {
                let agent = member.name.clone();
                let start = TeamEvent::CheckOutput { team: team.clone(), agent: agent.clone(), text: String::new() };
                sink.send(Event::Team(start)).await;
                let text = output.clone();
                sink.send(Event::Team(TeamEvent::CheckOutput { team: team.clone(), agent: agent.clone(), text })).await;
                if let Err(why) = &result {
                    let text = super::team_setup::failure_message(member, why, &output, false);
                    let id = MessageId::by_sidekicks();
                    let prompt = Command::Prompt {
                        agent: agent.clone(),
                        text,
                        context: None,
                        id: Some(id),
                        attachments: Vec::new(),
                    };
                    let _ = commands.send(prompt).await;
                }
                sink.send(Event::Team(TeamEvent::CheckDone { team: team.clone(), agent, result })).await;
                return;
            }
            if let Some(member) = checked.filter(|_| applied)
                && let Some((done, failed)) = super::team_setup::run_check(&sink, &team, &member).await
            {
                if let Some(text) = failed {
                    let id = MessageId::by_sidekicks();
                    let prompt = Command::Prompt {
                        agent: member.name.clone(),
                        text,
                        context: None,
                        id: Some(id),
                        attachments: Vec::new(),
                    };
                    let _ = commands.send(prompt).await;
                }
                sink.send(Event::Team(done)).await;
            }
        });
    }

    /// The configs of `agents` as they work now (those in the config).
    fn agent_configs(&self, agents: &[String]) -> Vec<AgentConfig> {
        agents.iter().filter_map(|a| self.agent(a)).collect()
    }

    /// The names of the agents in force (the config's and the members').
    fn agent_names(&self) -> Vec<String> {
        self.applied.borrow().as_ref().map(|c| c.agents.iter().map(|a| a.name.clone()).collect()).unwrap_or_default()
    }

    /// Loads the stored teams and reattaches their members (at start).
    pub(super) fn load_teams(&self) {
        let Some(store) = self.store.clone() else { return };
        let dir = self.teams_dir.clone();
        let taken = self.agent_names();
        self.team_op(move || {
            let records = store.teams().unwrap_or_else(|e| {
                tracing::warn!("cannot read the teams: {e}");
                Vec::new()
            });
            // Teams of earlier versions, whose members were the person's own agents: each member
            // becomes an agent of its own (ADR 0028).
            let mut taken = taken.clone();
            taken.extend(records.iter().flat_map(|r| r.members.iter().map(|m| m.agent.clone())));
            let records: Vec<TeamRecord> = records
                .into_iter()
                .map(|r| match teams::migrate::members_of_their_own(r.clone(), &mut taken) {
                    Some(migrated) => {
                        if let Err(e) = store.save_team(&migrated) {
                            tracing::warn!("cannot remember the team: {e}");
                        }
                        migrated
                    }
                    None => r,
                })
                .collect();
            let teams = records
                .iter()
                .map(|r| TeamInfo {
                    record: r.clone(),
                    members: reattach_team(r).into_iter().map(|(agent, m)| (agent, m.and_then(running))).collect(),
                    channel: store.team_channel(&r.id).ok().flatten(),
                    undoable: teams::undoable(r),
                    bytes: Some(teams::reap::disk_use(&dir.join(&r.id))),
                })
                .collect();
            let leftovers = teams::reap::leftovers(&dir, &records, &teams::container::labelled(&dir));
            TeamEvent::Loaded { teams, discarded: teams::discarded::list(&dir, Some(KEEP_DISCARDED)), leftovers }
        });
    }

    /// Serves one team command.
    pub(super) fn team(&self, command: TeamCommand) {
        match command {
            TeamCommand::Create { name, project, provider, agents, lead } => {
                let (dir, store) = (self.teams_dir.clone(), self.store.clone());
                let configs = self.agent_configs(&agents);
                let taken = self.agent_names();
                self.team_op(move || {
                    let members = new_members(&name, &agents, taken, store.as_deref());
                    let result = create_placed(&dir, &name, &project, provider, &members, lead, &configs).map(
                        |(record, members)| {
                            if let Some(store) = &store
                                && let Err(e) = store.save_team(&record)
                            {
                                tracing::warn!("cannot remember the team: {e}");
                            }
                            TeamInfo {
                                bytes: Some(teams::reap::disk_use(&dir.join(&record.id))),
                                record,
                                members: members.into_iter().map(|m| (m.name.clone(), Ok(m))).collect(),
                                channel: None,
                                undoable: None,
                            }
                        },
                    );
                    TeamEvent::Created { result }
                });
            }
            TeamCommand::Changes { team, member } => self.team_op(move || TeamEvent::Changes {
                team,
                agent: member.name.clone(),
                result: teams::changes(&member),
            }),
            TeamCommand::Diff { team, member, path } => self.team_op(move || diff(team, member, path)),
            TeamCommand::Merge { team, member, selected } => {
                let checked = member.clone();
                let op = move || TeamEvent::Merged {
                    team,
                    agent: member.name.clone(),
                    result: merge_scratch_checked(&member, selected.as_deref()),
                    told: None,
                };
                self.team_op_checked(op, Some(checked));
            }
            TeamCommand::Review { team, member } => self.team_op(move || TeamEvent::Review {
                team,
                agent: member.name.clone(),
                result: teams::review::review(&member),
            }),
            TeamCommand::DecideHunk { team, member, path, hunk, accept: true } => {
                let checked = member.clone();
                let op = move || TeamEvent::Merged {
                    team,
                    agent: member.name.clone(),
                    result: teams::review::accept_hunk(&member, &path, &hunk),
                    told: None,
                };
                self.team_op_checked(op, Some(checked));
            }
            TeamCommand::DecideHunk { team, member, path, hunk, accept: false } => {
                self.team_op(move || TeamEvent::Rejected {
                    team,
                    agent: member.name.clone(),
                    result: teams::review::reject_hunk(&member, &path, &hunk),
                })
            }
            TeamCommand::RejectFiles { team, member, changes } => self.team_op(move || TeamEvent::Rejected {
                team,
                agent: member.name.clone(),
                result: teams::review::reject_files(&member, &changes),
            }),
            TeamCommand::UndoMerge { team, member } => self.team_op(move || TeamEvent::MergeUndone {
                team,
                agent: member.name.clone(),
                result: teams::undo_merge(&member),
            }),
            TeamCommand::CommitBranch { team, member, branch, message } => self.team_op(move || {
                let result = teams::commit_as_branch(&member, &branch, &message);
                TeamEvent::Branched { team, agent: member.name.clone(), branch, result }
            }),
            TeamCommand::Discard { record, member } => {
                let (store, dir) = (self.store.clone(), self.teams_dir.clone());
                self.team_op(move || discard(&dir, store.as_deref(), record, member));
            }
            TeamCommand::Setup { team, member } => setup(&self.sink, &self.manager, team, member),
            TeamCommand::RestoreDiscarded { id, team } => {
                let (store, dir) = (self.store.clone(), self.teams_dir.clone());
                let configs = self.agent_configs(&teams::discarded::definitions(&dir, &id));
                let taken = self.agent_names();
                self.team_op(move || {
                    let result = restore(&dir, store.as_deref(), &id, team, &configs, &taken);
                    TeamEvent::WorkRestored { id, result }
                });
            }
            TeamCommand::Reap { ids } => {
                let (store, dir) = (self.store.clone(), self.teams_dir.clone());
                self.team_op(move || {
                    let mut done = Vec::new();
                    let labelled = teams::container::labelled(&dir);
                    for id in ids {
                        if let Err(error) = teams::reap::reap(&dir, &id, &labelled) {
                            return TeamEvent::Reaped { ids: done, error: Some(error) };
                        }
                        // A stored team whose project is gone is forgotten with its folder.
                        if let Some(store) = &store {
                            let _ = store.delete_team(&id);
                        }
                        done.push(id);
                    }
                    TeamEvent::Reaped { ids: done, error: None }
                });
            }
            TeamCommand::ForgetDiscarded { id } => {
                let dir = self.teams_dir.clone();
                self.team_op(move || {
                    if let Err(e) = teams::discarded::forget(&dir, &id) {
                        tracing::warn!("removing kept work {id}: {e}");
                    }
                    TeamEvent::WorkForgotten { id }
                });
            }
        }
    }
}

/// How long the work of discarded members is kept.
const KEEP_DISCARDED: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Discards one member (`Some`) or the whole team, keeping first what they did not merge: when
/// that cannot be kept, nothing is discarded.
fn discard(dir: &Path, store: Option<&Store>, mut record: TeamRecord, member: Option<MemberCopy>) -> TeamEvent {
    let members: Vec<MemberCopy> = match &member {
        Some(m) => vec![m.clone()],
        None => reattach_team(&record).into_iter().filter_map(|(_, m)| m.ok()).collect(),
    };
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    let what = format!("discarding {}", names.join(", "));
    let _lock = match teams::lock::ProjectLock::acquire(&record.project, &what) {
        Ok(lock) => lock,
        Err(error) => return TeamEvent::DiscardRefused { team: record.id, error },
    };
    let kept = match teams::discarded::keep(dir, &record, &members) {
        Ok(kept) => kept,
        Err(error) => return TeamEvent::DiscardRefused { team: record.id, error },
    };
    for m in &members {
        teams::container::remove(m);
        if let Err(e) = m.provider().discard(m) {
            tracing::warn!("discarding {}: {e}", m.name);
        }
    }
    match member {
        Some(m) => {
            record.members.retain(|r| r.agent != m.name);
            if let Some(store) = store {
                let _ = store.save_team(&record);
            }
            TeamEvent::Discarded { team: record.id, agents: vec![m.name], whole_team: false, kept }
        }
        None => {
            let agents = record.members.iter().map(|m| m.agent.clone()).collect();
            if let Some(store) = store {
                let _ = store.delete_team(&record.id);
            }
            TeamEvent::Discarded { team: record.id, agents, whole_team: true, kept }
        }
    }
}

/// Brings kept work `id` back: into its team if it is still there, else into a team made again;
/// the team is remembered.
fn restore(
    dir: &Path,
    store: Option<&Store>,
    id: &str,
    team: Option<TeamRecord>,
    configs: &[AgentConfig],
    taken: &[String],
) -> Result<TeamInfo, TeamError> {
    for agent in configs {
        teams::container::engine_for(&agent.name, &agent.runtime)?;
    }
    let (record, mut restored) = teams::discarded::restore(dir, id, team, taken)?;
    // Members whose agent runs in a container get theirs. If that fails the work is restored all
    // the same (the kept copy is gone by now) and the team remembered: the member shows the error
    // and is not moved, rather than the team being lost with its work.
    let placed = teams::container::place(&mut restored, configs);
    if let Some(store) = store
        && let Err(e) = store.save_team(&record)
    {
        tracing::warn!("cannot remember the team: {e}");
    }
    let mut members = reattach_team(&record);
    if let Err(e) = placed {
        let needs_one = |from: &str| {
            configs
                .iter()
                .any(|c| c.name == from && teams::container::engine_for(from, &c.runtime).is_ok_and(|k| k.is_some()))
        };
        for (_, member) in &mut members {
            if member.as_ref().is_ok_and(|m| m.container.is_none() && needs_one(&m.agent)) {
                *member = Err(e.clone());
            }
        }
    }
    Ok(TeamInfo {
        members,
        channel: store.and_then(|s| s.team_channel(&record.id).ok().flatten()),
        undoable: teams::undoable(&record),
        bytes: Some(teams::reap::disk_use(&dir.join(&record.id))),
        record,
    })
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

/// Merges, with the recipe's check run first in a scratch copy when the recipe says so.
fn merge_scratch_checked(member: &MemberCopy, selected: Option<&[String]>) -> Result<teams::MergeReport, TeamError> {
    use crate::model::recipe::CheckPlace;
    let recipe = teams::recipe::load(&member.project)?;
    match recipe.as_ref().and_then(|r| r.check.as_ref().map(|c| (r, c))) {
        Some((recipe, check)) if check.place == CheckPlace::Scratch => {
            teams::merge_checked(member, selected, &|steps| {
                teams::scratch::check(member, recipe, &check.command, steps).map(Some)
            })
        }
        _ => teams::merge(member, selected),
    }
}

/// The command that makes `m`, member of team `team`, an agent of its own in its copy.
fn set_member(team: &str, m: &MemberCopy) -> Command {
    let member = MemberAgent {
        from: m.agent.clone(),
        team: team.to_string(),
        workspace: m.copy.clone(),
        env: m.env.clone(),
        container: m.container.as_ref().map(|c| c.name.clone()),
    };
    Command::SetMember { name: m.name.clone(), member: Some(member) }
}

/// The members of `team` that can work (those whose setup has not succeeded wait for it).
fn ready_members(team: &TeamInfo) -> Vec<Command> {
    team.members
        .iter()
        .filter_map(|(_, m)| m.as_ref().ok().filter(|m| m.ready))
        .map(|m| set_member(&team.record.id, m))
        .collect()
}

/// The names and definitions of the members of a new team `team` made from `agents`: names no
/// agent in force (`taken`) nor any stored team's member has.
fn new_members(team: &str, agents: &[String], mut taken: Vec<String>, store: Option<&Store>) -> Vec<(String, String)> {
    let stored = store.and_then(|s| s.teams().ok()).unwrap_or_default();
    taken.extend(stored.iter().flat_map(|r| r.members.iter().map(|m| m.agent.clone())));
    agents
        .iter()
        .map(|from| {
            let name = crate::model::member_name::member_name(from, team, &taken);
            taken.push(name.clone());
            (name, from.clone())
        })
        .collect()
}

/// A member reattached at start, its container running again (after this computer restarted it
/// is stopped; removed, it is made again).
fn running(mut member: MemberCopy) -> Result<MemberCopy, TeamError> {
    teams::container::ensure(&mut member)?;
    Ok(member)
}

/// Makes a team whose members whose agents run in containers get containers of their own; if
/// one cannot be made, nothing of the team is left.
fn create_placed(
    dir: &Path,
    name: &str,
    project: &Path,
    provider: teams::ProviderKind,
    members: &[(String, String)],
    lead: Option<String>,
    configs: &[AgentConfig],
) -> Result<(TeamRecord, Vec<MemberCopy>), TeamError> {
    // Refused before any copy is made.
    for agent in configs {
        teams::container::engine_for(&agent.name, &agent.runtime)?;
    }
    let (record, mut members) = create_team(dir, name, project, provider, members, lead)?;
    if let Err(e) = teams::container::place(&mut members, configs) {
        for m in &members {
            let _ = m.provider().discard(m);
        }
        let _ = std::fs::remove_dir_all(dir.join(&record.id));
        return Err(e);
    }
    Ok((record, members))
}

/// Runs a member's setup: its output and end go to the window; once it succeeds the member
/// moves into its copy.
fn setup(
    sink: &crate::runtime::events::EventSink,
    commands: &tokio::sync::mpsc::Sender<Command>,
    team: String,
    member: MemberCopy,
) {
    let (sink, commands) = (sink.clone(), commands.clone());
    tokio::spawn(async move {
        let done = super::team_setup::run_setup(&sink, &team, member).await;
        if let TeamEvent::SetupDone { result: Ok(m), .. } = &done {
            let _ = commands.send(set_member(&team, m)).await;
        }
        sink.send(Event::Team(done)).await;
    });
}
