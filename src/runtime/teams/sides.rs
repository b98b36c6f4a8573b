//! Reading what a path is on disk, and the rebased paths of a member: after a merge (the merged
//! version) or a conflict (the main folder's version), a path's base is no longer the original
//! one. They are kept in the member's state folder: `rebased.json` and one content file per path.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{TeamError, checked};
use crate::model::merge::Side;

/// The biggest file Sidekicks reads of a copy or the project to show or merge (git's own
/// `core.bigFileThreshold` is 512 MiB; a merge holds three sides and the result).
pub const MAX_FILE: u64 = 256 << 20;

/// What `rel` is below `root`: a file (content, executable bit), a symbolic link, or absent (a
/// folder counts as absent: only files and links are merged). A path below a link or a file is
/// absent too: as for git, the link is what is there, not what it leads to. A file over
/// [`MAX_FILE`] is refused in words (`TeamError::TooBig`).
pub fn read_side(root: &Path, rel: &str) -> Result<Side, TeamError> {
    // A project on another machine is read there (ADR 0039).
    if let Some(side) = super::there::read(root, rel) {
        return side;
    }
    let path = root.join(checked(rel)?);
    let mut folder = root.to_path_buf();
    for part in rel.split('/').rev().skip(1).collect::<Vec<_>>().into_iter().rev() {
        folder.push(part);
        if !std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
            return Ok(Side::Absent);
        }
    }
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
    // A file is read whole to be compared and merged: one of gigabytes took `team merge` past 4 GB.
    if meta.len() > MAX_FILE {
        return Err(TeamError::TooBig { path: rel.to_string(), size: meta.len(), limit: MAX_FILE });
    }
    let content = std::fs::read(&path).map_err(|e| TeamError::io(&path, e))?;
    Ok(Side::File { content, executable: meta.permissions().mode() & 0o111 != 0 })
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum Entry {
    Absent,
    /// The content is at `offset`, `len` bytes, in `rebased.pack`.
    File {
        executable: bool,
        offset: u64,
        len: u64,
    },
    Symlink {
        target: String,
    },
}

/// The rebased paths of a member. Contents are appended to one file (`rebased.pack`): a merge
/// of 1,000 files rebases them with one write.
#[derive(Default)]
pub struct Rebased {
    entries: BTreeMap<String, Entry>,
    /// Contents to append on save.
    pending: Vec<u8>,
    /// The pack's length before `pending`.
    pack_len: u64,
}

fn pack(state: &Path) -> PathBuf {
    state.join("rebased.pack")
}

/// The list of rebased paths as it was, to put back (see [`Rebased::snapshot`]).
pub struct Snapshot(Option<Vec<u8>>);

impl Snapshot {
    /// Puts the list back as it was (contents appended to the pack since are simply unused).
    pub fn restore(self, state: &Path) -> Result<(), TeamError> {
        let path = state.join("rebased.json");
        match self.0 {
            Some(text) => {
                let tmp = state.join("rebased.json.tmp");
                std::fs::write(&tmp, text).map_err(|e| TeamError::io(&tmp, e))?;
                std::fs::rename(&tmp, &path).map_err(|e| TeamError::io(&path, e))
            }
            None => match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(TeamError::io(&path, e)),
                _ => Ok(()),
            },
        }
    }
}

impl Rebased {
    /// The list as it is now, to put back should what follows fail.
    pub fn snapshot(state: &Path) -> Result<Snapshot, TeamError> {
        match std::fs::read(state.join("rebased.json")) {
            Ok(text) => Ok(Snapshot(Some(text))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Snapshot(None)),
            Err(e) => Err(TeamError::io(state, e)),
        }
    }

    /// Loads the list (empty when there is none yet).
    pub fn load(state: &Path) -> Result<Self, TeamError> {
        match std::fs::read(state.join("rebased.json")) {
            Ok(text) => Ok(Self {
                entries: serde_json::from_slice(&text).map_err(|e| TeamError::io(state, e.to_string()))?,
                pending: Vec::new(),
                pack_len: std::fs::metadata(pack(state)).map_or(0, |m| m.len()),
            }),
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
            Some(Entry::File { executable, offset, len }) => {
                use std::io::{Read, Seek, SeekFrom};
                let file = pack(state);
                let mut content = vec![0; *len as usize];
                std::fs::File::open(&file)
                    .and_then(|mut f| {
                        f.seek(SeekFrom::Start(*offset))?;
                        f.read_exact(&mut content)
                    })
                    .map_err(|e| TeamError::io(&file, e))?;
                Side::File { content, executable: *executable }
            }
        })
    }

    /// Makes `side` the base of `path` (call [`Rebased::save`] after).
    pub fn set(&mut self, path: &str, side: &Side) {
        let entry = match side {
            Side::Absent => Entry::Absent,
            Side::Symlink { target } => Entry::Symlink { target: target.clone() },
            Side::File { content, executable } => {
                let offset = self.pack_len + self.pending.len() as u64;
                self.pending.extend_from_slice(content);
                Entry::File { executable: *executable, offset, len: content.len() as u64 }
            }
        };
        self.entries.insert(path.to_string(), entry);
    }

    /// Appends the new contents to the pack, then writes the list (atomically).
    pub fn save(&mut self, state: &Path) -> Result<(), TeamError> {
        if !self.pending.is_empty() {
            use std::io::Write;
            let file = pack(state);
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&file)
                .map_err(|e| TeamError::io(&file, e))?;
            // A pack longer than recorded (an earlier save that crashed) is fine: offsets come from the list.
            let at = f.metadata().map_err(|e| TeamError::io(&file, e))?.len();
            if at != self.pack_len {
                let shift = at - self.pack_len;
                for entry in self.entries.values_mut() {
                    if let Entry::File { offset, .. } = entry
                        && *offset >= self.pack_len
                    {
                        *offset += shift;
                    }
                }
            }
            f.write_all(&self.pending).map_err(|e| TeamError::io(&file, e))?;
            self.pack_len = at + self.pending.len() as u64;
            self.pending.clear();
        }
        let text = serde_json::to_vec(&self.entries).map_err(|e| TeamError::io(state, e.to_string()))?;
        let tmp = state.join("rebased.json.tmp");
        std::fs::write(&tmp, text).map_err(|e| TeamError::io(&tmp, e))?;
        std::fs::rename(&tmp, state.join("rebased.json")).map_err(|e| TeamError::io(state, e))
    }
}
