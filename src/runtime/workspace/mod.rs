//! An agent's folder as a workspace the person can browse and edit next to a working agent, on this
//! computer (`local`, cap-std) or in a container, sandbox or pod (`remote`, through the executor's
//! `run`). One contract for both: relative `/` paths that never leave the workspace, reads that come
//! with a version (SHA-256 of the content), writes that land only over that version, atomically.

mod follow;
mod local;
mod remote;

use std::path::PathBuf;

use futures::future::BoxFuture;
use sha2::{Digest, Sha256};

pub use follow::{Follower, follow};
pub use local::LocalWorkspace;
pub use remote::{RemoteWorkspace, read_script};

use crate::model::rel_path::{Outside, RelPath};

/// The version of a file: the SHA-256 of its content, in hex.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Version(pub String);

impl Version {
    /// The version of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        let digest = Sha256::digest(bytes);
        Self(digest.iter().map(|b| format!("{b:02x}")).collect())
    }
}

/// What an entry of a folder is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    /// A folder.
    Dir,
    /// A file.
    File,
    /// A symbolic link (not followed).
    Symlink,
    /// Anything else (device, socket, …).
    Other,
}

/// One entry of a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// What it is.
    pub kind: EntryKind,
    /// Its size in bytes.
    pub size: u64,
    /// Last modification, seconds since the epoch.
    pub modified: i64,
}

/// Where a workspace is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A folder on this computer.
    Local(PathBuf),
    /// A folder inside a container, sandbox or pod.
    Remote { tool: String, target: String, path: PathBuf },
}

/// Errors of a workspace, each one the UI can put into words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WorkspaceError {
    /// The path leads out of the workspace (`..`, absolute, or a symlink that leads out).
    #[error("{path} is outside the workspace")]
    Outside { path: String },
    /// Nothing at that path.
    #[error("{path} does not exist")]
    NotFound { path: String },
    /// Something is already at that path.
    #[error("{path} already exists")]
    Exists { path: String },
    /// The file changed since it was read: it now has `current` (`None`: it was removed).
    #[error("{path} changed since it was read")]
    Conflict { path: String, current: Option<Version> },
    /// The workspace folder itself cannot be removed or renamed.
    #[error("the workspace folder itself cannot be removed")]
    IsRoot,
    /// This workspace cannot do that.
    #[error("this workspace cannot {what}")]
    NotSupported { what: String },
    /// Any other failure (the system's words).
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

impl From<Outside> for WorkspaceError {
    fn from(o: Outside) -> Self {
        WorkspaceError::Outside { path: o.0 }
    }
}

/// The result of workspace operations.
pub type WsResult<T> = Result<T, WorkspaceError>;

/// An agent's folder, wherever it is.
pub trait Workspace: Send + Sync {
    /// Where it is.
    fn location(&self) -> Location;
    /// True when deleting is final (no trash): the confirmation must say so.
    fn removal_is_final(&self) -> bool;
    /// The entries of folder `dir`, folders first, then by name.
    fn list(&self, dir: &RelPath) -> BoxFuture<'static, WsResult<Vec<Entry>>>;
    /// The content of file `path` and its version.
    fn read(&self, path: &RelPath) -> BoxFuture<'static, WsResult<(Vec<u8>, Version)>>;
    /// Writes `bytes` to `path` if it still has version `expected` (`None`: it must not exist yet),
    /// atomically (temporary file renamed over it), keeping its mode. Returns the new version.
    fn write(&self, path: &RelPath, bytes: Vec<u8>, expected: Option<Version>)
    -> BoxFuture<'static, WsResult<Version>>;
    /// Removes a file or folder (to the trash on this computer; for good in a container).
    fn remove(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>>;
    /// Creates a folder (and its parents).
    fn create_dir(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>>;
    /// Renames (moves) `from` to `to`; `to` must not exist.
    fn rename(&self, from: &RelPath, to: &RelPath) -> BoxFuture<'static, WsResult<()>>;
    /// A fingerprint of every path, size and date below the root (changes when anything does).
    fn fingerprint(&self) -> BoxFuture<'static, WsResult<u64>>;
    /// The command line that opens a login shell in the workspace folder (`tty`: for a terminal, so
    /// `-t` is asked of `docker exec`). The terminal issue runs it in a PTY.
    fn shell_command(&self, tty: bool) -> ShellCommand;
}

/// How to open a shell in a workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellCommand {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Where to start it on this computer.
    pub cwd: PathBuf,
    /// Variables to set.
    pub env: Vec<(String, String)>,
    /// A command (program and arguments, run on this computer) that ends the shell and everything
    /// it started where it runs; empty when ending the local process tree is enough.
    pub teardown: Vec<String>,
}

/// Sorts entries: folders first, then by name.
fn sort_entries(entries: &mut [Entry]) {
    entries.sort_by(|a, b| (a.kind != EntryKind::Dir, &a.name).cmp(&(b.kind != EntryKind::Dir, &b.name)));
}

/// A 64-bit FNV-1a hash (stable across runs, for fingerprints).
fn fnv1a(bytes: &[u8], mut hash: u64) -> u64 {
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x100000001b3);
    }
    hash
}

const FNV_START: u64 = 0xcbf29ce484222325;
