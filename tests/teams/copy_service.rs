//! The copy service (issue 49, first part), the real binary on the far side: `sidekicks
//! serve-copies` started here and inside a container through `docker exec -i` (its copy only in
//! the container, no bind mount), a copy made there of a git project, written through the
//! service, its changes listed, a path read at the base and now with its sha256 checked, paths
//! that leave the copy refused in words, and the copy discarded. What the far side sends is
//! input: a garbled or oversized answer ends the conversation with an error, it is not trusted.

use std::path::{Path, PathBuf};
use std::process::Command;

use sidekicks::model::merge::Side;
use sidekicks::protocol::teams::{ChangeKind, ProviderKind};
use sidekicks::runtime::copies::CopyClient;
use sidekicks::runtime::copies::wire::{self, WireError};

use crate::common;
use common::docker::{Container, DOCKER};
use common::{BIN, git};

fn file(text: &str) -> Side {
    Side::File { content: text.as_bytes().to_vec(), executable: false }
}

/// The whole round over one service: make, write, changes, read, refusals, discard.
fn round(client: &mut CopyClient, project: PathBuf, at: &Path) {
    let (copy, state) = (at.join("copy"), at.join("state"));
    let base = client.make(project, copy.clone(), state.clone(), ("m1", "ada · T"), ProviderKind::Copy).unwrap();
    assert!(base.is_empty(), "a plain copy's base is in its state: {base:?}");
    assert!(client.changes(state.clone()).unwrap().is_empty(), "a new copy changed nothing");

    // Written through the service, all or nothing: a big file crosses in several chunks.
    let big: String = (0..120_000).map(|i| format!("line {i}\n")).collect();
    assert!(big.len() > 3 * wire::CHUNK);
    let steps = vec![("README.md".to_string(), file("# Shop, changed\n")), ("data/big.txt".to_string(), file(&big))];
    client.write(state.clone(), &steps).unwrap();
    let mut changes: Vec<(String, ChangeKind)> =
        client.changes(state.clone()).unwrap().into_iter().map(|c| (c.path, c.kind)).collect();
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(changes, [("README.md".into(), ChangeKind::Modified), ("data/big.txt".into(), ChangeKind::Added)]);
    assert_eq!(client.read(state.clone(), "README.md", true).unwrap(), file("# Shop\n"), "the base");
    assert_eq!(client.read(state.clone(), "README.md", false).unwrap(), file("# Shop, changed\n"), "now");
    assert_eq!(client.read(state.clone(), "data/big.txt", false).unwrap(), file(&big));
    assert_eq!(client.read(state.clone(), "data/big.txt", true).unwrap(), Side::Absent);

    // Paths that leave the copy are refused there, in words, and the service goes on.
    for bad in ["../outside.txt", "/etc/passwd", "a/../../b"] {
        let refused = client.write(state.clone(), &[(bad.to_string(), file("x"))]).unwrap_err();
        assert!(matches!(refused, WireError::Refused(_)), "{bad}: {refused}");
        let refused = client.read(state.clone(), bad, false).unwrap_err();
        assert!(matches!(refused, WireError::Refused(_)), "{bad}: {refused}");
    }
    assert_eq!(client.changes(state.clone()).unwrap().len(), 2, "nothing else written");

    client.discard(state.clone()).unwrap();
    let gone = client.changes(state).unwrap_err();
    assert!(matches!(gone, WireError::Refused(_)), "{gone}");
}

fn project(dir: &Path) -> PathBuf {
    let project = dir.join("project");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("README.md"), "# Shop\n").unwrap();
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    project
}

#[test]
fn the_copy_service_makes_writes_reads_and_discards_a_copy_here() {
    let dir = tempfile::tempdir().unwrap();
    let project = project(dir.path());
    let mut command = Command::new(BIN);
    command.arg("serve-copies");
    let mut client = CopyClient::start(command).unwrap();
    assert_eq!((client.far.os.as_str(), client.far.arch.as_str()), (std::env::consts::OS, std::env::consts::ARCH));
    round(&mut client, project, &dir.path().join("far"));
    // A symbolic link in the copy that leads out is read as a link, never followed.
    // (Made by hand in a second copy.)
    let (copy, state) = (dir.path().join("far2/copy"), dir.path().join("far2/state"));
    client
        .make(dir.path().join("project"), copy.clone(), state.clone(), ("m2", "bob · T"), ProviderKind::Copy)
        .unwrap();
    std::os::unix::fs::symlink("/etc/passwd", copy.join("leak")).unwrap();
    assert_eq!(client.read(state, "leak", false).unwrap(), Side::Symlink { target: "/etc/passwd".into() });
}

