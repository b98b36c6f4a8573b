//! One writer at a time per project, across processes: every team operation that writes a
//! project (a merge, an undo, an accepted hunk, a discard, a restore, the check after a merge)
//! holds the project's lock while it reads what it decides on and writes. Two merges at once
//! would each decide against the project as it was before the other and the second would write
//! over the first's result.
//!
//! The lock is an `flock` on a file named after the project's canonical path, in the person's
//! runtime folder (`$XDG_RUNTIME_DIR/sidekicks/locks`, else a private folder of the system's
//! temporary folder): a second Sidekicks, the command line and this process's other threads (an
//! `flock` belongs to an open file, not to a process) all wait for it, whatever their data
//! folder. The kernel lets go of it when its holder ends, even killed. Its holder writes what it
//! does in it ("merging Bob's work"), so whoever waits can say why (ADR 0028).

use std::cell::RefCell;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::TeamError;

/// The project's lock, held until dropped.
#[derive(Debug)]
pub struct ProjectLock {
    file: std::fs::File,
}

/// Told `Some(what the holder does)` when the wait begins, `None` when it ends.
type BusyReport = Box<dyn FnMut(&Path, Option<&str>)>;

thread_local! {
    /// Who hears that this thread waits for a lock (see [`reporting_busy`]).
    static ON_BUSY: RefCell<Option<BusyReport>> = const { RefCell::new(None) };
}

/// Runs `f`; should it wait for a project's lock, `report` is told the project and what the
/// holder is doing when the wait begins, and the project and `None` when it ends.
pub fn reporting_busy<T>(report: impl FnMut(&Path, Option<&str>) + 'static, f: impl FnOnce() -> T) -> T {
    let before = ON_BUSY.with(|b| b.borrow_mut().replace(Box::new(report)));
    let out = f();
    ON_BUSY.with(|b| *b.borrow_mut() = before);
    out
}

/// The folder of the locks: private to this user.
pub(crate) fn locks_dir() -> Result<PathBuf, TeamError> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|d| d.is_absolute() && d.is_dir());
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let dir = match runtime {
        Some(d) => d.join("sidekicks").join("locks"),
        None => std::env::temp_dir().join(format!("sidekicks-{uid}")).join("locks"),
    };
    {
        use std::os::unix::fs::DirBuilderExt;
        let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir);
    }
    // A folder someone else made (in a shared temporary folder) is not trusted.
    use std::os::unix::fs::MetadataExt;
    let owner = dir.parent().map(std::fs::symlink_metadata);
    match owner {
        Some(Ok(m)) if m.is_dir() && m.uid() == uid => Ok(dir),
        _ => Err(TeamError::io(&dir, "the folder of the projects' locks is not this user's own")),
    }
}

/// A short name of `path`'s canonical form, for a lock file.
pub(crate) fn name_of(path: &Path) -> String {
    use sha2::Digest;
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let digest = sha2::Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// The lock file of `project`.
pub fn lock_path(project: &Path) -> Result<PathBuf, TeamError> {
    Ok(locks_dir()?.join(format!("{}.lock", name_of(project))))
}

/// Opens (creating) lock file `path`, keeping what its holder wrote.
pub(crate) fn open_lock(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)
}

/// Writes what the holder of the lock in `file` does ("merging Bob's work (process N)").
pub(crate) fn say_in(file: &mut std::fs::File, what: &str) {
    let text = format!("{what} (process {})", std::process::id());
    let _ = file.set_len(0).and_then(|_| file.rewind()).and_then(|_| file.write_all(text.as_bytes()));
}

impl ProjectLock {
    /// Takes `project`'s lock to do `what` (said to whoever waits for it), waiting for its
    /// holder; the thread's busy report (see [`reporting_busy`]) hears what the holder does.
    pub fn acquire(project: &Path, what: &str) -> Result<Self, TeamError> {
        let path = lock_path(project)?;
        let file = open_lock(&path).map_err(|e| TeamError::io(&path, e))?;
        if !try_lock(&file, libc::LOCK_EX | libc::LOCK_NB).map_err(|e| TeamError::io(&path, e))? {
            let holder = read_holder(&path);
            tracing::debug!("{} is busy: {holder}; waiting", project.display());
            let tell = |said: Option<&str>| {
                ON_BUSY.with(|b| {
                    if let Some(report) = b.borrow_mut().as_mut() {
                        report(project, said);
                    }
                })
            };
            tell(Some(&holder));
            let locked = try_lock(&file, libc::LOCK_EX);
            tell(None);
            locked.map_err(|e| TeamError::io(&path, e))?;
        }
        let mut lock = Self { file };
        lock.say(what);
        Ok(lock)
    }

    /// Takes `project`'s lock if nobody holds it (`None`: someone does).
    pub fn try_acquire(project: &Path, what: &str) -> Result<Option<Self>, TeamError> {
        let path = lock_path(project)?;
        let file = open_lock(&path).map_err(|e| TeamError::io(&path, e))?;
        if !try_lock(&file, libc::LOCK_EX | libc::LOCK_NB).map_err(|e| TeamError::io(&path, e))? {
            return Ok(None);
        }
        let mut lock = Self { file };
        lock.say(what);
        Ok(Some(lock))
    }

    /// What the holder does, as whoever waits reads it.
    fn say(&mut self, what: &str) {
        say_in(&mut self.file, what);
    }
}

impl Drop for ProjectLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        // Closing the file lets go of the lock too; said for clarity.
        let _ = try_lock(&self.file, libc::LOCK_UN);
    }
}

/// `flock`, retried when a signal interrupts it; false when it would block.
pub(crate) fn try_lock(file: &std::fs::File, how: libc::c_int) -> std::io::Result<bool> {
    loop {
        // SAFETY: a plain system call on an open descriptor.
        if unsafe { libc::flock(file.as_raw_fd(), how) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) => return Ok(false),
            _ => return Err(e),
        }
    }
}

/// What the lock's holder said it does.
pub(crate) fn read_holder(path: &Path) -> String {
    let mut text = String::new();
    let _ = std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text));
    match text.trim() {
        "" => "another team operation".to_string(),
        said => said.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_and_hears_what_the_first_does() {
        let dir = tempfile::tempdir().unwrap();
        let first = ProjectLock::acquire(dir.path(), "merging Bob's work").unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let project = dir.path().to_path_buf();
        let waiter = std::thread::spawn(move || {
            let heard = tx.clone();
            reporting_busy(
                move |_, holder| heard.send(format!("busy: {}", holder.unwrap_or("done"))).unwrap(),
                || {
                    let _second = ProjectLock::acquire(&project, "undoing a merge").unwrap();
                    tx.send("acquired".to_string()).unwrap();
                },
            )
        });
        let said = rx.recv().unwrap();
        assert!(said.starts_with("busy: merging Bob's work (process "), "{said}");
        drop(first);
        assert_eq!(rx.recv().unwrap(), "busy: done", "the end of the wait is told");
        assert_eq!(rx.recv().unwrap(), "acquired");
        waiter.join().unwrap();
        // Let go: taken at once, with nothing to report.
        let again = reporting_busy(|_, h| panic!("waited for {h:?}"), || ProjectLock::acquire(dir.path(), "x"));
        assert!(again.is_ok());
    }

    #[test]
    fn the_same_project_by_another_path_is_the_same_lock() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("p")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("p"), dir.path().join("link")).unwrap();
        assert_eq!(lock_path(&dir.path().join("p")).unwrap(), lock_path(&dir.path().join("link")).unwrap());
        assert_ne!(lock_path(&dir.path().join("p")).unwrap(), lock_path(dir.path()).unwrap());
    }
}
