//! The project's team recipe at work (`model::recipe` parses it): reading it, copying the files it
//! names into a new copy (files git does not carry: `.env`, local settings), and a member's
//! variables (its ports).

use std::path::Path;

use super::{MemberCopy, TeamError};
use crate::model::recipe::{RECIPE_PATH, Recipe};

/// The recipe of `project`, if it has one.
pub fn load(project: &Path) -> Result<Option<Recipe>, TeamError> {
    let path = project.join(RECIPE_PATH);
    match std::fs::read_to_string(&path) {
        Ok(text) => Recipe::parse(&text).map(Some).map_err(|e| TeamError::Recipe(e.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(TeamError::io(&path, e)),
    }
}

/// Copies the files of `project` matching `patterns` into `copy` (where the copy has none
/// already), ignored files included, `.git` and dependency folders left out; returns their paths.
pub fn copy_files(project: &Path, copy: &Path, patterns: &[String], skip: &[String]) -> Result<Vec<String>, TeamError> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let mut set = globset::GlobSetBuilder::new();
    for pattern in patterns {
        let glob = globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| TeamError::Recipe(format!("copy: {e}")))?;
        set.add(glob);
    }
    let set = set.build().map_err(|e| TeamError::Recipe(format!("copy: {e}")))?;
    let skip: Vec<String> = skip.iter().map(|s| s.trim_matches('/').to_string()).collect();
    let walker =
        ignore::WalkBuilder::new(project).standard_filters(false).filter_entry(|e| e.file_name() != ".git").build();
    let mut copied = Vec::new();
    for entry in walker.flatten() {
        let Ok(rel) = entry.path().strip_prefix(project) else { continue };
        let rel = rel.to_string_lossy().into_owned();
        let in_skipped = |f: &String| rel == *f || rel.starts_with(&format!("{f}/"));
        if rel.is_empty() || skip.iter().any(in_skipped) || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if !set.is_match(&rel) {
            continue;
        }
        let target = copy.join(&rel);
        if std::fs::symlink_metadata(&target).is_ok() {
            continue;
        }
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| TeamError::io(dir, e))?;
        }
        std::fs::copy(entry.path(), &target).map_err(|e| TeamError::io(&target, e))?;
        copied.push(rel);
    }
    copied.sort();
    Ok(copied)
}

/// Prepares a new member's copy from the recipe: its files, its number and ports; not ready while
/// a setup command is to run.
pub fn prepare(member: &mut MemberCopy, recipe: &Recipe, number: usize) -> Result<(), TeamError> {
    member.number = number;
    let skip = member.dependencies.clone();
    copy_files(&member.project, &member.copy, &recipe.copy, &skip)?;
    if let Some(ports) = &recipe.ports {
        let vars = ports.for_member(number).map_err(|e| TeamError::Recipe(e.to_string()))?;
        member.env = vars.into_iter().map(|(k, v)| (k, v.to_string())).collect();
    }
    member.ready = recipe.setup.is_none();
    member.save()
}
