//! Reading what a path is on disk, and the rebased paths of a member: after a merge (the merged
//! version) or a conflict (the main folder's version), a path's base is no longer the original
//! one. They are kept in the member's state folder: `rebased.json` and one content file per path.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::Digest;

use super::{TeamError, checked};
use crate::model::merge::Side;

/// What `rel` is below `root`: a file (content, executable bit), a symbolic link, or absent (a
/// folder counts as absent: only files and links are merged).
pub fn read_side(root: &Path, rel: &str) -> Result<Side, TeamError> {
    let path = root.join(checked(rel)?);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR) => {
            return Ok(Side::Absent);
        }
        Err(e) => return Err(TeamError::io(&path, e)),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&path).map_err(|e| TeamError::io(&path, e))?;
        return Ok(Side::Symlink { target: target.to_string_lossy().into_owned() });
    }
    if !meta.is_file() {
        return Ok(Side::Absent);
    }
    let content = std::fs::read(&path).map_err(|e| TeamError::io(&path, e))?;
    Ok(Side::File { content, executable: meta.permissions().mode() & 0o111 != 0 })
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum Entry {
    Absent,
    File { executable: bool },
    Symlink { target: String },
}

/// The rebased paths of a member.
#[derive(Default)]
pub struct Rebased {
    entries: BTreeMap<String, Entry>,
}

fn content_file(state: &Path, path: &str) -> PathBuf {
    let digest = sha2::Sha256::digest(path.as_bytes());
    let name: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    state.join("rebased").join(name)
}

impl Rebased {
    /// Loads the list (empty when there is none yet).
    pub fn load(state: &Path) -> Result<Self, TeamError> {
        match std::fs::read(state.join("rebased.json")) {
            Ok(text) => {
                Ok(Self { entries: serde_json::from_slice(&text).map_err(|e| TeamError::io(state, e.to_string()))? })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(TeamError::io(state, e)),
        }
    }

    /// True when `path` was rebased.
    pub fn has(&self, path: &str) -> bool {
        self.entries.contains_key(path)
    }

    /// Every rebased path.
    pub fn paths(&self) -> impl Iterator<Item = String> + '_ {
        self.entries.keys().cloned()
    }

    /// The base of a rebased path.
    pub fn read(&self, state: &Path, path: &str) -> Result<Side, TeamError> {
        Ok(match self.entries.get(path) {
            None | Some(Entry::Absent) => Side::Absent,
            Some(Entry::Symlink { target }) => Side::Symlink { target: target.clone() },
            Some(Entry::File { executable }) => {
                let file = content_file(state, path);
                let content = std::fs::read(&file).map_err(|e| TeamError::io(&file, e))?;
                Side::File { content, executable: *executable }
            }
        })
    }

    /// Makes `side` the base of `path` (call [`Rebased::save`] after).
    pub fn set(&mut self, state: &Path, path: &str, side: &Side) -> Result<(), TeamError> {
        let entry = match side {
            Side::Absent => Entry::Absent,
            Side::Symlink { target } => Entry::Symlink { target: target.clone() },
            Side::File { content, executable } => {
                let file = content_file(state, path);
                std::fs::create_dir_all(state.join("rebased")).map_err(|e| TeamError::io(state, e))?;
                std::fs::write(&file, content).map_err(|e| TeamError::io(&file, e))?;
                Entry::File { executable: *executable }
            }
        };
        self.entries.insert(path.to_string(), entry);
        Ok(())
    }

    /// Writes the list (atomically).
    pub fn save(&self, state: &Path) -> Result<(), TeamError> {
        let text = serde_json::to_vec(&self.entries).map_err(|e| TeamError::io(state, e.to_string()))?;
        let tmp = state.join("rebased.json.tmp");
        std::fs::write(&tmp, text).map_err(|e| TeamError::io(&tmp, e))?;
        std::fs::rename(&tmp, state.join("rebased.json")).map_err(|e| TeamError::io(state, e))
    }
}
