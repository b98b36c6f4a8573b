//! Teams on real folders with real git: two members of a git project each work in a detached
//! worktree (the project's uncommitted and new files included, dependency folders linked, no
//! branch made); their changes are listed; merges bring disjoint work in and route an overlapping
//! edit back as a conflict in the member's copy, main untouched; after resolving, the resubmission
//! merges; reattaching after a restart works; discarding leaves no worktree entry, ref, branch or
//! folder. The copy provider does the same without git; the clone provider says why it cannot work
//! where the filesystem cannot clone.

use std::path::Path;

use crate::common::{git, write};
use sidekicks::model::merge::ConflictKind;
use sidekicks::runtime::teams::{
    ChangeKind, CopyProvider, GitWorktreeProvider, IsolationProvider, MemberCopy, TeamError, Unavailable, changes,
    merge,
};

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A git project: three committed files, one uncommitted change, one new file, an ignored
/// dependency folder.
fn project(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.email", "t@example.com"]);
    git(dir, &["config", "user.name", "T"]);
    write(dir, "a.txt", "one\ntwo\nthree\n");
    write(dir, "b.txt", "bee\n");
    write(dir, "src/c.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
    write(dir, ".gitignore", "node_modules/\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "start"]);
    write(dir, "src/c.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9 uncommitted\n");
    write(dir, "new.txt", "not yet added\n");
    write(dir, "node_modules/dep/index.js", "module.exports = 1;\n");
}

fn kinds(member: &MemberCopy) -> Vec<(String, ChangeKind)> {
    changes(member).unwrap().into_iter().map(|c| (c.path, c.kind)).collect()
}

#[test]
fn two_members_of_a_git_project_merge_one_after_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("project");
    std::fs::create_dir(&main).unwrap();
    project(&main);
    let status_before = git(&main, &["status", "--porcelain"]);
    let branches_before = git(&main, &["branch", "--list", "--all"]);
    let provider = GitWorktreeProvider;
    provider.available(&main).unwrap();
    let ada = provider.create(&main, &dir.path().join("ada"), &dir.path().join("state-ada"), "t1-ada", "Ada").unwrap();
    let bob = provider.create(&main, &dir.path().join("bob"), &dir.path().join("state-bob"), "t1-bob", "Bob").unwrap();

    // The copies start from the project as it is, uncommitted and new files included.
    assert_eq!(read(&ada.copy, "src/c.txt"), "1\n2\n3\n4\n5\n6\n7\n8\n9 uncommitted\n");
    assert_eq!(read(&bob.copy, "new.txt"), "not yet added\n");
    assert!(std::fs::symlink_metadata(ada.copy.join("node_modules")).unwrap().file_type().is_symlink());
    assert_eq!(read(&ada.copy, "node_modules/dep/index.js"), "module.exports = 1;\n");
    assert!(kinds(&ada).is_empty(), "{:?}", kinds(&ada));
    // The person's repository: same status, no branch.
    assert_eq!(git(&main, &["status", "--porcelain"]), status_before);
    assert_eq!(git(&main, &["branch", "--list", "--all"]), branches_before);

    // Ada: an edit, a new file, a deletion, a rename. Bob: an overlapping edit and a disjoint one.
    write(&ada.copy, "a.txt", "ONE (Ada)\ntwo\nthree\n");
    write(&ada.copy, "docs/d.txt", "Ada's notes\n");
    std::fs::remove_file(ada.copy.join("b.txt")).unwrap();
    std::fs::rename(ada.copy.join("new.txt"), ada.copy.join("moved.txt")).unwrap();
    write(&bob.copy, "a.txt", "ONE (Bob)\ntwo\nthree\n");
    write(&bob.copy, "src/c.txt", "1 (Bob)\n2\n3\n4\n5\n6\n7\n8\n9 uncommitted\n");
    assert_eq!(
        kinds(&ada),
        vec![
            ("a.txt".into(), ChangeKind::Modified),
            ("b.txt".into(), ChangeKind::Deleted),
            ("docs/d.txt".into(), ChangeKind::Added),
            ("moved.txt".into(), ChangeKind::Renamed { from: "new.txt".into() }),
        ]
    );

    // Ada first: everything applies.
    let report = merge(&ada, None).unwrap();
    assert!(report.conflicts.is_empty(), "{report:?}");
    assert_eq!(read(&main, "a.txt"), "ONE (Ada)\ntwo\nthree\n");
    assert_eq!(read(&main, "docs/d.txt"), "Ada's notes\n");
    assert_eq!(read(&main, "moved.txt"), "not yet added\n");
    assert!(!main.join("b.txt").exists() && !main.join("new.txt").exists());
    assert!(kinds(&ada).is_empty(), "merged work leaves the change list: {:?}", kinds(&ada));

    // Bob against the main folder as Ada left it: a conflict on a.txt; nothing applied.
    let report = merge(&bob, None).unwrap();
    assert_eq!(report.conflicts, vec![("a.txt".to_string(), ConflictKind::Text)]);
    assert_eq!(read(&main, "a.txt"), "ONE (Ada)\ntwo\nthree\n");
    assert_eq!(read(&main, "src/c.txt"), "1\n2\n3\n4\n5\n6\n7\n8\n9 uncommitted\n", "all or nothing");
    let marked = read(&bob.copy, "a.txt");
    assert_eq!(marked, "<<<<<<< main\nONE (Ada)\n=======\nONE (Bob)\n>>>>>>> Bob\ntwo\nthree\n");

    // Bob resolves and resubmits: both of his changes apply.
    write(&bob.copy, "a.txt", "ONE (Ada and Bob)\ntwo\nthree\n");
    let report = merge(&bob, None).unwrap();
    assert!(report.conflicts.is_empty(), "{report:?}");
    assert_eq!(read(&main, "a.txt"), "ONE (Ada and Bob)\ntwo\nthree\n");
    assert_eq!(read(&main, "src/c.txt"), "1 (Bob)\n2\n3\n4\n5\n6\n7\n8\n9 uncommitted\n");
    assert_eq!(read(&main, "docs/d.txt"), "Ada's notes\n", "Ada's work stays");

    // After a restart: the records load, the copies reattach, changes still list.
    let ada = MemberCopy::load(&ada.state).unwrap();
    provider.reattach(&ada).unwrap();
    write(&ada.copy, "later.txt", "after the restart\n");
    assert_eq!(kinds(&ada), vec![("later.txt".into(), ChangeKind::Added)]);

    // Discard: no worktree entry, ref, branch or folder left (copies made outside a team's
    // folders are never kept for a next team: `teams::spare`).
    for member in [&ada, &bob] {
        provider.discard(member).unwrap();
        assert!(!member.copy.exists() && !member.state.exists());
    }
    let worktrees = git(&main, &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    assert_eq!(git(&main, &["for-each-ref", "refs/sidekicks"]), "");
    assert_eq!(git(&main, &["branch", "--list", "--all"]), branches_before);
    assert!(main.join("node_modules/dep/index.js").exists(), "the shared dependency folder stays");
}

#[test]
fn a_member_deleting_what_main_changed_gets_it_back_to_decide() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("project");
    std::fs::create_dir(&main).unwrap();
    project(&main);
    let provider = GitWorktreeProvider;
    let m = provider.create(&main, &dir.path().join("m"), &dir.path().join("state"), "t2", "Cy").unwrap();
    // A name that looks like a pattern is only a name.
    write(&m.copy, "src/c.txt", "1 (Cy)\n2\n3\n4\n5\n6\n7\n8\n9 uncommitted\n");
    std::fs::copy(m.copy.join("a.txt"), m.copy.join("odd[1]*.txt")).unwrap();
    assert_eq!(kinds(&m), vec![("odd[1]*.txt".into(), ChangeKind::Added), ("src/c.txt".into(), ChangeKind::Modified)]);
    assert!(merge(&m, None).unwrap().conflicts.is_empty());
    assert_eq!(read(&main, "odd[1]*.txt"), "one\ntwo\nthree\n");
    write(&m.copy, "odd[1]*.txt", "changed\n");
    assert_eq!(kinds(&m), vec![("odd[1]*.txt".into(), ChangeKind::Modified)]);
    std::fs::remove_file(m.copy.join("b.txt")).unwrap();
    write(&main, "b.txt", "bee, changed in the project\n");
    let report = merge(&m, None).unwrap();
    assert_eq!(report.conflicts, vec![("b.txt".to_string(), ConflictKind::MemberDeleted)]);
    assert_eq!(read(&main, "b.txt"), "bee, changed in the project\n");
    assert_eq!(read(&m.copy, "b.txt"), "bee, changed in the project\n", "back in the member's copy");
    // Deleting it again, deliberately, now merges.
    std::fs::remove_file(m.copy.join("b.txt")).unwrap();
    assert!(merge(&m, None).unwrap().conflicts.is_empty());
    assert!(!main.join("b.txt").exists());
    provider.discard(&m).unwrap();
}

#[test]
fn the_copy_provider_works_without_git() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("project");
    write(&main, "a.txt", "one\ntwo\nthree\n");
    write(&main, ".gitignore", "build/\n");
    write(&main, "build/out.bin", "ignored\n");
    write(&main, "node_modules/x.js", "dep\n");
    write(&main, "run.sh", "#!/bin/sh\n");
    std::os::unix::fs::symlink("a.txt", main.join("link")).unwrap();
    let provider = CopyProvider { clone: false };
    let m = provider.create(&main, &dir.path().join("m"), &dir.path().join("state"), "t3", "Dee").unwrap();
    assert!(!m.copy.join("build").exists(), "ignored files are not copied");
    assert!(std::fs::symlink_metadata(m.copy.join("node_modules")).unwrap().file_type().is_symlink());
    assert!(std::fs::symlink_metadata(m.copy.join("link")).unwrap().file_type().is_symlink());
    assert!(kinds(&m).is_empty(), "{:?}", kinds(&m));
    // An in-place write in the copy never reaches the project (no hard links).
    use std::io::Write;
    std::fs::OpenOptions::new().append(true).open(m.copy.join("a.txt")).unwrap().write_all(b"four\n").unwrap();
    assert_eq!(read(&main, "a.txt"), "one\ntwo\nthree\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(m.copy.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    write(&main, "a.txt", "ONE\ntwo\nthree\n");
    assert_eq!(kinds(&m), vec![("a.txt".into(), ChangeKind::Modified), ("run.sh".into(), ChangeKind::Mode)]);
    let report = merge(&m, None).unwrap();
    assert!(report.conflicts.is_empty(), "{report:?}");
    assert_eq!(read(&main, "a.txt"), "ONE\ntwo\nthree\nfour\n");
    assert_eq!(std::fs::metadata(main.join("run.sh")).unwrap().permissions().mode() & 0o111, 0o111);
    provider.discard(&m).unwrap();
    assert!(!m.copy.exists() && !m.state.exists());
    assert!(main.join("node_modules/x.js").exists());
}

#[test]
fn the_clone_provider_says_why_it_cannot_work() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "a\n");
    match (CopyProvider { clone: true }).available(dir.path()) {
        Ok(()) => println!("this filesystem clones files"),
        Err(TeamError::Unavailable { reason }) => {
            assert!(matches!(reason, Unavailable::NoClone | Unavailable::OtherFilesystem), "{reason}");
            println!("clone provider unavailable here: {reason}");
        }
        Err(e) => panic!("{e}"),
    }
    let e = GitWorktreeProvider.available(dir.path()).unwrap_err();
    assert_eq!(e, TeamError::Unavailable { reason: Unavailable::NotGit });
}

