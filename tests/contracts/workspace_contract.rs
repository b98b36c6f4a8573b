//! One contract for every workspace, run on a temp folder and in a real container (and in a sandbox
//! when `SIDEKICKS_TEST_SBX` names one): list, read, versioned write, conflict, remove, rename, mode
//! bits, hostile names, escapes, and following changes.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sidekicks::model::rel_path::RelPath;
use sidekicks::runtime::agent_fs::{AgentFs, AgentFsError};
use sidekicks::runtime::exec::{RemoteExecutor, RemoteKind, SshExecutor};
use sidekicks::runtime::workspace::{
    EntryKind, LocalWorkspace, RemoteWorkspace, Version, Workspace, WorkspaceError, follow,
};

use crate::common;
use common::docker::{Container, available};

/// Runs shell commands in the workspace's folder from outside the workspace API.
type Outside = Box<dyn Fn(&str) -> String + Send + Sync>;

fn p(s: &str) -> RelPath {
    RelPath::new(s).unwrap()
}

const HOSTILE: &[&str] =
    &["it's \"quoted\"", "two\nlines", "$(touch pwned)", "-rf", "ünïcødé ✓", "a b;c|d&e", ".hidden"];

/// `agent_root` is the folder as the agent names it (its `fs/*` requests go through `AgentFs`).
async fn contract(ws: Arc<dyn Workspace>, sh: Outside, secret_dir: &str, agent_root: &str) {
    // An empty folder.
    assert_eq!(ws.list(&RelPath::root()).await.unwrap(), vec![]);

    // New file, then versioned writes.
    let v1 = ws.write(&p("a.txt"), b"one\n".to_vec(), None).await.unwrap();
    assert_eq!(v1, Version::of(b"one\n"));
    assert!(matches!(ws.write(&p("a.txt"), b"x".to_vec(), None).await, Err(WorkspaceError::Exists { .. })));
    assert_eq!(ws.read(&p("a.txt")).await.unwrap(), (b"one\n".to_vec(), v1.clone()));
    let v2 = ws.write(&p("a.txt"), b"two\n".to_vec(), Some(v1.clone())).await.unwrap();
    match ws.write(&p("a.txt"), b"three\n".to_vec(), Some(v1.clone())).await {
        Err(WorkspaceError::Conflict { current, .. }) => assert_eq!(current, Some(v2.clone())),
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(ws.read(&p("a.txt")).await.unwrap().0, b"two\n");

    // A change from outside moves the version.
    sh("printf 'theirs\\n' > a.txt");
    let (bytes, v3) = ws.read(&p("a.txt")).await.unwrap();
    assert_eq!(bytes, b"theirs\n");
    assert!(matches!(ws.write(&p("a.txt"), b"mine".to_vec(), Some(v2)).await, Err(WorkspaceError::Conflict { .. })));

    // Mode bits are kept.
    sh("chmod 751 a.txt");
    ws.write(&p("a.txt"), b"#!/bin/sh\n".to_vec(), Some(v3)).await.unwrap();
    assert_eq!(sh("stat -c %a a.txt").trim(), "751");

    // Folders, listing order, rename.
    ws.create_dir(&p("dir/sub")).await.unwrap();
    ws.write(&p("dir/sub/x"), b"x".to_vec(), None).await.unwrap();
    let root = ws.list(&RelPath::root()).await.unwrap();
    let names: Vec<(&str, EntryKind)> = root.iter().map(|e| (e.name.as_str(), e.kind)).collect();
    assert_eq!(names, [("dir", EntryKind::Dir), ("a.txt", EntryKind::File)]);
    assert_eq!(root[1].size, 10);
    ws.rename(&p("a.txt"), &p("dir/b.txt")).await.unwrap();
    ws.write(&p("c.txt"), b"c".to_vec(), None).await.unwrap();
    assert!(matches!(ws.rename(&p("c.txt"), &p("dir/b.txt")).await, Err(WorkspaceError::Exists { .. })));
    assert!(matches!(ws.read(&p("a.txt")).await, Err(WorkspaceError::NotFound { .. })));

    // Removing.
    ws.remove(&p("dir")).await.unwrap();
    assert!(ws.list(&RelPath::root()).await.unwrap().iter().all(|e| e.name != "dir"));
    assert!(matches!(ws.remove(&RelPath::root()).await, Err(WorkspaceError::IsRoot)));
    assert!(matches!(ws.remove(&p("nope")).await, Err(WorkspaceError::NotFound { .. })));

    // Hostile names round-trip unchanged and run nothing.
    for name in HOSTILE {
        ws.write(&p(name), name.as_bytes().to_vec(), None).await.unwrap();
    }
    let listed: Vec<String> = ws.list(&RelPath::root()).await.unwrap().into_iter().map(|e| e.name).collect();
    for name in HOSTILE {
        assert!(listed.contains(&name.to_string()), "{name:?} not in {listed:?}");
        assert_eq!(ws.read(&p(name)).await.unwrap().0, name.as_bytes());
    }
    assert_eq!(sh("ls pwned 2>/dev/null; echo end").trim(), "end");

    // Escapes: symlinks that lead out are refused; one that stays inside is fine.
    sh(&format!(
        "ln -s {secret_dir} out; ln -s {secret_dir}/secret leak; ln -s c.txt inside; mkdir -p deep; ln -s ../out deep/up"
    ));
    for path in ["out/secret", "leak", "deep/up/secret"] {
        match ws.read(&p(path)).await {
            Err(WorkspaceError::Outside { .. }) => {}
            other => panic!("{path}: expected Outside, got {other:?}"),
        }
    }
    assert!(matches!(ws.list(&p("out")).await, Err(WorkspaceError::Outside { .. })));
    assert!(matches!(ws.write(&p("out/new"), b"x".to_vec(), None).await, Err(WorkspaceError::Outside { .. })));
    assert!(matches!(ws.write(&p("leak"), b"x".to_vec(), None).await, Err(WorkspaceError::Outside { .. })));
    assert_eq!(ws.read(&p("inside")).await.unwrap().0, b"c");
    assert_eq!(sh(&format!("cat {secret_dir}/secret")), "SECRET");
    assert!(RelPath::new("../x").is_err() && RelPath::new("/etc/passwd").is_err());

    // The agent's side, through the same workspace: streamed line reads, writes whatever is
    // there, missing folders made, the same refusals.
    let agent = AgentFs::new(ws.clone(), PathBuf::from(agent_root));
    let at = |rel: &str| PathBuf::from(agent_root).join(rel);
    agent.serve_write(&at("notes/deep/n.txt"), "1\n2\n3\n4\n").await.unwrap();
    assert_eq!(ws.read(&p("notes/deep/n.txt")).await.unwrap().0, b"1\n2\n3\n4\n");
    assert_eq!(agent.serve_read(&at("notes/deep/n.txt"), Some(2), Some(2)).await.unwrap(), "2\n3\n");
    assert_eq!(agent.serve_read(&at("notes/deep/n.txt"), Some(4), None).await.unwrap(), "4\n");
    agent.serve_write(&at("notes/deep/n.txt"), "over\n").await.unwrap();
    assert_eq!(ws.read(&p("notes/deep/n.txt")).await.unwrap().0, b"over\n");
    sh("chmod 640 c.txt");
    agent.serve_write(&at("c.txt"), "agent\n").await.unwrap();
    assert_eq!(sh("stat -c %a c.txt").trim(), "640", "an agent's write keeps the mode too");
    assert!(matches!(ws.overwrite(&p("inside"), b"x".to_vec()).await, Err(WorkspaceError::Outside { .. })));
    assert_eq!(sh("cat c.txt"), "agent\n", "a write never goes through a symlink, even one inside");
    for path in ["out/secret", "leak", "deep/up/secret", "../x"] {
        let read = agent.serve_read(&at(path), None, None).await;
        assert!(matches!(read, Err(AgentFsError::Outside { .. })), "{path}: {read:?}");
    }
    for path in ["out/new", "leak", "deep/up/new", "out/made/new"] {
        let write = agent.serve_write(&at(path), "x").await;
        assert!(matches!(write, Err(AgentFsError::Outside { .. })), "{path}: {write:?}");
    }
    assert_eq!(sh(&format!("ls {secret_dir}")).trim(), "secret", "nothing was made outside");
    assert_eq!(agent.serve_read(&at("nope"), None, None).await.unwrap_err().code(), -32002);
    let folder = agent.serve_read(&at("notes"), None, None).await.unwrap_err();
    assert!(matches!(folder, AgentFsError::Workspace { error: WorkspaceError::IsFolder { .. }, .. }), "{folder:?}");
    assert!(matches!(ws.read_lines(&p("notes"), 1, None, 10).await, Err(WorkspaceError::IsFolder { .. })));
    assert!(matches!(ws.overwrite(&p("notes"), b"x".to_vec()).await, Err(WorkspaceError::IsFolder { .. })));
    assert_eq!(ws.read_lines(&p("notes/deep/n.txt"), 1, None, 3).await.unwrap(), b"ove", "at most max bytes");
    sh("head -c 3000000 /dev/zero | tr '\\0' 'a' > big.txt");
    assert_eq!(ws.read_lines(&p("big.txt"), 1, None, 1000).await.unwrap().len(), 1000);
    ws.remove(&p("big.txt")).await.unwrap();

    // Following changes from outside.
    let changes = Arc::new(AtomicUsize::new(0));
    let counter = changes.clone();
    let follower = follow(
        ws.clone(),
        Arc::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        }),
    )
    .unwrap();
    // Written again until seen: a change made before the watch is in place is not one to see.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut round = 0;
    while changes.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the change was not seen");
        sh(&format!("echo {round} > made-by-the-agent.txt"));
        round += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(follower);

    // The shell command opens a shell in the folder (run here without a terminal).
    let shell = ws.shell_command(false);
    let mut child = std::process::Command::new(&shell.argv[0])
        .args(&shell.argv[1..])
        .current_dir(&shell.cwd)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"ls c.txt; exit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("c.txt"), "{}", String::from_utf8_lossy(&out.stdout));

    // Every path, for `@` in the composer: folders marked, hidden entries and node_modules left out.
    sh("mkdir -p m/d m/.hid m/node_modules/x && touch m/d/f m/.hid/g m/node_modules/x/y m/top");
    let paths = ws.paths(10_000).await.unwrap();
    for wanted in [("m", true), ("m/d", true), ("m/d/f", false), ("m/top", false), ("c.txt", false)] {
        assert!(paths.contains(&(wanted.0.to_string(), wanted.1)), "{wanted:?} not in {paths:?}");
    }
    assert!(!paths.iter().any(|(p, _)| p.contains("node_modules") || p.contains(".hid")), "{paths:?}");
    assert_eq!(ws.paths(2).await.unwrap().len(), 2, "at most the limit");
}

