//! The teams' change marks: each process that changes a team (or a task) writes its mark in the
//! teams' folder; the others see it move and read the teams again.

use std::path::{Path, PathBuf};

/// The marks, in the teams' folder, of the processes that changed a team: one file per process
/// (`.changed/<pid>`, holding the time of its last change), so two processes never overwrite
/// each other's. A process that sees another's marks move reads the teams again.
const CHANGED: &str = ".changed";

/// The marks of the other processes as they are now (empty when there are none). Marks older
/// than a week are removed on the way.
pub(super) fn others_marks(teams_dir: &Path) -> String {
    let own = std::process::id().to_string();
    let week = std::time::Duration::from_secs(7 * 24 * 3600);
    let Ok(entries) = std::fs::read_dir(teams_dir.join(CHANGED)) else { return String::new() };
    let mut marks: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == own || name.ends_with(".tmp") {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > week);
        if old {
            let _ = std::fs::remove_file(entry.path());
            continue;
        }
        marks.push(format!("{name}:{}", std::fs::read_to_string(entry.path()).unwrap_or_default()));
    }
    marks.sort();
    marks.join(" ")
}

/// Tells other processes the teams (or their tasks) changed: this process's mark in `teams_dir`.
pub(super) async fn mark_teams_changed(teams_dir: PathBuf) {
    let dir = teams_dir.join(CHANGED);
    let _ = tokio::task::spawn_blocking(move || {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let pid = std::process::id();
        let (tmp, mark) = (dir.join(format!("{pid}.tmp")), dir.join(pid.to_string()));
        let written = std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::write(&tmp, now.as_nanos().to_string()))
            .and_then(|_| std::fs::rename(&tmp, &mark));
        if let Err(e) = written {
            tracing::warn!("cannot mark the teams changed in {}: {e}", dir.display());
        }
    })
    .await;
}
