//! The team service's doors: following a team's copies, its notes, loading the teams at start,
//! and serving each `TeamCommand` (ADR 0028; the service's workings are in `teams.rs`).

use std::path::PathBuf;
use std::sync::Arc;

use super::Services;
use super::team_ops::{KEEP_DISCARDED, create_placed, discard, new_members, restore, running};
use super::team_outcome::Outcome;
use super::teams::*;
use crate::protocol::teams::TeamCommand;
use crate::protocol::{TeamEvent, TeamInfo};
use crate::runtime::teams::{self, reattach_team};

impl Services {
    /// Follows the copies of team `team`'s members, and no other team's (`None`: none); reads
    /// their change lists now (what changed before the watch began). A copy that cannot be
    /// watched is left unfollowed (its change list is read after each operation all the same).
    pub(super) fn follow_team(&mut self, team: Option<String>) {
        self.team_followed = None;
        let Some(id) = team else {
            let mut book = self.team.book();
            book.diff = None;
            book.review = None;
            return;
        };
        let copies: Vec<(String, PathBuf)> = match self.team.book().team(&id) {
            Some(info) => {
                info.members.iter().filter_map(|(a, m)| Some((a.clone(), m.as_ref().ok()?.copy.clone()))).collect()
            }
            None => return,
        };
        let mut followers = Vec::new();
        for (agent, copy) in copies {
            let (notes, team) = (self.team.notes.clone(), id.clone());
            // Called from the watcher's own thread.
            let on_change = Arc::new(move || {
                let _ = notes.blocking_send(TeamNote::CopyChanged { team: team.clone(), agent: agent.clone() });
            });
            match crate::runtime::workspace::watch_dir(&copy, on_change) {
                Ok(follower) => followers.push(follower),
                Err(e) => tracing::warn!("cannot follow the copy {}: {e}", copy.display()),
            }
        }
        let names: Vec<String> =
            self.team.book().team(&id).map(|t| t.members.iter().map(|(a, _)| a.clone()).collect()).unwrap_or_default();
        for agent in names {
            self.team.read_changes(id.clone(), agent);
        }
        self.team_followed = Some((id, followers));
    }

    /// A note of the team service's tasks.
    pub(super) fn team_note(&mut self, note: TeamNote) {
        match note {
            TeamNote::CopyChanged { team, agent } => {
                self.team.read_changes(team.clone(), agent.clone());
                self.team.reshow(&team, &agent);
            }
            TeamNote::Members { team } => {
                if self.team_followed.as_ref().is_some_and(|(id, _)| *id == team) {
                    self.follow_team(Some(team));
                }
            }
        }
    }

    /// The names of the agents in force (the config's and the members').
    fn agent_names(&self) -> Vec<String> {
        self.applied.borrow().as_ref().map(|c| c.agents.iter().map(|a| a.name.clone()).collect()).unwrap_or_default()
    }

    /// The configs of `agents` as they work now (those in the config).
    fn agent_configs(&self, agents: &[String]) -> Vec<crate::model::config::AgentConfig> {
        agents.iter().filter_map(|a| self.agent(a)).collect()
    }

    /// Loads the stored teams and reattaches their members (at start).
    pub(super) fn load_teams(&self) {
        let Some(store) = self.store.clone() else { return };
        let dir = self.teams_dir.clone();
        let taken = self.agent_names();
        let only = self.teams_only.clone();
        // A door that watches shows each team's disk use and the leftovers; a command line never
        // does (`docker ps` and `podman ps` were a quarter of a `team new` of 8 members).
        let shown = only.is_none() && self.watching;
        self.team.load(move || {
            // The engines' containers (for the leftovers) are asked while the teams are read and
            // reattached: `docker ps` and `podman ps` take as long as the rest of a command's start.
            let labelled = shown.then(|| {
                let dir = dir.clone();
                std::thread::spawn(move || teams::container::labelled(&dir))
            });
            let records = store.teams().unwrap_or_else(|e| {
                tracing::warn!("cannot read the teams: {e}");
                Vec::new()
            });
            // Teams of earlier versions, whose members were the person's own agents: each member
            // becomes an agent of its own (ADR 0028).
            let mut taken = taken.clone();
            taken.extend(records.iter().flat_map(|r| r.members.iter().map(|m| m.agent.clone())));
            let records: Vec<teams::TeamRecord> = records
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
            // A command line naming one team loads that team alone (`Startup::teams_only`).
            let wanted = |r: &&teams::TeamRecord| only.as_deref().is_none_or(|which| r.answers_to(which));
            let teams = records
                .iter()
                .filter(wanted)
                .map(|r| TeamInfo {
                    record: r.clone(),
                    members: reattach_team(r).into_iter().map(|(agent, m)| (agent, m.and_then(running))).collect(),
                    channel: store.team_channel(&r.id).ok().flatten(),
                    undoable: teams::undoable(r),
                    bytes: shown.then(|| teams::reap::disk_use(&dir.join(&r.id))),
                })
                .collect();
            let leftovers = match labelled.map(|listing| listing.join().unwrap_or_default()) {
                Some(labelled) => teams::reap::leftovers(&dir, &records, &labelled),
                None => Vec::new(),
            };
            Read { teams, discarded: teams::discarded::list(&dir, Some(KEEP_DISCARDED)), leftovers }
        });
    }

