//! The team operations the service runs on blocking threads, each answered with a `TeamEvent`:
//! making a team (with members' containers), discarding (keeping the work first), restoring kept
//! work, a file's two sides for the diff, a merge with the recipe's scratch check; and the
//! commands that make members agents of their own.

use super::team_outcome::Outcome;
use std::path::Path;

use crate::model::config::AgentConfig;
use crate::protocol::{TeamEvent, TeamInfo};
use crate::runtime::store::Store;
use crate::runtime::teams::{self, MemberCopy, TeamError, TeamRecord, reattach_team};

/// How long the work of discarded members is kept.
pub(super) const KEEP_DISCARDED: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Discards one member (`Some`) or the whole team, keeping first what they did not merge: when
/// that cannot be kept, nothing is discarded.
pub(super) fn discard(
    dir: &Path,
    store: Option<&Store>,
    mut record: TeamRecord,
    member: Option<MemberCopy>,
) -> Outcome {
    let members: Vec<MemberCopy> = match &member {
        Some(m) => vec![m.clone()],
        None => reattach_team(&record).into_iter().filter_map(|(_, m)| m.ok()).collect(),
    };
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    let what = format!("discarding {}", names.join(", "));
    let _lock = match teams::lock::ProjectLock::acquire(&record.project, &what) {
        Ok(lock) => lock,
        Err(error) => return Outcome::told(TeamEvent::DiscardRefused { team: record.id, error }),
    };
    let kept = match teams::discarded::keep(dir, &record, &members) {
        Ok(kept) => kept,
        Err(error) => return Outcome::told(TeamEvent::DiscardRefused { team: record.id, error }),
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
            Outcome::discarded(record.id, vec![m.name], false, kept)
        }
        None => {
            let agents = record.members.iter().map(|m| m.agent.clone()).collect();
            if let Some(store) = store {
                let _ = store.delete_team(&record.id);
            }
            // What is left of its folder (its state, its last merge's record) goes too: it would
            // be listed as left over by a team that is gone.
            let folder = dir.join(&record.id);
            if let Err(e) = std::fs::remove_dir_all(&folder)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!("removing {}: {e}", folder.display());
            }
            Outcome::discarded(record.id, agents, true, kept)
        }
    }
}

/// Brings kept work `id` back: into its team if it is still there, else into a team made again;
/// the team is remembered.
pub(super) fn restore(
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
    let far = teams::far::places(configs);
    let (record, mut restored) = teams::discarded::restore(dir, id, team, (taken, &far))?;
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
pub(super) fn diff(team: String, member: MemberCopy, path: String) -> TeamEvent {
    let text = |side: teams::Side| match side {
        teams::Side::File { content, .. } if !crate::model::merge::is_binary(&content) => {
            Some(String::from_utf8_lossy(&content).into_owned())
        }
        teams::Side::Symlink { target } => Some(format!("-> {target}")),
        _ => None,
    };
    let base = teams::read_bases(&member, std::slice::from_ref(&path)).ok().and_then(|mut b| b.pop()).and_then(text);
    let mine = teams::read_mine(&member, &path).ok().and_then(text);
    TeamEvent::Diff { team, agent: member.name.clone(), path, base, member: mine }
}

/// A member's changed files as patches (those of `paths`, or all): the diffs of the first
/// `limit` read in one go (their bases together), the rest only listed.
pub(super) fn patch(team: String, member: MemberCopy, paths: Option<Vec<String>>, limit: usize) -> TeamEvent {
    use crate::protocol::teams::{ChangeKind, FilePatch};
    let read = || -> Result<Vec<FilePatch>, TeamError> {
        let mut changes = teams::changes(&member)?;
        if let Some(paths) = &paths {
            changes.retain(|c| c.paths().iter().any(|p| paths.contains(p)));
        }
        let counted = &changes[..changes.len().min(limit)];
        let base_paths: Vec<String> = counted
            .iter()
            .map(|c| match &c.kind {
                ChangeKind::Renamed { from } => from.clone(),
                _ => c.path.clone(),
            })
            .collect();
        let bases = teams::read_bases(&member, &base_paths)?;
        let text = |side: teams::Side| match side {
            teams::Side::File { content, .. } if !crate::model::merge::is_binary(&content) => {
                Some(String::from_utf8_lossy(&content).into_owned())
            }
            teams::Side::Symlink { target } => Some(format!("-> {target}")),
            _ => None,
        };
        let mut out = Vec::with_capacity(changes.len());
        for (change, base) in counted.iter().zip(bases) {
            let mine = teams::read_mine(&member, &change.path).ok().and_then(text);
            out.push(FilePatch::of(change, text(base).as_deref(), mine.as_deref()));
        }
        out.extend(changes[counted.len()..].iter().map(|c| FilePatch { path: c.path.clone(), ..FilePatch::default() }));
        Ok(out)
    };
    TeamEvent::Patch { team, agent: member.name.clone(), result: read() }
}

/// The names and definitions of the members of a new team `team` made from `agents`: names no
/// agent in force (`taken`) nor any stored team's member has.
pub(super) fn new_members(
    team: &str,
    agents: &[String],
    mut taken: Vec<String>,
    store: Option<&Store>,
) -> Vec<(String, String)> {
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
pub(super) fn running(mut member: MemberCopy) -> Result<MemberCopy, TeamError> {
    teams::container::ensure(&mut member)?;
    Ok(member)
}

/// Makes a team whose members whose agents run in containers get containers of their own; if
/// one cannot be made, nothing of the team is left.
pub(super) fn create_placed(
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
    let far = teams::far::places(configs);
    let (record, mut members) = teams::create_team_at(dir, (name, project), provider, members, lead, &far)?;
    if let Err(e) = teams::container::place(&mut members, configs) {
        for m in &members {
            let _ = m.provider().discard(m);
        }
        let _ = std::fs::remove_dir_all(dir.join(&record.id));
        return Err(e);
    }
    Ok((record, members))
}
