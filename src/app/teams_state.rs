//! What the window shows of teams, folded from the team service's events (ADR 0028): each
//! team's members and copies, their latest change lists, merge results, the diff and review
//! being looked at, which members are busy. The workflow (what runs, what is read again, what a
//! member is told) is the runtime's; the window only asks and shows.

use std::collections::{HashMap, HashSet};

use crate::protocol::teams::{
    Change, DiscardedWork, Leftover, MemberCopy, MergeReport, ReviewFile, TeamCommand, TeamError,
};
use crate::protocol::{TeamEvent, TeamInfo};

/// What a review decision did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    /// Files merged into the project (how many).
    Merged(usize),
    /// Put back as the project has it, in the member's copy.
    Rejected,
}

impl Decided {
    /// What a merge did, when it merged something.
    fn of_merge(result: &Result<crate::protocol::teams::MergeReport, TeamError>) -> Option<Self> {
        result.as_ref().ok().filter(|r| !r.applied.is_empty()).map(|r| Decided::Merged(r.applied.len()))
    }
}

/// A command of the recipe (a member's setup, the check after a merge) as the team page shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// What it wrote (its last 64 KB).
    pub output: String,
    /// The same without terminal escapes, as shown (made when output comes, not every frame).
    pub shown: String,
    /// Still running.
    pub running: bool,
    /// Why it failed.
    pub failed: Option<String>,
}

/// The most output of a setup command kept.
const SETUP_OUTPUT: usize = 64 * 1024;

/// Adds `text` to what a command wrote, keeping the last 64 KB.
fn push_output(setup: &mut Setup, text: &str) {
    setup.output.push_str(text);
    if setup.output.len() > SETUP_OUTPUT {
        let mut cut = setup.output.len() - SETUP_OUTPUT;
        while !setup.output.is_char_boundary(cut) {
            cut += 1;
        }
        setup.output.drain(..cut);
    }
    setup.shown = crate::model::ansi::strip_lines(&setup.output);
}

/// A member's files under review, or why they could not be read.
pub type ReviewResult = Result<Vec<ReviewFile>, TeamError>;

/// One team.
#[derive(Clone, Debug)]
pub struct TeamState {
    /// The record and the members' copies.
    pub info: TeamInfo,
    /// Each member's latest change list.
    pub changes: HashMap<String, Result<Vec<Change>, TeamError>>,
    /// Each member's latest merge.
    pub merges: HashMap<String, Result<MergeReport, TeamError>>,
    /// Members with an operation writing running (the runtime says so; the view shows a spinner).
    pub busy: HashSet<String>,
    /// The diff shown: member, path, base text, member text.
    pub diff: Option<(String, String, Option<String>, Option<String>)>,
    /// Each member's latest "Commit as branch": the branch and its commit, or why not.
    pub branches: HashMap<String, (String, Result<String, TeamError>)>,
    /// Each member's latest "Undo merge": the paths put back, or why not.
    pub undone: HashMap<String, Result<Vec<String>, TeamError>>,
    /// What became of the person's Accept recipe (the member who wrote it).
    pub recipe_accepted: Option<Result<Option<String>, TeamError>>,
    /// The member whose merged work wrote the project's recipe, not used until accepted.
    pub recipe_from: Option<String>,
    /// What that recipe would run ("setup: …", "check: …").
    pub recipe_commands: Vec<String>,
    /// The member under review and its files with their diffs (`None` inside: being read).
    pub review: Option<(String, Option<ReviewResult>)>,
    /// Counts the review results received (the panel lays out its rows again when it changes).
    pub review_generation: u64,
    /// Each member's setup command: its output, running or not, why it failed.
    pub setup: HashMap<String, Setup>,
    /// The check after the team's last merge: whose merge, and its output and end.
    pub check: Option<(String, Setup)>,
    /// Why the last review decision (accept or reject) was not carried out.
    pub decision_error: Option<TeamError>,
    /// What the last review decision did, when it did something (said in the review).
    pub decision_done: Option<Decided>,
    /// The team's tasks, oldest first (given by the person or the lead; ADR 0035).
    pub tasks: Vec<crate::protocol::teams::Task>,
    /// Where the members' changes meet (the radar), as last read.
    pub overlaps: Vec<crate::model::radar::Overlap>,
    /// Best of N: each member's attempt as last read (its files with their hunks).
    pub attempts: HashMap<String, ReviewResult>,
    /// Best of N: members whose attempt is being read.
    pub attempts_pending: HashSet<String>,
    /// Best of N: the recipe's check in each member's copy.
    pub copy_checks: HashMap<String, CopyCheck>,
    /// Best of N: what became of the last "Merge the chosen hunks".
    pub taken: Option<Result<Vec<(String, MergeReport)>, TeamError>>,
}

