//! A workspace on this computer. Every access goes through cap-std (openat2 RESOLVE_BENEATH), which
//! refuses `..`, absolute paths and symlinks that lead out, without races. Writes go to a temporary
//! file in the same folder, then `renameat2(RENAME_EXCHANGE)` swaps it with the original: the content
//! swapped out is hashed, and if it is not the expected version the swap is undone (`Conflict`).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::{Dir, OpenOptions};
use futures::future::BoxFuture;

use super::{
    Entry, EntryKind, Expect, FNV_START, Location, Version, Workspace, WorkspaceError, WsResult, fnv1a, skip_lines,
    sort_entries, take_lines,
};
use crate::model::rel_path::RelPath;

/// A folder on this computer.
#[derive(Clone, Debug)]
pub struct LocalWorkspace {
    root: Arc<PathBuf>,
}

impl LocalWorkspace {
    /// The workspace at `root` (which must exist).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: Arc::new(root.into()) }
    }

    fn dir(&self) -> WsResult<Dir> {
        Dir::open_ambient_dir(&*self.root, cap_std::ambient_authority()).map_err(|e| io_error(".", e))
    }

    /// Runs blocking file work off the async threads.
    fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&LocalWorkspace) -> WsResult<T> + Send + 'static,
    ) -> BoxFuture<'static, WsResult<T>> {
        let this = self.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || f(&this))
                .await
                .unwrap_or_else(|e| Err(WorkspaceError::Io { path: ".".into(), message: e.to_string() }))
        })
    }

    fn list_sync(&self, dir: &RelPath) -> WsResult<Vec<Entry>> {
        let root = self.dir()?;
        let folder =
            if dir.is_root() { root } else { root.open_dir(dir.as_str()).map_err(|e| io_error(dir.as_str(), e))? };
        let mut entries = Vec::new();
        for entry in folder.entries().map_err(|e| io_error(dir.as_str(), e))? {
            let entry = entry.map_err(|e| io_error(dir.as_str(), e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let meta = entry.metadata().map_err(|e| io_error(&name, e))?;
            let kind = if meta.is_symlink() {
                EntryKind::Symlink
            } else if meta.is_dir() {
                EntryKind::Dir
            } else if meta.is_file() {
                EntryKind::File
            } else {
                EntryKind::Other
            };
            let modified = meta
                .modified()
                .ok()
                .and_then(|m| m.into_std().duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs() as i64);
            entries.push(Entry { name, kind, size: meta.len(), modified });
        }
        sort_entries(&mut entries);
        Ok(entries)
    }

    fn read_sync(&self, path: &RelPath) -> WsResult<(Vec<u8>, Version)> {
        let bytes = read_file(&self.dir()?, path)?;
        let version = Version::of(&bytes);
        Ok((bytes, version))
    }

    fn read_lines_sync(&self, path: &RelPath, line: u32, limit: Option<u32>, max: usize) -> WsResult<Vec<u8>> {
        let io = |e| io_error(path.as_str(), e);
        let file = self.dir()?.open(path.as_str()).map_err(io)?;
        if file.metadata().map_err(io)?.is_dir() {
            return Err(WorkspaceError::IsFolder { path: path.as_str().into() });
        }
        let mut reader = std::io::BufReader::with_capacity(256 << 10, file);
        skip_lines(&mut reader, line.saturating_sub(1) as usize).map_err(io)?;
        take_lines(&mut reader, limit.map_or(usize::MAX, |l| l as usize), max).map_err(io)
    }

    fn write_sync(&self, path: &RelPath, bytes: &[u8], expected: Expect) -> WsResult<Version> {
        if path.is_root() {
            return Err(WorkspaceError::IsRoot);
        }
        let root = self.dir()?;
        let parent = path.parent();
        let folder = if parent.is_root() {
            root
        } else {
            // Missing folders are made (cap-std: never outside, never through a link that leads out).
            let made = root.create_dir_all(parent.as_str());
            match root.open_dir(parent.as_str()) {
                Ok(folder) => folder,
                Err(e) => {
                    // A link that leads out says so when opened; else: why the folder was not made.
                    let opened = io_error(parent.as_str(), e);
                    return Err(match made {
                        Err(m) if !opened.is_outside() => io_error(parent.as_str(), m),
                        _ => opened,
                    });
                }
            }
        };
        let name = path.name();
        let existing = folder.symlink_metadata(name).ok();
        if existing.as_ref().is_some_and(|m| m.is_symlink()) {
            // Writing through a symlink could land anywhere; refuse it like an escape.
            return Err(WorkspaceError::Outside { path: path.as_str().to_string() });
        }
        match (&existing, &expected) {
            (None, Expect::Version(_)) => {
                return Err(WorkspaceError::Conflict { path: path.as_str().into(), current: None });
            }
            (Some(_), Expect::Absent) => return Err(WorkspaceError::Exists { path: path.as_str().into() }),
            (Some(meta), _) if meta.is_dir() => return Err(WorkspaceError::IsFolder { path: path.as_str().into() }),
            _ => {}
        }
        let tmp = format!(".{name}.sidekicks-{}-{}.tmp", std::process::id(), unique());
        let mut file = folder
            .open_with(&tmp, OpenOptions::new().write(true).create_new(true))
            .map_err(|e| io_error(path.as_str(), e))?;
        let result = (|| {
            file.write_all(bytes)?;
            file.sync_all()?;
            if let Some(meta) = &existing {
                file.set_permissions(meta.permissions())?;
            }
            Ok::<(), std::io::Error>(())
        })();
        drop(file);
        if let Err(e) = result {
            let _ = folder.remove_file(&tmp);
            return Err(io_error(path.as_str(), e));
        }
        match expected {
            Expect::Anything => {
                folder.rename(&tmp, &folder, name).map_err(|e| {
                    let _ = folder.remove_file(&tmp);
                    io_error(path.as_str(), e)
                })?;
            }
            Expect::Absent => {
                // A new file: the rename must not replace something created meanwhile.
                rustix::fs::renameat_with(&folder, &tmp, &folder, name, rustix::fs::RenameFlags::NOREPLACE).map_err(
                    |e| {
                        let _ = folder.remove_file(&tmp);
                        if e == rustix::io::Errno::EXIST {
                            WorkspaceError::Exists { path: path.as_str().into() }
                        } else {
                            io_error(path.as_str(), e.into())
                        }
                    },
                )?;
            }
            Expect::Version(expected) => {
                rustix::fs::renameat_with(&folder, &tmp, &folder, name, rustix::fs::RenameFlags::EXCHANGE).map_err(
                    |e| {
                        let _ = folder.remove_file(&tmp);
                        io_error(path.as_str(), e.into())
                    },
                )?;
                // `tmp` now holds what was at `path` at the moment of the swap.
                let previous = read_file(&folder, &RelPath::new(&tmp)?).map(|b| Version::of(&b));
                if previous.as_ref().ok() != Some(&expected) {
                    // Someone wrote since it was read: put theirs back.
                    let _ = rustix::fs::renameat_with(&folder, &tmp, &folder, name, rustix::fs::RenameFlags::EXCHANGE);
                    let _ = folder.remove_file(&tmp);
                    return Err(WorkspaceError::Conflict { path: path.as_str().into(), current: previous.ok() });
                }
                let _ = folder.remove_file(&tmp);
            }
        }
        Ok(Version::of(bytes))
    }

    fn remove_sync(&self, path: &RelPath) -> WsResult<()> {
        if path.is_root() {
            return Err(WorkspaceError::IsRoot);
        }
        // Check through cap-std that it is inside (no symlinked folder leads out)…
        let root = self.dir()?;
        root.symlink_metadata(path.as_str()).map_err(|e| io_error(path.as_str(), e))?;
        let parent = path.parent();
        if !parent.is_root() {
            let meta = root.metadata(parent.as_str()).map_err(|e| io_error(parent.as_str(), e))?;
            if !meta.is_dir() {
                return Err(WorkspaceError::NotFound { path: path.as_str().into() });
            }
        }
        // …then hand the real path to the system trash (restorable).
        let real = resolve_inside(&self.root, path)?;
        trash::delete(&real).map_err(|e| WorkspaceError::Io { path: path.as_str().into(), message: e.to_string() })
    }

    /// The newest item of the system's trash that was `path` of this workspace, put back (the
    /// trash can be listed on Linux and Windows only).
    #[cfg(any(target_os = "macos", target_os = "ios", target_os = "android"))]
    fn restore_sync(&self, _path: &RelPath) -> WsResult<()> {
        Err(WorkspaceError::NotSupported { what: "take back from the trash here (use the Finder)".into() })
    }

    /// The newest item of the system's trash that was `path` of this workspace, put back.
    #[cfg(not(any(target_os = "macos", target_os = "ios", target_os = "android")))]
    fn restore_sync(&self, path: &RelPath) -> WsResult<()> {
        let io = |message: String| WorkspaceError::Io { path: path.as_str().into(), message };
        let real = resolve_inside(&self.root, path)?;
        let (Some(parent), Some(name)) = (real.parent(), real.file_name()) else { return Err(WorkspaceError::IsRoot) };
        let items = trash::os_limited::list().map_err(|e| io(e.to_string()))?;
        let newest = items
            .into_iter()
            .filter(|i| i.original_parent == parent && i.name == name)
            .max_by_key(|i| i.time_deleted)
            .ok_or_else(|| io("it is no longer in the trash".into()))?;
        if std::fs::symlink_metadata(&real).is_ok() {
            return Err(WorkspaceError::Exists { path: path.as_str().into() });
        }
        trash::os_limited::restore_all([newest]).map_err(|e| io(e.to_string()))
    }

    fn fingerprint_sync(&self) -> WsResult<u64> {
        let mut hash = FNV_START;
        let mut stack = vec![RelPath::root()];
        while let Some(dir) = stack.pop() {
            for entry in self.list_sync(&dir)? {
                if dir.is_root() && (entry.name == ".git" || entry.name == "node_modules") {
                    continue;
                }
                let path = dir.join(&entry.name)?;
                hash = fnv1a(path.as_str().as_bytes(), hash);
                hash = fnv1a(&entry.size.to_le_bytes(), hash);
                hash = fnv1a(&entry.modified.to_le_bytes(), hash);
                if entry.kind == EntryKind::Dir {
                    stack.push(path);
                }
            }
        }
        Ok(hash)
    }
}

/// The real path of `path` below `root`, refusing one whose folders lead out through symlinks.
fn resolve_inside(root: &Path, path: &RelPath) -> WsResult<PathBuf> {
    let root_real = std::fs::canonicalize(root).map_err(|e| io_error(".", e))?;
    let parent = root_real.join(path.parent().as_str());
    let parent_real = std::fs::canonicalize(&parent).map_err(|e| io_error(path.as_str(), e))?;
    if !parent_real.starts_with(&root_real) {
        return Err(WorkspaceError::Outside { path: path.as_str().into() });
    }
    Ok(parent_real.join(path.name()))
}

fn read_file(dir: &Dir, path: &RelPath) -> WsResult<Vec<u8>> {
    let mut file = dir.open(path.as_str()).map_err(|e| io_error(path.as_str(), e))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| io_error(path.as_str(), e))?;
    Ok(bytes)
}

