//! Picking files and folders where the desktop has no dialog (no portal with a file chooser, no
//! zenity): the window shows a picker of its own, the runtime reading the folders for it.

use std::path::PathBuf;

/// What a picker is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PickFor {
    /// Files to attach to the next message of `agent` (several).
    Attach {
        /// The agent.
        agent: String,
    },
    /// A config file to open (one `.toml`).
    ConfigFile,
    /// A new team's project folder (one folder).
    ProjectFolder,
}

impl PickFor {
    /// Whether a folder is what is picked (else files).
    pub fn folder(&self) -> bool {
        matches!(self, PickFor::ProjectFolder)
    }

    /// Whether several files may be picked.
    pub fn several(&self) -> bool {
        matches!(self, PickFor::Attach { .. })
    }

    /// Whether a file of that name is offered.
    pub fn offers(&self, name: &str) -> bool {
        match self {
            PickFor::ConfigFile => name.ends_with(".toml"),
            PickFor::Attach { .. } => true,
            PickFor::ProjectFolder => false,
        }
    }
}

/// One entry of a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolderEntry {
    /// Its name.
    pub name: String,
    /// A folder.
    pub dir: bool,
}

/// A folder's entries, folders first, each group by name (case ignored); hidden ones (a leading
/// dot) after.
pub fn sort_entries(entries: &mut [FolderEntry]) {
    entries.sort_by_key(|e| (!e.dir, e.name.starts_with('.'), e.name.to_lowercase()));
}

/// The start of a picker: what for, and the folder it opens in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickerStart {
    /// What for.
    pub purpose: PickFor,
    /// The folder it opens in.
    pub folder: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_come_first_then_files_hidden_ones_last() {
        let e = |name: &str, dir| FolderEntry { name: name.into(), dir };
        let mut entries = vec![e("b.txt", false), e(".git", true), e("Src", true), e("a.txt", false), e("docs", true)];
        sort_entries(&mut entries);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["docs", "Src", ".git", "a.txt", "b.txt"]);
    }

    #[test]
    fn each_purpose_offers_its_files() {
        assert!(PickFor::ConfigFile.offers("sidekicks.toml") && !PickFor::ConfigFile.offers("notes.md"));
        assert!(PickFor::Attach { agent: "a".into() }.offers("notes.md"));
        assert!(PickFor::ProjectFolder.folder() && !PickFor::ConfigFile.folder());
    }
}
