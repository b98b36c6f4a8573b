//! The ACP Registry as a service of the runtime (ADR 0033): reading the index (from its address,
//! kept in the data folder with its time and shown from there when offline), installing an entry
//! (an `npx`/`uvx` command line, or a downloaded archive checked against its `sha256` and unpacked
//! into the data folder), updating and removing what was installed. The window's registry service
//! and `sidekicks registry` both call these functions.

pub mod fetch;
pub mod icon;
mod install;
pub mod ops;
pub mod unpack;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

pub use install::{Made, prepare, remove_files};

pub use crate::model::registry::Listing;
use crate::model::registry::{Index, OFFICIAL_URL, parse_index};

/// The environment variable naming another index (a company's mirror, a test's stand-in).
pub const URL_ENV: &str = "SIDEKICKS_REGISTRY_URL";

/// The index's address: `$SIDEKICKS_REGISTRY_URL`, else the config's `[registry] url`, else the
/// official one.
pub fn index_url(configured: Option<&str>) -> String {
    std::env::var(URL_ENV)
        .ok()
        .filter(|u| !u.trim().is_empty())
        .or_else(|| configured.map(str::to_string))
        .unwrap_or_else(|| OFFICIAL_URL.to_string())
}

/// `[registry] url` of a config text, read leniently (a config with other problems still names
/// its registry).
pub fn configured_url(text: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(text).ok()?;
    Some(table.get("registry")?.get("url")?.as_str()?.to_string())
}

/// The folder of everything the registry's agents keep in the data folder.
pub fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join("registry")
}

/// The copy kept in the data folder.
#[derive(Serialize, Deserialize)]
struct Cached {
    url: String,
    /// Seconds since 1970.
    fetched: u64,
    index: Index,
}

fn cache_path(data_dir: &Path) -> PathBuf {
    folder(data_dir).join("index.json")
}

/// The copy of the index at `url` kept in the data folder, if there is one.
pub fn cached(data_dir: &Path, url: &str) -> Option<Listing> {
    let text = std::fs::read_to_string(cache_path(data_dir)).ok()?;
    let cached: Cached = serde_json::from_str(&text).ok()?;
    (cached.url == url).then(|| Listing {
        index: cached.index,
        url: cached.url,
        fetched: SystemTime::UNIX_EPOCH + Duration::from_secs(cached.fetched),
        stale: None,
    })
}

/// Downloads the index at `url` and keeps a copy; when it cannot be downloaded (offline) or read,
/// the last copy, saying why; an error in words when there is no copy either.
pub fn load(data_dir: &Path, url: &str) -> Result<Listing, String> {
    let fresh = fetch::get(url, &folder(data_dir).join("downloads"))
        .map_err(|e| e.to_string())
        .and_then(|bytes| parse_index(&String::from_utf8_lossy(&bytes)).map_err(|e| format!("{url}: {e}")));
    match fresh {
        Ok(index) => {
            let fetched = SystemTime::now();
            let secs = fetched.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_secs();
            let cached = Cached { url: url.to_string(), fetched: secs, index };
            // A copy that cannot be kept is no reason not to show the list.
            if let Ok(text) = serde_json::to_string(&cached) {
                let _ = std::fs::create_dir_all(folder(data_dir));
                let _ = crate::runtime::config::file::save_atomic(&cache_path(data_dir), &text);
            }
            let fetched = SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
            Ok(Listing { index: cached.index, url: url.to_string(), fetched, stale: None })
        }
        Err(why) => match cached(data_dir, url) {
            Some(listing) => Ok(Listing { stale: Some(why), ..listing }),
            None => Err(why),
        },
    }
}

/// "3 minutes", "2 hours", "5 days": how old a copy is, in English (the window says it in its
/// language).
pub fn age_words(age: Duration) -> String {
    let s = age.as_secs();
    let (n, unit) = match s {
        0..60 => return "less than a minute".into(),
        60..3600 => (s / 60, "minute"),
        3600..86_400 => (s / 3600, "hour"),
        _ => (s / 86_400, "day"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}