/// The recipe's check in a member's copy, as the compare page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CopyCheck {
    /// It runs.
    Running,
    /// The recipe has no check.
    None,
    /// It ran: passed, or how it failed; the end of what it wrote.
    Ran(Result<(), String>, String),
}

impl TeamState {
    /// Folds in what an event says of best of N's attempts; gives back the events it leaves.
    fn apply_attempts(&mut self, event: TeamEvent) -> Option<TeamEvent> {
        match event {
            // Every member's files read for review are its attempt too (best of N compares them).
            TeamEvent::Review { ref agent, ref result, .. } => {
                self.attempts.insert(agent.clone(), result.clone());
                self.attempts_pending.remove(agent);
                Some(event)
            }
            // Its change list moved: its attempt is read again (when the compare page shows).
            TeamEvent::Changes { ref agent, .. } => {
                self.attempts.remove(agent);
                Some(event)
            }
            TeamEvent::CopyChecked { agent, result, .. } => {
                let check = match result {
                    Some((result, tail)) => CopyCheck::Ran(result, tail),
                    None => CopyCheck::None,
                };
                self.copy_checks.insert(agent, check);
                None
            }
            TeamEvent::HunksTaken { result, .. } => {
                // What was taken left its attempts: they are read again.
                if result.is_ok() {
                    self.attempts.clear();
                }
                self.taken = Some(result);
                None
            }
            event => Some(event),
        }
    }

    /// Folds in an event about this team.
    fn apply(&mut self, event: TeamEvent) {
        let Some(event) = self.apply_attempts(event) else { return };
        match event {
            TeamEvent::Changes { agent, result, .. } => {
                self.changes.insert(agent, result);
            }
            TeamEvent::Busy { agent, busy, .. } => {
                match busy {
                    true => self.busy.insert(agent),
                    false => self.busy.remove(&agent),
                };
            }
            TeamEvent::Failed { error, .. } => self.decision_error = Some(error),
            TeamEvent::Diff { agent, path, base, member, .. } => self.diff = Some((agent, path, base, member)),
            TeamEvent::Merged { agent, result, .. } => {
                self.changes.remove(&agent);
                self.info.undoable = crate::protocol::teams::undoable_after(self.info.undoable.take(), &agent, &result);
                self.undone.clear();
                self.decision_error = result.as_ref().err().cloned();
                self.decision_done = Decided::of_merge(&result);
                self.merges.insert(agent, result);
            }
            TeamEvent::SetupOutput { agent, text, .. } => {
                let setup = self.setup.entry(agent).or_insert_with(|| Setup { running: true, ..Default::default() });
                push_output(setup, &text);
            }
            TeamEvent::CheckOutput { agent, text, .. } => {
                // Empty: a check starts.
                if text.is_empty() || self.check.as_ref().is_none_or(|(who, _)| *who != agent) {
                    self.check = Some((agent.clone(), Setup { running: true, ..Default::default() }));
                }
                if let Some((_, check)) = &mut self.check {
                    push_output(check, &text);
                }
            }
            TeamEvent::CheckDone { agent, result, .. } => {
                let (_, check) = self.check.get_or_insert_with(|| (agent, Setup::default()));
                check.running = false;
                check.failed = result.err();
            }
            TeamEvent::SetupDone { agent, result, .. } => {
                let setup = self.setup.entry(agent.clone()).or_default();
                setup.running = false;
                match result {
                    Ok(member) => {
                        setup.failed = None;
                        if let Some((_, m)) = self.info.members.iter_mut().find(|(a, _)| *a == agent) {
                            *m = Ok(member);
                        }
                    }
                    Err(why) => setup.failed = Some(why),
                }
            }
            TeamEvent::Review { agent, result, .. } if self.review.as_ref().is_some_and(|(who, _)| *who == agent) => {
                self.review = Some((agent, Some(result)));
                self.review_generation += 1;
            }
            TeamEvent::Rejected { agent, result, .. } => {
                self.changes.remove(&agent);
                self.decision_done = result.is_ok().then_some(Decided::Rejected);
                self.decision_error = result.err();
            }
            TeamEvent::RecipeRefused { member, commands, .. } => {
                self.recipe_from = Some(member);
                self.recipe_commands = commands;
                self.recipe_accepted = None;
            }
            TeamEvent::RecipeAccepted { result, .. } => {
                if result.is_ok() {
                    // The check that was refused for it is not a failure to show any more.
                    self.recipe_from = None;
                    self.check = None;
                    // Merges it stopped are not errors to show any more.
                    self.merges.retain(|_, m| !matches!(m, Err(TeamError::RecipeFromMember { .. })));
                }
                self.recipe_accepted = Some(result);
            }
            TeamEvent::MergeUndone { agent, result, .. } => {
                self.changes.remove(&agent);
                if result.is_ok() {
                    self.info.undoable = None;
                    self.merges.remove(&agent);
                }
                self.undone.insert(agent, result);
            }
            TeamEvent::Branched { agent, branch, result, .. } => {
                self.branches.insert(agent, (branch, result));
            }
            TeamEvent::Tasks { tasks, .. } => self.tasks = tasks,
            TeamEvent::Radar { overlaps, .. } => self.overlaps = overlaps,
            TeamEvent::Task { task } => match self.tasks.iter_mut().find(|t| t.id == task.id) {
                Some(t) => *t = task,
                None => self.tasks.push(task),
            },
            _ => {}
        }
    }

