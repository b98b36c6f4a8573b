//! The project's team recipe at work (`model::recipe` parses it): reading it, copying the files it
//! names into a new copy (files git does not carry: `.env`, local settings), and a member's
//! variables (its ports).

use std::path::Path;

use super::{MemberCopy, TeamError};
use crate::model::recipe::{RECIPE_PATH, Recipe};
use crate::runtime::copies::wire::ProjectCall;

/// The recipe of `project`, if it has one; refused while it is a member's that the person has
/// not accepted (see [`accept`]).
pub fn load(project: &Path) -> Result<Option<Recipe>, TeamError> {
    // A project on another machine: read there, refused there as here (ADR 0039).
    if let Some(text) = super::there::project_call::<Option<String>>(project, ProjectCall::Recipe) {
        return text?.map(|t| Recipe::parse(&t).map_err(|e| TeamError::Recipe(e.to_string()))).transpose();
    }
    let path = project.join(RECIPE_PATH);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            if let Some(member) = written_by_member(project, text.as_bytes()) {
                return Err(TeamError::RecipeFromMember { member });
            }
            Recipe::parse(&text).map(Some).map_err(|e| TeamError::Recipe(e.to_string()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(TeamError::io(&path, e)),
    }
}

/// Whether `project`'s recipe lets the team's lead merge without asking (a recipe a member
/// wrote and the person has not accepted does not).
pub fn lead_merges(project: &Path) -> bool {
    matches!(load(project), Ok(Some(r)) if r.lead_merges == crate::model::recipe::LeadMerges::Allow)
}

/// What `project`'s recipe says of a member writing a file another member changed (a recipe a
/// member wrote and the person has not accepted says nothing).
pub fn overlap(project: &Path) -> crate::model::recipe::OverlapRule {
    match load(project) {
        Ok(Some(r)) => r.overlap,
        _ => crate::model::recipe::OverlapRule::Off,
    }
}

/// Copies the files of `project` matching `patterns` into `copy` (where the copy has none
/// already), ignored files included, `.git` and dependency folders left out; returns their paths.
pub fn copy_files(project: &Path, copy: &Path, patterns: &[String], skip: &[String]) -> Result<Vec<String>, TeamError> {
    let mut copied = Vec::new();
    for rel in matching(project, patterns, skip)? {
        let target = copy.join(&rel);
        if std::fs::symlink_metadata(&target).is_ok() {
            continue;
        }
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| TeamError::io(dir, e))?;
        }
        std::fs::copy(project.join(&rel), &target).map_err(|e| TeamError::io(&target, e))?;
        copied.push(rel);
    }
    Ok(copied)
}

/// The files of `project` matching `patterns`, ignored files included, `.git` and the folders
/// of `skip` left out; sorted.
fn matching(project: &Path, patterns: &[String], skip: &[String]) -> Result<Vec<String>, TeamError> {
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
    let mut found = Vec::new();
    for entry in walker.flatten() {
        let Ok(rel) = entry.path().strip_prefix(project) else { continue };
        let rel = rel.to_string_lossy().into_owned();
        let in_skipped = |f: &String| rel == *f || rel.starts_with(&format!("{f}/"));
        if rel.is_empty() || skip.iter().any(in_skipped) || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if set.is_match(&rel) {
            found.push(rel);
        }
    }
    found.sort();
    Ok(found)
}

/// Sends the files of the project matching `patterns` to a far member's copy.
fn send_files(member: &MemberCopy, patterns: &[String]) -> Result<(), TeamError> {
    let mut steps = Vec::new();
    for rel in matching(&member.project, patterns, &super::dependency_folders(&member.project))? {
        let side = super::read_side(&member.project, &rel)?;
        steps.push(super::journal::Step { path: rel, side });
    }
    match steps.is_empty() {
        true => Ok(()),
        false => super::write_mine(member, "recipe", &steps),
    }
}

/// Prepares a new member's copy from the recipe: its files, its number and ports; not ready while
/// a setup command is to run.
pub fn prepare(member: &mut MemberCopy, recipe: &Recipe, number: usize) -> Result<(), TeamError> {
    member.number = number;
    let skip = member.dependencies.clone();
    match member.far {
        // A project there: its files were copied there as the copy was made.
        Some(_) if super::there::is_there(member) => {}
        Some(_) => send_files(member, &recipe.copy)?,
        None => drop(copy_files(&member.project, &member.copy, &recipe.copy, &skip)?),
    }
    if let Some(ports) = &recipe.ports {
        let vars = ports.for_member(number).map_err(|e| TeamError::Recipe(e.to_string()))?;
        member.env = vars.into_iter().map(|(k, v)| (k, v.to_string())).collect();
    }
    member.ready = recipe.setup.is_none();
    member.save()
}

