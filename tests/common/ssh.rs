//! The private OpenSSH server `scripts/ssh-test-env.sh` starts on 127.0.0.1 (its own config, host
//! key and user key; this machine's SSH setup untouched). Without it the tests skip with a printed
//! reason, unless `SIDEKICKS_REQUIRE_SSH=1`. The "other machine" is this one, so what runs there
//! is seen in /proc.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The host whose key is known and whose login works.
pub const HOST: &str = "sidekicks-test";
/// A host alias of its own port, for the test that kills its connection.
pub const DROP: &str = "sidekicks-test-drop";

/// Held by a test of this binary that makes, checks or kills the shared connection to [`DROP`]
/// (tests run side by side; one's kill must not land in another's connection).
pub static DROP_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The SSH config file the script wrote (Sidekicks reads it instead of ~/.ssh/config).
pub fn config() -> PathBuf {
    PathBuf::from(std::env::var_os("SIDEKICKS_SSH_CONFIG").unwrap_or_default())
}

/// The script's folder (keys, known_hosts).
pub fn dir() -> PathBuf {
    config().parent().map(PathBuf::from).unwrap_or_default()
}

/// True when the server answers; otherwise prints why (or fails when SSH is required).
pub fn available() -> bool {
    let ok = std::env::var_os("SIDEKICKS_SSH_CONFIG").is_some()
        && Command::new("ssh")
            .arg("-F")
            .arg(config())
            .args(["-o", "BatchMode=yes", "-o", "ConnectTimeout=10", HOST, "true"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !ok {
        let why = "the test sshd is not running (run: eval \"$(scripts/ssh-test-env.sh)\")";
        assert!(std::env::var("SIDEKICKS_REQUIRE_SSH").as_deref() != Ok("1"), "{why}");
        println!("skipped: {why}");
    }
    ok
}

/// Processes (pid, command line with spaces) whose command line holds `text`.
pub fn processes_with(text: &str) -> Vec<(i32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        if pid as u32 == std::process::id() || !super::alive(pid) {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let line = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if line.contains(text) {
            found.push((pid, line));
        }
    }
    found
}

/// The environment of process `pid`, one `NAME=value` per entry.
pub fn environ(pid: i32) -> Vec<String> {
    let bytes = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    bytes.split(|b| *b == 0).filter(|e| !e.is_empty()).map(|e| String::from_utf8_lossy(e).into_owned()).collect()
}

/// The command name of process `pid`'s parent.
pub fn parent_name(pid: i32) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let ppid = stat.rsplit_once(") ").and_then(|(_, rest)| rest.split_whitespace().nth(1)).unwrap_or("0");
    std::fs::read_to_string(format!("/proc/{ppid}/comm")).unwrap_or_default().trim().to_string()
}

/// The fingerprint (`SHA256:…`) of the server's host key.
pub fn host_fingerprint() -> String {
    let out = Command::new("ssh-keygen").arg("-lf").arg(dir().join("host_ed25519.pub")).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split_whitespace().nth(1).unwrap_or_default().to_string()
}

/// The pid of the shared connection to `host` (`ssh -O check` through the socket Sidekicks uses).
pub fn master_pid(host: &str) -> i32 {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let control = std::env::var_os("XDG_RUNTIME_DIR")
        .map(std::path::PathBuf::from)
        .filter(|d| d.is_dir())
        .map_or_else(|| std::path::PathBuf::from(format!("/tmp/sidekicks-ssh-{uid}")), |d| d.join("sidekicks-ssh"));
    let out = std::process::Command::new("ssh")
        .arg("-F")
        .arg(config())
        .arg("-o")
        .arg(format!("ControlPath={}/%C", control.display()))
        .args(["-O", "check", host])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    text.split("pid=")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no shared connection to {host}: {text}"))
}

/// The host team members' copies are kept on (a port of its own, so a test that kills its
/// shared connection hits no other test's).
pub const FAR: &str = "sidekicks-test-far";

/// An SSH config file of a test's own, in `dir`, naming [`FAR`] as the script does, with the
/// "other machine"'s folders set there (`XDG_DATA_HOME`, `XDG_CACHE_HOME`, and `XDG_RUNTIME_DIR`
/// where its locks are, below `home`: a second machine is a folder of its own). With `proxy`, the
/// connection goes through that command (and the host is named `far-proxied` on both ends, so it
/// never shares another test's connection).
pub fn far_config(dir: &Path, home: &Path, proxy: Option<&str>) -> PathBuf {
    let base = std::fs::read_to_string(config()).unwrap();
    let block: Vec<&str> = base
        .lines()
        .skip_while(|l| l.trim() != format!("Host {FAR}"))
        .skip(1)
        .take_while(|l| !l.starts_with("Host "))
        // Its folders there are the test's own (below).
        .filter(|l| !l.trim().starts_with("SetEnv"))
        .collect();
    assert!(!block.is_empty(), "{FAR} is not in {}: run scripts/ssh-test-env.sh again", config().display());
    let mut text = format!("Host {FAR}\n");
    for line in block {
        let line = match (proxy, line.trim().split_once(' ')) {
            (Some(_), Some(("HostName", _))) => "  HostName far-proxied".to_string(),
            (Some(_), Some(("UserKnownHostsFile", _))) => {
                format!("  UserKnownHostsFile {}", dir.join("known_hosts").display())
            }
            _ => line.to_string(),
        };
        text.push_str(&line);
        text.push('\n');
    }
    let (data, cache, run) = (home.join("data"), home.join("cache"), home.join("run"));
    // Its runtime folder too: the locks of projects there are the other machine's own.
    std::fs::create_dir_all(&run).unwrap();
    text.push_str(&format!(
        "  SetEnv XDG_DATA_HOME={} XDG_CACHE_HOME={} XDG_RUNTIME_DIR={}\n",
        data.display(),
        cache.display(),
        run.display()
    ));
    if let Some(proxy) = proxy {
        text.push_str(&format!("  ProxyCommand {proxy}\n"));
        // The server's key, known under the proxied name.
        let port = text.lines().find_map(|l| l.trim().strip_prefix("Port ")).unwrap().to_string();
        let known = std::fs::read_to_string(self::dir().join("known_hosts")).unwrap();
        let key = known.lines().find(|l| l.starts_with(&format!("[127.0.0.1]:{port} "))).unwrap();
        let key = key.split_once(' ').unwrap().1;
        std::fs::write(dir.join("known_hosts"), format!("[far-proxied]:{port} {key}\n")).unwrap();
    }
    let path = dir.join("ssh_config");
    std::fs::write(&path, text).unwrap();
    path
}

/// The port of [`FAR`].
pub fn far_port() -> u16 {
    let base = std::fs::read_to_string(config()).unwrap();
    base.lines()
        .skip_while(|l| l.trim() != format!("Host {FAR}"))
        .find_map(|l| l.trim().strip_prefix("Port ").map(|p| p.parse().unwrap()))
        .unwrap()
}
