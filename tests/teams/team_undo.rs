//! Nothing lost in a team (real folders, real git): a merge undone gives back the project's files
//! byte for byte (contents, executable bits, links, files the merge removed or added), the
//! member's work shows as not merged again and merges again; an undo refuses when the person
//! changed a merged file since (and changes nothing); the next merge ends the chance to undo.
//! Work of discarded members is kept and comes back byte for byte, in its team or a team made
//! again, and still merges three-way against its old base.

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::write;
use common::git;
use sidekicks::runtime::teams::{ProviderKind, TeamError, changes, create_team, merge, undo_merge, undoable};

/// Every file and link below `root` (not `.git`): its bytes or target, and its executable bit.
fn tree(root: &Path) -> BTreeMap<String, (Vec<u8>, bool)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (Vec<u8>, bool)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, (target.to_string_lossy().as_bytes().to_vec(), false));
            } else if meta.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(rel, (std::fs::read(&path).unwrap(), meta.permissions().mode() & 0o111 != 0));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// A project with text, bytes that are not UTF-8, an executable script and a link.
fn project(dir: &Path, with_git: bool) {
    std::fs::create_dir_all(dir).unwrap();
    write(dir, "README.md", b"# Project\n\nFirst line.\nSecond line.\n");
    write(dir, "src/lib.rs", b"pub fn one() -> u32 {\n    1\n}\n");
    write(dir, "data/blob.bin", [0u8, 159, 146, 150, 255, 0, 1, 2]);
    write(dir, "run.sh", b"#!/bin/sh\necho run\n");
    std::fs::set_permissions(dir.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("src/lib.rs", dir.join("lib-link")).unwrap();
    write(dir, "old/notes.txt", b"to be moved\n");
    if with_git {
        git(dir, &["init", "-q", "-b", "main"]);
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "start"]);
        // Uncommitted work of the person is part of what a merge must give back too.
        write(dir, "README.md", b"# Project\n\nFirst line.\nSecond line.\nUncommitted.\n");
    }
}