fn local_outside(root: PathBuf) -> Outside {
    Box::new(move |cmd: &str| {
        let out = std::process::Command::new("sh").arg("-c").arg(cmd).current_dir(&root).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    })
}

#[tokio::test]
async fn the_contract_on_a_local_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let secret = dir.path().join("secret-dir");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("secret"), "SECRET").unwrap();
    let ws: Arc<dyn Workspace> = Arc::new(LocalWorkspace::new(&root));
    assert!(!ws.removal_is_final());
    let agent_root = root.display().to_string();
    contract(ws, local_outside(root), &secret.display().to_string(), &agent_root).await;
}

#[tokio::test]
async fn the_contract_in_a_container() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("ws");
    std::fs::create_dir_all(&host).unwrap();
    // Mounted at another path inside: every operation must go through the container.
    let container = Container::start(&[(&host, "/work/ws")]);
    container.sh("mkdir -p /secret-dir && printf SECRET > /secret-dir/secret");
    let executor = Arc::new(RemoteExecutor::new(RemoteKind::Docker, container.name.clone()));
    let ws: Arc<dyn Workspace> = Arc::new(RemoteWorkspace::new(executor, "/work/ws", "docker", &container.name));
    assert!(ws.removal_is_final());
    let name = container.name.clone();
    let sh: Outside = Box::new(move |cmd: &str| {
        let out = std::process::Command::new("docker")
            .args(["exec", &name, "sh", "-c", &format!("cd /work/ws && {cmd}")])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    });
    contract(ws, sh, "/secret-dir", "/work/ws").await;
}

