//! Published ACP agents from npm, used offline as test peers: Zed's Codex adapter
//! (`@zed-industries/codex-acp`, pinned in tests/codex-agent/package-lock.json) and Claude Code's
//! (`@agentclientprotocol/claude-agent-acp`, tests/claude-agent).

use std::path::{Path, PathBuf};
use std::process::Command as Process;

/// The adapter's launcher, installed with `npm ci` when missing.
pub fn launcher() -> Option<PathBuf> {
    npm_launcher("tests/codex-agent", "codex-acp", "the Codex adapter")
}

/// The launcher `bin` of the npm package pinned in `folder`, installed with `npm ci` when
/// missing; `None` (said) without node/npm, except in CI.
pub fn npm_launcher(folder: &str, bin: &str, what: &str) -> Option<PathBuf> {
    // One install at a time (tests of one binary run together).
    static INSTALLING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = INSTALLING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let launcher = dir.join("node_modules/.bin").join(bin);
    let have = |tool: &str| Process::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if !have("node") || !have("npm") {
        assert!(std::env::var_os("CI").is_none(), "node and npm are required in CI for the test with {what}");
        println!("skipped: node or npm is not installed ({what} comes from npm)");
        return None;
    }
    if !launcher.exists() {
        let out = Process::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .output()
            .expect("run npm ci");
        assert!(out.status.success(), "npm ci failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Some(launcher)
}
