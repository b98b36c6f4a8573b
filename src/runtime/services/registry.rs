//! The registry service: the window's `RegistryCommand`s run on blocking threads over
//! `runtime/registry` (the same functions as `sidekicks registry`), answered by `RegistryEvent`s.

use std::path::{Path, PathBuf};

use crate::protocol::Event;
use crate::protocol::registry::{RegistryCommand, RegistryEvent};
use crate::runtime::config_file::load_file;
use crate::runtime::events::EventSink;
use crate::runtime::registry::{self, ops};

/// Serves `command` for the config's agents; `data_dir` keeps the index and the downloads.
pub(super) fn serve(command: RegistryCommand, data_dir: Option<PathBuf>, home: Option<PathBuf>, sink: EventSink) {
    let rt = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let send = |event: RegistryEvent| {
            let sink = sink.clone();
            rt.block_on(async move { sink.send(Event::Registry(event)).await });
        };
        let Some(data_dir) = data_dir else {
            let why = "no data folder in this run: the registry's agents are kept there".to_string();
            return match command {
                RegistryCommand::List { .. } => send(RegistryEvent::Listed { listing: Err(why), refreshing: false }),
                RegistryCommand::Add { id, .. }
                | RegistryCommand::Update { id, .. }
                | RegistryCommand::Remove { id, .. } => send(RegistryEvent::Done { id, result: Err(why) }),
            };
        };
        match command {
            RegistryCommand::List { config } => {
                let url = url_of(&config);
                if let Some(copy) = registry::cached(&data_dir, &url) {
                    send(RegistryEvent::Listed { listing: Ok(copy), refreshing: true });
                }
                send(RegistryEvent::Listed { listing: registry::load(&data_dir, &url), refreshing: false });
            }
            RegistryCommand::Add { config, id } => {
                let result = listing(&data_dir, &config).and_then(|listing| {
                    let progress = |received, total| send(RegistryEvent::Progress { id: id.clone(), received, total });
                    let added = ops::add(&config, &data_dir, &listing, &id, None, None, progress)?;
                    Ok(format!("{} {} ({})", added.name, added.version, added.made.kind))
                });
                send(RegistryEvent::Done { id, result });
            }
            RegistryCommand::Update { config, id } => {
                let result = listing(&data_dir, &config).and_then(|listing| {
                    let loaded = load_file(&config, home.as_deref());
                    let agents = loaded.config.ok_or_else(|| format!("{} has problems", config.display()))?;
                    let progress =
                        |_: &str, received, total| send(RegistryEvent::Progress { id: id.clone(), received, total });
                    let done = ops::update(&config, &data_dir, &agents, &listing, Some(&id), progress)?;
                    let said: Vec<String> = done.iter().map(|u| format!("{} {} → {}", u.name, u.from, u.to)).collect();
                    Ok(said.join(", "))
                });
                send(RegistryEvent::Done { id, result });
            }
            RegistryCommand::Remove { config, id, name } => {
                let loaded = load_file(&config, home.as_deref());
                let result = loaded
                    .config
                    .ok_or_else(|| format!("{} has problems", config.display()))
                    .and_then(|agents| ops::remove(&config, &data_dir, &agents, &name))
                    .map(|_| name.clone());
                send(RegistryEvent::Done { id, result });
            }
        }
    });
}

/// The index's address for the config file at `config`.
fn url_of(config: &Path) -> String {
    let text = std::fs::read_to_string(config).unwrap_or_default();
    registry::index_url(registry::configured_url(&text).as_deref())
}

/// The index, downloaded again (or the copy kept, offline).
fn listing(data_dir: &Path, config: &Path) -> Result<crate::model::registry::Listing, String> {
    registry::load(data_dir, &url_of(config))
}