    /// Member `agent`'s latest task, if it has one.
    pub fn task_of(&self, agent: &str) -> Option<&crate::protocol::teams::Task> {
        self.tasks.iter().rev().find(|t| t.member == agent)
    }

    /// The copy of member `agent`, if usable.
    pub fn member(&self, agent: &str) -> Option<&MemberCopy> {
        self.info.members.iter().find(|(a, _)| a == agent).and_then(|(_, m)| m.as_ref().ok())
    }
}

/// Every team.
#[derive(Clone, Debug, Default)]
pub struct TeamsState {
    /// The teams, oldest first.
    pub teams: Vec<TeamState>,
    /// A team is being made.
    pub creating: bool,
    /// Why the last team could not be made.
    pub create_error: Option<TeamError>,
    /// The team made last (the view opens it).
    pub created: Option<String>,
    /// Work kept from discarded members, newest first.
    pub discarded: Vec<DiscardedWork>,
    /// The kept work of the last discard (the team page offers to restore it).
    pub last_kept: Option<DiscardedWork>,
    /// Why the last discard or restore did not happen.
    pub discard_error: Option<TeamError>,
    /// Kept work being restored (its id).
    pub restoring: Option<String>,
    /// Folders of teams that are gone, found at start (shown before they are removed).
    pub leftovers: Vec<Leftover>,
    /// Leftovers are being removed.
    pub reaping: bool,
    /// Projects an operation waits for, with what the operation holding them does.
    pub waiting: HashMap<std::path::PathBuf, String>,
    /// Merges a crash interrupted, found while this window runs, by project: the member, and
    /// finished (true) or rolled back (false), or why not (the project is still half-merged).
    pub interrupted: HashMap<std::path::PathBuf, (String, Result<bool, TeamError>)>,
    /// The copies last made ahead for the team being written (`TeamCommand::Prepare`): the
    /// project as asked, and how many are ready or why none can be made.
    pub ahead: Option<(std::path::PathBuf, Result<usize, TeamError>)>,
}

impl TeamsState {
    /// The team with id `id`.
    pub fn team(&self, id: &str) -> Option<&TeamState> {
        self.teams.iter().find(|t| t.info.record.id == id)
    }

    /// The team agent `agent` is a member of (id, name), if any.
    pub fn team_of(&self, agent: &str) -> Option<(String, String)> {
        let team = self.teams.iter().find(|t| t.info.record.members.iter().any(|m| m.agent == agent))?;
        Some((team.info.record.id.clone(), team.info.record.name.clone()))
    }

    /// The team with id `id`, mutable.
    pub fn team_mut(&mut self, id: &str) -> Option<&mut TeamState> {
        self.teams.iter_mut().find(|t| t.info.record.id == id)
    }

    /// The review of team `team` is closed: not read again as members write.
    pub fn close_review(&mut self, team: &str) {
        if let Some(t) = self.team_mut(team) {
            t.review = None;
        }
    }

