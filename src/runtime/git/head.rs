//! Which branch a folder's git checkout is on, read from its `HEAD` file (a worktree's `.git` file
//! names its git folder) without running git: the status bar asks after each turn.

use std::path::{Path, PathBuf};

/// The branch of the checkout `folder` is in (the commit's first 8 digits when detached), if any.
pub fn branch(folder: &Path) -> Option<String> {
    let git_dir = git_dir(folder)?;
    head_name(&std::fs::read_to_string(git_dir.join("HEAD")).ok()?)
}

/// The git folder of the checkout holding `folder`, looking up from it.
fn git_dir(folder: &Path) -> Option<PathBuf> {
    let mut dir = Some(folder);
    while let Some(d) = dir {
        let git = d.join(".git");
        if git.is_dir() {
            return Some(git);
        }
        if git.is_file() {
            // A worktree: `gitdir: <path>`.
            let text = std::fs::read_to_string(&git).ok()?;
            let path = text.strip_prefix("gitdir:")?.trim();
            return Some(d.join(path));
        }
        dir = d.parent();
    }
    None
}

/// What `HEAD` says: `ref: refs/heads/<branch>`, or a commit id.
pub fn head_name(head: &str) -> Option<String> {
    let head = head.trim();
    if let Some(name) = head.strip_prefix("ref:") {
        let name = name.trim();
        return Some(name.strip_prefix("refs/heads/").unwrap_or(name).to_string());
    }
    (head.len() >= 8 && head.chars().all(|c| c.is_ascii_hexdigit())).then(|| head[..8].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_branch_of_a_checkout_and_of_a_worktree_is_read() {
        assert_eq!(head_name("ref: refs/heads/feature/x\n").as_deref(), Some("feature/x"));
        assert_eq!(head_name("3f9a1c2b7d0e4f5a6b7c8d9e0f1a2b3c4d5e6f70\n").as_deref(), Some("3f9a1c2b"));
        assert_eq!(head_name("garbage"), None);
        // A real repository and a worktree of it, made by git.
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git").args(args).output().unwrap();
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        let r = repo.display().to_string();
        git(&["init", "-q", "-b", "trunk", &r]);
        git(&["-C", &r, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "a"]);
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        assert_eq!(branch(&repo.join("src/deep")).as_deref(), Some("trunk"), "found from a subfolder");
        let wt = dir.path().join("wt").display().to_string();
        git(&["-C", &r, "worktree", "add", "-q", "-b", "side", &wt]);
        assert_eq!(branch(Path::new(&wt)).as_deref(), Some("side"));
        assert_eq!(branch(Path::new("/")), None);
    }
}