#[tokio::test]
async fn the_contract_over_ssh() {
    if !common::ssh::available() {
        return;
    }
    // The "other machine" is this one through the test sshd: the folder is reached only through
    // ssh, every name quoted for the remote login shell.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let secret = dir.path().join("secret-dir");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("secret"), "SECRET").unwrap();
    let executor = Arc::new(SshExecutor::new(common::ssh::HOST).unwrap());
    let ws: Arc<dyn Workspace> = Arc::new(RemoteWorkspace::new(executor, root.clone(), "ssh", common::ssh::HOST));
    assert!(ws.removal_is_final());
    let agent_root = root.display().to_string();
    contract(ws, local_outside(root), &secret.display().to_string(), &agent_root).await;
}

#[tokio::test]
async fn the_contract_in_a_sandbox_when_one_is_named() {
    let Ok(sandbox) = std::env::var("SIDEKICKS_TEST_SBX") else {
        println!("skipped: set SIDEKICKS_TEST_SBX=<sandbox name> to run the contract in a real sandbox");
        return;
    };
    let root = format!("/tmp/sidekicks-contract-{}", std::process::id());
    let run = |cmd: String| {
        let out = std::process::Command::new("sbx").args(["exec", &sandbox, "sh", "-c", &cmd]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(format!(
        "rm -rf {root} /tmp/sk-secret && mkdir -p {root} /tmp/sk-secret && printf SECRET > /tmp/sk-secret/secret"
    ));
    let executor = Arc::new(RemoteExecutor::new(RemoteKind::Sbx, sandbox.clone()));
    let ws: Arc<dyn Workspace> = Arc::new(RemoteWorkspace::new(executor, root.clone(), "sbx", &sandbox));
    let agent_root = root.clone();
    let sb = sandbox.clone();
    let sh: Outside = Box::new(move |cmd: &str| {
        let out = std::process::Command::new("sbx")
            .args(["exec", &sb, "sh", "-c", &format!("cd {root} && {cmd}")])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    });
    contract(ws, sh, "/tmp/sk-secret", &agent_root).await;
}