/// The worktree's one-go scan (`git diff --raw` with the bases' blobs) finds the same paths and
/// bases as listing the paths then reading the bases path by path, for every kind of change: an
/// edit, a mode change, a deletion, a rename, a link made and a link changed, a new file, a file
/// made untracked with `git rm --cached`, a new file staged by the agent, a commit by the agent.
#[test]
fn the_worktree_scan_in_one_go_agrees_with_path_by_path() {
    use sidekicks::runtime::teams::read_bases;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    std::fs::create_dir(&main).unwrap();
    project(&main);
    std::os::unix::fs::symlink("a.txt", main.join("link")).unwrap();
    write(&main, "run.sh", "echo hi\n");
    write(&main, "gone.txt", "bye\n");
    write(&main, "moved.txt", "moving\n");
    write(&main, "kept.txt", "kept\n");
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-qm", "more"]);
    let provider = GitWorktreeProvider;
    let m = provider.create(&main, &dir.path().join("m"), &dir.path().join("s"), "m1", "Mia").unwrap();
    let c = &m.copy;
    write(c, "a.txt", "one\nTWO\nthree\n");
    std::fs::set_permissions(c.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(c.join("gone.txt")).unwrap();
    std::fs::rename(c.join("moved.txt"), c.join("sub/moved.txt")).unwrap_or_else(|_| {
        std::fs::create_dir_all(c.join("sub")).unwrap();
        std::fs::rename(c.join("moved.txt"), c.join("sub/moved.txt")).unwrap();
    });
    std::fs::remove_file(c.join("link")).unwrap();
    std::os::unix::fs::symlink("b.txt", c.join("link")).unwrap();
    std::os::unix::fs::symlink("a.txt", c.join("new-link")).unwrap();
    write(c, "fresh.txt", "fresh\n");
    git(c, &["rm", "-q", "--cached", "kept.txt"]);
    write(c, "staged.txt", "staged\n");
    git(c, &["add", "staged.txt"]);
    let one_go = |m: &MemberCopy| {
        let mut found = provider.changed_with_bases(m).expect("the worktree scans in one go").unwrap();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    };
    let by_path = |m: &MemberCopy| {
        let mut paths = provider.changed_paths(m).unwrap();
        paths.sort();
        paths.dedup();
        let bases = read_bases(m, &paths).unwrap();
        paths.into_iter().zip(bases).collect::<Vec<_>>()
    };
    let found = one_go(&m);
    assert_eq!(found, by_path(&m));
    let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    for expected in [
        "a.txt",
        "fresh.txt",
        "gone.txt",
        "kept.txt",
        "link",
        "moved.txt",
        "new-link",
        "run.sh",
        "staged.txt",
        "sub/moved.txt",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    // The agent commits in its worktree: the base stays the member's base.
    git(c, &["-c", "user.email=a@b", "-c", "user.name=A", "commit", "-qam", "agent's own commit"]);
    write(c, "later.txt", "later\n");
    assert_eq!(one_go(&m), by_path(&m));
    provider.discard(&m).unwrap();
}

/// Creation checks out HEAD while the base is worked out: the copy ends at the base either way (a
/// clean project's HEAD, or a dirty project's own commit), and a project that cannot have members
/// (a subfolder, a repository without a commit) gets the reason and keeps no worktree or ref.
#[test]
fn creation_ends_at_the_base_and_a_refused_project_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    std::fs::create_dir(&main).unwrap();
    project(&main);
    let provider = GitWorktreeProvider;
    let dirty = provider.create(&main, &dir.path().join("d"), &dir.path().join("ds"), "d", "Dirty").unwrap();
    let head = git(&main, &["rev-parse", "HEAD"]).trim().to_string();
    assert_ne!(dirty.base, head, "uncommitted changes make a base of their own");
    assert_eq!(git(&dirty.copy, &["rev-parse", "HEAD"]).trim(), dirty.base);
    assert_eq!(read(&dirty.copy, "new.txt"), "not yet added\n");
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-qm", "all in"]);
    let clean = provider.create(&main, &dir.path().join("c"), &dir.path().join("cs"), "c", "Clean").unwrap();
    let head = git(&main, &["rev-parse", "HEAD"]).trim().to_string();
    assert_eq!((clean.base.as_str(), git(&clean.copy, &["rev-parse", "HEAD"]).trim()), (head.as_str(), head.as_str()));

    let worktrees = || git(&main, &["worktree", "list", "--porcelain"]).matches("worktree ").count();
    let refs = || git(&main, &["for-each-ref", "refs/sidekicks"]).lines().count();
    assert_eq!((worktrees(), refs()), (3, 2));
    let sub = main.join("src");
    let e = provider.create(&sub, &dir.path().join("s"), &dir.path().join("ss"), "s", "Sub").unwrap_err();
    assert_eq!(e, TeamError::Unavailable { reason: Unavailable::NotTopFolder });
    assert_eq!((worktrees(), refs()), (3, 2), "nothing kept of the refused member");
    assert!(!dir.path().join("s").exists() && !dir.path().join("ss").exists());

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    git(&empty, &["init", "-q"]);
    let e = provider.create(&empty, &dir.path().join("e"), &dir.path().join("es"), "e", "Empty").unwrap_err();
    assert_eq!(e, TeamError::Unavailable { reason: Unavailable::NoCommit });
    assert!(!dir.path().join("e").exists() && !dir.path().join("es").exists());
}
