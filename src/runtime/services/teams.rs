//! The team service (ADR 0028). It owns the teams' records (`TeamBook`), serves every
//! `TeamCommand` (teams by id, members by name) on blocking threads — a write into a project
//! holds the project's lock (`teams::lock`), a member with a write running is `Busy` —, makes
//! members agents of their own (`Command::SetMember` to the manager), reads a followed member's
//! change list again as it works (again once more if its copy changed during the read), reads
//! the diff and review the window shows again when their member changes, tells a member about
//! its conflicts in its conversation, and runs the recipe's setups and checks. The window and
//! the command line are two doors onto it: they send commands and fold the events.

use crate::runtime::agents::ManagerCommand;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc;

use super::team_book::TeamBook;
use super::team_ops::diff;
use super::team_outcome::{Merge, Outcome};
use super::team_outcome::{ready_members, set_member};
use crate::model::conversation::MessageId;
use crate::protocol::AgentCommand;
use crate::protocol::teams::Told;
use crate::protocol::{Event, TeamEvent};
use crate::runtime::events::EventSink;
use crate::runtime::teams::{self, ConflictText, MemberCopy, TeamError};

/// What the team service's tasks share.
#[derive(Clone)]
pub(super) struct TeamCtx {
    book: Arc<Mutex<TeamBook>>,
    pub(super) sink: EventSink,
    manager: mpsc::Sender<ManagerCommand>,
    pub(super) notes: mpsc::Sender<TeamNote>,
    pub(super) channels: mpsc::Sender<super::channels::ChannelCommand>,
    /// The teams' folder: its `.changed` mark tells other processes the teams changed.
    teams_dir: PathBuf,
    /// Readings of the stored teams: how many began, and the latest told. Two can run at once
    /// (at start, and when another process changed them); an older one that ends last is not told.
    loads: Arc<std::sync::atomic::AtomicU64>,
    /// The latest reading told, held while a reading or a change of the teams is told: they are
    /// told one at a time.
    told_load: Arc<tokio::sync::Mutex<u64>>,
    /// How many changes of the teams (made, restored, discarded) were told: a reading during
    /// which one was is read again, as it may be from before it (seen: a team made while the
    /// first reading ran vanished from the page when that reading was told after it).
    changes: Arc<std::sync::atomic::AtomicU64>,
    /// A look for interrupted merges runs.
    looking: Arc<std::sync::atomic::AtomicBool>,
    /// The leads' tools (none when no socket could be made).
    lead_tools: Option<Arc<super::lead::LeadTools>>,
}

/// The stored teams as read: the teams, the work kept of discarded members, what teams left.
pub(super) struct Read {
    pub teams: Vec<crate::protocol::TeamInfo>,
    pub discarded: Vec<crate::protocol::teams::DiscardedWork>,
    pub leftovers: Vec<crate::protocol::teams::Leftover>,
}

/// What the service's tasks tell the front door.
pub(super) enum TeamNote {
    /// A followed member's copy changed.
    CopyChanged {
        /// The team.
        team: String,
        /// The member.
        agent: String,
    },
    /// A team's members changed (made, set up, discarded, restored): followed again if shown.
    Members {
        /// The team.
        team: String,
    },
}

impl TeamCtx {
    /// The service's shared state; the notes come back to the front door.
    pub(super) fn new(
        sink: EventSink,
        manager: mpsc::Sender<ManagerCommand>,
        book: Arc<Mutex<TeamBook>>,
        channels: mpsc::Sender<super::channels::ChannelCommand>,
        teams_dir: PathBuf,
        lead_tools: Option<Arc<super::lead::LeadTools>>,
    ) -> (Self, mpsc::Receiver<TeamNote>) {
        let (notes, rx) = mpsc::channel(256);
        let (loads, told_load, changes, looking) = (Arc::default(), Arc::default(), Arc::default(), Arc::default());
        let ctx =
            Self { book, sink, manager, notes, channels, teams_dir, loads, told_load, changes, looking, lead_tools };
        (ctx, rx)
    }

