//! Follows the config file on disk: when it changes (written in place or replaced by rename, as
//! editors do), it is read again through the loader and handed to the agent manager, which keeps
//! the last good config running when the new text has problems.

use crate::runtime::agents::ManagerCommand;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use tokio::sync::mpsc;

use super::file::load_file;

/// Watches one config file while it lives.
pub struct ConfigWatcher {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
}

/// Starts watching `path`; every change with new content (or new permissions) sends
/// `Command::ConfigLoaded`.
/// `initial` is the text already loaded, so a change that restores it is not reported twice.
pub fn watch_config(
    path: PathBuf,
    home: Option<PathBuf>,
    initial: Option<String>,
    commands: mpsc::Sender<ManagerCommand>,
) -> notify_debouncer_full::notify::Result<ConfigWatcher> {
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
    // The text, and whether others may read the file (a `chmod 600` changes only that: its
    // warning goes at once, not at the next start).
    let last = Mutex::new((initial, super::file::readable_by_others(&path)));
    let file = path.clone();
    let mut debouncer = new_debouncer(Duration::from_millis(300), None, move |result: DebounceEventResult| {
        let Ok(events) = result else { return };
        let touched = events.iter().any(|e| e.paths.iter().any(|p| p.file_name() == file.file_name()));
        if !touched {
            return;
        }
        let seen = (std::fs::read_to_string(&file).ok(), super::file::readable_by_others(&file));
        {
            let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
            if *last == seen && seen.0.is_some() {
                return;
            }
            *last = seen;
        }
        let result = load_file(&file, home.as_deref());
        tracing::info!(path = %file.display(), problems = result.problems.len(), "config file changed");
        // The watcher runs on its own thread, outside tokio: blocking here is fine.
        let _ = commands.blocking_send(ManagerCommand::ConfigLoaded { path: file.clone(), result });
    })?;
    debouncer.watch(&folder, RecursiveMode::NonRecursive)?;
    Ok(ConfigWatcher { _debouncer: debouncer })
}
