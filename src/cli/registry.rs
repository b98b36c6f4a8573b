//! `sidekicks registry`: the ACP Registry's agents from the command line — list them, add one,
//! update, remove — a door onto the registry service, as the window's "Get agents" page is.

use crate::cli::out::{errln, outln};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Subcommand;
use tokio::sync::mpsc::{Receiver, Sender};

use crate::model::config::Config;
use crate::model::registry::{compare_versions, this_platform};
use crate::protocol::ConfigEvent;
use crate::protocol::registry::{RegistryCommand, RegistryDone, RegistryEvent};
use crate::protocol::{Command, Event};
use crate::runtime::config::file::AppDirs;
use crate::runtime::host::{Host, Startup};
use crate::runtime::registry::{Listing, age_words, ops};

/// `sidekicks registry …`.
#[derive(Debug, Subcommand)]
pub enum RegistryCli {
    /// The registry's agents: version, how each runs here (binary, npx, uvx), licence, and whether
    /// it is in the config or has an update.
    List {
        /// One JSON object per agent, a line each.
        #[arg(long)]
        json: bool,
    },
    /// Adds an agent of the registry to the config (a binary is downloaded into the data folder).
    Add {
        /// The agent's id in the registry (`sidekicks registry list` shows them).
        id: String,
        /// Its name in the config (default: the registry's name, made unique).
        #[arg(long)]
        name: Option<String>,
        /// Its workspace folder (default: a new folder beside the config file).
        #[arg(long)]
        workspace: Option<PathBuf>,
    },
    /// Updates agents added from the registry to the index's version (all, or those of entry ID);
    /// names, threads and settings stay.
    Update {
        /// Only the agents of this registry entry.
        id: Option<String>,
    },
    /// Removes an agent added from the registry: from the config, and what Sidekicks downloaded
    /// for it. Its threads stay in the history.
    Remove {
        /// The agent's name in the config.
        name: String,
    },
}

/// Runs `command` on the config file at `path` through the registry service (the window's
/// "Get agents" page asks the same); the exit code (0 done, 1 refused, 2 an error).
pub fn run(path: PathBuf, dirs: Option<AppDirs>, command: RegistryCli) -> anyhow::Result<u8> {
    let dirs = dirs.context("no home folder: registry agents are kept in the user's data folder")?;
    let rt = crate::runtime::host::runtime()?;
    rt.block_on(async move {
        let startup = Startup { dirs: Some(dirs), ..Startup::new(path.clone()) };
        let Host { commands, mut events, .. } = Host::start(startup, Arc::new(|| {}));
        // The config as the front door read it: one with problems still lists the registry.
        let config = loop {
            match events.recv().await.context("the runtime ended")? {
                Event::Config(ConfigEvent::Applied { config, .. }) => break config,
                Event::Config(ConfigEvent::Loaded { result, language: lang, .. }) if result.config.is_none() => {
                    for p in &result.problems {
                        let text = crate::i18n::problem_text(lang, &p.kind);
                        errln!("[{}:{}:{}: {text}: the agents in it are not shown]", path.display(), p.line, p.column);
                    }
                    break Config::default();
                }
                _ => {}
            }
        };
        let code = serve(&commands, &mut events, &path, &config, command).await;
        crate::cli::prompt::shut_down(&commands, &mut events).await;
        code
    })
}

/// Asks the registry service for `command` and says what it did.
async fn serve(
    commands: &Sender<Command>,
    events: &mut Receiver<Event>,
    path: &std::path::Path,
    config: &Config,
    command: RegistryCli,
) -> anyhow::Result<u8> {
    let config_path = path.to_path_buf();
    let (asked, json, progress) = match command {
        RegistryCli::List { json } => (RegistryCommand::List { config: config_path, icons: false }, json, None),
        RegistryCli::Add { id, name, workspace } => {
            let progress = Progress::new(&id);
            (RegistryCommand::Add { config: config_path, id, name, workspace }, false, Some(progress))
        }
        RegistryCli::Update { id } => {
            (RegistryCommand::Update { config: config_path, id }, false, Some(Progress::new("update")))
        }
        RegistryCli::Remove { name } => {
            // The entry it came from names the work (a second one on it waits); else its name.
            let id = ops::installed(config).into_iter().find(|(n, _)| *n == name).map_or(name.clone(), |(_, i)| i.id);
            (RegistryCommand::Remove { config: config_path, id, name }, false, None)
        }
    };
    let listing_only = matches!(asked, RegistryCommand::List { .. });
    commands.send(Command::Registry(asked)).await.context("the runtime ended")?;
    loop {
        let Event::Registry(event) = events.recv().await.context("the runtime ended")? else { continue };
        match event {
            RegistryEvent::Listed { refreshing: true, .. }
            | RegistryEvent::Icon { .. }
            | RegistryEvent::Started { .. } => {}
            RegistryEvent::Listed { listing: Err(why), .. } => {
                errln!("error: cannot read the registry: {why}");
                return Ok(2);
            }
            RegistryEvent::Listed { listing: Ok(listing), .. } => {
                if let Some(why) = &listing.stale {
                    errln!(
                        "[the registry could not be read again ({why}): showing the copy read {} ago]",
                        age_words(listing.age())
                    );
                }
                if listing_only {
                    list(&listing, config, json)?;
                    return Ok(0);
                }
            }
            RegistryEvent::Progress { received, total, .. } => {
                if let Some(progress) = &progress {
                    progress.show(received, total);
                }
            }
            RegistryEvent::Done { result: Err(why), .. } => return refused(&why),
            RegistryEvent::Done { result: Ok(done), id } => {
                said(path, &id, done);
                return Ok(0);
            }
        }
    }
}

