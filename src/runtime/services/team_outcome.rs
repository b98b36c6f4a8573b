//! What a team operation did (ADR 0028): the event to tell, and what it means besides — members
//! that become agents of their own or end, setups to run, a team whose copies are followed again,
//! whether the stored teams changed — said by the operation that knows it, not read back from
//! the event by the service.

use crate::protocol::teams::{DiscardedWork, MemberAgent, MemberCopy, MergeReport, TeamError, Told};
use crate::protocol::{TeamEvent, TeamInfo};
use crate::runtime::agents::ManagerCommand;

/// A team operation's event and what it means for the rest of the runtime.
pub(in crate::runtime::services) struct Outcome {
    /// What is told.
    pub event: TeamEvent,
    /// Members that become agents of their own (`SetMember`), or end.
    pub members: Vec<ManagerCommand>,
    /// Members whose setup runs once the window knows their team (their output would find none).
    pub setups: Vec<(String, MemberCopy)>,
    /// A team whose members changed: its copies are followed again if it is shown.
    pub members_of: Option<String>,
    /// The stored teams or a project changed: other processes' doors read the teams again.
    pub stored: bool,
    /// Teams were made, restored, discarded or reaped: ordered with the readings of the stored
    /// teams (a reading that began before is not told after), and the channels follow.
    pub teams_changed: bool,
    /// A merge stopped by a recipe a member wrote: (team, member), for the page to show it.
    pub recipe_refused: Option<(String, String)>,
    /// A merge: what its end (`MergeEnded`) and its check need.
    pub merge: Option<Merge>,
}

/// A merge, as its end needs it.
pub(in crate::runtime::services) struct Merge {
    /// The team.
    pub team: String,
    /// The member.
    pub agent: String,
    /// What it did.
    pub result: Result<MergeReport, TeamError>,
}

impl Merge {
    /// The recipe's check, when the merge ran it in a scratch copy: its output and result.
    pub fn scratch(&self) -> Option<(String, Result<(), String>)> {
        match &self.result {
            Ok(MergeReport { checked: Some(output), .. }) => Some((output.clone(), Ok(()))),
            Err(TeamError::CheckFailed { why, output }) => Some((output.clone(), Err(why.clone()))),
            _ => None,
        }
    }

    /// It applied files to the project (the recipe's check runs after it there).
    pub fn applied(&self) -> bool {
        self.result.as_ref().is_ok_and(|r| r.conflicts.is_empty() && !r.applied.is_empty())
    }

    /// The report, with conflicts for the member to be told of.
    pub fn conflicts(&self) -> Option<&MergeReport> {
        self.result.as_ref().ok().filter(|r| crate::runtime::teams::ConflictText::new(r).needed())
    }
}

impl Outcome {
    /// Only told: a reading, a refusal, a failure.
    pub fn told(event: TeamEvent) -> Self {
        Self {
            event,
            members: Vec::new(),
            setups: Vec::new(),
            members_of: None,
            stored: false,
            teams_changed: false,
            recipe_refused: None,
            merge: None,
        }
    }

    /// A write into a project or a member's copy (an undo, a rejection, a branch): other
    /// processes read the teams again when `wrote` (it did).
    pub fn wrote(event: TeamEvent, wrote: bool) -> Self {
        Self { stored: wrote, ..Self::told(event) }
    }

    /// A team made, or discarded work restored (`event` makes the event of the result): its ready
    /// members become agents, the others' setups run, its copies are followed.
    pub fn made(
        result: Result<TeamInfo, TeamError>,
        event: impl FnOnce(Result<TeamInfo, TeamError>) -> TeamEvent,
    ) -> Self {
        let Ok(team) = &result else { return Self::told(event(result)) };
        let members = ready_members(team);
        let setups = team
            .members
            .iter()
            .filter_map(|(_, m)| m.as_ref().ok().filter(|m| !m.ready).cloned())
            .map(|m| (team.record.id.clone(), m))
            .collect();
        let members_of = Some(team.record.id.clone());
        Self { members, setups, members_of, stored: true, teams_changed: true, ..Self::told(event(result)) }
    }

    /// Members of `team` discarded (all of them with `whole_team`), their work kept: they end.
    pub fn discarded(team: String, agents: Vec<String>, whole_team: bool, kept: Option<DiscardedWork>) -> Self {
        let members = agents.iter().map(|a| ManagerCommand::SetMember { name: a.clone(), member: None }).collect();
        let members_of = Some(team.clone());
        let event = TeamEvent::Discarded { team, agents, whole_team, kept };
        Self { members, members_of, stored: true, teams_changed: true, ..Self::told(event) }
    }

    /// Leftovers removed (`ids`), until `error`.
    pub fn reaped(ids: Vec<String>, error: Option<TeamError>) -> Self {
        Self { stored: true, teams_changed: true, ..Self::told(TeamEvent::Reaped { ids, error }) }
    }

    /// A merge of `agent`'s work into `team`'s project (or of its hunk): told with what members
    /// are told, then ended by its check and `MergeEnded`.
    pub fn merged(team: String, agent: String, result: Result<MergeReport, TeamError>) -> Self {
        let recipe_refused = match &result {
            Err(TeamError::RecipeFromMember { member }) => Some((team.clone(), member.clone())),
            _ => None,
        };
        let merge = Merge { team: team.clone(), agent: agent.clone(), result: result.clone() };
        let event = TeamEvent::Merged { team, agent, result: result.clone(), told: None };
        Self { stored: result.is_ok(), recipe_refused, merge: Some(merge), ..Self::told(event) }
    }

    /// The conflicts told to the member, recorded in the event.
    pub fn told_member(&mut self, message: Told) {
        if let TeamEvent::Merged { told, .. } = &mut self.event {
            *told = Some(message);
        }
    }
}

/// The command that makes `m`, member of team `team`, an agent of its own in its copy.
pub(super) fn set_member(team: &str, m: &MemberCopy) -> ManagerCommand {
    let member = MemberAgent {
        from: m.agent.clone(),
        team: team.to_string(),
        workspace: m.copy.clone(),
        env: m.env.clone(),
        container: m.container.as_ref().map(|c| c.name.clone()),
        far: m.far.is_some(),
    };
    ManagerCommand::SetMember { name: m.name.clone(), member: Some(member) }
}

/// The members of `team` that can work (those whose setup has not succeeded wait for it).
pub(super) fn ready_members(team: &TeamInfo) -> Vec<ManagerCommand> {
    team.members
        .iter()
        .filter_map(|(_, m)| m.as_ref().ok().filter(|m| m.ready))
        .map(|m| set_member(&team.record.id, m))
        .collect()
}
