//! A team: a project folder and member agents, each with its isolated copy. The record is what
//! the store keeps; the member copies themselves are described by `member.json` in their state
//! folders, so a team reattaches after a restart.

use std::path::Path;

use super::names::{folder_name, new_id, record_of};
use super::{MemberCopy, ProviderKind, TeamError, TeamRecord};
use crate::runtime::copies::place::Place;

/// Where the copies of the members of each agent definition are kept, when not on this computer.
pub type Places = std::collections::BTreeMap<String, Place>;

/// Makes a team: a copy of `project` for each member (its name and the agent definition it is
/// an instance of), in `teams_dir/<id>/<member>` (state in `teams_dir/<id>/.state/<member>`). If
/// one copy fails, the ones made are discarded.
pub fn create_team(
    teams_dir: &Path,
    name: &str,
    project: &Path,
    provider: ProviderKind,
    agents: &[(String, String)],
    lead: Option<String>,
) -> Result<(TeamRecord, Vec<MemberCopy>), TeamError> {
    create_team_at(teams_dir, (name, project), provider, agents, lead, &Places::new())
}

/// The same, the copies of the members of the definitions of `far` kept there.
pub fn create_team_at(
    teams_dir: &Path,
    (name, project): (&str, &Path),
    provider: ProviderKind,
    agents: &[(String, String)],
    lead: Option<String>,
    far: &Places,
) -> Result<(TeamRecord, Vec<MemberCopy>), TeamError> {
    // A project on another machine: its members' copies are made there (ADR 0039).
    if super::there::place_of(project).is_some() {
        let (record, members) = super::there::create_team(teams_dir, (name, project), provider, agents, lead, far)?;
        return match prepared_there(&record.project, members) {
            Ok(members) => Ok((record, members)),
            Err(e) => {
                let _ = std::fs::remove_dir_all(teams_dir.join(&record.id));
                Err(e)
            }
        };
    }
    let project = project.canonicalize().map_err(|e| TeamError::io(project, e))?;
    let isolation = provider.provider();
    isolation.available(&project)?;
    let id = new_id();
    let dir = teams_dir.join(&id);
    let members = match make_members(&dir, (&id, &project), provider, agents, far) {
        Ok(members) => members,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e);
        }
    };
    let record =
        TeamRecord { id, name: name.into(), project, provider, members: members.iter().map(record_of).collect(), lead };
    Ok((record, members))
}

