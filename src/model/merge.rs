//! The merge layer's decision for one path, pure: given what the path was in the base (the member's
//! copy when it was made), what it is in the main folder now and in the member's copy now, what
//! happens to the main folder. Text changed on both sides is merged three-way with gix-merge (the
//! same result as `git merge-file main base member`); everything else changed on both sides is a
//! conflict, so no change from either side is ever lost without one.

use gix_merge::blob::builtin_driver::text::{Conflict as TextConflict, ConflictStyle, Labels, Options};
use gix_merge::blob::{Resolution, builtin_driver};

/// Files larger than this (on either side) are not merged line by line: changed on both sides, they
/// are a conflict.
pub const MERGE_SIZE_LIMIT: usize = 8 * 1024 * 1024;

/// What a path is on one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Side {
    /// Not there.
    Absent,
    /// A regular file.
    File {
        /// Its bytes.
        content: Vec<u8>,
        /// The executable bit.
        executable: bool,
    },
    /// A symbolic link.
    Symlink {
        /// Where it points.
        target: String,
    },
}

impl Side {
    /// A regular, non-executable file.
    pub fn file(content: impl Into<Vec<u8>>) -> Self {
        Side::File { content: content.into(), executable: false }
    }
}

/// Why a path could not be merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConflictKind {
    /// Both changed the same lines; the markers are in the member's copy.
    Text,
    /// Both changed a binary file.
    Binary,
    /// Both changed a file too large to merge line by line.
    TooLarge,
    /// The member deleted it; the main folder changed it.
    MemberDeleted,
    /// The main folder deleted it; the member changed it.
    MainDeleted,
    /// Both changed it into different kinds of thing (file, symbolic link) or different links.
    Kind,
}

/// What happens to one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to do: the member did not change it, or the main folder already has the same.
    Unchanged,
    /// The main folder's path becomes this.
    Apply(Side),
    /// A conflict; `markers` is the text with conflict markers to write into the member's copy.
    Conflict {
        /// Why.
        kind: ConflictKind,
        /// For text conflicts: the merged text with markers.
        markers: Option<Vec<u8>>,
    },
}

/// Git's test for binary content: a NUL byte in the first 8,000 bytes.
pub fn is_binary(content: &[u8]) -> bool {
    content[..content.len().min(8000)].contains(&0)
}

/// The three-way text merge of `main` and `member` from `base`, exactly as `git merge-file -p
/// main base member` with the labels given: the merged bytes and whether it conflicted.
pub fn merge_text(base: &[u8], main: &[u8], member: &[u8], labels: [&str; 3]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut input = imara_diff::InternedInput::default();
    let [main_label, base_label, member_label] = labels;
    let labels = Labels {
        ancestor: Some(base_label.as_bytes().into()),
        current: Some(main_label.as_bytes().into()),
        other: Some(member_label.as_bytes().into()),
    };
    let options = Options {
        conflict: TextConflict::Keep { style: ConflictStyle::Merge, marker_size: 7.try_into().expect("7 > 0") },
        ..Options::default()
    };
    let resolution = builtin_driver::text(&mut out, &mut input, labels, main, base, member, options);
    let conflicted = resolution == Resolution::Conflict;
    let markers = [format!("<<<<<<< {main_label}"), "=======".to_string(), format!(">>>>>>> {member_label}")];
    let ambiguous = [base, main, member]
        .iter()
        .any(|text| lines(text).any(|l| markers.iter().any(|m| eol_trimmed(l) == m.as_bytes())));
    if conflicted && !ambiguous {
        // git's choice of line end for markers (xdiff's `is_cr_needed`, for files with one style):
        // CRLF when main, then the member, then the base use CRLF, an undecidable file (empty, or
        // one line without its end) passing the question on; LF when all are undecidable.
        let mut needs_cr = 1;
        for text in [main, member, base] {
            if needs_cr != 0 {
                needs_cr = eol_style(text);
            }
        }
        let eol: &[u8] = if needs_cr > 0 { b"\r\n" } else { b"\n" };
        let unterminated = [!main.is_empty() && !main.ends_with(b"\n"), !member.is_empty() && !member.ends_with(b"\n")];
        let sides = [base, main, member].map(|t| lines(t).map(eol_trimmed).collect::<Vec<_>>());
        out = coalesce(&out, &markers, eol, unterminated, &sides);
    }
    (out, conflicted)
}

/// 1 when `text` ends its lines with CRLF, 0 with LF, -1 when it cannot tell (no line end).
fn eol_style(text: &[u8]) -> i8 {
    match text.iter().position(|b| *b == b'\n') {
        Some(i) => i8::from(i > 0 && text[i - 1] == b'\r'),
        None => -1,
    }
}