/// What the project's recipe would run, read whatever its mark ("setup: …", "check: …"): shown
/// to the person before they accept a recipe a member wrote.
pub fn commands_to_accept(project: &Path) -> Vec<String> {
    if let Some(commands) = super::there::project_call(project, ProjectCall::CommandsToAccept) {
        return commands.unwrap_or_else(|e| vec![format!("(it cannot be read: {e})")]);
    }
    let Ok(text) = std::fs::read_to_string(project.join(RECIPE_PATH)) else { return Vec::new() };
    let Ok(recipe) = Recipe::parse(&text) else { return vec![format!("(it cannot be read: {RECIPE_PATH})")] };
    let setup = recipe.setup.map(|c| format!("setup: {c}"));
    let check = recipe.check.map(|c| format!("check: {}", c.command));
    setup.into_iter().chain(check).collect()
}

/// Recipes a member wrote. A merge that brings a member's `.sidekicks/team.toml` into the project
/// records its content's hash here (in the person's state folder, by project): until the person
/// accepts it by name ([`accept`]), that recipe is refused ([`load`] says whose it is), so a
/// member cannot have its own setup or check commands run on this computer. The person's own
/// edit of the file (any other content) is theirs and runs.
mod from_members {
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Serialize};

    /// One recipe a member wrote.
    #[derive(Serialize, Deserialize, Clone)]
    pub(super) struct Mark {
        pub sha256: String,
        pub member: String,
    }

    fn file(project: &Path) -> Option<PathBuf> {
        let dirs = crate::runtime::config::file::AppDirs::from_system()?;
        Some(dirs.state_dir.join("member-recipes").join(format!("{}.json", super::super::lock::name_of(project))))
    }

    pub(super) fn hash(content: &[u8]) -> String {
        use sha2::Digest;
        sha2::Sha256::digest(content).iter().map(|b| format!("{b:02x}")).collect()
    }

    pub(super) fn read(project: &Path) -> Vec<Mark> {
        file(project)
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|t| serde_json::from_slice(&t).ok())
            .unwrap_or_default()
    }

    pub(super) fn write(project: &Path, marks: &[Mark]) -> std::io::Result<()> {
        let Some(path) = file(project) else { return Err(std::io::Error::other("no state folder")) };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let temp = path.with_extension("json.new");
        std::fs::write(&temp, serde_json::to_vec(marks).unwrap_or_default())?;
        std::fs::rename(temp, path)
    }
}

/// Records that `member`'s work brings `content` as the project's recipe (called before the
/// merge writes it: should the record fail, nothing is written).
pub fn note_member_recipe(project: &Path, content: &[u8], member: &str) -> Result<(), TeamError> {
    let sha256 = from_members::hash(content);
    let mut marks = from_members::read(project);
    if marks.iter().any(|m| m.sha256 == sha256) {
        return Ok(());
    }
    marks.push(from_members::Mark { sha256, member: member.to_string() });
    from_members::write(project, &marks).map_err(|e| TeamError::io(&project.join(RECIPE_PATH), e))
}

/// The member whose merged work wrote the project's recipe as it is now, when the person has not
/// accepted it.
pub fn written_by_member(project: &Path, content: &[u8]) -> Option<String> {
    let sha256 = from_members::hash(content);
    from_members::read(project).into_iter().find(|m| m.sha256 == sha256).map(|m| m.member)
}

/// The person accepts the project's recipe as it is now: its commands run from then on. Returns
/// the member who wrote it, `None` when it was not a member's.
pub fn accept(project: &Path) -> Result<Option<String>, TeamError> {
    if let Some(accepted) = super::there::project_call(project, ProjectCall::AcceptRecipe) {
        return accepted;
    }
    let path = project.join(RECIPE_PATH);
    let content = std::fs::read(&path).map_err(|e| TeamError::io(&path, e))?;
    let sha256 = from_members::hash(&content);
    let marks = from_members::read(project);
    let Some(found) = marks.iter().find(|m| m.sha256 == sha256).map(|m| m.member.clone()) else { return Ok(None) };
    let kept: Vec<_> = marks.into_iter().filter(|m| m.sha256 != sha256).collect();
    from_members::write(project, &kept).map_err(|e| TeamError::io(&path, e))?;
    Ok(Some(found))
}