    /// The members of the team added last that are not ready have their setup running (the
    /// runtime starts it with the team).
    fn setups_started(&mut self) {
        let Some(t) = self.teams.last_mut() else { return };
        for (agent, member) in &t.info.members {
            if member.as_ref().is_ok_and(|m| !m.ready) {
                t.setup.insert(agent.clone(), Setup { running: true, ..Default::default() });
            }
        }
    }

    fn add(&mut self, info: TeamInfo) {
        // The tasks stay (they are told only when they change).
        let tasks = self.teams.iter().find(|t| t.info.record.id == info.record.id).map(|t| t.tasks.clone());
        self.teams.retain(|t| t.info.record.id != info.record.id);
        self.teams.push(TeamState {
            info,
            changes: HashMap::new(),
            merges: HashMap::new(),
            busy: HashSet::new(),
            diff: None,
            branches: HashMap::new(),
            undone: HashMap::new(),
            recipe_accepted: None,
            recipe_from: None,
            recipe_commands: Vec::new(),
            review: None,
            setup: HashMap::new(),
            check: None,
            review_generation: 0,
            decision_error: None,
            decision_done: None,
            tasks: tasks.unwrap_or_default(),
            overlaps: Vec::new(),
            attempts: HashMap::new(),
            attempts_pending: HashSet::new(),
            copy_checks: HashMap::new(),
            taken: None,
        });
    }

    /// Records what a team command asked of the runtime starts, as the view shows it until the
    /// answer comes (a team being made, a review being read, a setup running).
    pub fn requested(&mut self, command: &TeamCommand) {
        match command {
            TeamCommand::Create { .. } | TeamCommand::Try { .. } => {
                self.creating = true;
                self.create_error = None;
            }
            TeamCommand::CheckCopy { team, member } => {
                if let Some(t) = self.team_mut(team) {
                    t.copy_checks.insert(member.clone(), CopyCheck::Running);
                }
            }
            TeamCommand::TakeHunks { team, .. } => {
                if let Some(t) = self.team_mut(team) {
                    t.taken = None;
                }
            }
            TeamCommand::Review { team, member } => {
                if let Some(t) = self.team_mut(team) {
                    t.attempts_pending.insert(member.clone());
                    // The files shown stay until the new ones come (no flicker as a member writes).
                    if t.review.as_ref().is_none_or(|(who, _)| who != member) {
                        // Another member's review (or the first): what an earlier decision did is not said.
                        t.decision_done = None;
                    }
                    let old = t.review.take().filter(|(who, _)| who == member).and_then(|(_, files)| files);
                    t.review = Some((member.clone(), old));
                }
            }
            TeamCommand::Setup { team, member } => {
                if let Some(t) = self.team_mut(team) {
                    t.setup.insert(member.clone(), Setup { running: true, ..Default::default() });
                }
            }
            TeamCommand::Reap { .. } => self.reaping = true,
            TeamCommand::RestoreDiscarded { id } => {
                self.restoring = Some(id.clone());
                self.discard_error = None;
            }
            _ => {}
        }
    }

    /// Applies a team event.
    pub fn apply(&mut self, event: TeamEvent) {
        match event {
            // At start, and again when another process changed the teams: those gone go, those
            // there keep what the page shows of them.
            TeamEvent::Loaded { teams, discarded, leftovers } => self.loaded(teams, discarded, leftovers),
            TeamEvent::Reaped { ids, error } => {
                self.reaping = false;
                self.leftovers.retain(|l| !ids.contains(&l.id));
                self.teams.retain(|t| !ids.contains(&t.info.record.id));
                self.discard_error = error;
            }
            TeamEvent::DiscardRefused { error, .. } => self.discard_error = Some(error),
            TeamEvent::WorkRestored { id, result } => {
                self.restoring = None;
                match result {
                    Ok(info) => {
                        self.discarded.retain(|w| w.id != id);
                        if self.last_kept.as_ref().is_some_and(|w| w.id == id) {
                            self.last_kept = None;
                        }
                        self.created = Some(info.record.id.clone());
                        self.discard_error = None;
                        self.add(info);
                        self.setups_started();
                    }
                    Err(e) => self.discard_error = Some(e),
                }
            }
            TeamEvent::WorkForgotten { id } => {
                self.discarded.retain(|w| w.id != id);
                if self.last_kept.as_ref().is_some_and(|w| w.id == id) {
                    self.last_kept = None;
                }
            }
            TeamEvent::Created { result } => {
                self.creating = false;
                match result {
                    Ok(info) => {
                        self.created = Some(info.record.id.clone());
                        self.create_error = None;
                        self.add(info);
                        self.setups_started();
                    }
                    Err(e) => self.create_error = Some(e),
                }
            }
            // The runtime reads the change list again itself.
            // (Told as it happened by `Merged` and `CheckDone`.)
            TeamEvent::CopyChanged { .. } | TeamEvent::MergeEnded { .. } => {}
            TeamEvent::Prepared { project, result } => self.ahead = Some((project, result)),
            TeamEvent::Interrupted { project, agent, result } => {
                self.interrupted.insert(project, (agent, result));
            }
            TeamEvent::Waiting { project, holder } => match holder {
                Some(holder) => {
                    self.waiting.insert(project, holder);
                }
                None => {
                    self.waiting.remove(&project);
                }
            },
            TeamEvent::Discarded { team, agents, whole_team, kept } => {
                self.members_discarded(&team, agents, whole_team, kept)
            }
            event => {
                if let Some(t) = team_of(&event).map(str::to_string).and_then(|id| self.team_mut(&id)) {
                    t.apply(event);
                }
            }
        }
    }