fn io_error(path: &str, e: std::io::Error) -> WorkspaceError {
    let message = e.to_string();
    // cap-std refuses an escape with PermissionDenied and these words.
    if e.kind() == std::io::ErrorKind::PermissionDenied && message.contains("outside") {
        return WorkspaceError::Outside { path: path.into() };
    }
    match e.kind() {
        std::io::ErrorKind::NotFound => WorkspaceError::NotFound { path: path.into() },
        std::io::ErrorKind::IsADirectory => WorkspaceError::IsFolder { path: path.into() },
        std::io::ErrorKind::AlreadyExists => WorkspaceError::Exists { path: path.into() },
        _ => WorkspaceError::Io { path: path.into(), message },
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Workspace for LocalWorkspace {
    fn location(&self) -> Location {
        Location::Local((*self.root).clone())
    }

    fn removal_is_final(&self) -> bool {
        false
    }

    fn list(&self, dir: &RelPath) -> BoxFuture<'static, WsResult<Vec<Entry>>> {
        let dir = dir.clone();
        self.blocking(move |ws| ws.list_sync(&dir))
    }

    fn read(&self, path: &RelPath) -> BoxFuture<'static, WsResult<(Vec<u8>, Version)>> {
        let path = path.clone();
        self.blocking(move |ws| ws.read_sync(&path))
    }

    fn write(
        &self,
        path: &RelPath,
        bytes: Vec<u8>,
        expected: Option<Version>,
    ) -> BoxFuture<'static, WsResult<Version>> {
        let path = path.clone();
        self.blocking(move |ws| ws.write_sync(&path, &bytes, Expect::from_version(expected)))
    }

    fn overwrite(&self, path: &RelPath, bytes: Vec<u8>) -> BoxFuture<'static, WsResult<Version>> {
        let path = path.clone();
        self.blocking(move |ws| ws.write_sync(&path, &bytes, Expect::Anything))
    }

    fn read_lines(
        &self,
        path: &RelPath,
        line: u32,
        limit: Option<u32>,
        max: usize,
    ) -> BoxFuture<'static, WsResult<Vec<u8>>> {
        let path = path.clone();
        self.blocking(move |ws| ws.read_lines_sync(&path, line, limit, max))
    }

    fn remove(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>> {
        let path = path.clone();
        self.blocking(move |ws| ws.remove_sync(&path))
    }

    fn restore(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>> {
        let path = path.clone();
        self.blocking(move |ws| ws.restore_sync(&path))
    }

    fn create_dir(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>> {
        let path = path.clone();
        self.blocking(move |ws| ws.dir()?.create_dir_all(path.as_str()).map_err(|e| io_error(path.as_str(), e)))
    }

    fn rename(&self, from: &RelPath, to: &RelPath) -> BoxFuture<'static, WsResult<()>> {
        let (from, to) = (from.clone(), to.clone());
        self.blocking(move |ws| {
            if from.is_root() || to.is_root() {
                return Err(WorkspaceError::IsRoot);
            }
            let root = ws.dir()?;
            if root.symlink_metadata(to.as_str()).is_ok() {
                return Err(WorkspaceError::Exists { path: to.as_str().into() });
            }
            root.rename(from.as_str(), &root, to.as_str()).map_err(|e| io_error(from.as_str(), e))
        })
    }

    fn fingerprint(&self) -> BoxFuture<'static, WsResult<u64>> {
        self.blocking(|ws| ws.fingerprint_sync())
    }

    fn paths(&self, limit: usize) -> BoxFuture<'static, WsResult<Vec<(String, bool)>>> {
        self.blocking(move |ws| {
            let root = ws.root.as_path();
            let walk = ignore::WalkBuilder::new(root)
                .hidden(true)
                .git_ignore(true)
                .require_git(false)
                .follow_links(false)
                .filter_entry(|e| e.file_name() != "node_modules")
                .build();
            let mut paths = Vec::new();
            for entry in walk.flatten() {
                let Ok(rel) = entry.path().strip_prefix(root) else { continue };
                if rel.as_os_str().is_empty() {
                    continue;
                }
                let dir = entry.file_type().is_some_and(|t| t.is_dir());
                paths.push((rel.to_string_lossy().into_owned(), dir));
                if paths.len() >= limit {
                    break;
                }
            }
            Ok(paths)
        })
    }

    fn program_command(&self, argv: Vec<String>, env: Vec<(String, String)>) -> super::ShellCommand {
        let mut vars = vec![("TERM".to_string(), "xterm-256color".to_string())];
        vars.extend(env);
        super::ShellCommand { argv, cwd: (*self.root).clone(), env: vars, teardown: Vec::new() }
    }

    fn shell_command(&self, _tty: bool) -> super::ShellCommand {
        super::ShellCommand {
            argv: vec![login_shell(), "-l".into()],
            cwd: (*self.root).clone(),
            env: vec![("TERM".into(), "xterm-256color".into())],
            teardown: Vec::new(),
        }
    }
}

