//! The ACP Registry's index (agentclientprotocol/registry, FORMAT.md): the agents it lists, how each
//! is run (`npx`, `uvx` or a binary archive per platform), and what Sidekicks makes of an entry —
//! the agent it adds to the config (`NewAgent`) and whether an installed one has an update. Plain
//! data and pure functions; fetching, downloading and unpacking are the runtime's
//! (`runtime/registry/`).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

/// The official index.
pub const OFFICIAL_URL: &str = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";

/// The index: its format version and its agents (extensions are not Sidekicks' concern).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Index {
    /// The format's version.
    #[serde(default)]
    pub version: String,
    /// The agents, in the index's order.
    #[serde(default)]
    pub agents: Vec<Entry>,
}

/// One agent of the index.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Its identifier (lowercase letters, digits and hyphens).
    pub id: String,
    /// The name shown.
    pub name: String,
    /// Its version (semantic).
    pub version: String,
    /// What it is, in a sentence.
    #[serde(default)]
    pub description: String,
    /// Its source code.
    #[serde(default)]
    pub repository: Option<String>,
    /// Who makes it.
    #[serde(default)]
    pub authors: Vec<String>,
    /// An SPDX licence identifier or "proprietary".
    #[serde(default)]
    pub license: Option<String>,
    /// Its icon (an SVG's address).
    #[serde(default)]
    pub icon: Option<String>,
    /// How it is run.
    #[serde(default)]
    pub distribution: Distribution,
}

/// The ways an agent is distributed (any of them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// An archive per platform (`linux-x86_64`, `darwin-aarch64`, …).
    #[serde(default)]
    pub binary: BTreeMap<String, BinaryTarget>,
    /// An npm package run with `npx`.
    #[serde(default)]
    pub npx: Option<Package>,
    /// A PyPI package run with `uvx`.
    #[serde(default)]
    pub uvx: Option<Package>,
}

/// A platform's archive.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BinaryTarget {
    /// Where to download it (`.tar.gz`, `.tgz`, `.zip`, `.tar.bz2`, or the program itself).
    pub archive: String,
    /// The program in the unpacked archive (`./codex-acp`).
    pub cmd: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The archive's SHA-256 (hex), when the entry gives one.
    #[serde(default)]
    pub sha256: Option<String>,
}

/// An npm or PyPI package.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Package {
    /// The package, usually with its version (`@google/gemini-cli@0.27.3`).
    pub package: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// How Sidekicks runs an entry on this platform.
#[derive(Clone, Debug, PartialEq)]
pub enum How {
    /// Download and unpack this archive, then run its program.
    Binary(BinaryTarget),
    /// `npx --yes PACKAGE@VERSION ARGS…`.
    Npx(Package),
    /// `uvx PACKAGE@VERSION ARGS…`.
    Uvx(Package),
}

impl How {
    /// The word for it (`binary`, `npx`, `uvx`).
    pub fn kind(&self) -> &'static str {
        match self {
            How::Binary(_) => "binary",
            How::Npx(_) => "npx",
            How::Uvx(_) => "uvx",
        }
    }
}

/// This computer's platform as the index names it, if it is one the index knows.
pub fn this_platform() -> Option<&'static str> {
    let os = match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        "windows" => "windows",
        _ => return None,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x86_64",
        "aarch64" => "aarch64",
        _ => return None,
    };
    Some(match (os, arch) {
        ("linux", "x86_64") => "linux-x86_64",
        ("linux", _) => "linux-aarch64",
        ("darwin", "x86_64") => "darwin-x86_64",
        ("darwin", _) => "darwin-aarch64",
        ("windows", "x86_64") => "windows-x86_64",
        _ => "windows-aarch64",
    })
}

impl Entry {
    /// How to run it on `platform`: its archive for that platform first (nothing else to
    /// install), else `npx`, else `uvx`; `None` when it has none of them for this computer.
    pub fn how(&self, platform: Option<&str>) -> Option<How> {
        if let Some(target) = platform.and_then(|p| self.distribution.binary.get(p)) {
            return Some(How::Binary(target.clone()));
        }
        if let Some(npx) = &self.distribution.npx {
            return Some(How::Npx(pinned(npx, &self.version, '@')));
        }
        self.distribution.uvx.as_ref().map(|uvx| How::Uvx(pinned(uvx, &self.version, '@')))
    }
}

/// `package` with its version: as the entry gives it when it names one, else `@VERSION` added.
fn pinned(package: &Package, version: &str, at: char) -> Package {
    let name = &package.package;
    // A scoped npm name starts with `@`: its version is after a second one.
    let has_version = name.char_indices().skip(1).any(|(_, c)| c == at) || name.contains("==");
    let mut pinned = package.clone();
    if !has_version {
        pinned.package = format!("{name}{at}{version}");
    }
    pinned
}

/// The index as Sidekicks has it.
#[derive(Clone, Debug, PartialEq)]
pub struct Listing {
    /// The index.
    pub index: Index,
    /// Its address.
    pub url: String,
    /// When it was downloaded.
    pub fetched: SystemTime,
    /// Why it is an earlier copy (the download that failed just now), if it is.
    pub stale: Option<String>,
}

impl Listing {
    /// How long ago it was downloaded.
    pub fn age(&self) -> Duration {
        SystemTime::now().duration_since(self.fetched).unwrap_or_default()
    }
}

/// Where an agent of the config came from: `registry = { id = "…", version = "…" }` in its
/// `[[agent]]` table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Installed {
    /// The registry entry's id.
    pub id: String,
    /// The version installed.
    pub version: String,
}