/// Says what an add, update or remove of entry `id` did.
fn said(path: &std::path::Path, id: &str, done: RegistryDone) {
    match done {
        RegistryDone::Added { name, version, kind, command, args, workspace } => {
            outln!("added \"{name}\" ({id} {version}, {kind}): {command} {}", args.join(" "));
            outln!("workspace: {}", workspace.display());
        }
        RegistryDone::Updated(done) if done.is_empty() => {
            outln!("everything added from the registry is at its latest version")
        }
        RegistryDone::Updated(done) => {
            for (name, from, to) in done {
                outln!("updated \"{name}\": {from} → {to}");
            }
        }
        RegistryDone::Removed { name, deleted_files } => {
            let files = if deleted_files { "; its download deleted" } else { "" };
            outln!("removed \"{name}\" from {}{files}", path.display());
        }
    }
}

fn refused(why: &str) -> anyhow::Result<u8> {
    errln!("error: {why}");
    Ok(1)
}

fn list(listing: &Listing, config: &Config, json: bool) -> anyhow::Result<()> {
    let mine = ops::installed(config);
    let mut out = std::io::stdout().lock();
    if !json {
        let age = age_words(listing.age());
        writeln!(out, "{} agents in {} (read {age} ago)", listing.index.agents.len(), listing.url)?;
    }
    for entry in &listing.index.agents {
        let how = entry.how(this_platform()).map(|h| h.kind()).unwrap_or("-");
        let here: Vec<&(String, crate::model::registry::Installed)> =
            mine.iter().filter(|(_, i)| i.id == entry.id).collect();
        let update =
            here.iter().any(|(_, i)| compare_versions(&entry.version, &i.version) == std::cmp::Ordering::Greater);
        if json {
            let value = serde_json::json!({
                "id": entry.id,
                "name": entry.name,
                "version": entry.version,
                "description": entry.description,
                "license": entry.license,
                "icon": entry.icon,
                "runs_with": (how != "-").then_some(how),
                "installed": here.iter().map(|(name, i)| serde_json::json!({"name": name, "version": i.version})).collect::<Vec<_>>(),
                "update": update,
            });
            writeln!(out, "{value}")?;
            continue;
        }
        let status = if here.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = here.iter().map(|(n, i)| format!("\"{n}\" {}", i.version)).collect();
            format!("  [added as {}{}]", names.join(", "), if update { "; update available" } else { "" })
        };
        let license = entry.license.as_deref().unwrap_or("licence not given");
        let line = format!("{:<20} {:<10} {:<6} {:<12} {}{status}", entry.id, entry.version, how, license, entry.name);
        writeln!(out, "{}", crate::model::ansi::for_terminal(&line))?;
        if !entry.description.is_empty() {
            writeln!(out, "{:<20} {}", "", crate::model::ansi::for_terminal(&entry.description))?;
        }
    }
    Ok(())
}

/// Download progress on stderr: a line at each tenth.
struct Progress {
    what: String,
    shown: std::cell::Cell<u64>,
}

impl Progress {
    fn new(what: &str) -> Self {
        Self { what: what.to_string(), shown: std::cell::Cell::new(u64::MAX) }
    }

    fn show(&self, received: u64, total: Option<u64>) {
        let step = match total {
            Some(t) if t > 0 => received.saturating_mul(10) / t,
            _ => received / (10 << 20),
        };
        if step == self.shown.get() {
            return;
        }
        self.shown.set(step);
        let mb = |b: u64| b as f64 / 1_048_576.0;
        match total {
            Some(t) if t > 0 => errln!("downloading {}: {:.1} of {:.1} MB", self.what, mb(received), mb(t)),
            _ => errln!("downloading {}: {:.1} MB", self.what, mb(received)),
        }
    }
}
