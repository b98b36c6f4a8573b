//! The team service's records (ADR 0028): every team with its members' copies and the member
//! whose merge can be undone, the work kept from discarded members, the members with an
//! operation writing running, the change lists being read (read again when the copy changed
//! meanwhile), and the diff and review the window shows (read again as their member works).
//! Folded from the team events as they are sent, so it is what the window and the command line
//! are told.

use std::collections::HashSet;

use crate::protocol::teams::{DiscardedWork, MemberCopy, TeamError, TeamEvent, TeamInfo};

/// A member: its team's id and its name.
pub(super) type MemberKey = (String, String);

/// The records.
#[derive(Default)]
pub(super) struct TeamBook {
    /// The teams, oldest first.
    pub teams: Vec<TeamInfo>,
    /// Kept work of discarded members, newest first.
    pub discarded: Vec<DiscardedWork>,
    /// Members with an operation writing their copy or the project.
    pub busy: HashSet<MemberKey>,
    /// Members whose change list is being read.
    pub reading: HashSet<MemberKey>,
    /// Members whose copy changed while their change list was being read.
    pub stale: HashSet<MemberKey>,
    /// The diff the window shows: member and path.
    pub diff: Option<(MemberKey, String)>,
    /// The member whose review the window shows.
    pub review: Option<MemberKey>,
    /// Teams whose radar is being read.
    pub radar_reading: HashSet<String>,
    /// Teams whose members' copies changed while their radar was being read.
    pub radar_stale: HashSet<String>,
    /// The radar's reading of each member, kept until its copy changes (`radar_dirty`).
    pub radar_readings: std::collections::HashMap<MemberKey, std::sync::Arc<crate::runtime::teams::radar::Reading>>,
    /// Members whose copy changed since the radar read them.
    pub radar_dirty: HashSet<MemberKey>,
    /// Best of N: the task each member gets once its setup succeeds.
    pub tries: std::collections::HashMap<MemberKey, String>,
    /// Members' change lists are read only when a door asks (`Startup::watching` off: no
    /// door shows them as they move).
    pub changes_when_asked: bool,
}

impl TeamBook {
    /// The window closed team `team`'s review (none is read again as its copies move).
    pub fn close_review(&mut self, team: &str) {
        if self.review.as_ref().is_some_and(|(t, _)| t == team) {
            self.review = None;
        }
    }

    /// Team `id`.
    pub fn team(&self, id: &str) -> Option<&TeamInfo> {
        self.teams.iter().find(|t| t.record.id == id)
    }

    fn team_mut(&mut self, id: &str) -> Option<&mut TeamInfo> {
        self.teams.iter_mut().find(|t| t.record.id == id)
    }

    /// Member `name` of team `team`, or why not.
    pub fn member(&self, team: &str, name: &str) -> Result<MemberCopy, TeamError> {
        let info = self.team(team).ok_or_else(|| TeamError::NoSuchMember(format!("team {team}")))?;
        match info.members.iter().find(|(n, _)| n == name) {
            Some((_, member)) => member.clone(),
            None => Err(TeamError::NoSuchMember(name.to_string())),
        }
    }

    /// Records what `event` says.
    pub fn apply(&mut self, event: &TeamEvent) {
        match event {
            TeamEvent::Loaded { teams, discarded, .. } => {
                self.teams = teams.clone();
                self.discarded = discarded.clone();
            }
            TeamEvent::Created { result: Ok(info) } => self.put(info.clone()),
            TeamEvent::WorkRestored { id, result: Ok(info) } => {
                self.discarded.retain(|w| w.id != *id);
                self.put(info.clone());
            }
            TeamEvent::WorkForgotten { id } => self.discarded.retain(|w| w.id != *id),
            TeamEvent::SetupDone { team, agent, result: Ok(member) } => {
                if let Some(info) = self.team_mut(team)
                    && let Some((_, m)) = info.members.iter_mut().find(|(n, _)| n == agent)
                {
                    *m = Ok(member.clone());
                }
            }
            TeamEvent::Merged { team, agent, result, .. } => {
                if let Some(info) = self.team_mut(team) {
                    info.undoable = crate::protocol::teams::undoable_after(info.undoable.take(), agent, result);
                }
            }
            TeamEvent::MergeUndone { team, result: Ok(_), .. } => {
                if let Some(info) = self.team_mut(team) {
                    info.undoable = None;
                }
            }
            TeamEvent::Discarded { team, agents, whole_team, kept } => {
                if let Some(kept) = kept {
                    self.discarded.insert(0, kept.clone());
                }
                if *whole_team {
                    self.teams.retain(|t| t.record.id != *team);
                } else if let Some(info) = self.team_mut(team) {
                    info.members.retain(|(n, _)| !agents.contains(n));
                    info.record.members.retain(|m| !agents.contains(&m.agent));
                    if info.undoable.as_ref().is_some_and(|u| agents.contains(u)) {
                        info.undoable = None;
                    }
                }
            }
            TeamEvent::Reaped { ids, .. } => self.teams.retain(|t| !ids.contains(&t.record.id)),
            TeamEvent::Busy { team, agent, busy } => {
                let key = (team.clone(), agent.clone());
                if *busy {
                    self.busy.insert(key);
                } else {
                    self.busy.remove(&key);
                }
            }
            _ => {}
        }
    }

    fn put(&mut self, info: TeamInfo) {
        match self.team_mut(&info.record.id) {
            Some(t) => *t = info,
            None => self.teams.push(info),
        }
    }
}