    /// Looks for merges a crash interrupted (in another process: this one holds the lock while
    /// it merges) and finishes or rolls them back, telling what became of each.
    pub(super) fn look_for_interrupted(&self) {
        use std::sync::atomic::Ordering::SeqCst;
        if self.looking.swap(true, SeqCst) {
            return;
        }
        let members: Vec<MemberCopy> = {
            let book = self.book();
            book.teams.iter().flat_map(|t| t.members.iter().filter_map(|(_, m)| m.as_ref().ok().cloned())).collect()
        };
        let ctx = self.clone();
        tokio::spawn(async move {
            let found = tokio::task::spawn_blocking(move || {
                let mut found = Vec::new();
                for member in members.iter().filter(|m| teams::journal::unfinished(&m.state)) {
                    let what = format!("finishing an interrupted merge of {}", member.name);
                    let result = match teams::lock::ProjectLock::try_acquire(&member.project, &what) {
                        // Under way in another process.
                        Ok(None) => continue,
                        Ok(Some(_lock)) => teams::journal::recover(&member.project, &member.state),
                        Err(e) => Err(e),
                    };
                    let result = match result {
                        Ok(teams::journal::Recovery::Nothing) => continue,
                        Ok(recovery) => Ok(recovery == teams::journal::Recovery::Finished),
                        Err(e) => Err(e),
                    };
                    found.push(TeamEvent::Interrupted {
                        project: member.project.clone(),
                        agent: member.name.clone(),
                        result,
                    });
                }
                found
            })
            .await
            .unwrap_or_default();
            for event in found {
                tracing::warn!("{event:?}");
                ctx.sink.send(Event::Team(event)).await;
            }
            ctx.looking.store(false, SeqCst);
        });
    }

    /// Tells other processes the teams changed.
    pub(super) async fn mark_changed(&self) {
        super::marks::mark_teams_changed(self.teams_dir.clone()).await;
    }

    pub(super) fn book(&self) -> MutexGuard<'_, TeamBook> {
        self.book.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records `event`, then sends it.
    pub(super) async fn tell(&self, event: TeamEvent) {
        self.book().apply(&event);
        self.sink.send(Event::Team(event)).await;
    }

    /// [`tell`](Self::tell) of an event that changes the teams: the channel service follows.
    /// The leads get their tools first (before a door that waits for the teams prompts one).
    async fn tell_teams_changed(&self, event: TeamEvent) {
        self.book().apply(&event);
        self.give_lead_tools().await;
        self.sink.send(Event::Team(event)).await;
        let _ = self.channels.send(super::channels::ChannelCommand::Teams).await;
    }

    /// Gives each team's lead its `sidekicks-team` server (the manager adds it to its sessions).
    async fn give_lead_tools(&self) {
        let Some(tools) = &self.lead_tools else { return };
        let mut leads: Vec<String> = self.book().teams.iter().filter_map(|t| t.record.lead.clone()).collect();
        leads.sort();
        leads.dedup();
        let servers = tools.servers(&leads);
        let _ = self.manager.send(ManagerCommand::SetLeadTools { servers }).await;
    }

    /// Runs `op` on a blocking thread and carries out its outcome: its event told, with what it
    /// starts (members working in their copies, setups) and ends. A change of the teams is ordered
    /// with the readings of the stored teams.
    pub(super) fn op(&self, op: impl FnOnce() -> Outcome + Send + 'static) {
        let ctx = self.clone();
        tokio::spawn(async move {
            let Some(outcome) = ctx.blocking(op).await else { return };
            if outcome.teams_changed {
                let _order = ctx.told_load.lock().await;
                ctx.changes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                ctx.finish(outcome).await;
            } else {
                ctx.finish(outcome).await;
            }
        });
    }

