//! "Commit as branch…": a member's work becomes a branch of the project, for people who review
//! through pull requests. The commit is made from the member's copy with a private index (its
//! parent is the member's base, so the branch holds exactly the member's changes); the branch is
//! made with `git branch`, which never touches the person's checkout, index or files.

use super::{MemberCopy, ProviderKind, TeamError};
use crate::runtime::git::snapshot::{commit_with, git, head_with};

/// Makes branch `branch` of the project from `member`'s copy as it is now, with `message`.
/// Returns the commit. Refused for copies that are not git worktrees, for a name git refuses and
/// for a branch that exists.
pub fn commit_as_branch(member: &MemberCopy, branch: &str, message: &str) -> Result<String, TeamError> {
    // A project on another machine gets its branch there (ADR 0039).
    let call = crate::runtime::copies::wire::Call::Branch { branch: branch.into(), message: message.into() };
    if let Some(made) = super::there::call(member, call) {
        return made;
    }
    let refused = |message: String| TeamError::Git { command: "branch".into(), message };
    if member.provider != ProviderKind::GitWorktree {
        return Err(refused("only a team made of git worktrees can give a branch".into()));
    }
    member.ensure_copy()?;
    git(&member.project, &["check-ref-format", "--branch", branch], &[])
        .map_err(|_| refused(format!("“{branch}” is not a name git takes for a branch")))?;
    let exists = git(&member.project, &["rev-parse", "--verify", "--quiet", &format!("refs/heads/{branch}")], &[]);
    if exists.is_ok() {
        return Err(refused(format!("a branch “{branch}” exists already")));
    }
    // The copy's git folders as the project knows them, never as its `.git` file says.
    let (dir, common) = super::worktree::copy_git_dirs(member)?;
    let env =
        [("GIT_DIR", dir.as_path()), ("GIT_COMMON_DIR", common.as_path()), ("GIT_WORK_TREE", member.copy.as_path())];
    let head = head_with(&member.copy, &env)?;
    let index = member.state.join("branch.index");
    let made = commit_with(&member.copy, &index, message, &member.dependencies, &head, true, &env);
    let _ = std::fs::remove_file(&index);
    let made = made?;
    git(&member.project, &["branch", branch, &made], &[])?;
    Ok(made)
}
