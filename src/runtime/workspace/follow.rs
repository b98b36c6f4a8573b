//! Following the workspace being shown: on this computer a debounced watcher (0.5 s after the last
//! event, ignoring `.git` and `node_modules`); in a container a fingerprint of paths, sizes and dates
//! compared every 2 s. Dropping the `Follower` stops it.

use std::path::{Component, Path};
use std::sync::Arc;
use std::time::Duration;

use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use super::{Location, Workspace};

/// How often a remote workspace is fingerprinted.
pub const POLL: Duration = Duration::from_secs(2);
/// Quiet time after the last local event before a change is reported.
pub const DEBOUNCE: Duration = Duration::from_millis(500);

/// Follows a workspace while it lives.
pub enum Follower {
    /// A local watcher.
    Watch(Box<Debouncer<RecommendedWatcher, RecommendedCache>>),
    /// A polling task.
    Poll(tokio::task::AbortHandle),
}

impl Drop for Follower {
    fn drop(&mut self) {
        if let Follower::Poll(handle) = self {
            handle.abort();
        }
    }
}

fn ignored(path: &Path) -> bool {
    path.components().any(|c| matches!(c, Component::Normal(n) if n == ".git" || n == "node_modules"))
}

/// Calls `on_change` after each change of the folder `root` on this computer (debounced).
pub fn watch_dir(root: &Path, on_change: Arc<dyn Fn() + Send + Sync>) -> std::io::Result<Follower> {
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
        let Ok(events) = result else { return };
        if events.iter().any(|e| e.paths.iter().any(|p| !ignored(p))) {
            on_change();
        }
    })
    .map_err(std::io::Error::other)?;
    debouncer.watch(root, RecursiveMode::Recursive).map_err(std::io::Error::other)?;
    Ok(Follower::Watch(Box::new(debouncer)))
}

/// Calls `on_change` after each change of `workspace` (must be called within a tokio runtime).
pub fn follow(workspace: Arc<dyn Workspace>, on_change: Arc<dyn Fn() + Send + Sync>) -> std::io::Result<Follower> {
    match workspace.location() {
        Location::Local(root) => watch_dir(&root, on_change),
        Location::Remote { .. } => {
            let task = tokio::spawn(async move {
                let mut last = workspace.fingerprint().await.ok();
                loop {
                    tokio::time::sleep(POLL).await;
                    let now = workspace.fingerprint().await.ok();
                    if now.is_some() && now != last {
                        last = now;
                        on_change();
                    }
                }
            });
            Ok(Follower::Poll(task.abort_handle()))
        }
    }
}