    /// Runs `op` like [`op`](Self::op), then `then` with the event it told.
    pub(super) fn op_then<F: std::future::Future<Output = ()> + Send + 'static>(
        &self,
        op: impl FnOnce() -> Outcome + Send + 'static,
        then: impl FnOnce(TeamCtx, TeamEvent) -> F + Send + 'static,
    ) {
        let ctx = self.clone();
        tokio::spawn(async move {
            let Some(outcome) = ctx.blocking(op).await else { return };
            let event = outcome.event.clone();
            if outcome.teams_changed {
                let _order = ctx.told_load.lock().await;
                ctx.changes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                ctx.finish(outcome).await;
            } else {
                ctx.finish(outcome).await;
            }
            then(ctx, event).await;
        });
    }

    /// Runs `load` (a reading of the stored teams) like [`op`](Self::op), unless a reading that
    /// began after it was told first; again when the teams changed while it ran.
    pub(super) fn load(&self, load: impl Fn() -> Read + Send + Sync + 'static) {
        use std::sync::atomic::Ordering::SeqCst;
        let ctx = self.clone();
        let began = self.loads.fetch_add(1, SeqCst) + 1;
        let load = Arc::new(load);
        tokio::spawn(async move {
            loop {
                let changes = ctx.changes.load(SeqCst);
                let read = load.clone();
                let Some(read) = ctx.blocking(move || read()).await else { return };
                let mut told = ctx.told_load.lock().await;
                if began < *told {
                    return;
                }
                if ctx.changes.load(SeqCst) != changes {
                    continue;
                }
                *told = began;
                ctx.loaded(read).await;
                return;
            }
        });
    }

    /// Runs `op` on a blocking thread, reporting waits for a project's lock meanwhile.
    pub(super) async fn blocking<T: Send + 'static>(&self, op: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (rt, waits) = (tokio::runtime::Handle::current(), self.sink.clone());
        let report = move |project: &Path, holder: Option<&str>| {
            let waiting = TeamEvent::Waiting { project: project.into(), holder: holder.map(str::to_string) };
            rt.block_on(waits.send(Event::Team(waiting)));
        };
        tokio::task::spawn_blocking(move || teams::lock::reporting_busy(report, op)).await.ok()
    }

    /// Runs the read `op` as [`TeamCtx::blocking`] does, but on a thread of its own that nothing
    /// waits for when the runtime ends: a command-line door ends as soon as it has its answer,
    /// not after the change lists and the radar it would never show are read (issue 50). Only
    /// for what writes nothing.
    pub(super) async fn reading<T: Send + 'static>(&self, op: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (rt, waits) = (tokio::runtime::Handle::current(), self.sink.clone());
        let report = move |project: &Path, holder: Option<&str>| {
            let waiting = TeamEvent::Waiting { project: project.into(), holder: holder.map(str::to_string) };
            rt.block_on(waits.send(Event::Team(waiting)));
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("sidekicks-team-read".into())
            .spawn(move || drop(tx.send(teams::lock::reporting_busy(report, op))));
        if let Err(e) = spawned {
            tracing::warn!("cannot start a thread to read a team's copies: {e}");
            return None;
        }
        rx.await.ok()
    }

    /// Carries out what an operation did: a recipe a member wrote shown, members made agents of
    /// their own or ended, other processes told the teams changed (before the event: the command
    /// line ends once told), the event told, the team's copies followed again, setups started
    /// (once the window knows the team: their output would find no team).
    pub(super) async fn finish(&self, outcome: Outcome) {
        if let Some((team, member)) = &outcome.recipe_refused {
            let project = self.book().team(team).map(|t| t.record.project.clone());
            if let Some(project) = project {
                super::team_setup::tell_refused(&self.sink, team, &project, member).await;
            }
        }
        for command in outcome.members {
            let _ = self.manager.send(command).await;
        }
        if outcome.stored {
            self.mark_changed().await;
        }
        match outcome.teams_changed {
            true => self.tell_teams_changed(outcome.event).await,
            false => self.tell(outcome.event).await,
        }
        if let Some(team) = outcome.members_of {
            let _ = self.notes.send(TeamNote::Members { team }).await;
        }
        for (team, member) in outcome.setups {
            self.setup(team, member);
        }
    }

    /// The stored teams read (at start, or when another process changed them): their ready members
    /// become agents, those gone since end, and each team's copies are followed again if shown.
    async fn loaded(&self, read: Read) {
        let Read { teams, discarded, leftovers } = read;
        let mut members: Vec<ManagerCommand> = teams.iter().flat_map(ready_members).collect();
        let gone: Vec<String> = {
            let book = self.book();
            let now: Vec<&String> = teams.iter().flat_map(|t| t.members.iter().map(|(n, _)| n)).collect();
            book.teams
                .iter()
                .flat_map(|t| t.members.iter().map(|(n, _)| n.clone()))
                .filter(|n| !now.contains(&n))
                .collect()
        };
        members.extend(gone.into_iter().map(|name| ManagerCommand::SetMember { name, member: None }));
        let followed: Vec<String> = teams.iter().map(|t| t.record.id.clone()).collect();
        for team in followed {
            let _ = self.notes.send(TeamNote::Members { team }).await;
        }
        for command in members {
            let _ = self.manager.send(command).await;
        }
        self.tell_teams_changed(TeamEvent::Loaded { teams, discarded, leftovers }).await;
    }

    /// Runs `op` on member `agent` of `team`, which writes its copy or the project: the member
    /// is busy meanwhile; after, its change list, and the diff and review shown of it, are read
    /// again. A merge's conflicts are told to the member, then its check runs and it ends in
    /// `MergeEnded`.
    pub(super) fn write(&self, team: String, agent: String, op: impl FnOnce(MemberCopy) -> Outcome + Send + 'static) {
        let member = self.book().member(&team, &agent);
        let ctx = self.clone();
        tokio::spawn(async move {
            let member = match member {
                Ok(member) => member,
                Err(error) => return ctx.tell(TeamEvent::Failed { team, agent, error }).await,
            };
            ctx.tell(TeamEvent::Busy { team: team.clone(), agent: agent.clone(), busy: true }).await;
            let checked = member.clone();
            let Some(mut outcome) = ctx.blocking(move || op(member)).await else { return };
            let mut merge = outcome.merge.take();
            let told = match &merge {
                Some(merge) => ctx.tell_conflicts(merge).await,
                None => None,
            };
            if let Some(message) = &told {
                outcome.told_member(message.clone());
            }
            ctx.finish(outcome).await;
            ctx.tell(TeamEvent::Busy { team: team.clone(), agent: agent.clone(), busy: false }).await;
            // (Unless it was discarded.)
            if ctx.book().member(&team, &agent).is_ok() {
                ctx.moved(&team, &agent);
            }
            if let Some(merge) = merge.take() {
                let check = ctx.check(&team, &checked, merge.scratch(), merge.applied()).await;
                if let Ok(report) = &merge.result {
                    let conflicts = !report.conflicts.is_empty() || !report.refused.is_empty();
                    let (team, agent) = (team.clone(), agent.clone());
                    let _ = ctx.channels.send(super::channels::ChannelCommand::Merged { team, agent, conflicts }).await;
                }
                ctx.tell(TeamEvent::MergeEnded { team, agent, result: merge.result, told, check }).await;
            }
        });
    }

    /// A merge with conflicts, or with files still holding markers: the member is told in its
    /// conversation (and the team's channel); gives the message it was told.
    async fn tell_conflicts(&self, merge: &Merge) -> Option<Told> {
        let report = merge.conflicts()?;
        let message = Told { id: MessageId::by_sidekicks(), text: ConflictText::new(report).to_string() };
        let prompt = ManagerCommand::Agent(
            merge.agent.clone(),
            AgentCommand::Prompt {
                text: message.text.clone(),
                context: None,
                with_transcript: false,
                id: Some(message.id.clone()),
                attachments: Vec::new(),
            },
        );
        // The channel first: it follows the member's turn on this message as a task.
        let (team, agent) = (merge.team.clone(), merge.agent.clone());
        let note = super::channels::ChannelCommand::Told { team, agent, told: message.clone() };
        let _ = self.channels.send(note).await;
        let _ = self.manager.send(prompt).await;
        Some(message)
    }

    /// The recipe's check of `member`'s merge: its result when it ran in a scratch copy before
    /// the merge; else run in the project after a merge that applied files. A failure is told
    /// to the member. Gives the check's result (`None`: none ran).
    async fn check(
        &self,
        team: &str,
        member: &MemberCopy,
        scratch: Option<(String, Result<(), String>)>,
        applied: bool,
    ) -> Option<Result<(), String>> {
        let agent = member.name.clone();
        let (done, failed) = match scratch {
            Some((output, result)) => {
                let start = TeamEvent::CheckOutput { team: team.into(), agent: agent.clone(), text: String::new() };
                self.sink.send(Event::Team(start)).await;
                let text = output.clone();
                self.sink
                    .send(Event::Team(TeamEvent::CheckOutput { team: team.into(), agent: agent.clone(), text }))
                    .await;
                let failed =
                    result.as_ref().err().map(|why| super::team_setup::failure_message(member, why, &output, false));
                (TeamEvent::CheckDone { team: team.into(), agent: agent.clone(), result }, failed)
            }
            None if applied => super::team_setup::run_check(&self.sink, team, member).await?,
            None => return None,
        };
        if let Some(text) = failed {
            let id = MessageId::by_sidekicks();
            let prompt = ManagerCommand::Agent(
                agent,
                AgentCommand::Prompt {
                    text,
                    context: None,
                    with_transcript: false,
                    id: Some(id),
                    attachments: Vec::new(),
                },
            );
            let _ = self.manager.send(prompt).await;
        }
        let result = match &done {
            TeamEvent::CheckDone { result, .. } => Some(result.clone()),
            _ => None,
        };
        self.tell(done).await;
        result
    }

    /// After an operation or a setup: member `agent`'s change list read again, and what the
    /// window shows of it; not when no door shows them as they move
    /// (`TeamBook::changes_when_asked`).
    pub(super) fn moved(&self, team: &str, agent: &str) {
        if self.book().changes_when_asked {
            return;
        }
        self.read_changes(team.to_string(), agent.to_string());
        self.reshow(team, agent);
    }

    /// Reads member `agent`'s change list and tells it; a copy that changed during the read is
    /// read again before anything is told.
    pub(super) fn read_changes(&self, team: String, agent: String) {
        let key = (team.clone(), agent.clone());
        {
            let mut book = self.book();
            if !book.reading.insert(key.clone()) {
                book.stale.insert(key);
                return;
            }
        }
        let ctx = self.clone();
        tokio::spawn(async move {
            let result = loop {
                let member = ctx.book().member(&team, &agent);
                let read = match member {
                    Ok(m) => ctx.reading(move || teams::changes(&m)).await.unwrap_or_else(|| Err(gone(&agent))),
                    Err(e) => Err(e),
                };
                let mut book = ctx.book();
                if book.stale.remove(&key) {
                    continue;
                }
                book.reading.remove(&key);
                break read;
            };
            let followed = result.is_ok();
            // A member's change list moved: so may the radar (that member is read again).
            ctx.book().radar_dirty.insert((team.clone(), agent.clone()));
            ctx.tell(TeamEvent::Changes { team: team.clone(), agent, result }).await;
            if followed {
                ctx.radar(team, true);
            }
        });
    }

    /// The diff and the review the window shows, read again if they are `agent`'s.
    pub(super) fn reshow(&self, team: &str, agent: &str) {
        let is_theirs = |(t, a): &(String, String)| t == team && a == agent;
        let (diff, review) = {
            let book = self.book();
            (book.diff.clone().filter(|(key, _)| is_theirs(key)), book.review.clone().filter(is_theirs))
        };
        if let Some(((team, agent), path)) = diff {
            self.diff(team, agent, path);
        }
        if let Some((team, agent)) = review {
            self.review(team, agent);
        }
    }

    pub(super) fn diff(&self, team: String, agent: String, path: String) {
        self.book().diff = Some(((team.clone(), agent.clone()), path.clone()));
        self.read(team, agent, move |team, member| diff(team, member, path));
    }

    pub(super) fn review(&self, team: String, agent: String) {
        self.book().review = Some((team.clone(), agent.clone()));
        self.read(team, agent, |team, member| {
            let agent = member.name.clone();
            TeamEvent::Review { team, agent, result: teams::review::review(&member) }
        });
    }

    /// Runs `op`, which only reads member `agent`, and tells its event.
    pub(super) fn read(
        &self,
        team: String,
        agent: String,
        op: impl FnOnce(String, MemberCopy) -> TeamEvent + Send + 'static,
    ) {
        let member = self.book().member(&team, &agent);
        let ctx = self.clone();
        tokio::spawn(async move {
            let event = match member {
                Ok(member) => ctx.blocking(move || op(team, member)).await,
                Err(error) => Some(TeamEvent::Failed { team, agent, error }),
            };
            if let Some(event) = event {
                ctx.tell(event).await;
            }
        });
    }

    /// Runs a member's setup: its output and end go to the window; once it succeeds the member
    /// becomes an agent of its own in its copy.
    pub(super) fn setup(&self, team: String, member: MemberCopy) {
        let ctx = self.clone();
        tokio::spawn(async move {
            let done = super::team_setup::run_setup(&ctx.sink, &team, member).await;
            if let TeamEvent::SetupDone { result: Ok(m), .. } = &done {
                let _ = ctx.manager.send(set_member(&team, m)).await;
            }
            let agent = match &done {
                TeamEvent::SetupDone { agent, .. } => agent.clone(),
                _ => String::new(),
            };
            let ready = matches!(&done, TeamEvent::SetupDone { result: Ok(_), .. });
            ctx.tell(done).await;
            // Best of N: a member that could not work yet gets its task now.
            let task = ctx.book().tries.remove(&(team.clone(), agent.clone()));
            if let Some(task) = task.filter(|_| ready) {
                ctx.give(&team, &agent, &task).await;
            }
            let _ = ctx.notes.send(TeamNote::Members { team: team.clone() }).await;
            ctx.moved(&team, &agent);
        });
    }
}

/// The error of an operation whose thread ended without an answer.
fn gone(agent: &str) -> TeamError {
    TeamError::Io { path: agent.to_string(), message: "the operation ended without an answer".into() }
}
