//! The teams' change marks: each process that changes a team (or a task) writes its mark in the
//! teams' folder; the others see it move and read the teams again.

use std::path::{Path, PathBuf};

/// The marks, in the teams' folder, of the processes that changed a team: one file per process
/// (`.changed/<pid>`, holding the time of its last change), so two processes never overwrite
/// each other's. A process that sees another's marks move reads the teams again.
const CHANGED: &str = ".changed";

/// The marks of the other processes as they are now (empty when there are none): each one's
/// name, inode and time, read from the folder without opening them (a mark is written anew —
/// another inode — at each change). Marks older than a week, and those of processes that ended
/// more than a minute ago (every front door open looks each second: it has seen them), are
/// removed on the way, so a person's scripts running `sidekicks team …` all day leave no heap of
/// marks for the next start to read.
pub(super) fn others_marks(teams_dir: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let own = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir(teams_dir.join(CHANGED)) else { return String::new() };
    let mut marks: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == own || name.ends_with(".tmp") {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let age = meta.modified().ok().and_then(|t| t.elapsed().ok()).unwrap_or_default();
        if age > WEEK || (age > MINUTE && !running(&name)) {
            let _ = std::fs::remove_file(entry.path());
            continue;
        }
        marks.push(format!("{name}:{}:{}.{}", meta.ino(), meta.mtime(), meta.mtime_nsec()));
    }
    marks.sort();
    marks.join(" ")
}

const WEEK: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);
const MINUTE: std::time::Duration = std::time::Duration::from_secs(60);

/// Whether the process whose mark is named `name` (its id) may still run: true unless the system
/// says no such process exists (one whose id was given again to another is kept: harmless).
fn running(name: &str) -> bool {
    let Ok(pid) = name.parse::<i32>() else { return false };
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(dir: &Path, name: &str, age: std::time::Duration) {
        let path = dir.join(CHANGED).join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "1").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(std::time::SystemTime::now() - age).unwrap();
    }

    #[test]
    fn marks_of_ended_processes_go_after_a_minute_and_a_rewritten_mark_moves() {
        let dir = tempfile::tempdir().unwrap();
        // No process has id 2^22 + 1 (above Linux's largest); this test's own process runs.
        let (ended, alive) = ("4194305", std::process::id().to_string());
        mark(dir.path(), ended, std::time::Duration::from_secs(5));
        let first = others_marks(dir.path());
        assert!(first.starts_with("4194305:"), "{first}");
        // Its process ended more than a minute ago: removed, and the marks moved.
        mark(dir.path(), ended, std::time::Duration::from_secs(90));
        assert_eq!(others_marks(dir.path()), "");
        assert!(!dir.path().join(CHANGED).join(ended).exists());
        // A running process's mark stays however old (up to a week) — here the parent of this
        // test's process, which runs; this process's own mark is not listed.
        let parent = std::os::unix::process::parent_id().to_string();
        mark(dir.path(), &parent, std::time::Duration::from_secs(3600));
        mark(dir.path(), &alive, std::time::Duration::from_secs(1));
        let seen = others_marks(dir.path());
        assert!(seen.starts_with(&format!("{parent}:")) && !seen.contains(' '), "{seen}");
        // Written again (as `mark_teams_changed` does: a new file renamed over it): it moves.
        let path = dir.path().join(CHANGED).join(&parent);
        std::fs::write(path.with_extension("tmp"), "2").unwrap();
        std::fs::rename(path.with_extension("tmp"), &path).unwrap();
        assert_ne!(others_marks(dir.path()), seen);
        // A week old: removed even if its process runs.
        mark(dir.path(), &parent, std::time::Duration::from_secs(8 * 24 * 3600));
        assert_eq!(others_marks(dir.path()), "");
    }
}