/// Compares two versions part by part (numbers as numbers; `1.10.0` > `1.9.2`; a pre-release
/// suffix such as `-beta.1` sorts before the release).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let split = |v: &str| {
        let v = v.trim().trim_start_matches('v');
        let (core, pre) = match v.split_once(['-', '+']) {
            Some((core, pre)) => (core.to_string(), Some(pre.to_string())),
            None => (v.to_string(), None),
        };
        let parts: Vec<u64> = core.split('.').map(|p| p.parse().unwrap_or(0)).collect();
        (parts, pre)
    };
    let ((pa, prea), (pb, preb)) = (split(a), split(b));
    let len = pa.len().max(pb.len());
    for i in 0..len {
        match pa.get(i).unwrap_or(&0).cmp(pb.get(i).unwrap_or(&0)) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    match (prea, preb) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => x.cmp(&y),
    }
}

/// Whether `entry` is newer than what is installed.
pub fn has_update(installed: &Installed, entry: &Entry) -> bool {
    installed.id == entry.id && compare_versions(&entry.version, &installed.version) == Ordering::Greater
}

/// Why an index could not be read.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Not JSON of the index's shape.
    #[error("the registry's index is not in the registry's format: {0}")]
    Format(#[from] serde_json::Error),
    /// An entry's id is not what the format allows (it names folders Sidekicks writes).
    #[error("the registry lists an agent with the id \"{0}\", which is not lowercase letters, digits and hyphens")]
    BadId(String),
}

/// Reads an index from its JSON text.
pub fn parse_index(text: &str) -> Result<Index, IndexError> {
    let index: Index = serde_json::from_str(text)?;
    if let Some(bad) = index.agents.iter().find(|e| !valid_id(&e.id)) {
        return Err(IndexError::BadId(bad.id.clone()));
    }
    Ok(index)
}

/// An id the format allows: `^[a-z][a-z0-9-]*$`, and short.
pub fn valid_id(id: &str) -> bool {
    id.len() <= 100
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A registry icon drawn: `size`×`size` coverage values (0 = nothing, 255 = covered), row by row;
/// the window tints it with its text colour (the icons are `currentColor`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IconMask {
    /// Its width and height in pixels.
    pub size: u16,
    /// One byte a pixel.
    pub alpha: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(json: &str) -> Entry {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn versions_compare_as_numbers() {
        assert_eq!(compare_versions("1.10.0", "1.9.2"), Ordering::Greater);
        assert_eq!(compare_versions("0.27.3", "0.27.3"), Ordering::Equal);
        assert_eq!(compare_versions("0.27", "0.27.0"), Ordering::Equal);
        assert_eq!(compare_versions("2.0.0-beta.1", "2.0.0"), Ordering::Less);
        assert_eq!(compare_versions("v1.2.3", "1.2.4"), Ordering::Less);
    }

    /// The platform's archive first, else npx, else uvx; a package gets its version pinned.
    #[test]
    fn an_entry_runs_its_archive_for_this_platform_else_its_package_pinned() {
        let both = entry(
            r#"{"id":"x","name":"X","version":"1.2.0","distribution":{
                "binary":{"linux-x86_64":{"archive":"https://h/x.tar.gz","cmd":"./x","args":["acp"]}},
                "npx":{"package":"@scope/x","args":["--acp"]}}}"#,
        );
        assert!(matches!(both.how(Some("linux-x86_64")), Some(How::Binary(t)) if t.cmd == "./x"));
        match both.how(Some("darwin-aarch64")) {
            Some(How::Npx(p)) => {
                assert_eq!((p.package.as_str(), p.args.as_slice()), ("@scope/x@1.2.0", &["--acp".to_string()][..]))
            }
            other => panic!("{other:?}"),
        }
        let pinned = entry(
            r#"{"id":"g","name":"G","version":"0.27.3","distribution":{"npx":{"package":"@google/gemini-cli@0.27.3"}}}"#,
        );
        assert!(matches!(pinned.how(None), Some(How::Npx(p)) if p.package == "@google/gemini-cli@0.27.3"));
        let uvx =
            entry(r#"{"id":"u","name":"U","version":"2.0.0","distribution":{"uvx":{"package":"fast-agent-acp"}}}"#);
        assert!(matches!(uvx.how(None), Some(How::Uvx(p)) if p.package == "fast-agent-acp@2.0.0"));
        let none = entry(
            r#"{"id":"n","name":"N","version":"1.0.0","distribution":{"binary":{"windows-x86_64":{"archive":"a","cmd":"b"}}}}"#,
        );
        assert_eq!(none.how(Some("linux-x86_64")), None);
    }

    #[test]
    fn an_update_is_a_newer_version_of_the_same_entry() {
        let e = entry(r#"{"id":"g","name":"G","version":"0.28.0","distribution":{}}"#);
        assert!(has_update(&Installed { id: "g".into(), version: "0.27.3".into() }, &e));
        assert!(!has_update(&Installed { id: "g".into(), version: "0.28.0".into() }, &e));
        assert!(!has_update(&Installed { id: "other".into(), version: "0.1.0".into() }, &e));
    }

    #[test]
    fn an_id_that_could_name_another_folder_is_refused() {
        let bad = r#"{"version":"1.0.0","agents":[{"id":"../x","name":"X","version":"1","distribution":{}}]}"#;
        assert!(matches!(parse_index(bad), Err(IndexError::BadId(id)) if id == "../x"));
        assert!(matches!(parse_index("{"), Err(IndexError::Format(_))));
    }
}
