//! The merge decision on generated cases (a fixed-seed generator, so a failure replays):
//! - 10,000 text cases (edits, deletions, insertions, CRLF, no final newline): the merged bytes and
//!   the conflict status equal `git merge-file -p main base member` exactly;
//! - 10,000 cases over every kind of side (text, binary, absent, symbolic link, executable bit):
//!   no change from either side is lost without a conflict.

use sidekicks::model::merge::{ConflictKind, Outcome, Side, decide, merge_text};

use crate::common;
use common::history::git_merge_file;

/// xorshift64*: small, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &["alpha", "beta", "gamma", "delta", "{", "}", "", "return x;", "fn f()", "// note"];

/// Lines like code (most unique, one in five a repeated word, brace or blank line) or, one case in
/// three, only repeated lines: there the diff has several equally short alignments and only git's
/// own choice (xdiff's slider compaction) gives git's result.
fn base_lines(rng: &mut Rng) -> Vec<String> {
    let repetitive = rng.below(3) == 0;
    (0..rng.below(12))
        .map(|i| {
            if repetitive || rng.below(5) == 0 {
                WORDS[rng.below(WORDS.len())].to_string()
            } else {
                format!("line {i}")
            }
        })
        .collect()
}

/// A few random edits of `lines`.
fn edit(rng: &mut Rng, lines: &[String]) -> Vec<String> {
    let mut out = lines.to_vec();
    for _ in 0..rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(3) {
            0 if at < out.len() => {
                out.remove(at);
            }
            1 if at < out.len() => out[at] = format!("{} changed{}", WORDS[rng.below(WORDS.len())], rng.below(3)),
            _ => out.insert(at, format!("new {}", rng.below(5))),
        }
    }
    out
}

/// Joins lines with `\n` or `\r\n`, with or without a final line end.
fn join(rng: &mut Rng, lines: &[String], crlf: bool) -> Vec<u8> {
    let end = if crlf { "\r\n" } else { "\n" };
    let mut text = lines.join(end);
    if !lines.is_empty() && rng.below(4) != 0 {
        text.push_str(end);
    }
    text.into_bytes()
}

#[test]
fn text_merges_equal_git_merge_file() {
    const CASES: usize = 10_000;
    const THREADS: u64 = 2;
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            std::thread::spawn(move || {
                let dir = tempfile::tempdir().unwrap();
                let mut rng = Rng(0x5EED_0000 + t);
                let (mut conflicts, mut clean) = (0, 0);
                for case in 0..CASES / THREADS as usize {
                    let crlf = rng.below(5) == 0;
                    let base = base_lines(&mut rng);
                    let (main, member) = (edit(&mut rng, &base), edit(&mut rng, &base));
                    let (base, main, member) =
                        (join(&mut rng, &base, crlf), join(&mut rng, &main, crlf), join(&mut rng, &member, crlf));
                    let ours = merge_text(&base, &main, &member, ["main", "base", "member"]).expect("a text merge");
                    let git = git_merge_file(dir.path(), &base, &main, &member);
                    assert_eq!(
                        ours,
                        git,
                        "case {t}/{case}\nbase {:?}\nmain {:?}\nmember {:?}",
                        String::from_utf8_lossy(&base),
                        String::from_utf8_lossy(&main),
                        String::from_utf8_lossy(&member)
                    );
                    if ours.1 { conflicts += 1 } else { clean += 1 }
                }
                (conflicts, clean)
            })
        })
        .collect();
    let (mut conflicts, mut clean) = (0, 0);
    for h in handles {
        let (c, k) = h.join().unwrap();
        conflicts += c;
        clean += k;
    }
    assert_eq!(conflicts + clean, CASES);
    // Both kinds of result were exercised.
    assert!(conflicts > 500 && clean > 500, "{conflicts} conflicts, {clean} clean");
}

fn side(rng: &mut Rng, base: &Side) -> Side {
    match rng.below(8) {
        0 => Side::Absent,
        1 => Side::Symlink { target: format!("target{}", rng.below(3)) },
        2 => Side::File { content: vec![0, rng.below(3) as u8], executable: false },
        3 | 4 => base.clone(),
        5 => match base {
            Side::File { content, executable } => Side::File { content: content.clone(), executable: !executable },
            other => other.clone(),
        },
        _ => {
            let lines = edit(rng, &["alpha".into(), "beta".into(), "gamma".into()]);
            Side::File { content: join(rng, &lines, false), executable: rng.below(4) == 0 }
        }
    }
}

#[test]
fn no_change_is_lost_without_a_conflict() {
    let mut rng = Rng(0xC0FFEE);
    let mut seen = std::collections::HashSet::new();
    for case in 0..10_000 {
        let base = side(&mut rng, &Side::file("alpha\nbeta\ngamma\n"));
        let main = side(&mut rng, &base);
        let member = side(&mut rng, &base);
        let outcome = decide(&base, &main, &member, "member");
        let result = match &outcome {
            Outcome::Unchanged => Some(main.clone()),
            Outcome::Apply(side) => Some(side.clone()),
            Outcome::Conflict { kind, markers } => {
                assert!(main != base && member != base && main != member, "case {case}: a needless conflict");
                assert_eq!(markers.is_some(), *kind == ConflictKind::Text, "case {case}");
                seen.insert(format!("{kind:?}"));
                None
            }
        };
        let Some(result) = result else { continue };
        seen.insert("clean".to_string());
        if main == base {
            assert_eq!(result, member, "case {case}: the member's change");
        }
        if member == base {
            assert_eq!(result, main, "case {case}: the main folder's change");
        }
        if main != base && member != base && main != member {
            // Both changed and it merged: only text files merge, and each side's new lines are kept.
            let (Side::File { content: ours, .. }, Side::File { content: theirs, .. }, Side::File { content: r, .. }) =
                (&main, &member, &result)
            else {
                panic!("case {case}: a non-text change merged without a conflict: {outcome:?}");
            };
            let merged = String::from_utf8_lossy(r);
            let before = match &base {
                Side::File { content, .. } => String::from_utf8_lossy(content).into_owned(),
                _ => String::new(),
            };
            let added = |l: &&str| l.starts_with("new") && !before.lines().any(|b| b == *l);
            for side in [ours, theirs] {
                for line in String::from_utf8_lossy(side).lines().filter(added) {
                    assert!(merged.contains(line), "case {case}: {line:?} lost in {merged:?}");
                }
            }
        }
    }
    for kind in ["clean", "Text", "Binary", "MemberDeleted", "MainDeleted", "Kind"] {
        assert!(seen.contains(kind), "{kind} never generated: {seen:?}");
    }
}
