//! The far side of making a copy from the project here: the files arrive one by one (`entry`
//! and its chunks, then `end`) and are written into the member's copy and into its base, in the
//! far side's own teams folder (`${XDG_DATA_HOME:-~/.local/share}/sidekicks/far-teams/TEAM/`).
//! The copy is then a plain copy there (a `Copy` member, ADR 0037): its changes are found against
//! that base as a local copy's are.
//!
//! What arrives is input: every path is checked (relative, no `..`), nothing is written through a
//! link (a link that arrived first is never a folder for what follows), the team's and member's
//! folder names are single names, and a copy already there is never written over.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::wire::{self, Request, WireError};
use crate::model::merge::Side;
use crate::protocol::teams::{MemberCopy, ProviderKind, TeamError};

/// The far side's teams folder.
pub(super) fn teams_root() -> Result<PathBuf, TeamError> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .ok_or_else(|| TeamError::Io {
            path: "$HOME".into(),
            message: "neither XDG_DATA_HOME nor HOME is set".into(),
        })?;
    Ok(data.join("sidekicks/far-teams"))
}

/// A single folder name, not a path.
pub(super) fn single(name: &str) -> Result<&str, TeamError> {
    let bad = name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']);
    if bad { Err(TeamError::BadPath(name.into())) } else { Ok(name) }
}

fn io(path: &Path, e: impl ToString) -> TeamError {
    TeamError::Io { path: path.display().to_string(), message: e.to_string() }
}

/// Writes `side` at `rel` below `root` without following a link on the way.
fn put(root: &Path, rel: &str, side: &Side) -> Result<(), TeamError> {
    crate::runtime::teams::checked_path(rel)?;
    let mut at = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(TeamError::BadPath(rel.into())),
            Err(_) => std::fs::create_dir(&at).map_err(|e| io(&at, e))?,
        }
    }
    let to = root.join(rel);
    if std::fs::symlink_metadata(&to).is_ok() {
        return Err(TeamError::BadPath(rel.into()));
    }
    match side {
        Side::Absent => Ok(()),
        Side::Symlink { target } => std::os::unix::fs::symlink(target, &to).map_err(|e| io(&to, e)),
        Side::File { content, executable } => {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(&to, content).map_err(|e| io(&to, e))?;
            let mode = if *executable { 0o755 } else { 0o644 };
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(mode)).map_err(|e| io(&to, e))
        }
    }
}

/// Gives the base's file the copy's date, so an untouched file is known by its size and date.
fn same_date(copy: &Path, base: &Path, rel: &str) -> Result<(), TeamError> {
    let (a, b) = (copy.join(rel), base.join(rel));
    if !std::fs::symlink_metadata(&a).is_ok_and(|m| m.is_file()) {
        return Ok(());
    }
    let modified = std::fs::metadata(&a).and_then(|m| m.modified()).map_err(|e| io(&a, e))?;
    std::fs::File::options().write(true).open(&b).and_then(|f| f.set_modified(modified)).map_err(|e| io(&b, e))
}

/// Receives a copy (after `receive {team, folder, id, name}`): reads every entry up to `end`
/// (the stream stays in step even when something was refused), and makes the member there.
pub fn receive(
    input: &mut impl BufRead,
    (team, folder, id, name): (&str, &str, &str, &str),
) -> Result<Result<MemberCopy, TeamError>, WireError> {
    let place = teams_root().and_then(|root| Ok(root.join(single(team)?)));
    let place = place.and_then(|dir| {
        let folder = single(folder)?;
        let (copy, state) = (dir.join(folder), dir.join(".state").join(folder));
        if copy.exists() || state.exists() {
            return Err(io(&copy, "already exists"));
        }
        for d in [&copy, &state.join("base")] {
            std::fs::create_dir_all(d).map_err(|e| io(d, e))?;
        }
        Ok((copy, state))
    });
    // The folders this request made (and removes again should the copy not be whole).
    let ours = place.as_ref().ok().cloned();
    let mut made: Result<(PathBuf, PathBuf), TeamError> = place;
    loop {
        let (path, header) = match wire::receive::<Request>(input)? {
            Request::End => break,
            Request::Entry { path, header } => (path, header),
            _ => return Err(WireError::Garbled("a copy's files were cut short".into())),
        };
        let side = wire::receive_side::<Request>(input, &path, header, |m| match m {
            Request::Chunk { data, z } => Some((data, z)),
            _ => None,
        })?;
        if let Ok((copy, state)) = &made {
            let base = state.join("base");
            let written = put(copy, &path, &side).and_then(|()| put(&base, &path, &side));
            if let Err(e) = written.and_then(|()| same_date(copy, &base, &path)) {
                made = Err(e);
            }
        }
    }
    let member = made.and_then(|(copy, state)| {
        let member = MemberCopy {
            id: id.into(),
            name: name.into(),
            agent: String::new(),
            project: copy.clone(),
            copy,
            state,
            provider: ProviderKind::Copy,
            base: String::new(),
            dependencies: Vec::new(),
            number: 0,
            env: Default::default(),
            ready: true,
            container: None,
            far: None,
        };
        member.save().map(|()| member)
    });
    if member.is_err()
        && let Some((copy, state)) = ours
    {
        let _ = (std::fs::remove_dir_all(copy), std::fs::remove_dir_all(state));
    }
    Ok(member)
}
