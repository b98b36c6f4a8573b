//! Listing and fingerprinting a 49,000-file folder, on this computer and in a container, against
//! `find` doing the same walk in one process (`find -printf` locally, busybox `find -exec stat` in
//! the container).
//!
//! Run: `cargo bench --bench workspace` (the container part needs `eval "$(scripts/docker-test-env.sh)"`).

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::model::rel_path::RelPath;
use sidekicks::runtime::exec::{RemoteExecutor, RemoteKind};
use sidekicks::runtime::workspace::{LocalWorkspace, RemoteWorkspace, Workspace};

const DIRS: usize = 490;
const FILES: usize = 100;

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    for d in 0..DIRS {
        let sub = root.join(format!("dir{d:03}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..FILES {
            std::fs::write(sub.join(format!("file{f:03}.txt")), "x").unwrap();
        }
    }
    let total = DIRS * FILES;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();

    let local: Arc<dyn Workspace> = Arc::new(LocalWorkspace::new(&root));
    let fingerprint = best(3, || rt.block_on(local.fingerprint()).unwrap());
    let list_root = best(5, || rt.block_on(local.list(&RelPath::root())).unwrap());
    let find = best(3, || Command::new("find").arg(&root).args(["-printf", "%s %T@ %p\\n"]).output().unwrap());
    println!(
        "workspace: local, {total} files: fingerprint {:.0} ms, find -printf {:.0} ms, ratio {:.2}; list of the {DIRS}-folder root {:.1} ms",
        fingerprint.as_secs_f64() * 1e3,
        find.as_secs_f64() * 1e3,
        fingerprint.as_secs_f64() / find.as_secs_f64(),
        list_root.as_secs_f64() * 1e3
    );

    let docker = Command::new("docker").args(["image", "inspect", "sidekicks-test:busybox-2"]).output();
    if !docker.is_ok_and(|o| o.status.success()) {
        println!("workspace: container part skipped (run: eval \"$(scripts/docker-test-env.sh)\")");
        return;
    }
    let name = format!("sidekicks-bench-{}", std::process::id());
    let ok = Command::new("docker")
        .args([
            "run",
            "-d",
            "--name",
            &name,
            "-v",
            &format!("{}:/ws", root.display()),
            "sidekicks-test:busybox-2",
            "sleep",
            "600",
        ])
        .output()
        .unwrap();
    assert!(ok.status.success());
    let executor = Arc::new(RemoteExecutor::new(RemoteKind::Docker, name.clone()));
    let remote: Arc<dyn Workspace> = Arc::new(RemoteWorkspace::new(executor, "/ws", "docker", &name));
    let fingerprint = best(3, || rt.block_on(remote.fingerprint()).unwrap());
    let list_root = best(3, || rt.block_on(remote.list(&RelPath::root())).unwrap());
    let raw = best(3, || {
        Command::new("docker")
            .args(["exec", &name, "sh", "-c", "cd /ws && find . -exec stat -c '%s %Y %n' {} +"])
            .output()
            .unwrap()
    });
    let _ = Command::new("docker").args(["rm", "-f", &name]).output();
    println!(
        "workspace: container, {total} files: fingerprint {:.0} ms, raw docker exec find+stat {:.0} ms, ratio {:.2}; list of the root {:.0} ms",
        fingerprint.as_secs_f64() * 1e3,
        raw.as_secs_f64() * 1e3,
        fingerprint.as_secs_f64() / raw.as_secs_f64(),
        list_root.as_secs_f64() * 1e3
    );
}