/// An agent's name as a folder name (its copy's and state's).
pub(super) fn safe_name(agent: &str) -> String {
    agent.chars().map(|c| if c.is_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// Makes a copy of `project` for each member (name, definition) in team folder `dir`; if one
/// fails, the ones made are discarded.
fn make_members(
    dir: &Path,
    (id, project): (&str, &Path),
    provider: ProviderKind,
    agents: &[(String, String)],
    far: &Places,
) -> Result<Vec<MemberCopy>, TeamError> {
    let isolation = provider.provider();
    let recipe = super::recipe::load(project)?;
    // Numbers (blocks of ports) after those of the members already there.
    let first = std::fs::read_dir(dir.join(".state"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| MemberCopy::load(&e.path()).ok())
        .map(|m| m.number)
        .max()
        .unwrap_or(0)
        + 1;
    let mut members = Vec::new();
    for (i, (agent, from)) in agents.iter().enumerate() {
        let safe = folder_name(dir, agent);
        let state = dir.join(".state").join(&safe);
        let member_id = format!("{id}-{safe}");
        let made = match far.get(from) {
            Some(place) => super::far::create(project, place, &state, (id, &safe), (&member_id, agent)),
            None => isolation.create(project, &dir.join(&safe), &state, &member_id, agent),
        };
        let made = made.and_then(|mut member| {
            member.agent = from.clone();
            match member.save() {
                Ok(()) => Ok(member),
                Err(e) => {
                    let _ = member.provider().discard(&member);
                    Err(e)
                }
            }
        });
        let prepared = made.and_then(|mut member| match &recipe {
            Some(recipe) => match super::recipe::prepare(&mut member, recipe, first + i) {
                Ok(()) => Ok(member),
                Err(e) => {
                    let _ = member.provider().discard(&member);
                    Err(e)
                }
            },
            None => Ok(member),
        });
        match prepared {
            Ok(member) => members.push(member),
            Err(e) => {
                for member in &members {
                    let _ = member.provider().discard(member);
                }
                return Err(e);
            }
        }
    }
    Ok(members)
}

/// Members whose project is on another machine, as its recipe (read there) says: their numbers
/// and ports, whether a setup must run (its files were copied there as the copies were made).
/// If one fails, all are discarded.
fn prepared_there(project: &Path, mut members: Vec<MemberCopy>) -> Result<Vec<MemberCopy>, TeamError> {
    let prepared = super::recipe::load(project).and_then(|recipe| {
        let Some(recipe) = recipe else { return Ok(()) };
        members.iter_mut().try_for_each(|m| {
            let number = m.number;
            super::recipe::prepare(m, &recipe, number)
        })
    });
    if let Err(e) = prepared {
        for member in &members {
            let _ = member.provider().discard(member);
        }
        return Err(e);
    }
    Ok(members)
}

/// Adds members (name, definition) to `team` (in `teams_dir/<id>`), each with a new copy of the
/// project.
pub fn add_members(
    teams_dir: &Path,
    team: TeamRecord,
    agents: &[(String, String)],
) -> Result<(TeamRecord, Vec<MemberCopy>), TeamError> {
    add_members_at(teams_dir, team, agents, &Places::new())
}

/// The same, the copies of the members of the definitions of `far` kept there.
pub fn add_members_at(
    teams_dir: &Path,
    mut team: TeamRecord,
    agents: &[(String, String)],
    far: &Places,
) -> Result<(TeamRecord, Vec<MemberCopy>), TeamError> {
    if super::there::place_of(&team.project).is_some() {
        let (record, members) = super::there::add_members(teams_dir, team, agents, far)?;
        let members = prepared_there(&record.project, members)?;
        return Ok((record, members));
    }
    team.provider.provider().available(&team.project)?;
    let dir = teams_dir.join(&team.id);
    let members = make_members(&dir, (&team.id, &team.project), team.provider, agents, far)?;
    team.members.extend(members.iter().map(record_of));
    Ok((team, members))
}

/// Loads and reattaches each member of a stored team (after an app restart), first finishing or
/// rolling back a merge a crash interrupted.
///
/// Reading a team is not writing it: a merge, undo or discard under way in another process (or
/// on another thread) holds the project's lock and its journal is its own. So an unfinished
/// journal is recovered only under the project's lock, taken without waiting; when someone
/// holds it, the journal is left to them (the holder recovers it first, or is writing it now).
pub fn reattach_team(record: &TeamRecord) -> Vec<(String, Result<MemberCopy, TeamError>)> {
    record
        .members
        .iter()
        .map(|m| {
            let member = MemberCopy::load(&m.state).and_then(|copy| {
                recover_if_free(&copy)?;
                copy.provider().reattach(&copy)?;
                Ok(copy)
            });
            (m.agent.clone(), member)
        })
        .collect()
}

/// Recovers the member's journals (the project's merge, the member's own copy) when one is
/// unfinished and nobody holds the project's lock.
fn recover_if_free(copy: &MemberCopy) -> Result<(), TeamError> {
    let member_journal = copy.state.join("member-journal");
    // A far copy's own journal is there: the copy service finishes it before it writes again.
    let member_journal_here = copy.far.is_none() && super::journal::unfinished(&member_journal);
    if !super::journal::unfinished(&copy.state) && !member_journal_here {
        return Ok(());
    }
    let what = format!("finishing an interrupted merge of {}", copy.name);
    let Some(_lock) = super::lock::ProjectLock::try_acquire(&copy.project, &what)? else {
        tracing::debug!("{}: a merge is under way elsewhere; its journal is left to it", copy.name);
        return Ok(());
    };
    let recovered = super::journal::recover(&copy.project, &copy.state)?;
    if recovered != super::journal::Recovery::Nothing {
        tracing::info!("an interrupted merge of {} into {}: {recovered:?}", copy.name, copy.project.display());
    }
    if copy.far.is_none() {
        super::journal::recover(&copy.copy, &member_journal)?;
    }
    Ok(())
}
