//! Serving the agent's `fs/read_text_file` and `fs/write_text_file` requests, inside its workspace
//! only. Paths arrive absolute, as the agent sees them (`workspace_path`). On this computer the part
//! below the workspace is opened with cap-std, which refuses `..` and symlinks that lead out; in a
//! container the same rules are kept by a POSIX sh script run through the executor (`realpath`
//! must stay below the workspace).

use std::io::{BufRead, Write};
use std::path::{Component, Path, PathBuf};

/// The most text one `fs/read_text_file` answers. A bigger answer is refused (`TooLarge`): the
/// agent can ask for fewer lines with `line` and `limit`. Files are read as a stream, so the
/// limit also bounds the memory a read takes, whatever the file's size.
pub const MAX_READ: usize = 16 << 20;

/// Why a file request was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum AgentFsError {
    /// The path is not inside the agent's workspace.
    #[error("{path} is outside the agent's workspace")]
    Outside {
        /// The path it is about.
        path: String,
    },
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path it is about.
        path: String,
        /// Where it comes from.
        source: std::io::Error,
    },
    /// The answer would be larger than `MAX_READ`.
    #[error("{path}: the text asked for is larger than {} MiB; ask for fewer lines (line, limit)", MAX_READ >> 20)]
    TooLarge {
        /// The path it is about.
        path: String,
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
            AgentFsError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => -32002,
            AgentFsError::Io { source, .. } if source.kind() == std::io::ErrorKind::IsADirectory => -32602,
            AgentFsError::Io { .. } => -32603,
            AgentFsError::Outside { .. } | AgentFsError::TooLarge { .. } | AgentFsError::NotText { .. } => -32602,
        }
    }
}

/// The agent's workspace: where it is on this computer, and its path as the agent sees it.
#[derive(Clone)]
pub struct AgentFs {
    /// The folder on this computer.
    pub host_root: PathBuf,
    /// The same folder as the agent names it.
    pub agent_root: PathBuf,
    /// For an agent in a container: the executor that reaches its files there.
    pub remote: Option<std::sync::Arc<dyn super::exec::Executor>>,
}

