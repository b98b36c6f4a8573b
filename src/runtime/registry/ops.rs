//! Adding, updating and removing registry agents in a config file: what `sidekicks registry` and
//! the window's "Get agents" page both do.

use std::path::{Path, PathBuf};

use super::{Listing, Made, prepare, remove_files};
use crate::model::config::Config;
use crate::model::config_edit::{NewAgent, unique_name};
use crate::model::registry::{Entry, Installed, compare_versions};
use crate::model::registry_edit::{add_installed, remove_agent, update_installed};
use crate::runtime::config::file::{edit_lock, save_atomic};

/// An agent added.
#[derive(Clone, Debug, PartialEq)]
pub struct Added {
    /// Its name in the config.
    pub name: String,
    /// The entry's version.
    pub version: String,
    /// How it runs.
    pub made: Made,
    /// Its workspace.
    pub workspace: PathBuf,
}

/// The agents of a config file's text marked as added from the registry, with their marks (read
/// from the text as it is now, which may be newer than the config loaded).
fn marked(text: &str) -> Vec<(String, Installed)> {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else { return Vec::new() };
    let Some(agents) = doc.get("agent").and_then(toml_edit::Item::as_array_of_tables) else { return Vec::new() };
    agents
        .iter()
        .filter_map(|t| {
            let mark = t.get("registry")?;
            let field = |k: &str| mark.get(k).and_then(toml_edit::Item::as_str).map(str::to_string);
            Some((t.get("name")?.as_str()?.to_string(), Installed { id: field("id")?, version: field("version")? }))
        })
        .collect()
}

/// An agent updated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Updated {
    /// Its name (unchanged).
    pub name: String,
    /// The version it had.
    pub from: String,
    /// The version it has now.
    pub to: String,
}

/// The entry `id` of `listing`, or why not.
pub fn entry<'l>(listing: &'l Listing, id: &str) -> Result<&'l Entry, String> {
    listing.index.agents.iter().find(|e| e.id == id).ok_or_else(|| {
        format!(
            "the registry ({}) has no agent with the id \"{id}\" (`sidekicks registry list` shows them)",
            listing.url
        )
    })
}

/// Adds entry `id` to the config file at `path` as `name` (else the entry's name, made unique)
/// working in `workspace` (else a new folder beside the config, as for any added agent). A binary
/// is downloaded first; if the config cannot be written, it is deleted again.
pub fn add(
    path: &Path,
    data_dir: &Path,
    listing: &Listing,
    id: &str,
    name: Option<&str>,
    workspace: Option<&Path>,
    progress: impl FnMut(u64, Option<u64>),
) -> Result<Added, String> {
    let entry = entry(listing, id)?;
    // Checked before downloading: a text that cannot be edited wastes no download.
    let text = crate::runtime::config::file::read_text(path).unwrap_or_default();
    text.parse::<toml_edit::DocumentMut>().map_err(|e| format!("{}: {e}", path.display()))?;
    let made = prepare(entry, data_dir, progress)?;
    let installed = Installed { id: entry.id.clone(), version: entry.version.clone() };
    // Read again once downloaded, and held until saved: the file may have changed meanwhile.
    let _edit = edit_lock();
    let text = crate::runtime::config::file::read_text(path).unwrap_or_default();
    let undo = |why: String| {
        // Not when another agent runs the same download (this entry added twice).
        if made.kind == "binary" && !marked(&text).iter().any(|(_, i)| *i == installed) {
            let _ = remove_files(data_dir, &entry.id, &entry.version);
        }
        why
    };
    let wanted = name.map(str::to_string).unwrap_or_else(|| entry.name.clone());
    let name = unique_name(&text, &wanted).map_err(|e| undo(format!("{}: {e}", path.display())))?;
    let workspace = match workspace {
        Some(w) => w.to_path_buf(),
        None => crate::runtime::config::file::default_workspace(path, &name),
    };
    std::fs::create_dir_all(&workspace).map_err(|e| undo(format!("{}: {e}", workspace.display())))?;
    let agent = NewAgent { name, command: made.command.clone(), args: made.args.clone(), env: made.env.clone() };
    let (edited, name) = add_installed(&text, &agent, &workspace, &installed).map_err(|e| undo(e.to_string()))?;
    save_atomic(path, &edited).map_err(|e| undo(format!("{}: {e}", path.display())))?;
    Ok(Added { name, version: entry.version.clone(), made, workspace })
}

