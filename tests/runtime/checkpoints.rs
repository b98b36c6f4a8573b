//! Checkpoints against real git and real folders: a restore gives back byte-identical files (and
//! modes, and links), deletes what was added since, leaves ignored files, dependency folders and
//! the person's index and branch alone, and is itself undone by the checkpoint it returns.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use sidekicks::runtime::checkpoints::{CheckpointError, Checkpoints};

use crate::common;
use crate::common::write;
use common::git;

/// Every file under `dir` but `.git`: its bytes (a link's target) and mode.
fn tree(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if rel == ".git" {
                continue;
            } else if meta.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                all.insert(rel, (target.to_string_lossy().as_bytes().to_vec(), 0o120000));
            } else if meta.is_dir() {
                stack.push(path);
            } else {
                all.insert(rel, (std::fs::read(&path).unwrap(), meta.permissions().mode() & 0o777));
            }
        }
    }
    all
}

/// A project as a person leaves it: committed files, uncommitted changes, a new file, an ignored
/// file, a dependency folder, a script and a link.
fn project(dir: &Path) {
    write(dir, "src/main.rs", "fn main() {}\n");
    write(dir, "src/lib.rs", "pub fn a() {}\n");
    write(dir, "README.md", "# Shop\n");
    write(dir, ".gitignore", "*.log\nnode_modules/\n");
    write(dir, "run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(dir.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("src/main.rs", dir.join("main-link")).unwrap();
    write(dir, "node_modules/pkg/index.js", "module.exports = 1;\n");
    write(dir, "build.log", "old log\n");
}

/// What an agent's turn does: edits, deletes, adds, makes a script plain, fills a new folder.
fn agent_turn(dir: &Path) {
    write(dir, "src/main.rs", "fn main() { println!(\"changed\"); }\n");
    std::fs::remove_file(dir.join("src/lib.rs")).unwrap();
    write(dir, "src/new.rs", "// new\n");
    write(dir, "docs/deep/notes.md", "notes\n");
    std::fs::set_permissions(dir.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(dir.join("main-link")).unwrap();
    std::os::unix::fs::symlink("README.md", dir.join("main-link")).unwrap();
    write(dir, "build.log", "new log\n");
    write(dir, "node_modules/pkg/index.js", "module.exports = 2;\n");
}

fn checkpoints(data: &Path) -> Checkpoints {
    Checkpoints { root: data.join("checkpoints"), keep: 50, max_age: 30 * 86_400, max_file: 1024 * 1024 }
}

/// Restore, check, undo, check: for both kinds of workspace.
fn restore_round_trip(dir: &Path, data: &Path) {
    let cps = checkpoints(data);
    let before_turn = tree(dir);
    let checkpoint = cps.record(dir).unwrap();
    agent_turn(dir);
    let after_turn = tree(dir);
    let mut changed = cps.changed_since(dir, &checkpoint.id).unwrap();
    changed.sort();
    assert_eq!(changed, ["docs/deep/notes.md", "main-link", "run.sh", "src/lib.rs", "src/main.rs", "src/new.rs"]);

    let undo = cps.restore(dir, &checkpoint.id).unwrap();
    let restored = tree(dir);
    // Ignored files and dependency folders keep what the turn left.
    let mut expected = before_turn.clone();
    expected.insert("build.log".into(), after_turn["build.log"].clone());
    expected.insert("node_modules/pkg/index.js".into(), after_turn["node_modules/pkg/index.js"].clone());
    assert_eq!(restored, expected, "byte-identical to before the turn");
    assert!(!dir.join("docs").exists(), "a folder the turn made is gone with its files");

    // The restore is undone by the checkpoint it made first.
    cps.restore(dir, &undo.id).unwrap();
    assert_eq!(tree(dir), after_turn, "byte-identical to after the turn");
    assert!(cps.list(dir).unwrap().len() >= 3);
}

#[test]
fn a_git_project_is_restored_without_touching_the_index_or_the_branch() {
    let dir = tempfile::tempdir().unwrap();
    let (project_dir, data) = (dir.path().join("p"), dir.path().join("data"));
    std::fs::create_dir(&project_dir).unwrap();
    project(&project_dir);
    git(&project_dir, &["init", "-q", "-b", "main"]);
    git(&project_dir, &["add", "src", "README.md", ".gitignore", "run.sh", "main-link"]);
    git(&project_dir, &["commit", "-qm", "start"]);
    // Uncommitted: a change staged, a change not staged, a file never added.
    write(&project_dir, "README.md", "# Shop\n\nstaged\n");
    git(&project_dir, &["add", "README.md"]);
    write(&project_dir, "src/main.rs", "fn main() { /* not staged */ }\n");
    write(&project_dir, "untracked.txt", "new, not added\n");
    let index = std::fs::read(project_dir.join(".git/index")).unwrap();
    let (head, branch) = (git(&project_dir, &["rev-parse", "HEAD"]), git(&project_dir, &["branch", "--show-current"]));

    restore_round_trip(&project_dir, &data);

    assert_eq!(std::fs::read(project_dir.join(".git/index")).unwrap(), index, "the person's index is untouched");
    assert_eq!(git(&project_dir, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&project_dir, &["branch", "--show-current"]), branch);
    assert!(git(&project_dir, &["for-each-ref", "refs/sidekicks/checkpoints/"]).lines().count() >= 3);
    assert!(git(&project_dir, &["branch", "--list"]).lines().count() == 1, "no branch made");
    assert!(!data.join("checkpoints").exists(), "git keeps a git project's checkpoints");
}

#[test]
fn a_folder_outside_git_is_restored_from_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, data) = (dir.path().join("f"), dir.path().join("data"));
    std::fs::create_dir(&folder).unwrap();
    project(&folder);
    restore_round_trip(&folder, &data);
    assert!(data.join("checkpoints").is_dir());
}