    /// The teams read at start, and again when another process changed them: those gone go, those
    /// there keep what the page shows of them.
    fn loaded(&mut self, teams: Vec<TeamInfo>, discarded: Vec<DiscardedWork>, leftovers: Vec<Leftover>) {
        self.teams.retain(|t| teams.iter().any(|n| n.record.id == t.info.record.id));
        for info in teams {
            match self.team_mut(&info.record.id) {
                Some(t) => {
                    let gone: Vec<String> = t
                        .info
                        .members
                        .iter()
                        .map(|(n, _)| n.clone())
                        .filter(|n| !info.members.iter().any(|(m, _)| m == n))
                        .collect();
                    for name in gone {
                        t.changes.remove(&name);
                        t.merges.remove(&name);
                    }
                    t.info = info;
                }
                None => self.add(info),
            }
        }
        self.discarded = discarded;
        self.leftovers = leftovers;
    }

    /// Members (or a whole team) discarded, their work kept.
    fn members_discarded(&mut self, team: &str, agents: Vec<String>, whole_team: bool, kept: Option<DiscardedWork>) {
        self.discard_error = None;
        self.last_kept = kept.clone();
        if let Some(kept) = kept {
            self.discarded.insert(0, kept);
        }
        if whole_team {
            self.teams.retain(|t| t.info.record.id != *team);
        } else if let Some(t) = self.team_mut(team) {
            for agent in agents {
                t.busy.remove(&agent);
                t.info.members.retain(|(a, _)| *a != agent);
                t.info.record.members.retain(|m| m.agent != agent);
                t.changes.remove(&agent);
                if t.info.undoable.as_ref() == Some(&agent) {
                    t.info.undoable = None;
                }
            }
        }
    }
}

/// The team an event is about, for those about one team's members.
fn team_of(event: &TeamEvent) -> Option<&str> {
    match event {
        TeamEvent::Changes { team, .. } => Some(team),
        TeamEvent::Busy { team, .. } => Some(team),
        TeamEvent::Failed { team, .. } => Some(team),
        TeamEvent::Diff { team, .. } => Some(team),
        TeamEvent::Merged { team, .. } => Some(team),
        TeamEvent::SetupOutput { team, .. } => Some(team),
        TeamEvent::CheckOutput { team, .. } => Some(team),
        TeamEvent::CheckDone { team, .. } => Some(team),
        TeamEvent::SetupDone { team, .. } => Some(team),
        TeamEvent::Review { team, .. } => Some(team),
        TeamEvent::Rejected { team, .. } => Some(team),
        TeamEvent::RecipeRefused { team, .. } => Some(team),
        TeamEvent::RecipeAccepted { team, .. } => Some(team),
        TeamEvent::MergeUndone { team, .. } => Some(team),
        TeamEvent::Branched { team, .. } => Some(team),
        TeamEvent::Tasks { team, .. } => Some(team),
        TeamEvent::Radar { team, .. } => Some(team),
        TeamEvent::Task { task } => Some(&task.team),
        TeamEvent::Patch { team, .. } => Some(team),
        TeamEvent::CopyChecked { team, .. } => Some(team),
        TeamEvent::HunksTaken { team, .. } => Some(team),
        _ => None,
    }
}