/// The agents of `config` installed from the registry, with their marks.
pub fn installed(config: &Config) -> Vec<(String, Installed)> {
    config.agents.iter().filter_map(|a| Some((a.name.clone(), a.registry.clone()?))).collect()
}

/// Updates the registry agents of the config (those of entry `id`, or all) whose entry has a newer
/// version: the new version is made ready first, then the config points at it, then the old
/// version's download is deleted when no other agent uses it. Names, workspaces, threads and
/// settings stay. Returns what was updated (empty when everything is current).
pub fn update(
    path: &Path,
    data_dir: &Path,
    config: &Config,
    listing: &Listing,
    id: Option<&str>,
    mut progress: impl FnMut(&str, u64, Option<u64>),
) -> Result<Vec<Updated>, String> {
    let mine = installed(config);
    if let Some(id) = id
        && !mine.iter().any(|(_, i)| i.id == id)
    {
        return Err(format!("no agent of the config file was added from the registry's \"{id}\""));
    }
    let mut done = Vec::new();
    for (name, old) in mine.iter().filter(|(_, i)| id.is_none_or(|id| i.id == id)) {
        let Some(entry) = listing.index.agents.iter().find(|e| e.id == old.id) else { continue };
        if compare_versions(&entry.version, &old.version) != std::cmp::Ordering::Greater {
            continue;
        }
        let made = prepare(entry, data_dir, |got, total| progress(name, got, total))?;
        let new = Installed { id: entry.id.clone(), version: entry.version.clone() };
        let _edit = edit_lock();
        let text = crate::runtime::config::file::read_text(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let edited = update_installed(&text, name, &made.command, &made.args, &made.env, &new)
            .map_err(|e| e.to_string())
            .and_then(|t| save_atomic(path, &t).map_err(|e| format!("{}: {e}", path.display())));
        if let Err(why) = edited {
            if made.kind == "binary" && !marked(&text).iter().any(|(_, i)| *i == new) {
                let _ = remove_files(data_dir, &entry.id, &entry.version);
            }
            return Err(why);
        }
        let still_used =
            marked(&crate::runtime::config::file::read_text(path).unwrap_or_default()).iter().any(|(_, i)| i == old);
        if !still_used {
            let _ = remove_files(data_dir, &old.id, &old.version);
        }
        done.push(Updated { name: name.clone(), from: old.version.clone(), to: entry.version.clone() });
    }
    Ok(done)
}

/// What removing an agent did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed {
    /// Whether a download of Sidekicks' was deleted (none for `npx`/`uvx` agents, whose packages
    /// are in npm's or uv's own cache).
    pub deleted_files: bool,
}

/// Removes agent `name` from the config and deletes what Sidekicks downloaded for it (unless
/// another agent uses the same download). Its threads stay in the history.
pub fn remove(path: &Path, data_dir: &Path, config: &Config, name: &str) -> Result<Removed, String> {
    let agent = config.agent(name).ok_or_else(|| format!("no agent named \"{name}\" in {}", path.display()))?;
    let mark = agent.registry.clone().ok_or_else(|| {
        format!("\"{name}\" was not added from the registry: remove it in Settings or the config file instead")
    })?;
    let _edit = edit_lock();
    let text = crate::runtime::config::file::read_text(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let edited = remove_agent(&text, name).map_err(|e| e.to_string())?;
    save_atomic(path, &edited).map_err(|e| format!("{}: {e}", path.display()))?;
    let shared = marked(&edited).iter().any(|(_, i)| *i == mark);
    let deleted_files = !shared && remove_files(data_dir, &mark.id, &mark.version)?;
    Ok(Removed { deleted_files })
}