#[test]
fn checkpoints_past_the_count_kept_are_pruned_and_unknown_ones_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, data) = (dir.path().join("f"), dir.path().join("data"));
    std::fs::create_dir(&folder).unwrap();
    write(&folder, "a.txt", "0");
    let cps = Checkpoints { keep: 3, ..checkpoints(&data) };
    let mut made = Vec::new();
    for i in 0..5 {
        write(&folder, "a.txt", i.to_string());
        made.push(cps.record(&folder).unwrap().id);
    }
    let kept: Vec<String> = cps.list(&folder).unwrap().into_iter().map(|c| c.id).collect();
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert!(kept.contains(made.last().unwrap()), "the newest is kept");
    assert!(matches!(cps.restore(&folder, &made[0]), Err(CheckpointError::Unknown(_))), "pruned");
    // The contents only pruned snapshots held are gone too: three versions of a.txt are left.
    let objects = walk_files(&data.join("checkpoints"), "objects");
    assert_eq!(objects, 3, "objects left");
    cps.restore(&folder, &kept[0]).unwrap();
    assert_eq!(std::fs::read_to_string(folder.join("a.txt")).unwrap(), "2");
}

/// How many files are under a folder named `name` somewhere below `dir`.
fn walk_files(dir: &Path, name: &str) -> usize {
    let mut count = 0;
    let mut stack = vec![(dir.to_path_buf(), false)];
    while let Some((d, inside)) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let inside = inside || entry.file_name() == name;
            if entry.path().is_dir() {
                stack.push((entry.path(), inside));
            } else if inside {
                count += 1;
            }
        }
    }
    count
}

#[test]
fn snapshots_kept_inside_the_workspace_are_not_snapshotted_nor_restored_away() {
    // A workspace that holds Sidekicks' data folder (a home folder, say).
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("home");
    std::fs::create_dir(&folder).unwrap();
    write(&folder, "notes.txt", "mine\n");
    let cps = checkpoints(&folder.join(".local/share/sidekicks"));
    let before = cps.record(&folder).unwrap();
    write(&folder, "notes.txt", "the agent's\n");
    let undo = cps.restore(&folder, &before.id).unwrap();
    assert_eq!(std::fs::read_to_string(folder.join("notes.txt")).unwrap(), "mine\n");
    // The snapshot made just before the restore is still there to undo it.
    cps.restore(&folder, &undo.id).unwrap();
    assert_eq!(std::fs::read_to_string(folder.join("notes.txt")).unwrap(), "the agent's\n");
    let changed = cps.changed_since(&folder, &before.id).unwrap();
    assert_eq!(changed, ["notes.txt"], "the data folder is not part of the workspace's changes");
}

