//! Downloads through the system's `curl` (ADR 0033): its proxies (`HTTPS_PROXY`), certificates
//! (a company's own authority) and TLS apply, and Sidekicks carries no TLS stack of its own. HTTPS
//! only — plain HTTP only from this computer (127.0.0.1, `localhost`, `[::1]`: a test's or a
//! mirror's stand-in) — and redirects stay on HTTPS.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Why a download failed, in words.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// Not an address Sidekicks downloads from.
    #[error("Sidekicks downloads only over HTTPS (plain HTTP only from this computer, 127.0.0.1): {0}")]
    NotHttps(String),
    /// No `curl` on this computer.
    #[error(
        "downloading needs curl, which is not installed or not on the PATH (install it, e.g. `sudo apt install curl`)"
    )]
    NoCurl,
    /// curl could not get it.
    #[error("could not download {url}: {why}")]
    Failed {
        /// The address.
        url: String,
        /// curl's own words.
        why: String,
    },
    /// A file could not be written.
    #[error("{0}")]
    Io(String),
}

/// Whether `url` may be downloaded, and whether plain HTTP is allowed for it (loopback only).
pub fn check_url(url: &str) -> Result<bool, FetchError> {
    if url.starts_with("https://") {
        return Ok(false);
    }
    if let Some(rest) = url.strip_prefix("http://") {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host = match host.rsplit_once(':') {
            Some((h, port)) if !h.is_empty() && port.chars().all(|c| c.is_ascii_digit()) && !h.ends_with(':') => h,
            _ => host,
        };
        if matches!(host, "127.0.0.1" | "localhost" | "[::1]") {
            return Ok(true);
        }
    }
    Err(FetchError::NotHttps(url.to_string()))
}

/// The most a download may bring (an agent's archive; the index and icons far less).
pub const MAX_DOWNLOAD: u64 = 1 << 30;
/// The most the index or an icon may be.
pub const MAX_SMALL: u64 = 32 << 20;

