//! The registry service's protocol (`runtime/registry/`, served by `services/registry.rs`) for
//! every door — the window's "Get agents" page and `sidekicks registry`: read the index, add an
//! entry, update, remove — each answered by `RegistryEvent`s.

use std::path::PathBuf;

use crate::model::registry::Listing;

/// What the window asks of the registry service.
#[derive(Clone, Debug, PartialEq)]
pub enum RegistryCommand {
    /// Read the index for the config file at `config` (its `[registry] url`): the copy kept first,
    /// then the index downloaded again (→ `Listed`).
    List {
        /// The config file.
        config: PathBuf,
        /// Read (or download) and draw the entries' icons too (→ `Icon`s after `Listed`).
        icons: bool,
    },
    /// Add entry `id` to the config file (→ `Listed`, `Progress`…, `Done`).
    Add {
        /// The config file.
        config: PathBuf,
        /// The entry.
        id: String,
        /// Its name in the config (`None`: the registry's name, made unique).
        name: Option<String>,
        /// Its workspace (`None`: a new folder beside the config file).
        workspace: Option<PathBuf>,
    },
    /// Update the agents of entry `id`, or of every entry (`None`) (→ `Listed`, `Progress`…,
    /// `Done`, about `id` or `""`).
    Update {
        /// The config file.
        config: PathBuf,
        /// The entry.
        id: Option<String>,
    },
    /// Remove agent `name`, added from the registry (→ `Done`).
    Remove {
        /// The config file.
        config: PathBuf,
        /// The entry it came from (what `Done` is about).
        id: String,
        /// The agent.
        name: String,
    },
}

/// What the registry service tells the window.
#[derive(Clone, Debug, PartialEq)]
pub enum RegistryEvent {
    /// The index (`refreshing`: a copy kept earlier, while it is downloaded again), or why there
    /// is none.
    Listed {
        /// The index or the error in words.
        listing: Result<Listing, String>,
        /// More is coming (the download under way).
        refreshing: bool,
    },
    /// Entry `id`'s icon, drawn (after `Listed`; an icon that cannot be read or drawn is not sent,
    /// and the entry keeps its letter).
    Icon {
        /// The entry.
        id: String,
        /// The icon.
        mask: std::sync::Arc<crate::model::registry::IconMask>,
    },
    /// Work on entry `id` began (an add, update or remove; a second request for an entry under
    /// way is not started).
    Started {
        /// The entry.
        id: String,
    },
    /// A download under way for entry `id`.
    Progress {
        /// The entry.
        id: String,
        /// Bytes received.
        received: u64,
        /// Bytes in all, when the server said.
        total: Option<u64>,
    },
    /// An add, update or remove of entry `id` ended: what it did, or why not.
    Done {
        /// The entry (`""`: an update of every entry).
        id: String,
        /// What was done, or the error, in words.
        result: Result<RegistryDone, String>,
    },
}

/// What an add, update or remove did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegistryDone {
    /// An agent was added.
    Added {
        /// Its name in the config.
        name: String,
        /// The entry's version.
        version: String,
        /// How it runs: `binary`, `npx` or `uvx`.
        kind: String,
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its workspace.
        workspace: PathBuf,
    },
    /// Agents were updated (none: all were at the index's version): name, from, to.
    Updated(Vec<(String, String, String)>),
    /// An agent was removed.
    Removed {
        /// Its name.
        name: String,
        /// Whether a download of Sidekicks' was deleted.
        deleted_files: bool,
    },
}

impl RegistryDone {
    /// In a few words: "Name 1.2.0", "A 1.0 → 1.1, B 2.0 → 2.1", "Name".
    pub fn words(&self) -> String {
        match self {
            RegistryDone::Added { name, version, .. } => format!("{name} {version}"),
            RegistryDone::Updated(done) => {
                done.iter().map(|(name, from, to)| format!("{name} {from} → {to}")).collect::<Vec<_>>().join(", ")
            }
            RegistryDone::Removed { name, .. } => name.clone(),
        }
    }
}