#[test]
fn outside_git_a_file_over_the_size_kept_is_left_alone_and_the_rest_restored() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, data) = (dir.path().join("f"), dir.path().join("data"));
    std::fs::create_dir(&folder).unwrap();
    project(&folder);
    let cps = checkpoints(&data); // keeps files up to 1 MB
    let big = vec![b'x'; 2 * 1024 * 1024];
    std::fs::write(folder.join("big.bin"), &big).unwrap();
    let checkpoint = cps.record(&folder).unwrap();
    assert_eq!(cps.read_at(&folder, &checkpoint.id, "README.md").unwrap().as_deref(), Some(&b"# Shop\n"[..]));
    assert_eq!(cps.read_at(&folder, &checkpoint.id, "absent.txt").unwrap(), None);
    assert!(cps.read_at(&folder, &checkpoint.id, "big.bin").is_err(), "not kept: said, not made up");
    // The turn changes the big file, makes another one, and edits a small file.
    let big2 = vec![b'y'; 3 * 1024 * 1024];
    std::fs::write(folder.join("big.bin"), &big2).unwrap();
    std::fs::write(folder.join("big-new.bin"), &big2).unwrap();
    write(&folder, "README.md", "changed\n");
    let mut changed = cps.changed_since(&folder, &checkpoint.id).unwrap();
    changed.sort();
    assert_eq!(changed, ["README.md", "big-new.bin", "big.bin"], "large files' changes are seen");
    cps.restore(&folder, &checkpoint.id).unwrap();
    assert_eq!(std::fs::read_to_string(folder.join("README.md")).unwrap(), "# Shop\n");
    // Neither large file can be brought back to another state, so neither is touched.
    assert_eq!(std::fs::read(folder.join("big.bin")).unwrap(), big2);
    assert_eq!(std::fs::read(folder.join("big-new.bin")).unwrap(), big2);
    let kept: u64 = walkdir(&data).into_iter().map(|p| std::fs::metadata(p).unwrap().len()).max().unwrap_or(0);
    assert!(kept < 1024 * 1024, "a large file's content was kept ({kept} bytes)");
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walkdir(&path)) } else { out.push(path) }
    }
    out
}

#[test]
fn a_git_checkpoint_reads_a_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let (project_dir, data) = (dir.path().join("p"), dir.path().join("data"));
    std::fs::create_dir(&project_dir).unwrap();
    project(&project_dir);
    git(&project_dir, &["init", "-q", "-b", "main"]);
    git(&project_dir, &["add", "-A"]);
    git(&project_dir, &["commit", "-qm", "start"]);
    write(&project_dir, "untracked.txt", "new, not added\n");
    let cps = checkpoints(&data);
    let checkpoint = cps.record(&project_dir).unwrap();
    write(&project_dir, "untracked.txt", "changed\n");
    assert_eq!(
        cps.read_at(&project_dir, &checkpoint.id, "untracked.txt").unwrap().as_deref(),
        Some(&b"new, not added\n"[..])
    );
    assert_eq!(cps.read_at(&project_dir, &checkpoint.id, "nothing.txt").unwrap(), None);
}

/// The changes since a checkpoint, for review: listed with their diffs; one hunk, then a whole
/// file, put back as they were (in a git project and in a plain folder).
fn review_and_revert(dir: &Path, data: &Path) {
    use sidekicks::runtime::checkpoints::review::{revert, review_since};
    let numbered: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    write(dir, "long.txt", &numbered);
    let cps = checkpoints(data);
    let checkpoint = cps.record(dir).unwrap();
    let changed = numbered.replace("line 3\n", "line three\n").replace("line 25\n", "line twenty-five\n");
    write(dir, "long.txt", &changed);
    write(dir, "src/new.rs", "// new\n");
    let files = review_since(&cps, dir, &checkpoint.id).unwrap();
    let listed: Vec<&str> = files.iter().map(|f| f.change.path.as_str()).collect();
    assert_eq!(listed, ["long.txt", "src/new.rs"]);
    let hunks = files[0].diff.as_ref().unwrap().hunks.clone();
    assert_eq!(hunks.len(), 2);
    // The second hunk put back: line 25 as it was, line three stays.
    revert(&cps, dir, &checkpoint.id, "long.txt", Some(&hunks[1])).unwrap();
    assert_eq!(std::fs::read_to_string(dir.join("long.txt")).unwrap(), numbered.replace("line 3\n", "line three\n"));
    // The same hunk again: it is not there any more, refused.
    assert!(revert(&cps, dir, &checkpoint.id, "long.txt", Some(&hunks[1])).is_err());
    // A link the turn replaced with a file comes back as the link it was.
    std::fs::remove_file(dir.join("main-link")).unwrap();
    write(dir, "main-link", "not a link any more\n");
    let files = review_since(&cps, dir, &checkpoint.id).unwrap();
    let link = files.iter().find(|f| f.change.path == "main-link").unwrap();
    assert_eq!((&link.change.kind, link.diff.is_none()), (&sidekicks::protocol::teams::ChangeKind::Type, true));
    revert(&cps, dir, &checkpoint.id, "main-link", None).unwrap();
    assert_eq!(std::fs::read_link(dir.join("main-link")).unwrap(), Path::new("src/main.rs"));
    // Whole files: the new one goes, the other is as it was.
    revert(&cps, dir, &checkpoint.id, "src/new.rs", None).unwrap();
    revert(&cps, dir, &checkpoint.id, "long.txt", None).unwrap();
    assert!(!dir.join("src/new.rs").exists());
    assert_eq!(std::fs::read_to_string(dir.join("long.txt")).unwrap(), numbered);
    assert!(review_since(&cps, dir, &checkpoint.id).unwrap().is_empty());
}

