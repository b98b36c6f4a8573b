//! The text merge against `git merge-file -p` on real histories, byte for byte and conflict for
//! conflict (issue 14):
//! - merge commits of real repositories: the git repositories in the folder named by
//!   `SIDEKICKS_MERGE_CORPUS` (e.g. public repositories brought with `fetch`); at least 300 cases;
//! - successive versions of this project's own files (always there in a clone): the member keeps
//!   main's change and adds its own, so both sides add the same lines.
//!
//! Run the first with e.g. `SIDEKICKS_MERGE_CORPUS=/work/.mirror cargo test --test merge_corpus`
//! (docs/adr/0011 lists the repositories and the numbers measured).

use crate::common;
use common::history::{Case, corpus_repositories, git_merge_file, linear_cases, merge_cases};

use sidekicks::model::merge::merge_text;

/// Compares every case with git on two threads; returns (cases, conflicts) and the mismatches.
fn compare(cases: &[Case]) -> (usize, usize, Vec<String>) {
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .chunks(cases.len().div_ceil(2).max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    let dir = tempfile::tempdir().unwrap();
                    let mut conflicts = 0;
                    let mut wrong = Vec::new();
                    for case in chunk {
                        let git = git_merge_file(dir.path(), &case.base, &case.main, &case.member);
                        let ours = merge_text(&case.base, &case.main, &case.member, ["main", "base", "member"])
                            .expect("a text merge");
                        conflicts += usize::from(git.1);
                        if ours != git {
                            wrong.push(format!(
                                "{}: git {} / ours {}",
                                case.origin,
                                if git.1 { "conflict" } else { "clean" },
                                if ours.1 { "conflict" } else { "clean" }
                            ));
                        }
                    }
                    (conflicts, wrong)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let conflicts = results.iter().map(|(c, _)| c).sum();
    let wrong = results.into_iter().flat_map(|(_, w)| w).collect();
    (cases.len(), conflicts, wrong)
}

#[test]
fn real_merge_commits_merge_as_git_does() {
    let Some(repos) = corpus_repositories() else {
        println!("skipped: set SIDEKICKS_MERGE_CORPUS to a folder of git repositories with merge commits");
        return;
    };
    assert!(!repos.is_empty(), "SIDEKICKS_MERGE_CORPUS names no git repository");
    let cases: Vec<Case> = std::thread::scope(|scope| {
        let handles: Vec<_> = repos.iter().map(|repo| scope.spawn(move || merge_cases(repo, 400, 8))).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let (total, conflicts, wrong) = compare(&cases);
    println!("{total} cases from {} repositories: {conflicts} conflicts in git, {} differ", repos.len(), wrong.len());
    assert!(wrong.is_empty(), "{} of {total} differ from git merge-file:\n{}", wrong.len(), wrong.join("\n"));
    assert!(total >= 300, "only {total} cases in the corpus");
    assert!(conflicts >= 20, "only {conflicts} conflicts among {total} cases");
}

#[test]
fn successive_versions_of_this_project_merge_as_git_does() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".git");
    let cases = linear_cases(&repo, 2000);
    if cases.is_empty() {
        println!("skipped: {} has no history with three versions of a file (a shallow clone?)", repo.display());
        return;
    }
    let (total, conflicts, wrong) = compare(&cases);
    println!("{total} cases: {conflicts} conflicts in git, {} differ", wrong.len());
    assert!(wrong.is_empty(), "{} of {total} differ from git merge-file:\n{}", wrong.len(), wrong.join("\n"));
}
