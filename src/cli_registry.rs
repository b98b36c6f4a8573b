//! `sidekicks registry`: the ACP Registry's agents from the command line — list them, add one,
//! update, remove — through the same runtime functions as the window's "Get agents" page.

use crate::cli_out::{errln, outln};
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Subcommand;

use crate::model::config::Config;
use crate::model::registry::{compare_versions, this_platform};
use crate::runtime::config_file::{AppDirs, load_file};
use crate::runtime::registry::{self, Listing, age_words, ops};

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

/// Runs `command` on the config file at `path`; the exit code (0 done, 1 refused, 2 an error).
pub fn run(path: PathBuf, dirs: Option<AppDirs>, command: RegistryCli) -> anyhow::Result<u8> {
    let dirs = dirs.context("no home folder: registry agents are kept in the user's data folder")?;
    let home = dirs.home.clone();
    let result = load_file(&path, home.as_deref());
    let config = result.config.clone().unwrap_or_default();
    let text = match crate::runtime::config_file::read_text(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            errln!("[the config file {} cannot be read ({e}): the agents in it are not shown]", path.display());
            String::new()
        }
    };
    let url = registry::index_url(registry::configured_url(&text).as_deref());
    let listing = match registry::load(&dirs.data_dir, &url) {
        Ok(listing) => listing,
        Err(why) => {
            errln!("error: cannot read the registry: {why}");
            return Ok(2);
        }
    };
    if let Some(why) = &listing.stale {
        errln!(
            "[the registry could not be read again ({why}): showing the copy read {} ago]",
            age_words(listing.age())
        );
    }
    match command {
        RegistryCli::List { json } => list(&listing, &config, json).map(|()| 0),
        RegistryCli::Add { id, name, workspace } => {
            let progress = Progress::new(&id);
            let added =
                ops::add(&path, &dirs.data_dir, &listing, &id, name.as_deref(), workspace.as_deref(), |g, t| {
                    progress.show(g, t)
                });
            match added {
                Ok(a) => {
                    outln!(
                        "added \"{}\" ({id} {}, {}): {} {}",
                        a.name,
                        a.version,
                        a.made.kind,
                        a.made.command,
                        a.made.args.join(" ")
                    );
                    outln!("workspace: {}", a.workspace.display());
                    Ok(0)
                }
                Err(why) => refused(&why),
            }
        }
        RegistryCli::Update { id } => {
            if result.config.is_none() {
                return refused(&format!("{} has problems: `sidekicks check` lists them", path.display()));
            }
            let progress = Progress::new("update");
            match ops::update(&path, &dirs.data_dir, &config, &listing, id.as_deref(), |_, g, t| progress.show(g, t)) {
                Ok(done) if done.is_empty() => {
                    outln!("everything added from the registry is at its latest version");
                    Ok(0)
                }
                Ok(done) => {
                    for u in done {
                        outln!("updated \"{}\": {} → {}", u.name, u.from, u.to);
                    }
                    Ok(0)
                }
                Err(why) => refused(&why),
            }
        }
        RegistryCli::Remove { name } => {
            if result.config.is_none() {
                return refused(&format!("{} has problems: `sidekicks check` lists them", path.display()));
            }
            match ops::remove(&path, &dirs.data_dir, &config, &name) {
                Ok(removed) => {
                    let files = if removed.deleted_files { "; its download deleted" } else { "" };
                    outln!("removed \"{name}\" from {}{files}", path.display());
                    Ok(0)
                }
                Err(why) => refused(&why),
            }
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