/// How long a download may go on bringing less than [`STALL_BYTES`] a second before it is given
/// up (a server that sends one byte a second would otherwise be waited for forever):
/// `$SIDEKICKS_DOWNLOAD_STALL_SECS` (tests), else a minute.
fn stall_secs() -> u64 {
    std::env::var("SIDEKICKS_DOWNLOAD_STALL_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(60)
}

/// The rate under which a download counts as stalled, in bytes a second.
const STALL_BYTES: u64 = 100;

/// Downloads `url` to `dest` (written whole or not at all), calling `progress(received, total)`
/// about ten times a second while it comes (`total` when the server says it). At most
/// [`MAX_DOWNLOAD`] bytes; given up, in words, when it stalls.
pub fn download(url: &str, dest: &Path, progress: impl FnMut(u64, Option<u64>)) -> Result<(), FetchError> {
    download_at_most(url, dest, MAX_DOWNLOAD, progress)
}

/// [`download`] of at most `max` bytes.
fn download_at_most(
    url: &str,
    dest: &Path,
    max: u64,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<(), FetchError> {
    let plain = check_url(url)?;
    let io = |e: std::io::Error, p: &Path| FetchError::Io(format!("{}: {e}", p.display()));
    let partial = with_suffix(dest, ".part");
    let headers = with_suffix(dest, ".headers");
    let protocols = if plain { "=http,https" } else { "=https" };
    let mut child = Command::new(curl())
        .args(["--fail", "--silent", "--show-error", "--location", "--max-redirs", "10"])
        .args(["--connect-timeout", "30", "--proto", protocols, "--proto-redir", protocols])
        .args(["--speed-limit", &STALL_BYTES.to_string(), "--speed-time", &stall_secs().to_string()])
        .args(["--max-filesize", &max.to_string()])
        .args(["--user-agent", concat!("Sidekicks/", env!("CARGO_PKG_VERSION"))])
        .arg("--dump-header")
        .arg(&headers)
        .arg("--output")
        .arg(&partial)
        .arg("--")
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound { FetchError::NoCurl } else { io(e, Path::new("curl")) }
        })?;
    let status = loop {
        match child.try_wait().map_err(|e| io(e, Path::new("curl")))? {
            Some(status) => break status,
            None => {
                let received = std::fs::metadata(&partial).map(|m| m.len()).unwrap_or(0);
                if received > max {
                    // A server that does not say the size, then sends more than it may.
                    let _ = child.kill();
                    let _ = child.wait();
                    let _ = std::fs::remove_file(&partial);
                    let _ = std::fs::remove_file(&headers);
                    let why = format!("it is bigger than {} MiB, more than any agent needs", max >> 20);
                    return Err(FetchError::Failed { url: url.to_string(), why });
                }
                progress(received, content_length(&headers));
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    };
    let mut why = String::new();
    if let Some(mut err) = child.stderr.take() {
        use std::io::Read;
        let _ = err.read_to_string(&mut why);
    }
    let total = content_length(&headers);
    let _ = std::fs::remove_file(&headers);
    if !status.success() {
        let _ = std::fs::remove_file(&partial);
        let why = match status.code() {
            // curl's "operation too slow" and "maximum file size exceeded".
            Some(28) => {
                format!("the server sent less than {STALL_BYTES} bytes a second for {} seconds: given up", stall_secs())
            }
            Some(63) => format!("it is bigger than {} MiB, more than any agent needs", max >> 20),
            _ => why.trim().trim_start_matches("curl: ").to_string(),
        };
        let why = if why.is_empty() { format!("curl ended with {status}") } else { why };
        return Err(FetchError::Failed { url: url.to_string(), why });
    }
    let received = std::fs::metadata(&partial).map(|m| m.len()).unwrap_or(0);
    progress(received, total.or(Some(received)));
    std::fs::rename(&partial, dest).map_err(|e| io(e, dest))
}

/// Downloads `url` into memory (a small file: the index).
pub fn get(url: &str, scratch: &Path) -> Result<Vec<u8>, FetchError> {
    std::fs::create_dir_all(scratch).map_err(|e| FetchError::Io(format!("{}: {e}", scratch.display())))?;
    let file = scratch.join(format!("get-{}-{}", std::process::id(), unique()));
    download_at_most(url, &file, MAX_SMALL, |_, _| {})?;
    let bytes = std::fs::read(&file).map_err(|e| FetchError::Io(format!("{}: {e}", file.display())));
    let _ = std::fs::remove_file(&file);
    bytes
}

/// The program run to download: `$SIDEKICKS_CURL` (for tests of a missing one), else `curl`.
fn curl() -> PathBuf {
    std::env::var_os("SIDEKICKS_CURL").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("curl"))
}

/// The `Content-Length` of the last response in a `--dump-header` file (after redirects).
fn content_length(headers: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(headers).ok()?;
    let last = text.rsplit("\r\n\r\n").find(|block| !block.trim().is_empty())?;
    last.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim().eq_ignore_ascii_case("content-length").then(|| value.trim().parse().ok())?
    })
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_this_computers_plain_http_is_downloaded() {
        assert!(!check_url("https://cdn.agentclientprotocol.com/registry.json").unwrap());
        assert!(check_url("http://127.0.0.1:8080/registry.json").unwrap());
        assert!(check_url("http://localhost/x").unwrap());
        assert!(check_url("http://[::1]:9/x").unwrap());
        for bad in [
            "http://example.com/x",
            "http://127.0.0.1.evil.com/x",
            "file:///etc/passwd",
            "ftp://h/x",
            "http://127.0.0.1@evil.com/",
        ] {
            assert!(matches!(check_url(bad), Err(FetchError::NotHttps(_))), "{bad}");
        }
    }

    #[test]
    fn the_length_is_the_last_responses() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path().join("h");
        std::fs::write(&h, "HTTP/1.1 302 Found\r\nContent-Length: 5\r\nLocation: /b\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 1234\r\n\r\n").unwrap();
        assert_eq!(content_length(&h), Some(1234));
        std::fs::write(&h, "HTTP/1.1 200 OK\r\n\r\n").unwrap();
        assert_eq!(content_length(&h), None);
    }
}
