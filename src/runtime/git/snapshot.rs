//! git as a process, and a commit of a working tree as it is — tracked files as they are and new
//! files git does not ignore — made with a private index, so the person's index, branch and files
//! are not touched. A member's base (`git.rs`) and an agent's checkpoints (`checkpoint.rs`) are
//! such commits.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::protocol::teams::TeamError;

/// Runs git in `dir` with `env`; its stdout, or its stderr as the error.
pub(crate) fn git(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Result<Vec<u8>, TeamError> {
    git_with_input_env(dir, args, &[], env)
}

/// [`git`] with `input` on its stdin.
pub(crate) fn git_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Result<Vec<u8>, TeamError> {
    git_with_input_env(dir, args, input, &[])
}

/// [`git`] with `input` on its stdin and `env`.
pub(crate) fn git_with_input_env(
    dir: &Path,
    args: &[&str],
    input: &[u8],
    env: &[(&str, &Path)],
) -> Result<Vec<u8>, TeamError> {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir).args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if input.is_empty() { Stdio::null() } else { Stdio::piped() });
    for (k, v) in env {
        cmd.env(k, v);
    }
    let command = args.first().copied().unwrap_or("").to_string();
    let failed = |e: std::io::Error| TeamError::Git { command: command.clone(), message: e.to_string() };
    let mut child = cmd.spawn().map_err(failed)?;
    // Written on its own thread: git may fill its stdout before it has read all of its input.
    let writer = child.stdin.take().map(|mut stdin| {
        let input = input.to_vec();
        std::thread::spawn(move || stdin.write_all(&input))
    });
    let out = child.wait_with_output().map_err(failed)?;
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    if !out.status.success() {
        let message = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(TeamError::Git { command, message });
    }
    Ok(out.stdout)
}

pub(crate) fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim().to_string()
}

/// Pathspecs that leave the dependency folders out.
pub(crate) fn excludes(folders: &[String]) -> Vec<String> {
    folders.iter().map(|f| format!(":(exclude,top){f}")).collect()
}

/// What `head` reads of a repository: its checked-out commit, the path of its index and the
/// commit's tree.
#[derive(Clone, Debug)]
pub(crate) struct Head {
    pub commit: String,
    index: String,
    tree: String,
}

impl Head {
    /// The repository's git folder (of this worktree: where its index is).
    pub(crate) fn git_dir(&self) -> Option<&Path> {
        Path::new(&self.index).parent()
    }
}

/// The commit checked out in `project`, when it is the top folder of a repository with one
/// (one git process when all is well).
pub(crate) fn head(project: &Path) -> Result<Head, TeamError> {
    head_with(project, &[])
}

/// [`head`] with `env` (a member's copy: its git folders named, see `git::in_copy`).
pub(crate) fn head_with(project: &Path, env: &[(&str, &Path)]) -> Result<Head, TeamError> {
    use crate::protocol::teams::Unavailable as U;
    let unavailable = |reason| TeamError::Unavailable { reason };
    let args = ["rev-parse", "--show-toplevel", "HEAD", "--path-format=absolute", "--git-path", "index", "HEAD^{tree}"];
    let Ok(found) = git(project, &args, env) else {
        // Tell a folder outside git from a repository without a commit.
        git(project, &["rev-parse", "--show-toplevel"], env).map_err(|_| unavailable(U::NotGit))?;
        return Err(unavailable(U::NoCommit));
    };
    let found = text(found);
    let mut lines = found.lines().map(str::trim);
    let top = std::path::PathBuf::from(lines.next().unwrap_or_default());
    let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
    if !same(&top, project) {
        return Err(unavailable(U::NotTopFolder));
    }
    let mut next = || lines.next().unwrap_or_default().to_string();
    Ok(Head { commit: next(), index: next(), tree: next() })
}

/// Commits `project` as it is now on top of `head` with a private index at `index` (removed by
/// the caller), without touching the person's index or folder; dependency folders `folders` are
/// left out. When nothing differs from `head`, `head` itself unless `always` asks for a commit
/// of its own (whose time is now).
pub(crate) fn commit(
    project: &Path,
    index: &Path,
    message: &str,
    folders: &[String],
    head: &Head,
    always: bool,
) -> Result<String, TeamError> {
    commit_with(project, index, message, folders, head, always, &[])
}

/// [`commit`] with `env` (a member's copy: its git folders named, see `git::in_copy`).
pub(crate) fn commit_with(
    project: &Path,
    index: &Path,
    message: &str,
    folders: &[String],
    head: &Head,
    always: bool,
    env: &[(&str, &Path)],
) -> Result<String, TeamError> {
    fn joined<'a>(env: &[(&'a str, &'a Path)], extra: &[(&'a str, &'a Path)]) -> Vec<(&'a str, &'a Path)> {
        env.iter().chain(extra).copied().collect()
    }
    let index_env = [("GIT_INDEX_FILE", index)];
    let with_index = joined(env, &index_env);
    // Starting from the real index keeps git's stat cache: only changed files are hashed.
    if std::fs::copy(&head.index, index).is_err() {
        git(project, &["read-tree", "HEAD"], &with_index)?;
    }
    let mut add = vec!["add", "-A", "--", "."];
    // Dependency folders git does not ignore are left out explicitly (naming an ignored one
    // in a pathspec is an error).
    let mut check = vec!["check-ignore", "--"];
    check.extend(folders.iter().map(String::as_str));
    let ignored = git(project, &check, env).map(text).unwrap_or_default();
    let tracked: Vec<String> =
        folders.iter().filter(|f| !ignored.lines().any(|l| l.trim_end_matches('/') == f.as_str())).cloned().collect();
    let excluded = excludes(&tracked);
    add.extend(excluded.iter().map(String::as_str));
    git(project, &add, &with_index)?;
    let tree = text(git(project, &["write-tree"], &with_index)?);
    if tree == head.tree && !always {
        return Ok(head.commit.clone());
    }
    let who = Path::new("Sidekicks");
    let mail = Path::new("sidekicks@localhost");
    let env_who = [
        ("GIT_AUTHOR_NAME", who),
        ("GIT_AUTHOR_EMAIL", mail),
        ("GIT_COMMITTER_NAME", who),
        ("GIT_COMMITTER_EMAIL", mail),
    ];
    Ok(text(git(project, &["commit-tree", &tree, "-p", &head.commit, "-m", message], &joined(env, &env_who))?))
}
