//! What teams leave behind: folders of teams the store no longer has (discarded while Sidekicks
//! was killed, or by an older version) and of stored teams whose project is gone. Found at start
//! and listed for the person; removed only when they say so — each member's copy through its
//! provider (worktree entry, hidden ref) and its container, then the folder; member containers
//! labelled with such a team go too. Also: how much disk a team uses.

use std::path::Path;

use super::{MemberCopy, TeamError, TeamRecord, container};
use crate::protocol::teams::{ContainerEngine, Leftover};

/// Bytes used by the files below `dir` (links not followed: a member's linked dependency folders
/// are the project's).
pub fn disk_use(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else { continue };
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() {
                total += meta.len();
            }
        }
    }
    total
}

fn members(dir: &Path) -> Vec<MemberCopy> {
    let Ok(entries) = std::fs::read_dir(dir.join(".state")) else { return Vec::new() };
    entries.flatten().filter_map(|e| MemberCopy::load(&e.path()).ok()).collect()
}

/// Member containers: (engine, name, team).
pub type Labelled = [(ContainerEngine, String, String)];

/// The folders in `teams_dir` of teams not in `known`, or whose project is gone, and the member
/// containers (`labelled`, see [`container::labelled`]) of such teams.
pub fn leftovers(teams_dir: &Path, known: &[TeamRecord], labelled: &Labelled) -> Vec<Leftover> {
    let mut out = Vec::new();
    let containers_of =
        |id: &str| labelled.iter().filter(|(_, _, team)| team == id).map(|(_, name, _)| name.clone()).collect();
    let entries = std::fs::read_dir(teams_dir).into_iter().flatten();
    for entry in entries.flatten() {
        let id = entry.file_name().to_string_lossy().into_owned();
        if id.starts_with('.') || !entry.path().is_dir() {
            continue;
        }
        let stored = known.iter().find(|t| t.id == id);
        if stored.is_some_and(|t| alive(&t.project)) {
            continue;
        }
        let members = members(&entry.path());
        out.push(Leftover {
            id,
            dir: entry.path(),
            members: members.iter().map(|m| m.name.clone()).collect(),
            project: stored.map(|t| t.project.clone()).or_else(|| members.first().map(|m| m.project.clone())),
            stored: stored.is_some(),
            bytes: disk_use(&entry.path()),
            containers: containers_of(&entry.file_name().to_string_lossy()),
        });
    }
    // Containers of teams whose folder is gone as well.
    for (_, _, id) in labelled {
        let live = known.iter().any(|t| t.id == *id && alive(&t.project));
        if live || out.iter().any(|l| l.id == *id) || super::checked(id).is_err() {
            continue;
        }
        out.push(Leftover {
            id: id.clone(),
            dir: teams_dir.join(id),
            members: Vec::new(),
            project: known.iter().find(|t| t.id == *id).map(|t| t.project.clone()),
            stored: known.iter().any(|t| t.id == *id),
            bytes: 0,
            containers: containers_of(id),
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// Removes leftover team `id` of `teams_dir`: each member's container and copy through its
/// provider (its worktree entry and hidden ref, where the project still has them), the folder,
/// and the containers of `labelled` that belong to the team.
pub fn reap(teams_dir: &Path, id: &str, labelled: &Labelled) -> Result<(), TeamError> {
    let dir = teams_dir.join(super::checked(id)?);
    for member in members(&dir) {
        container::remove(&member);
        if let Err(e) = member.provider().discard(&member) {
            tracing::info!("leftover member {} of team {id}: {e}", member.name);
        }
        // Nothing is kept for a next team of what the person removes.
        super::spare::drop_all(teams_dir, &member.project);
    }
    for (engine, name, _) in labelled.iter().filter(|(_, _, team)| team == id) {
        container::remove_named(*engine, name);
    }
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(TeamError::io(&dir, e)),
        _ => Ok(()),
    }
}

/// A stored team's project is there: a folder here, or a project on another machine (not
/// looked at from here: its team is never a leftover of this computer).
fn alive(project: &Path) -> bool {
    project.is_dir() || super::there::place_of(project).is_some()
}
