//! Members whose copy is kept where their agent runs (another machine, a sandbox, a pod): the copy
//! service there (`runtime::copies`) makes the copy from the project's files sent from here, lists
//! what changed against its original base, reads a path at the base and now, writes what a merge
//! or a review decides, and discards it. Everything else stays here as for a copy on this
//! computer: the project, the merge (exactly git's), the paths rebased after a merge or a
//! conflict, the journals of the project, undo. ADR 0037.

use std::path::Path;

use super::journal::Step;
use super::{Capabilities, Dependencies, IsolationProvider, MemberCopy, ProviderKind, Side, TeamError};
use crate::protocol::teams::FarCopy;
use crate::runtime::copies::place::Place;

/// Where the members of an agent running on `runtime` keep their copies, when not on this
/// computer: on its machine, in its sandbox or pod. (Docker and Podman members get containers of
/// their own with their copies bound from here: `container.rs`.)
pub fn place_for(runtime: &crate::model::config::RuntimeConfig) -> Option<Place> {
    use crate::model::config::RuntimeKind as K;
    matches!(runtime.kind, K::Ssh | K::Sbx | K::Kubectl).then(|| Place {
        runtime: runtime.kind.code().to_string(),
        target: runtime.target_name().unwrap_or_default().to_string(),
    })
}

/// The places of the members of `agents`' definitions.
pub fn places(agents: &[crate::model::config::AgentConfig]) -> super::Places {
    agents.iter().filter_map(|a| Some((a.name.clone(), place_for(&a.runtime)?))).collect()
}

/// The provider of a far member's copy.
pub struct FarProvider;

fn far(member: &MemberCopy) -> Result<(&FarCopy, Place), TeamError> {
    let far = member
        .far
        .as_ref()
        .ok_or_else(|| TeamError::Io { path: member.state.display().to_string(), message: "not a far copy".into() })?;
    Ok((far, Place::of(far)))
}

impl IsolationProvider for FarProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Copy
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            instant: false,
            // Dependency folders stay here: the recipe's setup makes them there.
            dependencies_ready: false,
            dependencies: Dependencies::Isolated,
            resident_process: true,
        }
    }

    fn available(&self, project: &Path) -> Result<(), TeamError> {
        match project.is_dir() {
            true => Ok(()),
            false => Err(TeamError::Unavailable { reason: super::Unavailable::NotAFolder }),
        }
    }

    fn create(&self, _: &Path, copy: &Path, _: &Path, _: &str, _: &str) -> Result<MemberCopy, TeamError> {
        Err(TeamError::Io { path: copy.display().to_string(), message: "a far copy is made by `far::create`".into() })
    }

    fn changed_paths(&self, member: &MemberCopy) -> Result<Vec<String>, TeamError> {
        let (far, place) = far(member)?;
        place.with(true, |c| c.paths(far.state.clone()))
    }

    fn read_original_bases(&self, member: &MemberCopy, paths: &[String]) -> Result<Vec<Side>, TeamError> {
        let (far, place) = far(member)?;
        // The far side keeps no rebased paths: its base is the original.
        place.with(true, |c| paths.iter().map(|p| c.read(far.state.clone(), p, true)).collect())
    }

    fn reattach(&self, member: &MemberCopy) -> Result<(), TeamError> {
        self.changed_paths(member).map(|_| ())
    }

    fn discard(&self, member: &MemberCopy) -> Result<(), TeamError> {
        let (far, place) = far(member)?;
        match place.with(true, |c| c.discard(far.state.clone())) {
            Ok(()) => {}
            // Gone there already: what is here goes too.
            Err(TeamError::Far { message, .. }) if message.contains("No such file") => {}
            Err(e) => return Err(e),
        }
        match std::fs::remove_dir_all(&member.state) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(TeamError::io(&member.state, e)),
            _ => Ok(()),
        }
    }
}

/// Makes `name`'s copy of `project` at `place` (the project's sources, as the copy provider takes
/// them, without dependency folders), its state here in `state`.
pub fn create(
    project: &Path,
    place: &Place,
    state: &Path,
    (team, folder): (&str, &str),
    (id, name): (&str, &str),
) -> Result<MemberCopy, TeamError> {
    FarProvider.available(project)?;
    let skip = super::deps::dependency_folders(project);
    let sources = super::copy::sources(project, &skip);
    let entries = sources.into_iter().filter(|(_, kind)| !kind.is_dir()).filter_map(|(rel, _)| {
        match super::read_side(project, &rel) {
            Ok(side) => Some(Ok((rel, side))),
            // Too big to move: left here, said in the log (its merge is by hand, as here).
            Err(TeamError::TooBig { .. }) => {
                tracing::warn!("{rel} is too big for a copy elsewhere; {name}'s copy has none");
                None
            }
            Err(e) => Some(Err(e.to_string())),
        }
    });
    let mut entries = Some(entries);
    let (copy, far_state) =
        place.with(false, |c| c.push((team, folder, id, name), entries.take().into_iter().flatten()))?;
    std::fs::create_dir_all(state).map_err(|e| TeamError::io(state, e))?;
    let member = MemberCopy {
        id: id.into(),
        name: name.into(),
        agent: String::new(),
        project: project.into(),
        copy,
        state: state.into(),
        provider: ProviderKind::Copy,
        base: String::new(),
        dependencies: Vec::new(),
        number: 0,
        env: Default::default(),
        ready: true,
        container: None,
        far: Some(FarCopy { runtime: place.runtime.clone(), target: place.target.clone(), state: far_state }),
    };
    if let Err(e) = member.save() {
        let _ = FarProvider.discard(&member);
        return Err(e);
    }
    Ok(member)
}

/// What `path` is in the member's copy now, wherever the copy is.
pub fn read_mine(member: &MemberCopy, path: &str) -> Result<Side, TeamError> {
    match &member.far {
        None => super::read_side(&member.copy, path),
        Some(far) => Place::of(far).with(true, |c| c.read(far.state.clone(), path, false)),
    }
}

/// Which of `steps` cannot be written into the member's copy (see `journal::obstacles`).
pub fn obstacles_mine(member: &MemberCopy, steps: &[Step]) -> Result<Vec<String>, TeamError> {
    match &member.far {
        None => Ok(super::journal::obstacles(&member.copy, steps)),
        Some(far) => {
            let paths: Vec<(String, bool)> = steps.iter().map(|s| (s.path.clone(), s.side == Side::Absent)).collect();
            Place::of(far).with(true, |c| c.obstacles(far.state.clone(), paths.clone()))
        }
    }
}

/// Writes `steps` into the member's copy, all or nothing (through the member's journal there).
pub fn write_mine(member: &MemberCopy, id: &str, steps: &[Step]) -> Result<(), TeamError> {
    match &member.far {
        None => {
            let dir = member.state.join("member-journal");
            std::fs::create_dir_all(&dir).map_err(|e| TeamError::io(&dir, e))?;
            super::journal::recover(&member.copy, &dir)?;
            super::journal::apply(&member.copy, &dir, &format!("{id}-{}", std::process::id()), steps)
        }
        Some(far) => {
            let sides: Vec<(String, Side)> = steps.iter().map(|s| (s.path.clone(), s.side.clone())).collect();
            Place::of(far).with(true, |c| c.write(far.state.clone(), &sides))
        }
    }
}
