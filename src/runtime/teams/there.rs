//! A team whose project is on another machine (ADR 0039): `host:path` (or `ssh://host/path`).
//! Its members run on that machine (agents over SSH to that host) and their copies are made there
//! by the far side's own providers, from the repository there (a git worktree: nothing travels).
//! What writes the project — a merge, an undo — is done there by the copy service, by the same
//! code as here, under the project's lock there. This side keeps the team's record; the
//! project's path in it is written `host:/path`, a path no folder of this computer has, so that
//! nothing here ever reads or writes a folder of the same name by mistake.

use std::path::{Path, PathBuf};

use super::Places;
use super::names::{folder_name, new_id, record_of};
use super::{MemberCopy, ProviderKind, TeamError, TeamRecord};
use crate::protocol::teams::FarCopy;
use crate::runtime::copies::place::Place;
use crate::runtime::copies::wire::{Call, ProjectCall};

/// The place of a project written as one on another machine: over SSH to its host.
pub fn place_of(project: &Path) -> Option<Place> {
    let far = crate::model::project_at::far(project)?;
    Some(Place { runtime: "ssh".into(), target: far.host.into() })
}

/// The member's copy and place when its project is on another machine.
fn of(member: &MemberCopy) -> Option<(&FarCopy, Place)> {
    place_of(&member.project)?;
    member.far.as_ref().map(|far| (far, Place::of(far)))
}

/// Whether the member's project is on another machine.
pub fn is_there(member: &MemberCopy) -> bool {
    place_of(&member.project).is_some()
}

/// Refused in words: what is not done yet for a project on another machine.
pub fn not_yet(member: &MemberCopy, what: &str) -> Result<(), TeamError> {
    match place_of(&member.project) {
        Some(place) => Err(TeamError::Far {
            place: place.words(),
            message: format!("{what} is not done yet for a project on another machine (ADR 0039)"),
        }),
        None => Ok(()),
    }
}

/// Does `call` there, when the member's project is there: `None` when it is here.
pub fn call<T: serde::de::DeserializeOwned>(member: &MemberCopy, call: Call) -> Option<Result<T, TeamError>> {
    let (far, place) = match (of(member), place_of(&member.project)) {
        (Some(found), _) => found,
        (None, Some(place)) => {
            let message = "the member has no copy there".to_string();
            return Some(Err(TeamError::Far { place: place.words(), message }));
        }
        (None, None) => return None,
    };
    // Asked once: a merge is not asked again on a new connection (it may have been done).
    let result = place.with(false, |c| c.call(far.state.clone(), call.clone())).and_then(|r| r);
    Some(result.and_then(|value| {
        serde_json::from_value(value)
            .map_err(|e| TeamError::Far { place: place.words(), message: format!("an answer that does not fit: {e}") })
    }))
}

/// Does `call` to a project there: `None` when `project` is here.
pub fn project_call<T: serde::de::DeserializeOwned>(project: &Path, call: ProjectCall) -> Option<Result<T, TeamError>> {
    let place = place_of(project)?;
    let far = crate::model::project_at::far(project)?;
    let path = PathBuf::from(far.path);
    // What writes is asked once: on a new connection it may have been done already.
    let again = matches!(call, ProjectCall::Recipe | ProjectCall::CommandsToAccept);
    let result = place.with(again, |c| c.project_call(path.clone(), call.clone())).and_then(|r| r);
    Some(result.and_then(|value| {
        serde_json::from_value(value)
            .map_err(|e| TeamError::Far { place: place.words(), message: format!("an answer that does not fit: {e}") })
    }))
}

/// What `rel` is in `project` there: `None` when `project` is here.
pub fn read(project: &Path, rel: &str) -> Option<Result<super::Side, TeamError>> {
    let place = place_of(project)?;
    let path = PathBuf::from(crate::model::project_at::far(project)?.path);
    Some(place.with(true, |c| c.read_project(path.clone(), rel)))
}

/// Merges changes chosen from several members' copies into a project there: `None` when
/// `project` is here.
pub fn take_hunks(
    project: &Path,
    picks: &[(MemberCopy, String, crate::model::review::Hunk)],
) -> Option<Result<Vec<(String, super::MergeReport)>, TeamError>> {
    let place = place_of(project)?;
    let mut there = Vec::with_capacity(picks.len());
    for (member, path, hunk) in picks {
        let Some((far, _)) = of(member).filter(|_| member.project == project) else {
            let message = format!("{} is not a member of the team there", member.name);
            return Some(Err(TeamError::Far { place: place.words(), message }));
        };
        there.push((far.state.clone(), path.clone(), hunk.clone()));
    }
    project_call(project, ProjectCall::TakeHunks { picks: there })
}

/// What a check of the project there gave: whether it passed, how it failed, what it wrote.
#[derive(Debug, serde::Deserialize)]
pub struct Checked {
    /// It passed.
    pub ok: bool,
    /// How it ended (`exit code 1`).
    pub why: String,
    /// What it wrote (its end).
    pub output: String,
}

