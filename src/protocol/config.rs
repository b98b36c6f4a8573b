//! The config service's protocol (`runtime/services/config.rs`): open, save and check the config
//! file, the file and folder dialogs, find agents installed here and add one.

use std::path::PathBuf;

/// What a door asks of the config service.
#[derive(Clone, Debug)]
pub enum ConfigCommand {
    /// Open another config file: recorded as recent, loaded, followed; every agent of the current
    /// one stops first.
    Open {
        /// The path it is about.
        path: PathBuf,
    },
    /// Save the settings editor's text to the config file (→ `ConfigSaved`).
    Save {
        /// The path it is about.
        path: PathBuf,
        /// The text.
        text: String,
    },
    /// Check the settings editor's text with the loader, as if it were the file at `path`
    /// (→ `ConfigChecked`).
    Check {
        /// The path it is about.
        path: PathBuf,
        /// The text.
        text: String,
    },
    /// Open the native folder dialog (→ `FolderPicked`).
    PickFolder {
        /// The folder the dialog opens in.
        start_in: Option<PathBuf>,
    },
    /// Open the native file dialog (→ `FilePicked`).
    PickFile {
        /// The folder the dialog opens in.
        start_in: Option<PathBuf>,
    },
    /// Read a folder for the window's own picker (→ `FolderListed`).
    ListFolder {
        /// The folder.
        path: PathBuf,
    },
    /// Look for agents installed on this computer (→ `AgentsFound`).
    DiscoverAgents,
    /// Add a found agent to the config file at `path`, keeping its comments and layout; it works in
    /// a new folder next to the file (→ `ConfigSaved`).
    AddAgent {
        /// The path it is about.
        path: PathBuf,
        /// The agent (its name).
        agent: crate::model::config_edit::NewAgent,
    },
}
