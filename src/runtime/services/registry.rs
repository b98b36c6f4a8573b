//! The registry service: `RegistryCommand`s of every door (the window's page, `sidekicks
//! registry`) run on blocking threads over `runtime/registry`, answered by `RegistryEvent`s.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::protocol::Event;
use crate::protocol::registry::{RegistryCommand, RegistryDone, RegistryEvent};
use crate::runtime::config::file::load_file;
use crate::runtime::events::EventSink;
use crate::runtime::registry::{self, ops};

/// The entries being added, updated or removed: a second request for one of them is not started
/// (a double click adds one agent, not two).
pub(super) type Busy = Arc<Mutex<BTreeSet<String>>>;

/// Serves `command` for the config's agents; `data_dir` keeps the index and the downloads.
pub(super) fn serve(
    command: RegistryCommand,
    data_dir: Option<PathBuf>,
    home: Option<PathBuf>,
    busy: Busy,
    sink: EventSink,
) {
    let rt = tokio::runtime::Handle::current();
    let entry = match &command {
        RegistryCommand::List { .. } => None,
        RegistryCommand::Add { id, .. } | RegistryCommand::Remove { id, .. } => Some(id.clone()),
        RegistryCommand::Update { id, .. } => Some(id.clone().unwrap_or_default()),
    };
    if let Some(id) = &entry
        && !busy.lock().unwrap_or_else(PoisonError::into_inner).insert(id.clone())
    {
        tracing::info!("registry: {id} is already under way; the request is not started again");
        return;
    }
    tokio::task::spawn_blocking(move || {
        let send = |event: RegistryEvent| {
            let sink = sink.clone();
            rt.block_on(async move { sink.send(Event::Registry(event)).await });
        };
        if let Some(id) = &entry {
            send(RegistryEvent::Started { id: id.clone() });
        }
        work(command, data_dir, home, &send);
        if let Some(id) = &entry {
            busy.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        }
    });
}

/// Does `command`, telling `send` what happens.
fn work(command: RegistryCommand, data_dir: Option<PathBuf>, home: Option<PathBuf>, send: &dyn Fn(RegistryEvent)) {
    {
        let Some(data_dir) = data_dir else {
            let why = "no data folder in this run: the registry's agents are kept there".to_string();
            return match command {
                RegistryCommand::List { .. } => send(RegistryEvent::Listed { listing: Err(why), refreshing: false }),
                RegistryCommand::Add { id, .. } | RegistryCommand::Remove { id, .. } => {
                    send(RegistryEvent::Done { id, result: Err(why) })
                }
                RegistryCommand::Update { id, .. } => {
                    send(RegistryEvent::Done { id: id.unwrap_or_default(), result: Err(why) })
                }
            };
        };
        match command {
            RegistryCommand::List { config, icons: drawn } => {
                let url = url_of(&config);
                if let Some(copy) = registry::cached(&data_dir, &url) {
                    send(RegistryEvent::Listed { listing: Ok(copy), refreshing: true });
                }
                let listing = registry::load(&data_dir, &url);
                let entries = listing.as_ref().map(|l| l.index.agents.clone()).unwrap_or_default();
                send(RegistryEvent::Listed { listing, refreshing: false });
                if drawn {
                    icons(&data_dir, &entries, send);
                }
            }
            RegistryCommand::Add { config, id, name, workspace } => {
                let result = listing(&data_dir, &config, send).and_then(|listing| {
                    let progress = |received, total| send(RegistryEvent::Progress { id: id.clone(), received, total });
                    let added =
                        ops::add(&config, &data_dir, &listing, &id, name.as_deref(), workspace.as_deref(), progress)?;
                    Ok(RegistryDone::Added {
                        name: added.name,
                        version: added.version,
                        kind: added.made.kind.to_string(),
                        command: added.made.command,
                        args: added.made.args,
                        workspace: added.workspace,
                    })
                });
                send(RegistryEvent::Done { id, result });
            }
            RegistryCommand::Update { config, id } => {
                let key = id.clone().unwrap_or_default();
                let result = listing(&data_dir, &config, send).and_then(|listing| {
                    let agents = config_of(&config, home.as_deref())?;
                    let progress =
                        |_: &str, received, total| send(RegistryEvent::Progress { id: key.clone(), received, total });
                    let done = ops::update(&config, &data_dir, &agents, &listing, id.as_deref(), progress)?;
                    Ok(RegistryDone::Updated(done.into_iter().map(|u| (u.name, u.from, u.to)).collect()))
                });
                send(RegistryEvent::Done { id: key, result });
            }
            RegistryCommand::Remove { config, id, name } => {
                let result = config_of(&config, home.as_deref())
                    .and_then(|agents| ops::remove(&config, &data_dir, &agents, &name))
                    .map(|removed| RegistryDone::Removed { name: name.clone(), deleted_files: removed.deleted_files });
                send(RegistryEvent::Done { id, result });
            }
        }
    }
}

/// The config file's agents, or why not.
fn config_of(config: &Path, home: Option<&Path>) -> Result<crate::model::config::Config, String> {
    load_file(config, home)
        .config
        .ok_or_else(|| format!("{} has problems: `sidekicks check` lists them", config.display()))
}

/// The index's address for the config file at `config`.
fn url_of(config: &Path) -> String {
    // (Only a regular file is read: a named pipe would wait for ever for a writer.)
    let text = crate::runtime::config::file::read_text(config).unwrap_or_default();
    registry::index_url(registry::configured_url(&text).as_deref())
}

/// The index, downloaded again (or the copy kept, offline), and told (`Listed`): a door says
/// where it was read and how old it is, or why it could not be.
fn listing(
    data_dir: &Path,
    config: &Path,
    send: &dyn Fn(RegistryEvent),
) -> Result<crate::model::registry::Listing, String> {
    let listing = registry::load(data_dir, &url_of(config));
    send(RegistryEvent::Listed { listing: listing.clone(), refreshing: false });
    listing
}

/// Reads (or downloads and keeps) and draws the entries' icons, each sent as it is drawn; one that
/// cannot be read or drawn is logged and left to the entry's letter.
fn icons(data_dir: &Path, entries: &[crate::model::registry::Entry], send: &dyn Fn(RegistryEvent)) {
    use crate::runtime::registry::icon;
    for entry in entries {
        let Some(url) = &entry.icon else { continue };
        match icon::load(data_dir, &entry.id, url).and_then(|svg| icon::rasterize(&svg, ICON_PIXELS)) {
            Ok(mask) => send(RegistryEvent::Icon { id: entry.id.clone(), mask: Arc::new(mask) }),
            Err(why) => tracing::info!("registry: the icon of {} is not drawn: {why}", entry.id),
        }
    }
}

/// The icons' size in pixels: the page shows them at 28 points, sharp up to twice that.
const ICON_PIXELS: u16 = 56;
