//! The window's door onto the ACP Registry service (`runtime/registry/`): read the index, add an
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
    },
    /// Add entry `id` to the config file (→ `Progress`…, `Done`).
    Add {
        /// The config file.
        config: PathBuf,
        /// The entry.
        id: String,
    },
    /// Update the agents of entry `id` (→ `Progress`…, `Done`).
    Update {
        /// The config file.
        config: PathBuf,
        /// The entry.
        id: String,
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
        /// The entry.
        id: String,
        /// What was done, or the error, in words.
        result: Result<String, String>,
    },
}
