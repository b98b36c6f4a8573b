//! The config service's protocol (`runtime/services/config.rs`): open, save and check the config
//! file, the file and folder dialogs, find agents installed here and add one.

use std::path::PathBuf;

use crate::model::config::{Config, Language};
use crate::model::config_check::LoadResult;

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
    /// Set `[defaults] key = value` in the config file at `path` (the theme, the language), keeping
    /// its comments and layout (→ `ConfigSaved`, then the file is read again as any change).
    SetDefault {
        /// The path it is about.
        path: PathBuf,
        /// The key of `[defaults]` (`theme`, `language`).
        key: String,
        /// Its value.
        value: String,
    },
    /// Remember the window's zoom and place for the next run (kept with the preferences, not in
    /// the config file).
    Remember {
        /// The zoom factor.
        zoom: f32,
        /// The window's place and size (x, y, width, height), when known.
        window: Option<[f32; 4]>,
    },
}

/// What the config service tells.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigEvent {
    /// The window's zoom and place kept from the last run, once at start (none: not kept).
    Remembered {
        /// The zoom factor.
        zoom: Option<f32>,
        /// The window's place and size (x, y, width, height).
        window: Option<[f32; 4]>,
    },
    /// The config file was read; `result.config` is `None` when it has problems, and the
    /// last good config (if any) stays in force.
    Loaded {
        /// The path it is about.
        path: PathBuf,
        /// How it went.
        result: LoadResult,
        /// The language to speak while no config is in force (the system's).
        language: Language,
    },
    /// The config now in force.
    Applied {
        /// The config.
        config: Config,
        /// The language to speak: the config's, else the system's.
        language: Language,
    },
    /// Another config file is now open: what was shown of the previous one goes away.
    Opened {
        /// The path it is about.
        path: PathBuf,
    },
    /// The settings editor's text was saved (or not, with the reason).
    Saved {
        /// The path it is about.
        path: PathBuf,
        /// The error, in words.
        error: Option<String>,
    },
    /// The native file dialog closed; `path` is the file picked, if any.
    FilePicked {
        /// The path it is about.
        path: Option<PathBuf>,
    },
    /// A folder read for the window's picker.
    FolderListed {
        /// The folder.
        path: PathBuf,
        /// Its entries, or why they could not be read.
        result: Result<Vec<super::picker::FolderEntry>, String>,
    },
    /// The native folder dialog closed with a folder picked.
    FolderPicked {
        /// The folder.
        path: PathBuf,
    },
    /// Agents found on this computer that could be added to the config.
    AgentsFound {
        /// The agents (their names).
        agents: Vec<super::discovery::FoundAgent>,
    },
    /// The recent config files, newest first, each with whether it still exists.
    RecentFiles {
        /// The files.
        files: Vec<(PathBuf, bool)>,
    },
    /// The problems of a text the settings editor asked to check.
    Checked {
        /// The text.
        text: String,
        /// The problems.
        problems: Vec<crate::model::problem::Problem>,
    },
}
