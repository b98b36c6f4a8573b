//! An agent's folder as a workspace the person can browse and edit next to a working agent, on this
//! computer (`local`, cap-std) or in a container, sandbox or pod (`remote`, through the executor's
//! `run`). One contract for both: relative `/` paths that never leave the workspace, reads that come
//! with a version (SHA-256 of the content), writes that land only over that version, atomically.

mod follow;
mod local;
mod remote;

use std::path::PathBuf;

use futures::future::BoxFuture;

pub use follow::{Follower, follow};
pub use local::LocalWorkspace;
pub use remote::{RemoteWorkspace, read_script};

use crate::model::rel_path::RelPath;
pub use crate::protocol::workspace::{Entry, EntryKind, Location, Version, WorkspaceError};

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
