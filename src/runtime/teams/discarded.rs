//! Discarded work kept: before a member's copy (or a whole team) is discarded, each member's
//! changes not merged yet are saved in `<teams>/.discarded/<id>/` — for each changed path, its
//! base and the member's version (one side store each, the format of the rebased list), and the
//! team's record. "Restore discarded work" makes the members again (the team too, when it is
//! gone), each with a fresh copy of the project as it is now, then gives every saved path its old
//! base and writes the member's version into the copy: the member's change list is what it was,
//! its files are byte for byte what they were, and a merge still sees what the member changed
//! against what it started from. Kept work older than the checkpoints' age limit is removed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::journal::Step;
use super::sides::Rebased;
use super::{MemberCopy, TeamError, TeamRecord, read_bases, read_mine};
use crate::protocol::teams::DiscardedWork;

const RECORD: &str = "discarded.json";

#[derive(Serialize, Deserialize)]
struct Record {
    team: TeamRecord,
    /// The members kept, each with the number of paths kept.
    members: Vec<(String, usize)>,
    /// Seconds since the epoch.
    at: u64,
}

fn root(teams_dir: &Path) -> PathBuf {
    teams_dir.join(".discarded")
}

use super::team::safe_name as safe;
use crate::model::when::now;

/// The paths a member changed, with their base and the member's version.
fn member_work(member: &MemberCopy) -> Result<Vec<(String, super::Side, super::Side)>, TeamError> {
    let mut paths = member.provider().changed_paths(member)?;
    paths.extend(Rebased::load(&member.state)?.paths());
    paths.sort();
    paths.dedup();
    let bases = read_bases(member, &paths)?;
    let mut out = Vec::new();
    for (path, base) in paths.into_iter().zip(bases) {
        let mine = read_mine(member, &path)?;
        if mine != base {
            out.push((path, base, mine));
        }
    }
    Ok(out)
}

/// Keeps the work not merged of `members` (of team `team`) before they are discarded; `None`
/// when none of them has any.
pub fn keep(teams_dir: &Path, team: &TeamRecord, members: &[MemberCopy]) -> Result<Option<DiscardedWork>, TeamError> {
    let mut works = Vec::new();
    for member in members {
        let work = member_work(member)?;
        if !work.is_empty() {
            works.push((member.name.clone(), work));
        }
    }
    if works.is_empty() {
        return Ok(None);
    }
    let at = now();
    let id = format!("{at}-{}-{}", safe(&team.id), std::process::id());
    let dir = root(teams_dir).join(&id);
    let tmp = root(teams_dir).join(format!(".{id}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    let mut kept = Vec::new();
    for (agent, work) in &works {
        let (base_dir, work_dir) = (tmp.join(safe(agent)).join("base"), tmp.join(safe(agent)).join("work"));
        for d in [&base_dir, &work_dir] {
            std::fs::create_dir_all(d).map_err(|e| TeamError::io(d, e))?;
        }
        let (mut bases, mut mine) = (Rebased::default(), Rebased::default());
        for (path, base, side) in work {
            bases.set(path, base);
            mine.set(path, side);
        }
        bases.save(&base_dir)?;
        mine.save(&work_dir)?;
        kept.push((agent.clone(), work.len()));
    }
    let record = Record { team: team.clone(), members: kept, at };
    let text = serde_json::to_vec_pretty(&record).map_err(|e| TeamError::io(&tmp, e.to_string()))?;
    std::fs::write(tmp.join(RECORD), text).map_err(|e| TeamError::io(&tmp, e))?;
    std::fs::rename(&tmp, &dir).map_err(|e| TeamError::io(&dir, e))?;
    Ok(Some(info(&id, &record)))
}

fn info(id: &str, record: &Record) -> DiscardedWork {
    DiscardedWork {
        id: id.to_string(),
        team: record.team.id.clone(),
        team_name: record.team.name.clone(),
        project: record.team.project.clone(),
        members: record.members.clone(),
        at: record.at,
    }
}

fn load(teams_dir: &Path, id: &str) -> Result<Record, TeamError> {
    let dir = root(teams_dir).join(super::checked(id)?);
    let text = std::fs::read(dir.join(RECORD)).map_err(|e| TeamError::io(&dir, e))?;
    serde_json::from_slice(&text).map_err(|e| TeamError::io(&dir, e.to_string()))
}

/// The kept work, newest first; work older than `max_age` is removed on the way.
pub fn list(teams_dir: &Path, max_age: Option<std::time::Duration>) -> Vec<DiscardedWork> {
    let Ok(entries) = std::fs::read_dir(root(teams_dir)) else { return Vec::new() };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let id = entry.file_name().to_string_lossy().into_owned();
        if id.starts_with('.') {
            continue;
        }
        match load(teams_dir, &id) {
            Ok(record) if max_age.is_some_and(|age| now().saturating_sub(record.at) > age.as_secs()) => {
                let _ = std::fs::remove_dir_all(entry.path());
            }
            Ok(record) => out.push(info(&id, &record)),
            Err(e) => tracing::warn!("kept work {id}: {e}"),
        }
    }
    out.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| b.id.cmp(&a.id)));
    out
}

