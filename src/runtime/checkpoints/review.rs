//! Reviewing what an agent changed in its workspace since a checkpoint: each changed file with its
//! diff against the checkpoint's version, and putting back one file or one hunk of it as it was.
//! A hunk is named by its content as the person saw it; if the file changed since, nothing is
//! done. Blocking file and process work: callers run it on a blocking thread.

use std::path::Path;

use super::{CheckpointError, Checkpoints, io};
use crate::model::merge::is_binary;
use crate::model::review::{Hunk, apply_hunks, diff, reviewable_text};
use crate::protocol::teams::{Change, ChangeKind, ReviewFile};

/// What `path` is in the workspace now: its bytes, `None` when it is not a file or link.
fn now(workspace: &Path, path: &str) -> Result<Option<Vec<u8>>, CheckpointError> {
    let full = workspace.join(path);
    match std::fs::symlink_metadata(&full) {
        Ok(meta) if meta.is_symlink() => {
            use std::os::unix::ffi::OsStrExt;
            let target = std::fs::read_link(&full).map_err(|e| io(&full, e))?;
            Ok(Some(target.as_os_str().as_bytes().to_vec()))
        }
        Ok(meta) if meta.is_file() => std::fs::read(&full).map(Some).map_err(|e| io(&full, e)),
        _ => Ok(None),
    }
}

fn text(bytes: Option<&[u8]>) -> Option<&str> {
    bytes.map_or(Some(""), reviewable_text)
}

/// Every file changed since checkpoint `id`, with its diff (none for binary and huge files).
pub fn review_since(cps: &Checkpoints, workspace: &Path, id: &str) -> Result<Vec<ReviewFile>, CheckpointError> {
    let mut out = Vec::new();
    for path in cps.changed_since(workspace, id)? {
        let entry = cps.entry_at(workspace, id, &path).ok();
        let link_then = entry.as_ref().is_some_and(|e| e.as_ref().is_some_and(|(_, link)| *link));
        let link_now = std::fs::symlink_metadata(workspace.join(&path)).is_ok_and(|m| m.is_symlink());
        let then = entry.map(|e| e.map(|(bytes, _)| bytes));
        let current = now(workspace, &path)?;
        let kind = match (&then, &current) {
            (Some(None), _) => ChangeKind::Added,
            (_, None) => ChangeKind::Deleted,
            _ => ChangeKind::Modified,
        };
        // Links have no lines: they are decided as a whole.
        let diff = match (then.as_ref().and_then(|t| text(t.as_deref())), text(current.as_deref())) {
            (Some(old), Some(new)) if !link_then && !link_now => Some(diff(old, new)),
            _ => None,
        };
        let kind = if link_then != link_now && !matches!(kind, ChangeKind::Added | ChangeKind::Deleted) {
            ChangeKind::Type
        } else {
            kind
        };
        let binary = current.as_deref().is_some_and(is_binary);
        out.push(ReviewFile { change: Change { path, kind, binary, symlink: link_now, markers: false }, diff });
    }
    Ok(out)
}

/// Puts `path` back as it was at checkpoint `id`, or only hunk `shown` of it.
pub fn revert(
    cps: &Checkpoints,
    workspace: &Path,
    id: &str,
    path: &str,
    shown: Option<&Hunk>,
) -> Result<(), CheckpointError> {
    if path.split('/').any(|c| c.is_empty() || c == "." || c == "..") || path.starts_with('/') {
        return Err(io(Path::new(path), "refused path"));
    }
    let entry = cps.entry_at(workspace, id, path)?;
    let full = workspace.join(path);
    // A link comes back as a link (a hunk of one is not offered: only files have lines).
    if let (Some((target, true)), None) = (&entry, shown) {
        use std::os::unix::ffi::OsStrExt;
        if std::fs::symlink_metadata(&full).is_ok() {
            std::fs::remove_file(&full).map_err(|e| io(&full, e))?;
        }
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        return std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), &full).map_err(|e| io(&full, e));
    }
    let then = entry.map(|(bytes, _)| bytes);
    let bytes = match shown {
        None => then,
        Some(shown) => {
            let stale = || io(Path::new(path), "changed since it was shown; look at it again");
            let current = now(workspace, path)?;
            let (Some(old), Some(new)) = (text(then.as_deref()), text(current.as_deref())) else { return Err(stale()) };
            let i = diff(old, new).hunks.iter().position(|h| h == shown).ok_or_else(stale)?;
            Some(apply_hunks(old, new, |j| j != i).into_bytes())
        }
    };
    match bytes {
        None => match std::fs::remove_file(&full) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(&full, e)),
            _ => Ok(()),
        },
        Some(bytes) => {
            let mode = std::fs::metadata(&full).map_or(0o644, |m| {
                use std::os::unix::fs::PermissionsExt;
                m.permissions().mode() & 0o777
            });
            if let Some(dir) = full.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
            }
            let tmp = full.with_file_name(format!(
                ".{}.sidekicks-revert",
                full.file_name().unwrap_or_default().to_string_lossy()
            ));
            std::fs::write(&tmp, &bytes).map_err(|e| io(&tmp, e))?;
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode)).map_err(|e| io(&tmp, e))?;
            std::fs::rename(&tmp, &full).map_err(|e| io(&full, e))
        }
    }
}