/// The member edits, adds, deletes, renames, changes a mode and a link.
fn work(copy: &Path) {
    write(copy, "src/lib.rs", b"pub fn one() -> u32 {\n    1\n}\n\npub fn two() -> u32 {\n    2\n}\n");
    write(copy, "src/new.rs", b"// new\n");
    write(copy, "data/blob.bin", [0u8, 1, 2, 3, 200, 201]);
    std::fs::remove_file(copy.join("README.md")).unwrap();
    std::fs::create_dir_all(copy.join("new")).unwrap();
    std::fs::rename(copy.join("old/notes.txt"), copy.join("new/notes.txt")).unwrap();
    std::fs::set_permissions(copy.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(copy.join("lib-link")).unwrap();
    std::os::unix::fs::symlink("src/new.rs", copy.join("lib-link")).unwrap();
}

fn undo_gives_back_the_project(provider: ProviderKind) {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("project");
    project(&main, provider == ProviderKind::GitWorktree);
    let teams = dir.path().join("teams");
    let agents = vec![("Ada".to_string(), "Ada".to_string()), ("Bob".to_string(), "Bob".to_string())];
    let (record, members) = create_team(&teams, "t", &main, provider, &agents, None).unwrap();
    let (ada, bob) = (&members[0], &members[1]);
    work(&ada.copy);
    let before = tree(&main);
    let changed_before = changes(ada).unwrap();
    assert!(undoable(&record).is_none());

    let report = merge(ada, None).unwrap();
    assert!(report.conflicts.is_empty(), "{report:?}");
    assert_ne!(tree(&main), before, "the merge changed nothing");
    assert!(changes(ada).unwrap().is_empty(), "merged work still listed");
    assert_eq!(undoable(&record).as_deref(), Some("Ada"));
    // Only the member whose merge it was can undo it.
    assert_eq!(undo_merge(bob), Err(TeamError::NothingToUndo));

    let put_back = undo_merge(ada).unwrap();
    assert!(!put_back.is_empty());
    assert_eq!(tree(&main), before, "the project is not back byte for byte");
    assert_eq!(changes(ada).unwrap(), changed_before, "the member's work is not listed as not merged again");
    assert!(undoable(&record).is_none());
    assert_eq!(undo_merge(ada), Err(TeamError::NothingToUndo));

    // It merges again, to the same result as the first time.
    merge(ada, None).unwrap();
    let merged = tree(&main);
    assert_eq!(merged.get("src/new.rs").map(|f| f.0.as_slice()), Some(&b"// new\n"[..]));

    // The person edits a merged file afterwards: the undo refuses and changes nothing.
    write(&main, "src/lib.rs", b"// the person's edit\n");
    let edited = tree(&main);
    assert_eq!(undo_merge(ada), Err(TeamError::ChangedSinceMerge(vec!["src/lib.rs".into()])));
    assert_eq!(tree(&main), edited);

    // Bob's attempt that applies nothing leaves Ada's undo (issue 33: a conflicting merge of
    // another member took it away); his merge that applies files ends it.
    write(&main, "src/lib.rs", &merged["src/lib.rs"].0);
    merge(bob, None).unwrap();
    assert_eq!(undoable(&record).as_deref(), Some("Ada"));
    assert_eq!(tree(&main), merged);
    write(&bob.copy, "src/bob.rs", b"// bob\n");
    merge(bob, None).unwrap();
    assert_eq!(undoable(&record).as_deref(), Some("Bob"));
    // Bob merges again with nothing new: that applies nothing and leaves his undo (issue 35: a
    // merge of 0 files took it away).
    let nothing = merge(bob, None).unwrap();
    assert!(nothing.applied.is_empty() && nothing.conflicts.is_empty());
    assert_eq!(undoable(&record).as_deref(), Some("Bob"));
    assert_eq!(
        sidekicks::protocol::teams::undoable_after(Some("Bob".into()), "Bob", &Ok(nothing)).as_deref(),
        Some("Bob"),
        "the window and the runtime keep it too"
    );
    assert_eq!(undo_merge(ada), Err(TeamError::NothingToUndo));
    assert_eq!(tree(&main).get("src/lib.rs"), merged.get("src/lib.rs"));
}

#[test]
fn an_undone_merge_gives_back_a_git_project_byte_for_byte() {
    undo_gives_back_the_project(ProviderKind::GitWorktree);
}

#[test]
fn an_undone_merge_gives_back_a_plain_folder_byte_for_byte() {
    undo_gives_back_the_project(ProviderKind::Copy);
}

/// Only what the member changed, from its copy: each changed path and what it is there.
fn work_of(member: &sidekicks::runtime::teams::MemberCopy) -> BTreeMap<String, Option<(Vec<u8>, bool)>> {
    let copy = tree(&member.copy);
    changes(member)
        .unwrap()
        .iter()
        .flat_map(|c| c.paths())
        .map(|p| {
            let now = copy.get(&p).cloned();
            (p, now)
        })
        .collect()
}

fn discard_and_restore(provider: ProviderKind) {
    use sidekicks::runtime::teams::discarded;
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("project");
    project(&main, provider == ProviderKind::GitWorktree);
    let teams = dir.path().join("teams");
    let agents = vec![("Ada".to_string(), "Ada".to_string()), ("Bob".to_string(), "Bob".to_string())];
    let (record, members) = create_team(&teams, "t", &main, provider, &agents, None).unwrap();
    let (ada, bob) = (&members[0], &members[1]);
    work(&ada.copy);
    let ada_changes = changes(ada).unwrap();
    let ada_work = work_of(ada);
    // Bob did nothing: nothing of his is kept.
    assert_eq!(discarded::keep(&teams, &record, std::slice::from_ref(bob)).unwrap(), None);

    // Ada is discarded; her work is kept.
    let kept = discarded::keep(&teams, &record, std::slice::from_ref(ada)).unwrap().expect("kept");
    assert_eq!(kept.members, vec![("Ada".to_string(), ada_work.len())]);
    ada.provider().discard(ada).unwrap();
    assert!(!ada.copy.exists());
    let mut team_now = record.clone();
    team_now.members.retain(|m| m.agent != "Ada");
    assert_eq!(discarded::list(&teams, None), vec![kept.clone()]);

    // The project moves on meanwhile, in a file Ada did not touch and in one she did.
    write(&main, "src/other.rs", b"// added by the person\n");
    write(&main, "src/lib.rs", b"// the person\n\npub fn one() -> u32 {\n    1\n}\n");

    let (restored_team, restored) =
        discarded::restore(&teams, &kept.id, Some(team_now), (&[], &Default::default())).unwrap();
    assert_eq!(restored_team.members.iter().map(|m| m.agent.as_str()).collect::<Vec<_>>(), ["Bob", "Ada"]);
    let ada2 = restored.iter().find(|m| m.name == "Ada").unwrap();
    assert_eq!(work_of(ada2), ada_work, "the restored work is not byte for byte what it was");
    assert_eq!(changes(ada2).unwrap(), ada_changes);
    assert_eq!(tree(&ada2.copy).get("src/other.rs").map(|f| f.0.clone()), Some(b"// added by the person\n".to_vec()));
    assert!(discarded::list(&teams, None).is_empty(), "restored work still listed");
    // Her merge still sees both sides: the person's edit of src/lib.rs and hers merge as three-way.
    let report = merge(ada2, None).unwrap();
    assert!(report.conflicts.is_empty(), "{report:?}");
    let lib = String::from_utf8(std::fs::read(main.join("src/lib.rs")).unwrap()).unwrap();
    assert!(lib.contains("// the person") && lib.contains("pub fn two()"), "{lib}");

    // The whole team discarded, then restored: a team made again, with Ada's new work.
    write(&bob.copy, "b.txt", b"Bob's\n");
    let bob_work = work_of(bob);
    let (record2, members2) = (restored_team, vec![bob.clone(), ada2.clone()]);
    let kept = discarded::keep(&teams, &record2, &members2).unwrap().expect("kept");
    assert_eq!(kept.members, vec![("Bob".to_string(), 1)], "Ada's work was all merged: nothing of hers to keep");
    for m in &members2 {
        m.provider().discard(m).unwrap();
    }
    let (again, members3) = discarded::restore(&teams, &kept.id, None, (&[], &Default::default())).unwrap();
    assert_ne!(again.id, record.id);
    assert_eq!(again.name, "t");
    assert_eq!(work_of(&members3[0]), bob_work);
    // Forget: gone from the list and the disk.
    let kept = discarded::keep(&teams, &again, &members3).unwrap().expect("kept");
    discarded::forget(&teams, &kept.id).unwrap();
    assert!(discarded::list(&teams, None).is_empty());
}

#[test]
fn discarded_work_comes_back_byte_for_byte_in_a_git_project() {
    discard_and_restore(ProviderKind::GitWorktree);
}

#[test]
fn discarded_work_comes_back_byte_for_byte_in_a_plain_folder() {
    discard_and_restore(ProviderKind::Copy);
}
