//! The review's diff on real histories: successive versions of this project's own files (and the
//! repositories of `SIDEKICKS_MERGE_CORPUS` when set). For every pair: each line of each hunk is
//! the line its number says in its version; taking every hunk gives the new text and none the old,
//! byte for byte; taking or rejecting one hunk leaves at most the others' changes to review; and
//! the side-by-side rows show every line once, on its side.

use crate::common;
use common::history::{corpus_repositories, linear_cases};

use sidekicks::model::review::{LineKind, apply_hunks, diff, split_rows};

fn check(origin: &str, old: &str, new: &str) {
    let d = diff(old, new);
    let (a, b): (Vec<&str>, Vec<&str>) = (old.split_inclusive('\n').collect(), new.split_inclusive('\n').collect());
    let strip = |l: &str| l.trim_end_matches('\n').trim_end_matches('\r').to_string();
    for hunk in &d.hunks {
        for line in &hunk.lines {
            if let Some(n) = line.old {
                assert_eq!(strip(a[n as usize - 1]), line.text, "{origin}: old line {n}");
                assert!(hunk.old.contains(&(n as usize - 1)), "{origin}: old line {n} outside {}", hunk.header());
            }
            if let Some(n) = line.new {
                assert_eq!(strip(b[n as usize - 1]), line.text, "{origin}: new line {n}");
            }
            assert_eq!(line.kind == LineKind::Added, line.old.is_none(), "{origin}");
            assert!(line.emph.iter().all(|r| r.end <= line.text.len() && line.text.is_char_boundary(r.start)));
        }
        let rows = split_rows(hunk);
        let shown: usize =
            rows.iter().map(|(l, r)| usize::from(l.is_some()) + usize::from(r.is_some() && r != l)).sum();
        assert_eq!(shown, hunk.lines.len(), "{origin}: side by side shows each line once");
    }
    assert_eq!(apply_hunks(old, new, |_| true), new, "{origin}: every hunk");
    assert_eq!(apply_hunks(old, new, |_| false), old, "{origin}: no hunk");
    // Taking (accepting) one hunk leaves at most the others' changes to review; rejecting it (the
    // member's text without it) leaves at most the others' too. (Not exactly as many hunks: on
    // repetitive text such as Cargo.lock, the diff of what is left may align differently.)
    let total = d.added + d.removed;
    for i in [0, d.hunks.len().saturating_sub(1)].into_iter().filter(|&i| i < d.hunks.len()) {
        let (added, removed) = d.hunks[i].counts();
        let left = diff(&apply_hunks(old, new, |j| j == i), new);
        assert!(left.added + left.removed <= total - added - removed, "{origin}: after taking hunk {i}");
        let rejected = apply_hunks(old, new, |j| j != i);
        let kept = diff(old, &rejected);
        assert!(kept.added + kept.removed <= total - added - removed, "{origin}: after rejecting hunk {i}");
        assert_eq!(diff(&rejected, new).added + diff(&rejected, new).removed > 0, added + removed > 0);
    }
}

#[test]
fn the_review_diff_holds_on_this_projects_history() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".git");
    let cases = linear_cases(&repo, 400);
    if cases.is_empty() {
        // A clone without history (a tarball): nothing real to compare with here.
        eprintln!("no git history here: the review corpus is skipped");
        return;
    }
    let mut pairs = 0;
    for case in &cases {
        let (Ok(base), Ok(main)) = (std::str::from_utf8(&case.base), std::str::from_utf8(&case.main)) else { continue };
        check(&case.origin, base, main);
        if let Ok(member) = std::str::from_utf8(&case.member) {
            check(&case.origin, main, member);
        }
        pairs += 1;
    }
    eprintln!("{pairs} pairs from this project's history");
    assert!(pairs >= 100, "only {pairs} text pairs");
}

#[test]
fn the_review_diff_holds_on_the_corpus_repositories() {
    let Some(repos) = corpus_repositories() else { return };
    let mut pairs = 0;
    for repo in repos {
        for case in linear_cases(&repo, 200) {
            let (Ok(base), Ok(main)) = (std::str::from_utf8(&case.base), std::str::from_utf8(&case.main)) else {
                continue;
            };
            check(&case.origin, base, main);
            pairs += 1;
        }
    }
    eprintln!("{pairs} pairs from the corpus");
}