    /// Serves one team command.
    pub(super) fn team(&mut self, command: TeamCommand) {
        let (dir, store) = (self.teams_dir.clone(), self.store.clone());
        match command {
            TeamCommand::Follow { team } => self.follow_team(team),
            TeamCommand::Create { name, project, provider, agents, lead } => {
                self.create_team(name, project, provider, agents, lead, None);
            }
            TeamCommand::Try { name, project, provider, agents, task } => {
                self.create_team(name, project, provider, agents, None, Some(task));
            }
            TeamCommand::Prepare { project, provider, members } => self.prepare_copies(project, provider, members),
            TeamCommand::CheckCopy { team, member } => self.team.check_copy(team, member),
            TeamCommand::TakeHunks { team, picks } => self.team.take_hunks(team, picks),
            TeamCommand::Changes { team, member } => self.team.read_changes(team, member),
            TeamCommand::Diff { team, member, path } => self.team.diff(team, member, path),
            TeamCommand::Review { team, member } => self.team.review(team, member),
            TeamCommand::Patch { team, member, paths, limit } => {
                self.team.read(team, member, move |team, member| super::team_ops::patch(team, member, paths, limit));
            }
            TeamCommand::Radar { team } => self.team.radar_now(team),
            // Served by the channel service (the front door hands them over).
            TeamCommand::Assign { .. } | TeamCommand::Tasks { .. } => {}
            TeamCommand::CloseReview { team } => self.team.book().close_review(&team),
            TeamCommand::Merge { team: id, member, selected } => {
                self.team.write(id.clone(), member, move |member| {
                    let result = teams::merge_as_recipe_says(&member, selected.as_deref());
                    Outcome::merged(id, member.name.clone(), result)
                });
            }
            TeamCommand::DecideHunk { team: id, member, path, hunk, accept: true } => {
                self.team.write(id.clone(), member, move |member| {
                    let result = teams::review::accept_hunk(&member, &path, &hunk);
                    Outcome::merged(id, member.name.clone(), result)
                });
            }
            TeamCommand::DecideHunk { team: id, member, path, hunk, accept: false } => {
                self.team.write(id.clone(), member, move |member| {
                    let result = teams::review::reject_hunk(&member, &path, &hunk);
                    let wrote = result.is_ok();
                    Outcome::wrote(TeamEvent::Rejected { team: id, agent: member.name.clone(), result }, wrote)
                });
            }
            TeamCommand::RejectFiles { team: id, member, changes } => {
                self.team.write(id.clone(), member, move |member| {
                    let result = teams::review::reject_files(&member, &changes);
                    let wrote = result.is_ok();
                    Outcome::wrote(TeamEvent::Rejected { team: id, agent: member.name.clone(), result }, wrote)
                });
            }
            TeamCommand::AcceptRecipe { team } => {
                let Some(project) = self.team.book().team(&team).map(|t| t.record.project.clone()) else { return };
                self.team.op(move || {
                    Outcome::told(TeamEvent::RecipeAccepted { team, result: teams::recipe::accept(&project) })
                });
            }
            TeamCommand::UndoMerge { team: id, member } => {
                self.team.write(id.clone(), member, move |member| {
                    let result = teams::undo_merge(&member);
                    let wrote = result.is_ok();
                    Outcome::wrote(TeamEvent::MergeUndone { team: id, agent: member.name.clone(), result }, wrote)
                });
            }
            TeamCommand::CommitBranch { team: id, member, branch, message } => {
                self.team.write(id.clone(), member, move |member| {
                    let result = teams::commit_as_branch(&member, &branch, &message);
                    Outcome::told(TeamEvent::Branched { team: id, agent: member.name.clone(), branch, result })
                });
            }
            TeamCommand::Discard { team, member } => {
                let Some(record) = self.team.book().team(&team).map(|t| t.record.clone()) else {
                    tracing::warn!("discard of team {team}, which is gone");
                    return;
                };
                match member {
                    Some(name) => {
                        self.team.write(team, name, move |member| discard(&dir, store.as_deref(), record, Some(member)))
                    }
                    None => self.team.op(move || discard(&dir, store.as_deref(), record, None)),
                }
            }
            TeamCommand::Setup { team, member } => match self.team.book().member(&team, &member) {
                Ok(copy) => self.team.setup(team, copy),
                Err(e) => tracing::warn!("setup of {member}: {e}"),
            },
            TeamCommand::RestoreDiscarded { id } => self.restore_discarded(id),
            TeamCommand::Reap { ids } => self.reap(ids),
            TeamCommand::ForgetDiscarded { id } => {
                self.team.op(move || {
                    if let Err(e) = teams::discarded::forget(&dir, &id) {
                        tracing::warn!("removing kept work {id}: {e}");
                    }
                    Outcome::told(TeamEvent::WorkForgotten { id })
                });
            }
        }
    }