#[test]
fn the_copy_service_runs_in_a_container_whose_copy_lives_only_there() {
    if !common::docker::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let project = project(dir.path());
    // The project is pushed into the container (no bind mount): the copy exists only there.
    let container = Container::start(&[]);
    DOCKER.run(&["cp", &project.display().to_string(), &format!("{}:/project", container.name)]);
    assert_eq!(container.sh("cat /project/README.md"), "# Shop\n");
    let mut command = Command::new("docker");
    command.args(["exec", "-i", &container.name, BIN, "serve-copies"]);
    let mut client = CopyClient::start(command).unwrap();
    assert_eq!(client.far.os, "linux");
    round(&mut client, PathBuf::from("/project"), Path::new("/members/ada"));
    assert!(!Path::new("/members/ada").exists(), "nothing of it on this side");
    assert!(container.sh("ls /members/ada/copy 2>&1").contains("No such file"), "discarded there");
}

/// A far side that answers garbage, or a line without end, is an error, not trusted.
#[test]
fn a_garbled_or_endless_answer_is_an_error() {
    let mut command = Command::new("sh");
    let hello = format!(
        "{{\"answer\":\"hello\",\"version\":{},\"sidekicks\":\"x\",\"os\":\"linux\",\"arch\":\"x\"}}",
        wire::VERSION
    );
    command.args(["-c", &format!("read hello; echo '{hello}'; read q; echo 'not json at all'")]);
    let mut client = CopyClient::start(command).unwrap();
    let e = client.changes(PathBuf::from("/s")).unwrap_err();
    assert!(matches!(e, WireError::Garbled(_)), "{e}");

    let mut command = Command::new("sh");
    command.args(["-c", "read hello; head -c 2000000 /dev/zero | tr '\\0' 'a'"]);
    let e = CopyClient::start(command).err().expect("refused");
    assert!(matches!(e, WireError::Garbled(_)), "{e}");

    let mut command = Command::new("sh");
    command.args([
        "-c",
        "read hello; echo '{\"answer\":\"hello\",\"version\":7,\"sidekicks\":\"x\",\"os\":\"linux\",\"arch\":\"x\"}'",
    ]);
    let e = CopyClient::start(command).err().expect("refused");
    assert!(e.to_string().contains("version 7"), "{e}");
}

/// This binary is sent to a container that runs it from nowhere of its own: checked by its sha256
/// there, kept in a per-user cache, and found there the next time (not sent again); a machine of
/// another kind is refused in words.
#[test]
fn the_binary_is_sent_once_checked_and_reused() {
    use sidekicks::runtime::copies::upload::{Far, Placed, UploadError, ensure_binary};
    if !common::docker::available() {
        return;
    }
    let container = Container::start(&[]);
    let far = Far::prefix(vec!["docker".into(), "exec".into(), "-i".into(), container.name.clone()]);
    let sent = ensure_binary(&far, Path::new(BIN)).unwrap();
    assert!(matches!(sent, Placed::Sent(_)), "{sent:?}");
    let path = sent.path().display().to_string();
    assert!(path.contains("/.cache/sidekicks/bin/sidekicks-"), "{path}");
    let again = ensure_binary(&far, Path::new(BIN)).unwrap();
    assert_eq!(again, Placed::Found(sent.path().to_path_buf()), "found, not sent again");
    // It runs there, from there.
    let mut command = Command::new("docker");
    command.args(["exec", "-i", &container.name, &path, "serve-copies"]);
    let client = CopyClient::start(command).unwrap();
    assert_eq!(client.far.os, "linux");
    drop(client);
    // Damaged in place (another program wrote over it): checked, so sent again.
    container.sh(&format!("echo broken > {path}"));
    assert!(matches!(ensure_binary(&far, Path::new(BIN)).unwrap(), Placed::Sent(_)));

    // Another kind of machine: refused in words, nothing sent.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("far");
    std::fs::write(&fake, "#!/bin/sh\necho 'Linux riscv64'\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let other = Far::prefix(vec![fake.display().to_string()]);
    let refused = ensure_binary(&other, Path::new(BIN)).unwrap_err();
    assert!(matches!(refused, UploadError::OtherMachine { .. }), "{refused}");
    assert!(refused.to_string().contains("Linux riscv64"), "{refused}");
}
