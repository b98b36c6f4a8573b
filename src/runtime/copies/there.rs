//! The far side of a team whose project is there (ADR 0039): its members' copies are made there
//! by the far side's own providers (a git worktree of the repository there, a copy), and what
//! writes the project — a merge, an undo — is done there, by the same code as on this computer,
//! under the project's lock there: two people's Sidekicks merging into it wait for each other.
//! The near side keeps the team's record and asks.

use std::path::Path;

use super::receive::{single, teams_root};
use super::wire::{Call, ProjectCall};
use crate::protocol::teams::{MemberCopy, ProviderKind, TeamError};
use crate::runtime::teams::recipe;

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
    // The recipe's files git does not carry (`.env`) are copied from the project there.
    let recipe = recipe::load(&project)?;
    std::fs::create_dir_all(&state).map_err(|e| io(&state, e))?;
    let made = isolation.create(&project, &copy, &state, id, name).and_then(|m| m.save().map(|()| m));
    let made = made.and_then(|m| match &recipe {
        Some(r) => match recipe::copy_files(&project, &m.copy, &r.copy, &m.dependencies) {
            Ok(_) => Ok(m),
            Err(e) => {
                let _ = m.provider().discard(&m);
                Err(e)
            }
        },
        None => Ok(m),
    });
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&state);
    }
    made
}

/// Does `call` to `project` there: its value as the team service gives it.
pub fn project_call(project: &Path, call: ProjectCall) -> Result<serde_json::Value, TeamError> {
    // A project here is a folder of this machine.
    if crate::model::project_at::far(project).is_some() {
        return Err(TeamError::BadPath(project.display().to_string()));
    }
    let value = match call {
        ProjectCall::Recipe => {
            recipe::load(project)?;
            let path = project.join(crate::model::recipe::RECIPE_PATH);
            serde_json::to_value(std::fs::read_to_string(path).ok())
        }
        ProjectCall::AcceptRecipe => serde_json::to_value(recipe::accept(project)?),
        ProjectCall::CommandsToAccept => serde_json::to_value(recipe::commands_to_accept(project)),
        ProjectCall::Check => return check(project),
        ProjectCall::TakeHunks { picks } => {
            let mut loaded = Vec::with_capacity(picks.len());
            for (state, path, hunk) in picks {
                let member = MemberCopy::load(&state)?;
                // Only members of this project.
                if member.project != project {
                    return Err(TeamError::BadPath(state.display().to_string()));
                }
                loaded.push((member, path, hunk));
            }
            serde_json::to_value(crate::runtime::teams::picks::take_hunks(&loaded)?)
        }
    };
    value.map_err(|e| io(project, e))
}

/// Runs the recipe's check in `project` under its lock: `null` when there is none, else
/// `{ok, why, output}` (what it wrote, its last 64 KiB).
fn check(project: &Path) -> Result<serde_json::Value, TeamError> {
    use crate::model::recipe::CheckPlace;
    let Some(check) = recipe::load(project)?.and_then(|r| r.check).filter(|c| c.place == CheckPlace::Project) else {
        return Ok(serde_json::Value::Null);
    };
    let _lock = crate::runtime::teams::lock::ProjectLock::acquire(project, "checking the project after a merge")?;
    // What it writes goes to a file, read once it exits (a server it started may keep pipes open).
    let written = std::env::temp_dir().join(format!("sidekicks-check-{}", std::process::id()));
    let file = std::fs::File::create(&written).map_err(|e| io(&written, e))?;
    let both = file.try_clone().map_err(|e| io(&written, e))?;
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg(&check.command)
        .current_dir(project)
        .stdin(std::process::Stdio::null())
        .stdout(file)
        .stderr(both)
        .status()
        .map_err(|e| io(project, e));
    let output = std::fs::read(&written).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let _ = std::fs::remove_file(&written);
    let ran = ran?;
    let cut = output.len().saturating_sub(64 * 1024);
    let cut = (cut..output.len()).find(|&i| output.is_char_boundary(i)).unwrap_or(output.len());
    let why = match ran.code() {
        Some(code) => format!("exit code {code}"),
        None => "it was killed".to_string(),
    };
    Ok(serde_json::json!({"ok": ran.success(), "why": why, "output": &output[cut..]}))
}

/// Does `call` to the member whose state is `state` there: its value as the team service gives it.
pub fn call(state: &Path, call: Call) -> Result<serde_json::Value, TeamError> {
    let member = MemberCopy::load(state)?;
    member.ensure_copy()?;
    // The far side's members are its own: a record there naming yet another place is not followed.
    if member.far.is_some() || crate::model::project_at::far(&member.project).is_some() {
        return Err(TeamError::BadPath(member.project.display().to_string()));
    }
    use crate::runtime::teams::review;
    let value = match call {
        Call::Merge { selected } => {
            serde_json::to_value(crate::runtime::teams::merge_as_recipe_says(&member, selected.as_deref())?)
        }
        Call::Undo => serde_json::to_value(crate::runtime::teams::undo_merge(&member)?),
        Call::AcceptHunks { path, hunks } => serde_json::to_value(review::accept_hunks(&member, &path, &hunks)?),
        Call::RejectHunk { path, hunk } => serde_json::to_value(review::reject_hunk(&member, &path, &hunk)?),
        Call::Branch { branch, message } => {
            serde_json::to_value(crate::runtime::teams::commit_as_branch(&member, &branch, &message)?)
        }
        Call::RejectFiles { changes } => serde_json::to_value(review::reject_files(&member, &changes)?),
    };
    value.map_err(|e| io(state, e))
}
