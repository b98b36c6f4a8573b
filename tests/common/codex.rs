//! Zed's Codex adapter (`@zed-industries/codex-acp`, pinned in tests/codex-agent/package-lock.json),
//! a published ACP agent used offline as a test peer.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

/// The adapter's launcher, installed with `npm ci` when missing.
pub fn launcher() -> Option<PathBuf> {
    static INSTALLED: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codex-agent");
            let launcher = dir.join("node_modules/.bin/codex-acp");
            let have = |tool: &str| Process::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
            if !have("node") || !have("npm") {
                assert!(std::env::var_os("CI").is_none(), "node and npm are required in CI for the Codex adapter test");
                println!("skipped: node or npm is not installed (the Codex adapter comes from npm)");
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
        })
        .clone()
}
