//! Dependency folders: ignored folders a member needs to build and test at once (`node_modules`,
//! `target`, `.venv`). A `.worktreeinclude` file in the project names them, one path per line
//! (`#` starts a comment); the team recipe's `dependencies` come before it; without either, the
//! defaults are used. Only folders that exist are taken.

use std::path::Path;

use super::{TeamError, checked};

/// The folders taken when the project has no `.worktreeinclude`.
pub const DEFAULT_DEPENDENCIES: &[&str] = &["node_modules", "target", ".venv"];

/// The dependency folders of `project` that exist.
pub fn dependency_folders(project: &Path) -> Vec<String> {
    // The team recipe's list comes first.
    if let Ok(Some(recipe)) = super::recipe::load(project)
        && let Some(listed) = recipe.dependencies
    {
        return existing(project, listed);
    }
    let listed: Vec<String> = match std::fs::read_to_string(project.join(".worktreeinclude")) {
        Ok(text) => text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim().trim_matches('/').to_string())
            .filter(|l| !l.is_empty())
            .collect(),
        Err(_) => DEFAULT_DEPENDENCIES.iter().map(|s| s.to_string()).collect(),
    };
    existing(project, listed)
}

/// The folders of `listed` that exist in `project` and stay inside it: the folder and every
/// folder above it are real folders of the project, not links (a link `vendor -> /elsewhere`
/// would make `vendor/x` a folder of somewhere else, which a copy must never link or remove).
fn existing(project: &Path, listed: Vec<String>) -> Vec<String> {
    listed.into_iter().filter(|d| checked(d).is_ok() && real_folders(project, d)).collect()
}

/// True when `rel` and each folder above it in `root` are folders, none of them a link.
pub(super) fn real_folders(root: &Path, rel: &str) -> bool {
    let mut at = root.to_path_buf();
    rel.split('/').all(|part| {
        at.push(part);
        std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir())
    })
}

/// True when each folder above `rel` in `root` that exists is a folder, not a link.
fn no_link_above(root: &Path, rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut at = root.to_path_buf();
    parts[..parts.len().saturating_sub(1)].iter().all(|part| {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) => m.is_dir(),
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        }
    })
}

/// Links each dependency folder of the copy to the project's (shared, ready at once).
pub fn link(project: &Path, copy: &Path, folders: &[String]) -> Result<(), TeamError> {
    for folder in folders {
        checked(folder)?;
        // Never through a link of the copy's (a member can make one): nothing outside is removed.
        if !no_link_above(copy, folder) || !real_folders(project, folder) {
            return Err(TeamError::io(&copy.join(folder), "a link stands in the way; the folder is not linked"));
        }
        let target = copy.join(folder);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| TeamError::io(parent, e))?;
        }
        if std::fs::symlink_metadata(&target).is_ok() {
            // A tracked placeholder in the checkout: the link replaces it.
            let _ = std::fs::remove_dir_all(&target).or_else(|_| std::fs::remove_file(&target));
        }
        std::os::unix::fs::symlink(project.join(folder), &target).map_err(|e| TeamError::io(&target, e))?;
    }
    Ok(())
}
