//! Serving the agent's `fs/read_text_file` and `fs/write_text_file` requests: a thin adapter over
//! the agent's [`Workspace`], the same one the Files tab uses, so both keep one set of rules
//! (runtime/workspace). Paths arrive absolute, as the agent sees them (`workspace_path`); they
//! must lie below it. Reads are streamed and bounded; answers must be UTF-8 text.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::workspace::{Workspace, WorkspaceError};
use crate::model::rel_path::RelPath;

/// The largest file whose write is shown as a diff in the conversation.
pub const SHOWN_WRITE: usize = 256 * 1024;
/// The most text one `fs/read_text_file` answers. A bigger answer is refused (`TooLarge`): the
/// agent can ask for fewer lines with `line` and `limit`. Files are read as a stream, so the
/// limit also bounds the memory a read takes, whatever the file's size.
pub const MAX_READ: usize = 16 << 20;
/// Largest file an agent may write through `fs/write_text_file` (its text); a larger write is
/// refused in words (it also holds the file and its copy in memory while it is written).
pub const MAX_WRITE: usize = 48 << 20;

/// Why a file request was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum AgentFsError {
    /// The path is not inside the agent's workspace.
    #[error("{path} is outside the agent's workspace")]
    Outside {
        /// The path it is about.
        path: String,
    },
    /// The workspace refused or failed.
    #[error("{path}: {error}")]
    Workspace {
        /// The path as the agent gave it.
        path: String,
        /// What the workspace said.
        error: WorkspaceError,
    },
    /// The answer would be larger than `MAX_READ`.
    #[error("{path}: the text asked for is larger than {} MiB; ask for fewer lines (line, limit)", MAX_READ >> 20)]
    TooLarge {
        /// The path it is about.
        path: String,
    },
    /// A write larger than `MAX_WRITE`.
    #[error("{path}: {size} MiB is more than Sidekicks writes at once ({} MiB); write the file in smaller parts or with a command", MAX_WRITE >> 20)]
    WriteTooLarge {
        /// The path it is about.
        path: String,
        /// The text's size, in MiB.
        size: usize,
    },
    /// The file is not UTF-8 text (or holds NUL bytes).
    #[error("{path} is not a UTF-8 text file")]
    NotText {
        /// The path it is about.
        path: String,
    },
}

impl AgentFsError {
    /// The JSON-RPC error code ACP uses for it: -32002 for a missing file, -32602 for a request
    /// that cannot be served as asked, -32603 for a failure of the computer.
    pub fn code(&self) -> i32 {
        match self {
            AgentFsError::Workspace { error: WorkspaceError::NotFound { .. }, .. } => -32002,
            AgentFsError::Workspace { error: WorkspaceError::Io { .. }, .. } => -32603,
            AgentFsError::Workspace { .. }
            | AgentFsError::Outside { .. }
            | AgentFsError::TooLarge { .. }
            | AgentFsError::WriteTooLarge { .. }
            | AgentFsError::NotText { .. } => -32602,
        }
    }
}

/// The agent's workspace, and its path as the agent sees it.
#[derive(Clone)]
pub struct AgentFs {
    workspace: Arc<dyn Workspace>,
    agent_root: PathBuf,
}

impl AgentFs {
    /// Serves the agent's files from `workspace`, which the agent sees at `agent_root`.
    pub fn new(workspace: Arc<dyn Workspace>, agent_root: PathBuf) -> Self {
        Self { workspace, agent_root }
    }

    /// Serves `fs/read_text_file`: lines `line`.. (1-based), at most `limit` of them.
    pub async fn serve_read(&self, path: &Path, line: Option<u32>, limit: Option<u32>) -> Result<String, AgentFsError> {
        let rel = self.relative(path)?;
        let bytes = self
            .workspace
            .read_lines(&rel, line.unwrap_or(1).max(1), limit, MAX_READ + 1)
            .await
            .map_err(|e| failed(path, e))?;
        text_answer(bytes, path)
    }

    /// Serves `fs/write_text_file`: the file is created or replaced, whatever it held. Returns
    /// what it held when that was text of at most [`SHOWN_WRITE`] bytes (`Some("")`: a new file),
    /// for the conversation's diff card; `None` when it cannot be shown.
    pub async fn serve_write(&self, path: &Path, content: &str) -> Result<Option<String>, AgentFsError> {
        if content.len() > MAX_WRITE {
            return Err(AgentFsError::WriteTooLarge { path: path.display().to_string(), size: content.len() >> 20 });
        }
        let rel = self.relative(path)?;
        let before = match self.workspace.read_lines(&rel, 1, None, SHOWN_WRITE + 1).await {
            Ok(bytes) if bytes.len() <= SHOWN_WRITE && memchr::memchr(0, &bytes).is_none() => {
                String::from_utf8(bytes).ok()
            }
            Ok(_) => None,
            // Nothing there yet (or unreadable): a new file as far as the card goes.
            Err(_) => Some(String::new()),
        };
        self.workspace.overwrite(&rel, content.as_bytes().to_vec()).await.map_err(|e| failed(path, e))?;
        Ok(before.filter(|_| content.len() <= SHOWN_WRITE))
    }