fn with_eol(line: &[u8], eol: &[u8]) -> Vec<u8> {
    let mut l = eol_trimmed(line).to_vec();
    l.extend_from_slice(eol);
    l
}

/// The lines of `text`, each with its line end.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split_inclusive(|b| *b == b'\n')
}

fn eol_trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Joins conflicts separated by three lines or fewer, or by lines without a letter or digit, into
/// one, as git does at its default level (xdiff's `xdl_simplify_non_conflicts`, zealous-alnum):
/// a conflict is easier to read than an island of three lines between two.
/// Markers get `eol`; so does the last line of main's (the member's) side of a final conflict when
/// that file does not end with a line end (`unterminated`).
/// Only lines both sides have are joined (unchanged, or changed alike): a gap that holds a one-sided
/// change (its lines are not a run of both main and the member) stays between two conflicts.
fn coalesce(
    out: &[u8],
    [open, middle, close]: &[String; 3],
    eol: &[u8],
    unterminated: [bool; 2],
    sides: &[Vec<&[u8]>; 3],
) -> Vec<u8> {
    let unchanged = |gap: &[&[u8]]| {
        let gap: Vec<&[u8]> = gap.iter().map(|l| eol_trimmed(l)).collect();
        sides[1..].iter().all(|side| side.windows(gap.len().max(1)).any(|w| w == gap.as_slice()))
    };
    enum Part<'a> {
        Common(Vec<&'a [u8]>),
        Conflict { open: &'a [u8], ours: Vec<&'a [u8]>, middle: &'a [u8], theirs: Vec<&'a [u8]>, close: &'a [u8] },
    }
    let mut parts: Vec<Part> = Vec::new();
    let mut all = lines(out);
    while let Some(line) = all.next() {
        if eol_trimmed(line) != open.as_bytes() {
            match parts.last_mut() {
                Some(Part::Common(common)) => common.push(line),
                _ => parts.push(Part::Common(vec![line])),
            }
            continue;
        }
        let (mut ours, mut theirs, mut mid, mut end) = (Vec::new(), Vec::new(), None, None);
        for l in all.by_ref() {
            match (eol_trimmed(l), mid.is_some()) {
                (m, false) if m == middle.as_bytes() => mid = Some(l),
                (c, true) if c == close.as_bytes() => {
                    end = Some(l);
                    break;
                }
                (_, false) => ours.push(l),
                (_, true) => theirs.push(l),
            }
        }
        let (Some(middle), Some(close)) = (mid, end) else { return out.to_vec() };
        parts.push(Part::Conflict { open: line, ours, middle, theirs, close });
    }
    // Fold: conflict, short or letterless common part, conflict → one conflict.
    let mut folded: Vec<Part> = Vec::new();
    for part in parts {
        if let Part::Conflict { ours, theirs, close, .. } = &part
            && folded.len() >= 2
            && let [.., Part::Conflict { .. }, Part::Common(gap)] = folded.as_slice()
            && (gap.len() <= 3 || gap.iter().all(|l| !l.iter().any(u8::is_ascii_alphanumeric)))
            && unchanged(gap)
        {
            let Some(Part::Common(gap)) = folded.pop() else { unreachable!() };
            if let Some(Part::Conflict { ours: o, theirs: t, close: c, .. }) = folded.last_mut() {
                o.extend(gap.iter().copied().chain(ours.iter().copied()));
                t.extend(gap.iter().copied().chain(theirs.iter().copied()));
                *c = close;
            }
            continue;
        }
        folded.push(part);
    }
    let mut merged = Vec::with_capacity(out.len());
    let count = folded.len();
    for (i, part) in folded.into_iter().enumerate() {
        match part {
            Part::Common(common) => common.iter().for_each(|l| merged.extend_from_slice(l)),
            Part::Conflict { open, ours, middle, theirs, close } => {
                let last = i + 1 == count;
                merged.extend(with_eol(open, eol));
                for (side, lines) in [(0, ours), (1, theirs)] {
                    for (k, l) in lines.iter().enumerate() {
                        if last && unterminated[side] && k + 1 == lines.len() {
                            merged.extend(with_eol(l, eol));
                        } else {
                            merged.extend_from_slice(l);
                        }
                    }
                    if side == 0 {
                        merged.extend(with_eol(middle, eol));
                    }
                }
                merged.extend(with_eol(close, eol));
            }
        }
    }
    merged
}

/// Decides what happens to a path; `member_label` names the member in conflict markers.
pub fn decide(base: &Side, main: &Side, member: &Side, member_label: &str) -> Outcome {
    if member == base || member == main {
        return Outcome::Unchanged;
    }
    if main == base {
        return Outcome::Apply(member.clone());
    }
    let conflict = |kind| Outcome::Conflict { kind, markers: None };
    match (main, member) {
        (Side::File { content: ours, executable: ours_x }, Side::File { content: theirs, executable: theirs_x }) => {
            let (base_text, base_x): (&[u8], bool) = match base {
                Side::File { content, executable } => (content, *executable),
                _ => (&[], *ours_x),
            };
            if [base_text, ours, theirs].iter().any(|c| c.len() > MERGE_SIZE_LIMIT) {
                return conflict(ConflictKind::TooLarge);
            }
            if [base_text, ours, theirs].iter().any(|c| is_binary(c)) {
                return conflict(ConflictKind::Binary);
            }
            let (merged, conflicted) = merge_text(base_text, ours, theirs, ["main", "base", member_label]);
            if conflicted {
                return Outcome::Conflict { kind: ConflictKind::Text, markers: Some(merged) };
            }
            // The executable bit: whichever side changed it.
            let executable = if *theirs_x != base_x { *theirs_x } else { *ours_x };
            let result = Side::File { content: merged, executable };
            if &result == main { Outcome::Unchanged } else { Outcome::Apply(result) }
        }
        (_, Side::Absent) => conflict(ConflictKind::MemberDeleted),
        (Side::Absent, _) => conflict(ConflictKind::MainDeleted),
        _ => conflict(ConflictKind::Kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> Side {
        Side::file(s)
    }

    #[test]
    fn one_side_changed_takes_that_side() {
        assert_eq!(decide(&f("a\n"), &f("a\n"), &f("b\n"), "m"), Outcome::Apply(f("b\n")));
        assert_eq!(decide(&f("a\n"), &f("b\n"), &f("a\n"), "m"), Outcome::Unchanged);
        assert_eq!(decide(&f("a\n"), &f("b\n"), &f("b\n"), "m"), Outcome::Unchanged);
        assert_eq!(decide(&f("a\n"), &f("a\n"), &Side::Absent, "m"), Outcome::Apply(Side::Absent));
        assert_eq!(decide(&Side::Absent, &Side::Absent, &f("new\n"), "m"), Outcome::Apply(f("new\n")));
    }

    #[test]
    fn both_changed_text_merges_or_conflicts() {
        let base = f("1\n2\n3\n4\n5\n");
        let main = f("one\n2\n3\n4\n5\n");
        let member = f("1\n2\n3\n4\nfive\n");
        assert_eq!(decide(&base, &main, &member, "m"), Outcome::Apply(f("one\n2\n3\n4\nfive\n")));
        let member = f("uno\n2\n3\n4\n5\n");
        let Outcome::Conflict { kind: ConflictKind::Text, markers: Some(markers) } =
            decide(&base, &main, &member, "Ada")
        else {
            panic!("a conflict")
        };
        let text = String::from_utf8(markers).unwrap();
        assert!(text.starts_with("<<<<<<< main\none\n=======\nuno\n>>>>>>> Ada\n"), "{text}");
    }

    #[test]
    fn what_cannot_be_merged_is_a_conflict() {
        let bin = |b: &[u8]| Side::File { content: b.to_vec(), executable: false };
        let conflict = |kind| Outcome::Conflict { kind, markers: None };
        assert_eq!(decide(&bin(b"\0a"), &bin(b"\0b"), &bin(b"\0c"), "m"), conflict(ConflictKind::Binary));
        assert_eq!(decide(&f("a\n"), &f("b\n"), &Side::Absent, "m"), conflict(ConflictKind::MemberDeleted));
        assert_eq!(decide(&f("a\n"), &Side::Absent, &f("c\n"), "m"), conflict(ConflictKind::MainDeleted));
        let link = |t: &str| Side::Symlink { target: t.into() };
        assert_eq!(decide(&link("a"), &link("b"), &link("c"), "m"), conflict(ConflictKind::Kind));
        let big = f(&"x\n".repeat(MERGE_SIZE_LIMIT / 2 + 1));
        assert_eq!(decide(&f("a\n"), &big, &f("c\n"), "m"), conflict(ConflictKind::TooLarge));
    }

    #[test]
    fn the_executable_bit_travels() {
        let x = |s: &str, e| Side::File { content: s.into(), executable: e };
        let base = x("1\n2\n3\n", false);
        assert_eq!(
            decide(&base, &x("one\n2\n3\n", false), &x("1\n2\n3\n", true), "m"),
            Outcome::Apply(x("one\n2\n3\n", true))
        );
    }
}
