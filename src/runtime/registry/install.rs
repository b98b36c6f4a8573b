//! Making an agent of a registry entry: the command line an `npx`/`uvx` entry runs (the tool found
//! on the PATH), or a binary entry's archive downloaded, checked and unpacked into
//! `<data>/registry/<id>/<version>/`.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{fetch, folder, unpack};
use crate::model::registry::{Entry, How, this_platform};

/// The command line of an installed entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Made {
    /// `binary`, `npx` or `uvx`.
    pub kind: &'static str,
    /// The program (an absolute path for a downloaded one).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its environment, as the registry gives it.
    pub env: BTreeMap<String, String>,
}

/// Makes `entry` runnable here: checks that `npx`/`uvx` is on the PATH, or downloads the archive
/// for this platform (`progress(received, total)` while it comes), checks its `sha256` when the
/// entry gives one, and unpacks it. Nothing is kept when any step fails.
pub fn prepare(entry: &Entry, data_dir: &Path, progress: impl FnMut(u64, Option<u64>)) -> Result<Made, String> {
    let platform = this_platform();
    let how = entry.how(platform).ok_or_else(|| {
        let offered: Vec<&str> = entry
            .distribution
            .binary
            .keys()
            .map(String::as_str)
            .chain(entry.distribution.npx.iter().map(|_| "npx"))
            .chain(entry.distribution.uvx.iter().map(|_| "uvx"))
            .collect();
        format!(
            "{} offers no way to run on this computer ({}): only {}",
            entry.name,
            platform.unwrap_or(std::env::consts::OS),
            if offered.is_empty() { "nothing".to_string() } else { offered.join(", ") }
        )
    })?;
    let kind = how.kind();
    match how {
        How::Npx(p) => {
            need_on_path("npx", &entry.name, "Node.js (https://nodejs.org), which brings npx")?;
            let args = ["--yes".to_string(), p.package].into_iter().chain(p.args).collect();
            Ok(Made { kind, command: "npx".into(), args, env: p.env })
        }
        How::Uvx(p) => {
            need_on_path("uvx", &entry.name, "uv (https://docs.astral.sh/uv/), which brings uvx")?;
            let args = std::iter::once(p.package).chain(p.args).collect();
            Ok(Made { kind, command: "uvx".into(), args, env: p.env })
        }
        How::Binary(target) => {
            let program = relative_program(&target.cmd).ok_or_else(|| {
                format!("{}'s program \"{}\" is not a path inside its archive", entry.name, target.cmd)
            })?;
            let dir = version_dir(data_dir, &entry.id, &entry.version);
            download_and_unpack(entry, &target.archive, target.sha256.as_deref(), &program, &dir, progress)?;
            let command = dir.join(&program).display().to_string();
            Ok(Made { kind, command, args: target.args, env: target.env })
        }
    }
}

/// Where a version of an entry is unpacked.
pub fn version_dir(data_dir: &Path, id: &str, version: &str) -> PathBuf {
    folder(data_dir).join(id).join(safe_name(version))
}

/// Deletes what Sidekicks downloaded for `id` at `version` (and the entry's folder once empty);
/// whether there was anything.
pub fn remove_files(data_dir: &Path, id: &str, version: &str) -> Result<bool, String> {
    let dir = version_dir(data_dir, id, version);
    if !dir.exists() {
        return Ok(false);
    }
    std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Only when empty: another version may still be in use.
    let _ = std::fs::remove_dir(folder(data_dir).join(id));
    Ok(true)
}

fn download_and_unpack(
    entry: &Entry,
    url: &str,
    sha256: Option<&str>,
    program: &Path,
    dir: &Path,
    progress: impl FnMut(u64, Option<u64>),
) -> Result<(), String> {
    let parent = dir.parent().ok_or("no folder")?;
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let stamp = format!("{}-{}", std::process::id(), nanos());
    let file = parent.join(format!(".download-{stamp}"));
    let partial = parent.join(format!(".unpacking-{stamp}"));
    let result = (|| {
        fetch::download(url, &file, progress).map_err(|e| e.to_string())?;
        if let Some(expected) = sha256 {
            let got = sha256_of(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            if !got.eq_ignore_ascii_case(expected.trim()) {
                return Err(format!(
                    "the download of {} does not match the registry's checksum (sha256 {expected} expected, {got} received): nothing was installed",
                    entry.name
                ));
            }
        }
        unpack::unpack(&file, unpack::kind_of(url), &partial, program)?;
        let full = partial.join(program);
        if !unpack::stays_inside(&partial, program) && std::fs::symlink_metadata(&full).is_ok() {
            return Err(format!(
                "{}'s program {} is a link to a file outside its archive: nothing was installed",
                entry.name,
                program.display()
            ));
        }
        if !full.is_file() {
            return Err(format!(
                "{}'s archive has no program {} (the registry's `cmd`): nothing was installed",
                entry.name,
                program.display()
            ));
        }
        unpack::make_executable(&full).map_err(|e| format!("{}: {e}", full.display()))?;
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::rename(&partial, dir).map_err(|e| format!("{}: {e}", dir.display()))
    })();
    let _ = std::fs::remove_file(&file);
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&partial);
        let _ = std::fs::remove_dir(parent);
    }
    result
}

/// `cmd` as a path inside the archive (`./bin/x` → `bin/x`); `None` for an absolute path or one
/// with `..`.
fn relative_program(cmd: &str) -> Option<PathBuf> {
    let path = Path::new(cmd.trim());
    let mut clean = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::Normal(p) => clean.push(p),
            _ => return None,
        }
    }
    (!clean.as_os_str().is_empty()).then_some(clean)
}

/// A version as a folder name: its letters, digits, dots, hyphens and pluses.
fn safe_name(version: &str) -> String {
    let name: String =
        version.chars().map(|c| if c.is_ascii_alphanumeric() || "._+-".contains(c) { c } else { '_' }).collect();
    if name.is_empty() || name.chars().all(|c| c == '.') { "_".into() } else { name }
}

fn sha256_of(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn need_on_path(tool: &str, agent: &str, install: &str) -> Result<PathBuf, String> {
    find_on_path(tool).ok_or_else(|| {
        format!("{agent} runs with {tool}, which is not on the PATH: install {install}, then add it again")
    })
}

/// `tool` in a folder of `$PATH`, as the agent's start will look for it.
pub fn find_on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(tool)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    path.is_file()
}

fn nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_must_be_inside_its_archive() {
        assert_eq!(relative_program("./codex-acp"), Some(PathBuf::from("codex-acp")));
        assert_eq!(relative_program("bin/x"), Some(PathBuf::from("bin/x")));
        assert_eq!(relative_program("../x"), None);
        assert_eq!(relative_program("/usr/bin/x"), None);
        assert_eq!(relative_program("./"), None);
    }

    #[test]
    fn a_version_is_a_plain_folder_name() {
        assert_eq!(safe_name("0.27.3"), "0.27.3");
        assert_eq!(safe_name("../.."), ".._..");
        assert_eq!(safe_name(".."), "_");
        assert_eq!(safe_name("1.0/x"), "1.0_x");
    }
}
