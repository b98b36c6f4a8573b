//! A container for a test, on the private Docker daemon `scripts/docker-test-env.sh` starts.
//! Without Docker the tests skip with a printed reason, unless `SIDEKICKS_REQUIRE_DOCKER=1`.

use std::path::Path;
use std::process::Command;

/// The test image (busybox plus the C libraries the sidekicks binary needs).
pub const IMAGE: &str = "sidekicks-test:busybox-2";

/// True when Docker answers and the test image exists; otherwise prints why (or fails in CI).
pub fn available() -> bool {
    let ok = Command::new("docker").args(["image", "inspect", IMAGE]).output().is_ok_and(|o| o.status.success());
    if !ok {
        let why = "Docker or the image sidekicks-test:busybox-2 is not available (run: eval \"$(scripts/docker-test-env.sh)\")";
        assert!(std::env::var("SIDEKICKS_REQUIRE_DOCKER").as_deref() != Ok("1"), "{why}");
        println!("skipped: {why}");
    }
    ok
}

/// A running container, removed when dropped.
pub struct Container {
    /// Its name.
    pub name: String,
}

impl Container {
    /// Starts one with the sidekicks binaries' folder read-only and `mounts` (host, container) bound.
    pub fn start(mounts: &[(&Path, &str)]) -> Self {
        let name = format!("sidekicks-test-{}-{}", std::process::id(), unique());
        let bin_dir = Path::new(super::BIN).parent().unwrap().display().to_string();
        let mut cmd = Command::new("docker");
        cmd.args(["run", "-d", "--name", &name, "-v", &format!("{bin_dir}:{bin_dir}:ro")]);
        for (host, inside) in mounts {
            cmd.args(["-v", &format!("{}:{inside}", host.display())]);
        }
        cmd.args([IMAGE, "sleep", "3600"]);
        let out = cmd.output().expect("docker run");
        assert!(out.status.success(), "docker run: {}", String::from_utf8_lossy(&out.stderr));
        Self { name }
    }

    /// Runs `sh -c script` in the container; its stdout.
    pub fn sh(&self, script: &str) -> String {
        let out = Command::new("docker").args(["exec", &self.name, "sh", "-c", script]).output().expect("docker exec");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The command lines of the processes running in the container.
    pub fn processes(&self) -> Vec<String> {
        self.sh("for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Command::new("docker").args(["rm", "-f", &self.name]).output();
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