#[test]
fn changes_since_a_checkpoint_are_reviewed_and_reverted_in_git_and_outside() {
    let dir = tempfile::tempdir().unwrap();
    let (git_dir, plain, data) = (dir.path().join("g"), dir.path().join("p"), dir.path().join("data"));
    for d in [&git_dir, &plain] {
        std::fs::create_dir(d).unwrap();
        project(d);
    }
    git(&git_dir, &["init", "-q", "-b", "main"]);
    git(&git_dir, &["add", "-A"]);
    git(&git_dir, &["commit", "-qm", "start"]);
    review_and_revert(&git_dir, &data);
    review_and_revert(&plain, &data);
}

#[test]
fn a_turn_through_the_command_line_checkpoints_a_git_project_with_no_git_process() {
    // issue 37: the checkpoint before each turn was seven git processes; it is made in the process.
    let dir = tempfile::tempdir().unwrap();
    let project_dir = dir.path().join("project");
    project(&project_dir);
    git(&project_dir, &["init", "-q", "-b", "main"]);
    git(&project_dir, &["add", "-A"]);
    git(&project_dir, &["commit", "-qm", "start"]);
    write(&project_dir, "src/main.rs", "fn main() { /* changed before the turn */ }\n");
    write(&project_dir, "notes/new.md", "new\n");
    let config = dir.path().join("sidekicks.toml");
    let agents = [("demo", common::BIN, &["demo-agent"][..])];
    std::fs::write(&config, common::config_text("", &agents, &project_dir)).unwrap();
    // A `git` first on the PATH that writes down each time it is started.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = dir.path().join("git-calls");
    let real = std::process::Command::new("sh").args(["-c", "command -v git"]).output().unwrap().stdout;
    let real = String::from_utf8(real).unwrap();
    let script = format!("#!/bin/sh\necho \"$*\" >> {log:?}\nexec {} \"$@\"\n", real.trim());
    std::fs::write(bin.join("git"), script).unwrap();
    std::fs::set_permissions(bin.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = std::process::Command::new(common::BIN)
        .args(["prompt", "--agent", "demo", "--config"])
        .arg(&config)
        .arg("hello")
        .env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()))
        .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The checkpoint is there, and holds the project as it was before the turn.
    let refs = git(&project_dir, &["for-each-ref", "--format=%(refname)", "refs/sidekicks/checkpoints/"]);
    assert_eq!(refs.lines().count(), 1, "one checkpoint: {refs:?}");
    let at = |path: &str| git(&project_dir, &["show", &format!("{}:{path}", refs.trim())]);
    assert_eq!(at("src/main.rs").trim(), "fn main() { /* changed before the turn */ }");
    assert_eq!(at("notes/new.md").trim(), "new");
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(calls, "", "git was started for the turn");
}

/// A review of a turn's changes is the runtime's while it is open: read again after each turn
/// (the window asked for it again before).
#[tokio::test]
async fn an_open_review_is_read_again_after_each_turn() {
    use sidekicks::app::{Command, Event};
    use sidekicks::model::conversation::TurnEnd;
    use sidekicks::protocol::checkpoints::{CheckpointCommand, CheckpointEvent};
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    write(&project, "notes/demo.md", "# Notes\n\nthe person's notes\n");
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "start"]);
    let mut rig = common::Rig::new(common::fast_settings());
    let text = common::config_text("", &[("demo", common::BIN, &["demo-agent"])], &project);
    common::load_config(&rig, dir.path(), &text).await;
    assert_eq!(rig.turn("demo", "files").await, TurnEnd::EndTurn);
    let checkpoint = rig
        .seen
        .iter()
        .find_map(|e| match e {
            Event::Checkpoint(CheckpointEvent::Recorded { checkpoint, .. }) => Some(checkpoint.clone()),
            _ => None,
        })
        .expect("a checkpoint before the turn");
    let review = CheckpointCommand::Review { agent: "demo".into(), checkpoint: checkpoint.clone() };
    rig.send(Command::Checkpoint(review)).await;
    let read = move |e: &Event| {
        matches!(e, Event::Checkpoint(CheckpointEvent::Review { checkpoint: c, result: Ok(files), .. })
            if *c == checkpoint && files.iter().any(|f| f.change.path == "notes/demo.md"))
    };
    rig.wait_for(Duration::from_secs(20), "the review", &read).await;
    // Another turn (it writes nothing new): the open review is read again, unasked.
    assert_eq!(rig.turn("demo", "hello").await, TurnEnd::EndTurn);
    rig.wait_for(Duration::from_secs(20), "the review read again after the turn", &read).await;
}
