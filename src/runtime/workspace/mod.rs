//! An agent's folder as a workspace, on this computer (`local`, cap-std) or in a container,
//! sandbox or pod (`remote`, through the executor's `run`). It serves both the person (the Files
//! tab: reads that come with a version, writes that land only over that version) and the agent
//! (its `fs/*` requests, through `agent_fs`, a thin adapter): one implementation, one set of rules,
//! one contract suite (tests/contracts/workspace_contract.rs). The rules, whoever asks:
//! - a path is relative and never leaves the root: `..`, absolute paths and symlinks (of the file
//!   or of any folder above it) that lead out are refused (`Outside`);
//! - a write never goes through a symlink, even one that stays inside (`Outside`): it would
//!   replace the link or write elsewhere than the path names;
//! - a write creates the missing folders above the file (inside the root);
//! - a write is atomic (a temporary file renamed over the old one) and keeps the file's mode;
//! - a read of a folder is refused (`IsFolder`).

mod follow;
mod local;
mod remote;

use std::path::PathBuf;

use futures::future::BoxFuture;

pub use follow::{Follower, follow, watch_dir};
pub use local::LocalWorkspace;
pub use remote::{RemoteWorkspace, read_script};

use crate::model::config::{AgentConfig, RuntimeKind};
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
    /// Lines `line`.. (1-based; at most `limit` of them) of file `path`, at most `max` bytes,
    /// read as a stream: a huge file costs no more than `max` (an agent's `fs/read_text_file`).
    fn read_lines(
        &self,
        path: &RelPath,
        line: u32,
        limit: Option<u32>,
        max: usize,
    ) -> BoxFuture<'static, WsResult<Vec<u8>>>;
    /// Writes `bytes` to `path` if it still has version `expected` (`None`: it must not exist yet),
    /// atomically (temporary file renamed over it), keeping its mode. Returns the new version.
    fn write(&self, path: &RelPath, bytes: Vec<u8>, expected: Option<Version>)
    -> BoxFuture<'static, WsResult<Version>>;
    /// Writes `bytes` to `path` whatever is there now (an agent's `fs/write_text_file`), by the
    /// same rules as [`Workspace::write`].
    fn overwrite(&self, path: &RelPath, bytes: Vec<u8>) -> BoxFuture<'static, WsResult<Version>>;
    /// Removes a file or folder (to the trash on this computer; for good in a container).
    fn remove(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>>;
    /// Brings back from the trash what was removed last at `path` (this computer only).
    fn restore(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>> {
        let _ = path;
        Box::pin(async { Err(WorkspaceError::NotSupported { what: "bring back what was deleted".into() }) })
    }
    /// Creates a folder (and its parents).
    fn create_dir(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>>;
    /// Renames (moves) `from` to `to`; `to` must not exist.
    fn rename(&self, from: &RelPath, to: &RelPath) -> BoxFuture<'static, WsResult<()>>;
    /// Every file and folder below the root (relative, with "is a folder"), at most `limit`,
    /// skipping hidden entries and what `.gitignore` ignores where it can tell (on this computer),
    /// `.git` and `node_modules` everywhere: what `@` in the composer completes.
    fn paths(&self, limit: usize) -> BoxFuture<'static, WsResult<Vec<(String, bool)>>>;
    /// A fingerprint of every path, size and date below the root (changes when anything does).
    fn fingerprint(&self) -> BoxFuture<'static, WsResult<u64>>;
    /// The command line that opens a login shell in the workspace folder (`tty`: for a terminal, so
    /// `-t` is asked of `docker exec`). The terminal issue runs it in a PTY.
    fn shell_command(&self, tty: bool) -> ShellCommand;
    /// The command line that runs `argv` (with `env` added) in the workspace folder, in a terminal
    /// (a login program the agent names).
    fn program_command(&self, argv: Vec<String>, env: Vec<(String, String)>) -> ShellCommand;
}

/// What a write expects to find at its path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expect {
    /// Nothing: the file is new.
    Absent,
    /// This version.
    Version(Version),
    /// Anything (an agent's write).
    Anything,
}

impl Expect {
    fn from_version(expected: Option<Version>) -> Self {
        expected.map_or(Expect::Absent, Expect::Version)
    }
}

/// The workspace an agent works in, for its files in the window and its own `fs/*` requests
/// alike: in its container, sandbox or pod, or on this computer.
pub fn for_agent(agent: &AgentConfig) -> std::sync::Arc<dyn Workspace> {
    match crate::runtime::exec::executor_for(agent) {
        Ok(executor) if agent.runtime.kind != RuntimeKind::Local => {
            let tool = match agent.runtime.kind {
                RuntimeKind::Podman => "podman",
                RuntimeKind::Sbx => "sbx",
                RuntimeKind::Kubectl => "kubectl",
                RuntimeKind::Ssh => "ssh",
                _ => "docker",
            };
            let target = agent.runtime.target_name().unwrap_or_default();
            std::sync::Arc::new(RemoteWorkspace::new(executor, agent.workspace_path(), tool, target))
        }
        _ => std::sync::Arc::new(LocalWorkspace::new(agent.workspace.clone())),
    }
}

/// Reads past `lines` lines without keeping them.
fn skip_lines(reader: &mut impl std::io::BufRead, mut lines: usize) -> std::io::Result<()> {
    while lines > 0 {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        let (used, ended) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        reader.consume(used);
        lines -= usize::from(ended);
    }
    Ok(())
}

/// The next `lines` lines, stopping once `max` bytes are kept.
fn take_lines(reader: &mut impl std::io::BufRead, mut lines: usize, max: usize) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    while lines > 0 && out.len() < max {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let (used, ended) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let kept = used.min(max - out.len());
        out.extend_from_slice(&buf[..kept]);
        reader.consume(used);
        lines -= usize::from(ended);
    }
    Ok(out)
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
