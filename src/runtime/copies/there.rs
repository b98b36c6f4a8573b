//! The far side of a team whose project is there (ADR 0039): its members' copies are made there
//! by the far side's own providers (a git worktree of the repository there, a copy), and what
//! writes the project — a merge, an undo — is done there, by the same code as on this computer,
//! under the project's lock there: two people's Sidekicks merging into it wait for each other.
//! The near side keeps the team's record and asks.

use std::path::Path;

use super::receive::{single, teams_root};
use super::wire::Call;
use crate::protocol::teams::{MemberCopy, ProviderKind, TeamError};

fn io(path: &Path, e: impl ToString) -> TeamError {
    TeamError::Io { path: path.display().to_string(), message: e.to_string() }
}

/// Makes member `name`'s copy of `project` (there) in the far side's teams folder
/// (`…/far-teams/TEAM/FOLDER`, its state in `…/TEAM/.state/FOLDER`), never over one already there.
pub fn make(
    project: &Path,
    (team, folder, id, name): (&str, &str, &str, &str),
    provider: ProviderKind,
) -> Result<MemberCopy, TeamError> {
    let project = project.canonicalize().map_err(|e| io(project, e))?;
    let dir = teams_root()?.join(single(team)?);
    let folder = single(folder)?;
    let (copy, state) = (dir.join(folder), dir.join(".state").join(folder));
    if copy.exists() || state.exists() {
        return Err(io(&copy, "already exists"));
    }
    let isolation = provider.provider();
    isolation.available(&project)?;
    std::fs::create_dir_all(&state).map_err(|e| io(&state, e))?;
    let made = isolation.create(&project, &copy, &state, id, name).and_then(|m| m.save().map(|()| m));
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&state);
    }
    made
}

/// Does `call` to the member whose state is `state` there: its value as the team service gives it.
pub fn call(state: &Path, call: Call) -> Result<serde_json::Value, TeamError> {
    let member = MemberCopy::load(state)?;
    member.ensure_copy()?;
    // The far side's members are its own: a record there naming yet another place is not followed.
    if member.far.is_some() || crate::model::project_at::far(&member.project).is_some() {
        return Err(TeamError::BadPath(member.project.display().to_string()));
    }
    let value = match call {
        Call::Merge { selected } => {
            serde_json::to_value(crate::runtime::teams::merge_as_recipe_says(&member, selected.as_deref())?)
        }
        Call::Undo => serde_json::to_value(crate::runtime::teams::undo_merge(&member)?),
    };
    value.map_err(|e| io(state, e))
}