/// Prints lines `$3`.. (at most `$4` of them, at most `$5` bytes) of the file `$2` below the folder
/// `$1`; exit 3 when it resolves outside, 4 when it does not exist. (`$1` is absolute, so no path
/// here starts with `-`; busybox `realpath` has no `--`.)
const REMOTE_READ: &str = r#"root=$(realpath "$1") || exit 2
real=$(realpath "$1/$2" 2>/dev/null) || { echo "no such file" >&2; exit 4; }
case "$real" in "$root"/*) ;; *) exit 3;; esac
[ -e "$real" ] || { echo "no such file" >&2; exit 4; }
tail -n "+$3" "$real" | head -n "$4" | head -c "$5""#;

/// Writes stdin to the file `$2` below the folder `$1` through a temporary file renamed over it,
/// keeping its mode; exit 3 when it would land outside.
const REMOTE_WRITE: &str = r#"root=$(realpath "$1") || exit 2
target="$1/$2"; dir=$(dirname "$target")
check=$dir; while [ ! -e "$check" ]; do check=$(dirname "$check"); done
real=$(realpath "$check") || exit 2
case "$real/" in "$root"/*) ;; *) exit 3;; esac
if [ -e "$target" ] || [ -L "$target" ]; then
  real=$(realpath "$target") || exit 3
  case "$real" in "$root"/*) ;; *) exit 3;; esac
fi
mkdir -p -- "$dir" || exit 2
tmp="$dir/.sidekicks-$$.tmp"
cat > "$tmp" || { rm -f -- "$tmp"; exit 2; }
if [ -e "$target" ]; then chmod "$(stat -c %a "$target")" "$tmp"; fi
mv -f -- "$tmp" "$target""#;

impl AgentFs {
    /// A workspace on this computer (the agent sees it at `agent_root`).
    pub fn local(host_root: PathBuf, agent_root: PathBuf) -> Self {
        Self { host_root, agent_root, remote: None }
    }

    /// Serves `fs/read_text_file`.
    pub async fn serve_read(&self, path: &Path, line: Option<u32>, limit: Option<u32>) -> Result<String, AgentFsError> {
        let Some(remote) = &self.remote else {
            let fs = self.clone();
            let path = path.to_path_buf();
            let io = |e: tokio::task::JoinError| map_io(Path::new(""), std::io::Error::other(e));
            return tokio::task::spawn_blocking(move || fs.read(&path, line, limit)).await.map_err(io)?;
        };
        let rel = self.relative(path)?;
        let args = [
            line.unwrap_or(1).max(1).to_string(),
            limit.map_or(u64::MAX, u64::from).to_string(),
            (MAX_READ + 1).to_string(),
        ];
        let out = self.remote_script(remote.as_ref(), REMOTE_READ, &rel, &args, None, path).await?;
        text_answer(out, path)
    }

    /// Serves `fs/write_text_file`.
    pub async fn serve_write(&self, path: &Path, content: &str) -> Result<(), AgentFsError> {
        let Some(remote) = &self.remote else { return self.write(path, content) };
        let rel = self.relative(path)?;
        self.remote_script(remote.as_ref(), REMOTE_WRITE, &rel, &[], Some(content.as_bytes().to_vec()), path).await?;
        Ok(())
    }

    async fn remote_script(
        &self,
        remote: &dyn super::exec::Executor,
        script: &str,
        rel: &Path,
        args: &[String],
        input: Option<Vec<u8>>,
        path: &Path,
    ) -> Result<Vec<u8>, AgentFsError> {
        let spec = super::exec::ProcessSpec {
            argv: ["sh", "-c", script, "sidekicks"]
                .into_iter()
                .map(String::from)
                .chain([self.agent_root.display().to_string(), rel.display().to_string()])
                .chain(args.iter().cloned())
                .collect(),
            cwd: self.agent_root.clone(),
            env: Default::default(),
        };
        let shown = path.display().to_string();
        let out = remote
            .run(&spec, input)
            .await
            .map_err(|e| AgentFsError::Io { path: shown.clone(), source: std::io::Error::other(e.to_string()) })?;
        match out.code {
            Some(0) => Ok(out.stdout),
            Some(3) => Err(AgentFsError::Outside { path: shown }),
            Some(4) => Err(AgentFsError::Io { path: shown, source: std::io::ErrorKind::NotFound.into() }),
            _ => Err(AgentFsError::Io {
                path: shown,
                source: std::io::Error::other(String::from_utf8_lossy(&out.stderr).trim().to_string()),
            }),
        }
    }

    /// The path below the workspace, refusing anything that is not plainly inside it.
    fn relative(&self, path: &Path) -> Result<PathBuf, AgentFsError> {
        let outside = || AgentFsError::Outside { path: path.display().to_string() };
        let rel = if path.is_absolute() { path.strip_prefix(&self.agent_root).map_err(|_| outside())? } else { path };
        if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
            return Err(outside());
        }
        Ok(rel.to_path_buf())
    }

    fn root(&self, path: &Path) -> Result<cap_std::fs::Dir, AgentFsError> {
        cap_std::fs::Dir::open_ambient_dir(&self.host_root, cap_std::ambient_authority())
            .map_err(|source| AgentFsError::Io { path: path.display().to_string(), source })
    }

    /// Reads a text file; `line` (1-based) and `limit` select lines. Only those lines are kept,
    /// at most `MAX_READ` bytes of them.
    pub fn read(&self, path: &Path, line: Option<u32>, limit: Option<u32>) -> Result<String, AgentFsError> {
        let rel = self.relative(path)?;
        let io = |source| map_io(path, source);
        let file = self.root(path)?.open(&rel).map_err(io)?;
        if file.metadata().map_err(io)?.is_dir() {
            return Err(io(std::io::ErrorKind::IsADirectory.into()));
        }
        let mut reader = std::io::BufReader::with_capacity(256 << 10, file);
        skip_lines(&mut reader, line.unwrap_or(1).saturating_sub(1) as usize).map_err(io)?;
        let out = take_lines(&mut reader, limit.map_or(usize::MAX, |l| l as usize), MAX_READ + 1).map_err(io)?;
        text_answer(out, path)
    }

    /// Writes a text file (creating it), through a temporary file renamed over the original.
    pub fn write(&self, path: &Path, content: &str) -> Result<(), AgentFsError> {
        let rel = self.relative(path)?;
        let io = |source| map_io(path, source);
        let root = self.root(path)?;
        let name = rel.file_name().ok_or_else(|| AgentFsError::Outside { path: path.display().to_string() })?;
        if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            root.create_dir_all(parent).map_err(io)?;
        }
        let tmp = rel.with_file_name(format!(".{}.sidekicks-tmp", name.to_string_lossy()));
        let mut file = root.create(&tmp).map_err(io)?;
        file.write_all(content.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
        drop(file);
        if let Ok(meta) = root.metadata(&rel) {
            let _ = root.set_permissions(&tmp, meta.permissions());
        }
        root.rename(&tmp, &root, &rel).map_err(|e| {
            let _ = root.remove_file(&tmp);
            io(e)
        })
    }
}

/// Reads past `lines` lines without keeping them.
fn skip_lines(reader: &mut impl BufRead, mut lines: usize) -> std::io::Result<()> {
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
fn take_lines(reader: &mut impl BufRead, mut lines: usize, max: usize) -> std::io::Result<Vec<u8>> {
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

fn map_io(path: &Path, source: std::io::Error) -> AgentFsError {
    // cap-std reports an escape (symlink out, `..`) as PermissionDenied with this wording.
    if source.kind() == std::io::ErrorKind::PermissionDenied && source.to_string().contains("outside") {
        return AgentFsError::Outside { path: path.display().to_string() };
    }
    AgentFsError::Io { path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs(dir: &Path) -> AgentFs {
        AgentFs::local(dir.to_path_buf(), dir.to_path_buf())
    }

    #[test]
    fn reads_and_writes_inside_and_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(dir.path().join("secret"), "no").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), ws.join("link")).unwrap();
        let f = fs(&ws);
        f.write(&ws.join("a.txt"), "one\ntwo\nthree\n").unwrap();
        assert_eq!(f.read(&ws.join("a.txt"), None, None).unwrap(), "one\ntwo\nthree\n");
        assert_eq!(f.read(&ws.join("a.txt"), Some(2), Some(1)).unwrap(), "two\n");
        for bad in [dir.path().join("secret"), ws.join("../secret"), ws.join("link")] {
            assert!(matches!(f.read(&bad, None, None), Err(AgentFsError::Outside { .. })), "{bad:?}");
        }
        assert!(matches!(f.write(&ws.join("../x"), "x"), Err(AgentFsError::Outside { .. })));
        assert!(!dir.path().join("x").exists());
    }
}