/// The person's shell: `$SHELL`, else their account's (CI and services often leave `$SHELL` unset),
/// else bash where there is one (`sh` may have no line editing: arrows would be echoed as `^[[D`).
fn login_shell() -> String {
    let usable = |s: &str| Path::new(s).is_file();
    if let Some(shell) = std::env::var("SHELL").ok().filter(|s| usable(s)) {
        return shell;
    }
    if let Some(shell) = account_shell().filter(|s| usable(s)) {
        return shell;
    }
    ["/bin/bash", "/usr/bin/bash"].into_iter().find(|s| usable(s)).unwrap_or("/bin/sh").to_string()
}

/// The shell of this process's user in the account database (`getpwuid_r`: NSS included).
#[cfg(unix)]
fn account_shell() -> Option<String> {
    let mut buf = vec![0u8; 16 * 1024];
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to storage that outlives the call; `found` is set to `&pwd` or null.
    let rc = unsafe { libc::getpwuid_r(libc::getuid(), &mut pwd, buf.as_mut_ptr().cast(), buf.len(), &mut found) };
    if rc != 0 || found.is_null() || pwd.pw_shell.is_null() {
        return None;
    }
    // SAFETY: on success `pw_shell` points to a NUL-terminated string inside `buf`.
    let shell = unsafe { std::ffi::CStr::from_ptr(pwd.pw_shell) };
    Some(shell.to_string_lossy().into_owned()).filter(|s| !s.is_empty())
}

#[cfg(not(unix))]
fn account_shell() -> Option<String> {
    None
}

#[cfg(all(test, unix))]
mod shell_tests {
    /// The account database's answer is the one `getent` gives (CI runs with `$SHELL` unset).
    #[test]
    fn the_account_shell_is_the_one_getent_gives() {
        let uid = unsafe { libc::getuid() };
        let Ok(out) = std::process::Command::new("getent").args(["passwd", &uid.to_string()]).output() else {
            return; // no getent here: nothing to compare with
        };
        let line = String::from_utf8_lossy(&out.stdout);
        let expected = line.trim().rsplit(':').next().filter(|s| !s.is_empty()).map(str::to_string);
        assert_eq!(super::account_shell(), expected);
    }
}
