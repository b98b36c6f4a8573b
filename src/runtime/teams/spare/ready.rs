//! Spares made ahead (`spare::prepare`): one preparation per project in a process, which a team
//! taking that project's spares ends (it must not wait for every copy asked), and the half-made
//! copies a process that ended left behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::runtime::git::snapshot::git;

/// A half-made copy older than this was left by a process that ended.
const ABANDONED_AFTER: Duration = Duration::from_secs(60 * 60);

/// One preparation under way.
#[derive(Default)]
struct Preparation {
    /// How many spares it makes (raised when asked again meanwhile).
    wanted: AtomicUsize,
    /// A team takes the project's spares: the copy being made is the last.
    stop: AtomicBool,
    /// Ended (and the condition its waiters wait on).
    ended: Mutex<bool>,
    told: Condvar,
}

/// The preparations under way in this process, by spare folder.
static UNDER_WAY: Mutex<Vec<(PathBuf, Arc<Preparation>)>> = Mutex::new(Vec::new());

fn under_way() -> std::sync::MutexGuard<'static, Vec<(PathBuf, Arc<Preparation>)>> {
    UNDER_WAY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A preparation this thread carries out; it ends (its waiters told) when dropped.
pub(super) struct Preparing {
    dir: PathBuf,
    preparation: Arc<Preparation>,
}

impl Preparing {
    /// Begins preparing `wanted` spares in `dir`; `None` when a preparation of `dir` is under way
    /// (it now makes `wanted`, if more).
    pub(super) fn begin(dir: &Path, wanted: usize) -> Option<Self> {
        let mut list = under_way();
        if let Some((_, p)) = list.iter().find(|(d, _)| d == dir) {
            p.wanted.fetch_max(wanted, SeqCst);
            return None;
        }
        let preparation = Arc::new(Preparation { wanted: AtomicUsize::new(wanted), ..Default::default() });
        list.push((dir.to_path_buf(), preparation.clone()));
        Some(Self { dir: dir.to_path_buf(), preparation })
    }

    pub(super) fn wanted(&self) -> usize {
        self.preparation.wanted.load(SeqCst)
    }

    pub(super) fn stopped(&self) -> bool {
        self.preparation.stop.load(SeqCst)
    }
}

impl Drop for Preparing {
    fn drop(&mut self) {
        under_way().retain(|(d, p)| !(d == &self.dir && Arc::ptr_eq(p, &self.preparation)));
        *self.preparation.ended.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.preparation.told.notify_all();
    }
}

/// Ends the preparation of `dir` under way in this process, if any, and waits for the copy it is
/// making (which becomes a spare).
pub(super) fn stop(dir: &Path) {
    let Some(preparation) = under_way().iter().find(|(d, _)| d == dir).map(|(_, p)| p.clone()) else { return };
    preparation.stop.store(true, SeqCst);
    let mut ended = preparation.ended.lock().unwrap_or_else(|e| e.into_inner());
    while !*ended {
        ended = preparation.told.wait(ended).unwrap_or_else(|e| e.into_inner());
    }
}

/// Removes the half-made copies of the project whose spares are keyed `key` in `making` that were
/// left by a process that ended (older than an hour).
pub(super) fn remove_abandoned(project: &Path, making: &Path, key: &str) {
    remove(project, making, key, Some(ABANDONED_AFTER));
}

/// Removes every half-made copy of that project (the person removes what teams left).
pub(super) fn remove_abandoned_now(project: &Path, making: &Path, key: &str) {
    remove(project, making, key, None);
}

fn remove(project: &Path, making: &Path, key: &str, older_than: Option<Duration>) {
    let Ok(entries) = std::fs::read_dir(making) else { return };
    let prefix = format!("{key}-");
    let now = std::time::SystemTime::now();
    let old = |e: &std::fs::DirEntry| match older_than {
        None => true,
        Some(age) => {
            e.metadata().and_then(|m| m.modified()).is_ok_and(|t| now.duration_since(t).unwrap_or_default() > age)
        }
    };
    let mut removed = false;
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(&prefix) || !old(&entry) {
            continue;
        }
        let at = entry.path();
        let _ = git(project, &["worktree", "remove", "--force", &at.to_string_lossy()], &[]);
        let _ = std::fs::remove_dir_all(&at);
        removed = true;
    }
    if removed {
        let _ = git(project, &["worktree", "prune"], &[]);
    }
}
