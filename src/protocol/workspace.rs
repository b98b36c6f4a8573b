//! The plain data of workspaces that crosses between the runtime and the app: versions of files,
//! entries of folders, where a workspace is, and what can go wrong.

use std::path::PathBuf;

use sha2::{Digest, Sha256};

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
    Remote {
        /// The tool.
        tool: String,
        /// The target.
        target: String,
        /// The path it is about.
        path: PathBuf,
    },
}

/// Errors of a workspace, each one the UI can put into words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WorkspaceError {
    /// The path leads out of the workspace (`..`, absolute, or a symlink that leads out).
    #[error("{path} is outside the workspace")]
    Outside {
        /// The path it is about.
        path: String,
    },
    /// Nothing at that path.
    #[error("{path} does not exist")]
    NotFound {
        /// The path it is about.
        path: String,
    },
    /// Something is already at that path.
    #[error("{path} already exists")]
    Exists {
        /// The path it is about.
        path: String,
    },
    /// The file changed since it was read: it now has `current` (`None`: it was removed).
    #[error("{path} changed since it was read")]
    Conflict {
        /// The path it is about.
        path: String,
        /// The current version (`None`: removed).
        current: Option<Version>,
    },
    /// A folder where a file was expected.
    #[error("{path} is a folder")]
    IsFolder {
        /// The path it is about.
        path: String,
    },
    /// The workspace folder itself cannot be removed or renamed.
    #[error("the workspace folder itself cannot be removed")]
    IsRoot,
    /// This workspace cannot do that.
    #[error("this workspace cannot {what}")]
    NotSupported {
        /// What it is about.
        what: String,
    },
    /// The machine it is on could not be reached or used (over SSH).
    #[error("cannot reach {host}")]
    Unreachable {
        /// The host of the config.
        host: String,
        /// What went wrong.
        fault: super::SshFault,
    },
    /// Any other failure (the system's words).
    #[error("{path}: {message}")]
    Io {
        /// The path it is about.
        path: String,
        /// The message, in the words of whoever gave it.
        message: String,
    },
}

impl WorkspaceError {
    /// True for a path that leads out of the workspace.
    pub fn is_outside(&self) -> bool {
        matches!(self, WorkspaceError::Outside { .. })
    }
}

impl From<Outside> for WorkspaceError {
    fn from(o: Outside) -> Self {
        WorkspaceError::Outside { path: o.0 }
    }
}

/// A workspace operation the view asks of the runtime (the answer is a `WorkspaceEvent`).
#[derive(Clone, Debug, PartialEq)]
pub enum WorkspaceOp {
    /// List a folder (→ `Listed`).
    List {
        /// The folder.
        dir: RelPath,
    },
    /// Read a file (→ `Read`).
    Read {
        /// The path it is about.
        path: RelPath,
    },
    /// Write a file over version `expected` (→ `Written`).
    Write {
        /// The path it is about.
        path: RelPath,
        /// The bytes.
        bytes: Vec<u8>,
        /// What was expected.
        expected: Option<Version>,
    },
    /// Create an empty file that must not exist yet (→ `Done`).
    NewFile {
        /// The path it is about.
        path: RelPath,
    },
    /// Create a folder (→ `Done`).
    CreateDir {
        /// The path it is about.
        path: RelPath,
    },
    /// Rename `from` to `to` (→ `Done`).
    Rename {
        /// Where from.
        from: RelPath,
        /// Where to.
        to: RelPath,
    },
    /// Every file and folder below the root, at most `limit` (→ `Paths`).
    Paths {
        /// The most paths answered.
        limit: usize,
    },
    /// Remove a file or folder (→ `Done`).
    Remove {
        /// The path it is about.
        path: RelPath,
    },
    /// Bring back from the system's trash what was removed last at `path` (→ `Done`).
    Restore {
        /// The path it is about.
        path: RelPath,
    },
}

/// What a workspace reports to the view.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkspaceEvent {
    /// The entries of a folder.
    Listed {
        /// The folder.
        dir: RelPath,
        /// How it went.
        result: Result<Vec<Entry>, WorkspaceError>,
    },
    /// A file's content and version.
    Read {
        /// The path it is about.
        path: RelPath,
        /// How it went.
        result: Result<(Vec<u8>, Version), WorkspaceError>,
    },
    /// A file was written (its new version).
    Written {
        /// The path it is about.
        path: RelPath,
        /// How it went.
        result: Result<Version, WorkspaceError>,
    },
    /// Every file and folder below the root (for `@` in the composer), at most a limit of them.
    Paths {
        /// How it went: paths relative to the root, each with "is a folder".
        result: Result<Vec<(String, bool)>, WorkspaceError>,
    },
    /// A create, rename or restore finished.
    Done {
        /// How it went.
        result: Result<(), WorkspaceError>,
    },
    /// A remove finished (on this computer it went to the trash: `Restore` brings it back).
    Removed {
        /// The path it is about.
        path: RelPath,
        /// How it went.
        result: Result<(), WorkspaceError>,
    },
    /// Something changed in the folder (from outside the view).
    Changed,
    /// A terminal asked for with `Command::OpenTerminal` runs (or could not start: the reason).
    TerminalOpened {
        /// How it went.
        result: Result<super::terminal::TerminalHandle, String>,
    },
}

/// What a door asks about an agent's workspace and the terminals there (served by the front door:
/// `runtime/services/workspaces.rs`, `terminals.rs`).
#[derive(Clone, Debug)]
pub enum WorkspaceCommand {
    /// An operation on an agent's workspace (→ `Event::Workspace`).
    Op {
        /// The agent (its name).
        agent: String,
        /// The operation.
        op: WorkspaceOp,
    },
    /// Follow this agent's workspace (changes come as `WorkspaceEvent::Changed`), and no other;
    /// `None` follows none.
    Follow {
        /// The agent (its name).
        agent: Option<String>,
    },
    /// Open a terminal (a login shell) in the agent's workspace (→ `WorkspaceEvent::TerminalOpened`).
    OpenTerminal {
        /// The agent (its name).
        agent: String,
    },
    /// Run the agent's program with a terminal way to log in's arguments and variables in a
    /// terminal of its workspace (→ `WorkspaceEvent::TerminalOpened`); the agent starts once it
    /// exits with success.
    LoginTerminal {
        /// The agent.
        agent: String,
        /// Arguments added to its command line.
        args: Vec<String>,
        /// Variables added to its environment.
        env: Vec<(String, String)>,
    },
    /// End a terminal and everything it started.
    CloseTerminal {
        /// Its id.
        id: u64,
    },
}
