//! Reviewing a member's work on real folders and real git: the review lists every changed file
//! with its diff; accepting one hunk merges only that hunk into the project (and can be undone);
//! rejecting a hunk or a file takes it out of the member's copy and nothing else; a hunk shown
//! before the file changed, or one that conflicts with the project, is refused and nothing moves.

use crate::common;

use std::path::Path;

use common::git;
use sidekicks::model::review::LineKind;
use sidekicks::protocol::teams::ChangeKind;
use sidekicks::runtime::teams::review::{accept_hunk, reject_files, reject_hunk, review};
use sidekicks::runtime::teams::{ProviderKind, TeamError, create_team, undo_merge};

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap()
}

#[test]
fn hunks_and_files_are_accepted_and_rejected_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("project");
    std::fs::create_dir(&main).unwrap();
    std::fs::write(main.join("long.txt"), numbered(40)).unwrap();
    std::fs::write(main.join("gone.txt"), "to delete\n").unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-q", "-m", "start"]);
    let (_, members) = create_team(
        &dir.path().join("teams"),
        "t",
        &main,
        ProviderKind::GitWorktree,
        &[("ada".into(), "ada".into())],
        None,
    )
    .unwrap();
    let ada = &members[0];
    let mine = numbered(40).replace("line 5\n", "line five\n").replace("line 30\n", "line thirty\n");
    std::fs::write(ada.copy.join("long.txt"), &mine).unwrap();
    std::fs::write(ada.copy.join("new.txt"), "new\n").unwrap();
    std::fs::remove_file(ada.copy.join("gone.txt")).unwrap();

    let files = review(ada).unwrap();
    let kinds: Vec<(&str, &ChangeKind)> = files.iter().map(|f| (f.change.path.as_str(), &f.change.kind)).collect();
    assert_eq!(
        kinds,
        [("gone.txt", &ChangeKind::Deleted), ("long.txt", &ChangeKind::Modified), ("new.txt", &ChangeKind::Added)]
    );
    let long = files[1].diff.clone().unwrap();
    assert_eq!((long.hunks.len(), long.added, long.removed), (2, 2, 2));
    let five = long.hunks[0].lines.iter().find(|l| l.kind == LineKind::Added).unwrap();
    assert_eq!((five.new, five.text.as_str()), (Some(5), "line five"));

    // Accept the first hunk: the project gets line 5 only; the review shows the other hunk.
    let report = accept_hunk(ada, "long.txt", &long.hunks[0]).unwrap();
    assert_eq!(report.applied, ["long.txt"]);
    assert_eq!(read(&main, "long.txt"), numbered(40).replace("line 5\n", "line five\n"));
    assert_eq!(read(&ada.copy, "long.txt"), mine, "the member's copy is untouched");
    let files = review(ada).unwrap();
    let left = files.iter().find(|f| f.change.path == "long.txt").unwrap().diff.clone().unwrap();
    assert_eq!(left.hunks.len(), 1);
    assert!(left.hunks[0].lines.iter().any(|l| l.text == "line thirty"));
    // A hunk as shown before: refused, nothing moves.
    assert_eq!(accept_hunk(ada, "long.txt", &long.hunks[0]), Err(TeamError::ReviewStale("long.txt".into())));
    // Accepting a hunk can be undone like a merge.
    undo_merge(ada).unwrap();
    assert_eq!(read(&main, "long.txt"), numbered(40));
    assert_eq!(review(ada).unwrap()[1].diff.as_ref().unwrap().hunks.len(), 2);

    // The project changes line 30 too: accepting that hunk conflicts, nothing is written.
    let project_edit = numbered(40).replace("line 30\n", "line 30 (project)\n");
    std::fs::write(main.join("long.txt"), &project_edit).unwrap();
    let hunks = review(ada).unwrap()[1].diff.clone().unwrap().hunks;
    assert_eq!(accept_hunk(ada, "long.txt", &hunks[1]), Err(TeamError::HunkConflicts("long.txt".into())));
    assert_eq!(read(&main, "long.txt"), project_edit);

    // Reject the line-30 hunk: the member's copy loses it, keeps line five.
    reject_hunk(ada, "long.txt", &hunks[1]).unwrap();
    assert_eq!(read(&ada.copy, "long.txt"), numbered(40).replace("line 5\n", "line five\n"));
    assert_eq!(read(&main, "long.txt"), project_edit, "the project is untouched");
    // Reject whole files: the new file goes, the deleted one comes back.
    let files = review(ada).unwrap();
    let changes: Vec<_> = files.iter().filter(|f| f.change.path != "long.txt").map(|f| f.change.clone()).collect();
    reject_files(ada, &changes).unwrap();
    assert!(!ada.copy.join("new.txt").exists());
    assert_eq!(read(&ada.copy, "gone.txt"), "to delete\n");
    let left: Vec<String> = review(ada).unwrap().into_iter().map(|f| f.change.path).collect();
    assert_eq!(left, ["long.txt"]);
}