    /// Where the agent sees `rel` (an absolute path), for a link in a prompt.
    pub fn agent_path(&self, rel: &RelPath) -> PathBuf {
        if rel.is_root() { self.agent_root.clone() } else { self.agent_root.join(rel.as_str()) }
    }

    /// The text of file `rel` to send along with a prompt: `None` when it is not UTF-8 text or
    /// larger than `max` bytes (it goes as a link then).
    pub async fn text_for_prompt(&self, rel: &RelPath, max: usize) -> Option<String> {
        let bytes = self.workspace.read_lines(rel, 1, None, max + 1).await.ok()?;
        if bytes.len() > max || memchr::memchr(0, &bytes).is_some() {
            return None;
        }
        String::from_utf8(bytes).ok()
    }

    /// The path below the workspace, refusing anything that is not plainly inside it.
    fn relative(&self, path: &Path) -> Result<RelPath, AgentFsError> {
        let outside = || AgentFsError::Outside { path: path.display().to_string() };
        let rel = if path.is_absolute() { path.strip_prefix(&self.agent_root).map_err(|_| outside())? } else { path };
        let rel = rel.to_str().ok_or_else(outside)?;
        let rel = RelPath::new(rel).map_err(|_| outside())?;
        if rel.is_root() {
            return Err(AgentFsError::Workspace {
                path: path.display().to_string(),
                error: WorkspaceError::IsFolder { path: ".".into() },
            });
        }
        Ok(rel)
    }
}

/// A workspace's refusal, as the agent is told it.
fn failed(path: &Path, error: WorkspaceError) -> AgentFsError {
    match error {
        WorkspaceError::Outside { .. } => AgentFsError::Outside { path: path.display().to_string() },
        error => AgentFsError::Workspace { path: path.display().to_string(), error },
    }
}

/// The answer to a read: refused when larger than `MAX_READ` or not text.
fn text_answer(bytes: Vec<u8>, path: &Path) -> Result<String, AgentFsError> {
    let shown = || path.display().to_string();
    if bytes.len() > MAX_READ {
        return Err(AgentFsError::TooLarge { path: shown() });
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Err(AgentFsError::NotText { path: shown() });
    }
    String::from_utf8(bytes).map_err(|_| AgentFsError::NotText { path: shown() })
}

/// The card of a file the agent wrote through Sidekicks: an edit, done, with its diff when the
/// text before was known (`before`).
pub fn written(path: &std::path::Path, before: Option<String>, content: &str) -> crate::model::tool::ToolCall {
    use crate::model::tool::{FileDiff, ToolCall, ToolKind, ToolStatus};
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let shown = path.display().to_string();
    let diffs = match before {
        Some(old) => {
            let old_text = (!old.is_empty()).then_some(old);
            vec![FileDiff { path: shown.clone(), old_text, new_text: content.to_string() }]
        }
        None => Vec::new(),
    };
    ToolCall {
        id: format!("sidekicks-write-{n}"),
        title: format!("Wrote {shown}"),
        kind: ToolKind::Edit,
        status: ToolStatus::Completed,
        diffs,
        locations: vec![shown],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs(dir: &Path) -> AgentFs {
        AgentFs::new(Arc::new(crate::runtime::workspace::LocalWorkspace::new(dir)), dir.to_path_buf())
    }

    #[tokio::test]
    async fn reads_and_writes_inside_and_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(dir.path().join("secret"), "no").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), ws.join("link")).unwrap();
        let f = fs(&ws);
        f.serve_write(&ws.join("a.txt"), "one\ntwo\nthree\n").await.unwrap();
        assert_eq!(f.serve_read(&ws.join("a.txt"), None, None).await.unwrap(), "one\ntwo\nthree\n");
        assert_eq!(f.serve_read(&ws.join("a.txt"), Some(2), Some(1)).await.unwrap(), "two\n");
        f.serve_write(&ws.join("a.txt"), "again\n").await.unwrap();
        assert_eq!(f.serve_read(&ws.join("a.txt"), None, None).await.unwrap(), "again\n");
        for bad in [dir.path().join("secret"), ws.join("../secret"), ws.join("link")] {
            let read = f.serve_read(&bad, None, None).await;
            assert!(matches!(read, Err(AgentFsError::Outside { .. })), "{bad:?}: {read:?}");
        }
        assert!(matches!(f.serve_write(&ws.join("../x"), "x").await, Err(AgentFsError::Outside { .. })));
        assert!(!dir.path().join("x").exists());
        let missing = f.serve_read(&ws.join("nope.txt"), None, None).await.unwrap_err();
        assert_eq!(missing.code(), -32002);
        assert_eq!(f.serve_read(&ws, None, None).await.unwrap_err().code(), -32602);
    }
}
