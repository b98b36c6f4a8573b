//! What the window knows of the ACP Registry: the index (and how old it is), the downloads under
//! way, and the last thing done or refused — folded from `RegistryEvent`s.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::config::Config;
use crate::model::registry::{Entry, IconMask, Installed, Listing, compare_versions};
use crate::protocol::registry::{RegistryCommand, RegistryEvent};

/// The registry as the "Get agents" page shows it.
#[derive(Clone, Debug, Default)]
pub struct RegistryState {
    /// The index, once read (a kept copy while it is downloaded again).
    pub listing: Option<Listing>,
    /// The index was asked for and has not come yet (or is being downloaded again).
    pub reading: bool,
    /// Why the index could not be read (when there is no copy either).
    pub error: Option<String>,
    /// How many reads in a row failed (a retry that fails at once is said, not silent).
    pub failed_reads: u32,
    /// Entries being added, updated or removed, with what their download received so far.
    pub busy: BTreeMap<String, (u64, Option<u64>)>,
    /// The last add, update or remove: its entry, what it was, and what it did or why not.
    pub last: Option<(String, Op, Result<String, String>)>,
    /// What the window asked for each entry (what a `Done` is the end of).
    asked: BTreeMap<String, Op>,
    /// The entries' icons drawn so far.
    pub icons: BTreeMap<String, Arc<IconMask>>,
}

/// What was asked of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Add it.
    Add,
    /// Update its agents.
    Update,
    /// Remove one of its agents.
    Remove,
}

/// An entry's state against the config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// Not in the config.
    NotAdded,
    /// In the config under these names, at the index's version.
    Added(Vec<String>),
    /// In the config, an older version: the names and the version they have.
    Update(Vec<String>, String),
}

impl RegistryState {
    /// Folds one event in.
    pub fn apply(&mut self, event: RegistryEvent) {
        match event {
            RegistryEvent::Listed { listing, refreshing } => {
                self.reading = refreshing;
                match listing {
                    Ok(listing) => {
                        self.listing = Some(listing);
                        self.error = None;
                        self.failed_reads = 0;
                    }
                    Err(why) => {
                        self.error = Some(why);
                        self.failed_reads += 1;
                    }
                }
            }
            RegistryEvent::Icon { id, mask } => {
                self.icons.insert(id, mask);
            }
            RegistryEvent::Started { id } => {
                self.busy.insert(id, (0, None));
                self.last = None;
            }
            RegistryEvent::Progress { id, received, total } => {
                self.busy.insert(id, (received, total));
            }
            RegistryEvent::Done { id, result } => {
                self.busy.remove(&id);
                let op = self.asked.remove(&id).unwrap_or(Op::Add);
                self.last = Some((id, op, result.map(|done| done.words())));
            }
        }
    }

    /// The window asked for `command`: the index is being read. (An entry is busy once the service
    /// says it `Started`.)
    pub fn requested(&mut self, command: &RegistryCommand) {
        match command {
            RegistryCommand::List { .. } => self.reading = true,
            RegistryCommand::Add { id, .. } => _ = self.asked.insert(id.clone(), Op::Add),
            RegistryCommand::Update { id, .. } => _ = self.asked.insert(id.clone().unwrap_or_default(), Op::Update),
            RegistryCommand::Remove { id, .. } => _ = self.asked.insert(id.clone(), Op::Remove),
        }
    }
}

/// Where `entry` stands in `config`.
pub fn entry_state(entry: &Entry, config: Option<&Config>) -> EntryState {
    let mine: Vec<(&str, &Installed)> = config
        .iter()
        .flat_map(|c| &c.agents)
        .filter_map(|a| a.registry.as_ref().filter(|i| i.id == entry.id).map(|i| (a.name.as_str(), i)))
        .collect();
    if mine.is_empty() {
        return EntryState::NotAdded;
    }
    let names = mine.iter().map(|(n, _)| n.to_string()).collect();
    match mine.iter().find(|(_, i)| compare_versions(&entry.version, &i.version).is_gt()) {
        Some((_, old)) => EntryState::Update(names, old.version.clone()),
        None => EntryState::Added(names),
    }
}
