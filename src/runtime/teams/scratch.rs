//! The recipe's check in a scratch copy, before a merge touches the project: a copy of the
//! project's sources (as the copy provider makes them: `.gitignore` honoured, dependency folders
//! linked, the recipe's files copied), the merge's steps applied to it, the check run there. The
//! scratch copy is removed after, whatever the result.

use std::path::Path;

use super::journal::{self, Step};
use super::{MemberCopy, TeamError};
use crate::model::recipe::Recipe;

/// Runs `recipe`'s check on the project as `steps` would leave it; `Ok` with its output when it
/// passes, `TeamError::CheckFailed` when not.
pub fn check(member: &MemberCopy, recipe: &Recipe, command: &str, steps: &[Step]) -> Result<String, TeamError> {
    let base = member.state.parent().unwrap_or(&member.state);
    let dir = base.join(format!(".scratch-{}", std::process::id()));
    let result = run(member, recipe, command, steps, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run(member: &MemberCopy, recipe: &Recipe, command: &str, steps: &[Step], dir: &Path) -> Result<String, TeamError> {
    let _ = std::fs::remove_dir_all(dir);
    let (copy, state) = (dir.join("project"), dir.join("state"));
    std::fs::create_dir_all(&state).map_err(|e| TeamError::io(&state, e))?;
    let folders = super::dependency_folders(&member.project);
    super::copy::CopyProvider { clone: false }.copy_into(&member.project, &copy, &folders)?;
    super::deps::link(&member.project, &copy, &folders)?;
    super::recipe::copy_files(&member.project, &copy, &recipe.copy, &folders)?;
    journal::apply(&copy, &state, "scratch", steps)?;
    // stdout and stderr in the order written: the command's own `2>&1`.
    let out = std::process::Command::new("sh")
        .args(["-c", "eval \"$1\" 2>&1", "sidekicks", command])
        .current_dir(&copy)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| TeamError::io(&copy, e))?;
    let output = String::from_utf8_lossy(&out.stdout).into_owned();
    match out.status.code() {
        Some(0) => Ok(output),
        Some(code) => Err(TeamError::CheckFailed { why: format!("exit code {code}"), output }),
        None => Err(TeamError::CheckFailed { why: "it was killed".into(), output }),
    }
}
