//! One process answers in a thread at a time: the window and `sidekicks prompt` (or two windows)
//! share the history, and a thread's messages are saved by their place in it, so two processes
//! running turns in one thread at once would each write over the other's messages. Whoever sends
//! a message in a thread takes the thread's lock first and keeps it until its last queued message
//! is answered; another process waits for it, saying who holds it (ADR 0029).
//!
//! The lock is an `flock` beside the projects' (see `teams::lock`), named after the history's
//! file and the thread; the kernel lets go of it when its holder ends, even killed.

use std::path::Path;

use super::teams::lock::{locks_dir, name_of, open_lock, read_holder, say_in, try_lock};

/// A thread's lock, held until dropped.
#[derive(Debug)]
pub struct ThreadLock {
    file: std::fs::File,
}

/// What taking a thread's lock found.
#[derive(Debug)]
pub enum Taken {
    /// It is ours now.
    Lock(ThreadLock),
    /// Another process holds it: what it said it does.
    Busy(String),
}

impl ThreadLock {
    /// Takes the lock of thread `thread` of the history in `store` without waiting; `what` is
    /// said to whoever finds it taken.
    pub fn try_take(store: &Path, thread: i64, what: &str) -> Result<Taken, String> {
        let name = format!("thread-{}-{thread}.lock", name_of(store));
        let path = locks_dir().map_err(|e| e.to_string())?.join(name);
        let mut file = open_lock(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !try_lock(&file, libc::LOCK_EX | libc::LOCK_NB).map_err(|e| format!("{}: {e}", path.display()))? {
            return Ok(Taken::Busy(read_holder(&path)));
        }
        say_in(&mut file, what);
        Ok(Taken::Lock(ThreadLock { file }))
    }
}

impl Drop for ThreadLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = try_lock(&self.file, libc::LOCK_UN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_is_told_who_holds_it_until_it_is_let_go() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("history.db");
        std::fs::write(&db, "").unwrap();
        let Taken::Lock(first) = ThreadLock::try_take(&db, 7, "answering in Ada's thread").unwrap() else {
            panic!("free at first")
        };
        match ThreadLock::try_take(&db, 7, "other").unwrap() {
            Taken::Busy(holder) => assert!(holder.starts_with("answering in Ada's thread (process "), "{holder}"),
            Taken::Lock(_) => panic!("held by the first"),
        }
        assert!(matches!(ThreadLock::try_take(&db, 8, "other").unwrap(), Taken::Lock(_)), "another thread is free");
        drop(first);
        assert!(matches!(ThreadLock::try_take(&db, 7, "other").unwrap(), Taken::Lock(_)), "let go");
    }
}