    /// Makes a team of new members (agents of their own) from `agents`' definitions.
    /// Copies of `project` made ahead for a team being written (`TeamCommand::Prepare`), on a
    /// thread of their own: a window closed meanwhile does not wait for them (a copy left half
    /// made is removed later, `teams::prepare_spares`).
    fn prepare_copies(&self, project: PathBuf, provider: teams::ProviderKind, members: usize) {
        let (dir, sink) = (self.teams_dir.clone(), self.sink.clone());
        let (tx, rx) = tokio::sync::oneshot::channel();
        let asked = project.clone();
        let spawned = std::thread::Builder::new().name("sidekicks-spares".into()).spawn(move || {
            let here = teams::there::place_of(&project).is_none();
            let made = match provider == teams::ProviderKind::GitWorktree && here && members > 0 {
                true => teams::prepare_spares(&dir, &project, members),
                false => Ok(Some(0)),
            };
            let _ = tx.send(made);
        });
        if let Err(e) = spawned {
            tracing::warn!("cannot start a thread to make copies ahead: {e}");
            return;
        }
        tokio::spawn(async move {
            // `None`: that project's copies are being made already (its answer comes then).
            let result = match rx.await {
                Ok(Ok(Some(ready))) => Ok(ready),
                Ok(Err(e)) => Err(e),
                Ok(Ok(None)) | Err(_) => return,
            };
            sink.send(crate::protocol::Event::Team(TeamEvent::Prepared { project: asked, result })).await;
        });
    }

    fn create_team(
        &mut self,
        name: String,
        project: PathBuf,
        provider: teams::ProviderKind,
        agents: Vec<String>,
        lead: Option<String>,
        task: Option<String>,
    ) {
        let (dir, store) = (self.teams_dir.clone(), self.store.clone());
        let configs = self.agent_configs(&agents);
        let taken = self.agent_names();
        // Names tell teams apart at every door (`sidekicks team status NAME`).
        let name_taken = self.team.book().teams.iter().any(|t| t.record.name.trim().eq_ignore_ascii_case(name.trim()));
        let watching = self.watching;
        // Best of N: once made, every member gets the task (as soon as its setup lets it work).
        let then = move |ctx: TeamCtx, event: TeamEvent| async move {
            if let (Some(task), TeamEvent::Created { result: Ok(info) }) = (task, event) {
                ctx.give_all(&info, &task).await;
            }
        };
        self.team.op_then(
            move || {
                if name_taken {
                    let taken = Err(teams::TeamError::NameTaken(name));
                    return Outcome::made(taken, |result| TeamEvent::Created { result });
                }
                let members = new_members(&name, &agents, taken, store.as_deref());
                let result = create_placed(&dir, &name, &project, provider, &members, lead, &configs).map(
                    |(record, members)| {
                        if let Some(store) = &store
                            && let Err(e) = store.save_team(&record)
                        {
                            tracing::warn!("cannot remember the team: {e}");
                        }
                        TeamInfo {
                            bytes: watching.then(|| teams::reap::disk_use(&dir.join(&record.id))),
                            record,
                            members: members.into_iter().map(|m| (m.name.clone(), Ok(m))).collect(),
                            channel: None,
                            undoable: None,
                        }
                    },
                );
                Outcome::made(result, |result| TeamEvent::Created { result })
            },
            then,
        );
    }

    /// Brings discarded work back, into its team if it is still there.
    fn restore_discarded(&mut self, id: String) {
        let (dir, store) = (self.teams_dir.clone(), self.store.clone());
        let definitions = teams::discarded::definitions(&dir, &id);
        let configs = self.agent_configs(&definitions);
        let taken = self.agent_names();
        // Into its team if it is still there.
        let team = {
            let book = self.team.book();
            let kept = book.discarded.iter().find(|w| w.id == id).map(|w| w.team.clone());
            kept.and_then(|t| book.team(&t).map(|t| t.record.clone()))
        };
        self.team.op(move || {
            let result = restore(&dir, store.as_deref(), &id, team, &configs, &taken);
            Outcome::made(result, |result| TeamEvent::WorkRestored { id, result })
        });
    }

    /// Removes what teams left behind (folders, containers), forgetting their records.
    fn reap(&mut self, ids: Vec<String>) {
        let (dir, store) = (self.teams_dir.clone(), self.store.clone());
        self.team.op(move || {
            let mut done = Vec::new();
            let labelled = teams::container::labelled(&dir);
            for id in ids {
                if let Err(error) = teams::reap::reap(&dir, &id, &labelled) {
                    return Outcome::reaped(done, Some(error));
                }
                // A stored team whose project is gone is forgotten with its folder.
                if let Some(store) = &store {
                    let _ = store.delete_team(&id);
                }
                done.push(id);
            }
            Outcome::reaped(done, None)
        });
    }
}