/// Runs the recipe's check in the project there, under its lock there: `None` when `project`
/// is here; `Ok(None)` when the recipe has no check of the project.
pub fn check(project: &Path) -> Option<Result<Option<Checked>, TeamError>> {
    project_call(project, ProjectCall::Check)
}

/// Records `sides` as the member's bases there, when its project is there: `None` when it is here.
pub fn rebase(member: &MemberCopy, sides: &[(String, super::Side)]) -> Option<Result<(), TeamError>> {
    let (far, place) = of(member)?;
    Some(place.with(true, |c| c.rebase(far.state.clone(), sides)))
}

/// Makes a team of `project` on another machine (`host:path`): a copy there for each member
/// (name, definition), each definition's agent running on that machine (`places`). If one copy
/// fails, the ones made are discarded.
pub fn create_team(
    teams_dir: &Path,
    (name, project): (&str, &Path),
    provider: ProviderKind,
    agents: &[(String, String)],
    lead: Option<String>,
    places: &Places,
) -> Result<(TeamRecord, Vec<MemberCopy>), TeamError> {
    let id = new_id();
    let dir = teams_dir.join(&id);
    let made = make_members(&dir, (&id, project), provider, agents, places, 1);
    let (members, project) = made.inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&dir);
    })?;
    let members_of = members.iter().map(record_of).collect();
    let record = TeamRecord { id, name: name.into(), project, provider, members: members_of, lead };
    Ok((record, members))
}

/// Adds members (name, definition) to `team`, whose project is on another machine.
pub fn add_members(
    teams_dir: &Path,
    mut team: TeamRecord,
    agents: &[(String, String)],
    places: &Places,
) -> Result<(TeamRecord, Vec<MemberCopy>), TeamError> {
    let dir = teams_dir.join(&team.id);
    let first = team.members.len() + 1;
    let (members, _) = make_members(&dir, (&team.id, &team.project), team.provider, agents, places, first)?;
    team.members.extend(members.iter().map(record_of));
    Ok((team, members))
}

/// Makes a copy there for each member (name, definition), numbered from `first`; if one fails,
/// the ones made are discarded. The members and the project as the team's record writes it
/// (`host:/canonical/path`).
fn make_members(
    dir: &Path,
    (id, project): (&str, &Path),
    provider: ProviderKind,
    agents: &[(String, String)],
    places: &Places,
    first: usize,
) -> Result<(Vec<MemberCopy>, PathBuf), TeamError> {
    let far =
        crate::model::project_at::far(project).ok_or_else(|| TeamError::BadPath(project.display().to_string()))?;
    let place = Place { runtime: "ssh".into(), target: far.host.into() };
    for (_, from) in agents {
        if places.get(from) != Some(&place) {
            let message = format!(
                "{from} does not run there: the members of a team whose project is on {} are agents that run there (runtime ssh, host {})",
                place.words(),
                far.host
            );
            return Err(TeamError::Far { place: place.words(), message });
        }
    }
    let mut members: Vec<MemberCopy> = Vec::new();
    let mut there = PathBuf::from(far.path);
    for (i, (agent, from)) in agents.iter().enumerate() {
        match make_member(dir, (id, &place, &there), provider, (agent, from), first + i) {
            Ok((member, canonical)) => {
                there = canonical;
                members.push(member);
            }
            Err(e) => {
                for member in &members {
                    let _ = member.provider().discard(member);
                }
                return Err(e);
            }
        }
    }
    Ok((members, PathBuf::from(format!("{}:{}", far.host, there.display()))))
}

/// Makes one member's copy there; the member and the project's canonical path there.
fn make_member(
    dir: &Path,
    (id, place, project): (&str, &Place, &Path),
    provider: ProviderKind,
    (agent, from): (&str, &str),
    number: usize,
) -> Result<(MemberCopy, PathBuf), TeamError> {
    let safe = folder_name(dir, agent);
    let state = dir.join(".state").join(&safe);
    let member_id = format!("{id}-{safe}");
    std::fs::create_dir_all(&state).map_err(|e| TeamError::io(&state, e))?;
    let (canonical, copy, far_state, base) =
        place.with(false, |c| c.make_there(project.to_path_buf(), (id, &safe, &member_id, agent), provider))?;
    let member = MemberCopy {
        id: member_id,
        name: agent.into(),
        agent: from.into(),
        project: PathBuf::from(format!("{}:{}", place.target, canonical.display())),
        copy,
        state,
        provider,
        base,
        dependencies: Vec::new(),
        number,
        env: Default::default(),
        ready: true,
        container: None,
        far: Some(FarCopy { runtime: place.runtime.clone(), target: place.target.clone(), state: far_state }),
    };
    if let Err(e) = member.save() {
        let _ = member.provider().discard(&member);
        return Err(e);
    }
    Ok((member, canonical))
}