/// Removes kept work for good.
pub fn forget(teams_dir: &Path, id: &str) -> Result<(), TeamError> {
    let dir = root(teams_dir).join(super::checked(id)?);
    std::fs::remove_dir_all(&dir).map_err(|e| TeamError::io(&dir, e))
}

/// The agent definitions of the members whose work `id` keeps (none when it cannot be read).
pub fn definitions(teams_dir: &Path, id: &str) -> Vec<String> {
    load(teams_dir, id)
        .map(|r| kept_members(&r, &[]).into_iter().map(|(_, _, from)| from).collect())
        .unwrap_or_default()
}

/// Each kept member: its name when discarded, its name now and its agent definition. Work kept
/// by earlier versions, whose members were the person's own agents, comes back as a member of
/// its own made from that agent (ADR 0028), named unlike `taken`.
fn kept_members(record: &Record, taken: &[String]) -> Vec<(String, String, String)> {
    let mut taken = taken.to_vec();
    record
        .members
        .iter()
        .map(|(name, _)| {
            let from = record.team.members.iter().find(|m| m.agent == *name).map(|m| m.from.clone());
            match from.filter(|f| !f.is_empty()) {
                Some(from) => (name.clone(), name.clone(), from),
                None => {
                    let now = crate::model::member_name::member_name(name, &record.team.name, &taken);
                    taken.push(now.clone());
                    (name.clone(), now, name.clone())
                }
            }
        })
        .collect()
}

/// Brings kept work back: into its team when `team` (the team as it is now) is given, else into
/// a team made again from the kept record; members of earlier versions get names unlike
/// `taken`. Returns the team's record and its restored members.
pub fn restore(
    teams_dir: &Path,
    id: &str,
    team: Option<TeamRecord>,
    (taken, far): (&[String], &super::Places),
) -> Result<(TeamRecord, Vec<MemberCopy>), TeamError> {
    let record = load(teams_dir, id)?;
    let _lock = super::lock::ProjectLock::acquire(&record.team.project, "restoring discarded work")?;
    let kept = kept_members(&record, taken);
    let new: Vec<(String, String)> = kept.iter().map(|(_, now, from)| (now.clone(), from.clone())).collect();
    let (record_now, members) = match team {
        Some(team) => {
            if let Some(m) = team.members.iter().find(|m| new.iter().any(|(name, _)| *name == m.agent)) {
                return Err(TeamError::AlreadyMember(m.agent.clone()));
            }
            super::team::add_members_at(teams_dir, team, &new, far)?
        }
        None => {
            let old = &record.team;
            let lead = old.lead.clone().filter(|l| !new.iter().any(|(name, _)| name == l));
            super::create_team_at(teams_dir, (&old.name, &old.project), old.provider, &new, lead, far)?
        }
    };
    let dir = root(teams_dir).join(id);
    for (was, now, _) in &kept {
        let Some(member) = members.iter().find(|m| m.name == *now) else { continue };
        let kept = dir.join(safe(was));
        let (base_dir, work_dir) = (kept.join("base"), kept.join("work"));
        let (bases, work) = (Rebased::load(&base_dir)?, Rebased::load(&work_dir)?);
        let mut steps = Vec::new();
        let mut rebased = Vec::new();
        for path in work.paths() {
            rebased.push((path.clone(), bases.read(&base_dir, &path)?));
            steps.push(Step { path: path.clone(), side: work.read(&work_dir, &path)? });
        }
        super::rebase_paths(member, &rebased)?;
        super::write_mine(member, "restore", &steps)?;
    }
    forget(teams_dir, id)?;
    Ok((record_now, members))
}
