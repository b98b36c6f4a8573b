//! Whether this desktop has a file dialog (an XDG portal with a file chooser, or zenity, which
//! are what `rfd` uses), and folder listings for the window's own picker where it has none.
//! Without either, `rfd` returned nothing, as for a cancel, and Attach… did nothing visible.

use std::path::{Path, PathBuf};

use crate::protocol::picker::{FolderEntry, sort_entries};

/// Whether a desktop file dialog can be shown: the portal can be started on the session bus and
/// one of its backends offers the file chooser, or zenity is on `PATH`.
pub fn desktop_dialog() -> bool {
    // `SIDEKICKS_FILE_DIALOG=none`: Sidekicks' own picker whatever the desktop has (tests; a
    // portal that misbehaves).
    if std::env::var("SIDEKICKS_FILE_DIALOG").is_ok_and(|v| v == "none") {
        return false;
    }
    portal_file_chooser() || on_path("zenity")
}

/// Data folders as the XDG base directory spec says (`XDG_DATA_DIRS`, else its default).
fn data_dirs() -> Vec<PathBuf> {
    let dirs = std::env::var("XDG_DATA_DIRS").ok().filter(|d| !d.is_empty());
    dirs.as_deref().unwrap_or("/usr/local/share:/usr/share").split(':').map(PathBuf::from).collect()
}

fn portal_file_chooser() -> bool {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return false;
    }
    let dirs = data_dirs();
    let activatable = dirs.iter().any(|d| d.join("dbus-1/services/org.freedesktop.portal.Desktop.service").is_file());
    let chooser = dirs.iter().any(|d| {
        std::fs::read_dir(d.join("xdg-desktop-portal/portals")).into_iter().flatten().flatten().any(|e| {
            std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("org.freedesktop.impl.portal.FileChooser"))
        })
    });
    activatable && chooser
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

/// The entries of `folder`, sorted for a picker (folders first); an error in words.
pub fn list_folder(folder: &Path) -> Result<Vec<FolderEntry>, String> {
    let read = std::fs::read_dir(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let mut entries: Vec<FolderEntry> = read
        .flatten()
        .map(|e| {
            // A link to a folder is a folder to open.
            let dir = std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir());
            FolderEntry { name: e.file_name().to_string_lossy().into_owned(), dir }
        })
        .collect();
    sort_entries(&mut entries);
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_listed_folders_first_and_a_missing_one_said() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.toml"), "").unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let listed = list_folder(dir.path()).unwrap();
        assert_eq!(
            listed,
            [FolderEntry { name: "src".into(), dir: true }, FolderEntry { name: "b.toml".into(), dir: false }]
        );
        let missing = list_folder(&dir.path().join("nope")).unwrap_err();
        assert!(missing.contains("nope"), "{missing}");
    }
}
