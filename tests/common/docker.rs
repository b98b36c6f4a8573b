//! A container for a test, on the private Docker daemon `scripts/docker-test-env.sh` starts, or
//! with the Podman `scripts/podman-test-env.sh` sets up. Without the engine the tests skip with a
//! printed reason, unless `SIDEKICKS_REQUIRE_DOCKER=1` (`SIDEKICKS_REQUIRE_PODMAN=1`).

use std::path::Path;
use std::process::Command;

/// The test image (busybox plus the C libraries the sidekicks binary needs).
pub const IMAGE: &str = "sidekicks-test:busybox-2";

/// True when Docker answers and the test image exists; otherwise prints why (or fails in CI).
pub fn available() -> bool {
    DOCKER.available()
}

/// A container engine's command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Engine(pub &'static str);

/// Docker.
pub const DOCKER: Engine = Engine("docker");
/// Podman.
pub const PODMAN: Engine = Engine("podman");

impl Engine {
    /// True when the engine answers and has the test image; otherwise prints why (or fails when
    /// the engine is required).
    pub fn available(self) -> bool {
        let ok = Command::new(self.0).args(["image", "inspect", IMAGE]).output().is_ok_and(|o| o.status.success());
        if !ok {
            let (script, required) = match self {
                PODMAN => ("podman-test-env.sh", "SIDEKICKS_REQUIRE_PODMAN"),
                _ => ("docker-test-env.sh", "SIDEKICKS_REQUIRE_DOCKER"),
            };
            let why = format!("{} or the image {IMAGE} is not available (run: eval \"$(scripts/{script})\")", self.0);
            assert!(std::env::var(required).as_deref() != Ok("1"), "{why}");
            println!("skipped: {why}");
        }
        ok
    }

    /// Runs the engine with `args`; its stdout, trimmed.
    pub fn run(self, args: &[&str]) -> String {
        let out = Command::new(self.0).args(args).output().expect(self.0);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The word of the config's `runtime.type` for agents in this engine's containers.
    pub fn runtime_kind(self) -> &'static str {
        if self == PODMAN { "podman" } else { "container" }
    }
}

/// A running container, removed when dropped.
pub struct Container {
    /// Its name.
    pub name: String,
    /// Its engine.
    pub engine: Engine,
}

impl Container {
    /// Starts one with the sidekicks binaries' folder read-only and `mounts` (host, container) bound.
    pub fn start(mounts: &[(&Path, &str)]) -> Self {
        Self::start_in(DOCKER, mounts)
    }

    /// The same with `engine`.
    pub fn start_in(engine: Engine, mounts: &[(&Path, &str)]) -> Self {
        let name = format!("sidekicks-test-{}-{}", std::process::id(), unique());
        let bin_dir = Path::new(super::BIN).parent().unwrap().display().to_string();
        let mut cmd = Command::new(engine.0);
        cmd.args(["run", "-d", "--name", &name, "-v", &format!("{bin_dir}:{bin_dir}:ro")]);
        for (host, inside) in mounts {
            cmd.args(["-v", &format!("{}:{inside}", host.display())]);
        }
        cmd.args([IMAGE, "sleep", "3600"]);
        let out = cmd.output().expect("run");
        assert!(out.status.success(), "{} run: {}", engine.0, String::from_utf8_lossy(&out.stderr));
        Self { name, engine }
    }

    /// Runs `sh -c script` in the container; its stdout.
    pub fn sh(&self, script: &str) -> String {
        let out = Command::new(self.engine.0).args(["exec", &self.name, "sh", "-c", script]).output().expect("exec");
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
        // Podman would wait 10 s for `sleep`, which ignores SIGTERM as the container's first process.
        let now: &[&str] = if self.engine == PODMAN { &["-t", "0"] } else { &[] };
        let _ = Command::new(self.engine.0).args(["rm", "-f"]).args(now).arg(&self.name).output();
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
