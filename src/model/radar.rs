//! Where members' changes will meet (issue 47's radar): for each file that more than one member
//! changed, the lines of the base their changes touch. Two changes that touch the same or
//! adjacent lines of a file may not merge on their own (git's rule: a change next to another is a
//! conflict too); a file both added has no base, so it meets whole. Pure: the runtime reads the
//! members' changes, this says where they meet, and the runtime tries each place with the merge
//! itself (`runtime::teams::radar`) before it is told.

/// Two or more members changing the same place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overlap {
    /// The members (their names), in the order given.
    pub members: Vec<String>,
    /// The file.
    pub path: String,
    /// The lines of the base, from and to (1-based), when the file had a base.
    pub lines: Option<(usize, usize)>,
    /// The member's change meets what the project became since its base (one member then).
    pub project: bool,
}

impl Overlap {
    /// In words: "Ada and Bob both change src/lib.rs (lines 10–24)"; `short` names a member.
    pub fn said<'a>(&'a self, short: impl Fn(&'a str) -> &'a str) -> String {
        let mut names: Vec<&str> = self.members.iter().map(|m| short(m)).collect();
        if self.project {
            names.push("the project");
        }
        let who = match names.as_slice() {
            [one, two] => format!("{one} and {two} both change"),
            [rest @ .., last] => format!("{} and {last} all change", rest.join(", ")),
            [] => "Nobody changes".to_string(),
        };
        match self.lines {
            Some((a, b)) if a == b => format!("{who} {} (line {a})", self.path),
            Some((a, b)) => format!("{who} {} (lines {a}–{b})", self.path),
            None => format!("{who} {}", self.path),
        }
    }
}

/// One member's changes: its name, and per changed file the ranges of base lines its hunks
/// replace (`[start, end)`, 0-based; an insertion is an empty range where it goes). A file with
/// no ranges changed whole (added, binary, a link).
pub type MemberChanges<'a> = (&'a str, Vec<(&'a str, &'a [(usize, usize)])>);

/// Where the members' changes meet, file by file, in the order of the first member's files.
pub fn overlaps(members: &[MemberChanges<'_>]) -> Vec<Overlap> {
    let mut out: Vec<Overlap> = Vec::new();
    for (i, (a, files)) in members.iter().enumerate() {
        for (path, ranges) in files {
            for (b, others) in &members[i + 1..] {
                let Some((_, theirs)) = others.iter().find(|(p, _)| p == path) else { continue };
                let Some(lines) = meet(ranges, theirs) else { continue };
                match out.iter_mut().find(|o| o.path == *path && o.lines == lines) {
                    Some(o) => {
                        for m in [a, b] {
                            if !o.members.iter().any(|x| x == m) {
                                o.members.push(m.to_string());
                            }
                        }
                    }
                    None => {
                        let members = vec![a.to_string(), b.to_string()];
                        out.push(Overlap { members, path: path.to_string(), lines, project: false })
                    }
                }
            }
        }
    }
    out
}

/// Where two members' ranges of one file meet: `Some(None)` the whole file (one has no
/// ranges), `Some(Some(lines))` the base lines spanned by the ranges that touch, `None` apart.
pub fn meet(ours: &[(usize, usize)], theirs: &[(usize, usize)]) -> Option<Option<(usize, usize)>> {
    if ours.is_empty() || theirs.is_empty() {
        return Some(None);
    }
    let mut span: Option<(usize, usize)> = None;
    for &(a0, a1) in ours {
        for &(b0, b1) in theirs {
            // Touching counts: adjacent changes do not merge on their own.
            if a0 <= b1 && b0 <= a1 {
                let (lo, hi) = (a0.min(b0), a1.max(b1));
                span = Some(match span {
                    Some((s, e)) => (s.min(lo), e.max(hi)),
                    None => (lo, hi),
                });
            }
        }
    }
    // 1-based, an insertion shown as the line it goes before.
    span.map(|(s, e)| Some((s + 1, e.max(s + 1))))
}

/// The ranges of `old`'s lines (`[start, end)`, 0-based) that `new` replaces, hunk by hunk.
pub fn ranges_between(old: &str, new: &str) -> Vec<(usize, usize)> {
    let diff = similar::TextDiff::from_lines(old, new);
    diff.ops()
        .iter()
        .map(|op| op.as_tag_tuple())
        .filter(|(tag, _, _)| *tag != similar::DiffTag::Equal)
        .map(|(_, before, _)| (before.start, before.end))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_that_touch_meet_and_apart_ones_do_not() {
        let ada: &[(usize, usize)] = &[(9, 24)];
        let bob: &[(usize, usize)] = &[(20, 30)];
        let far: &[(usize, usize)] = &[(40, 41)];
        let members = vec![
            ("Ada", vec![("src/lib.rs", ada), ("README.md", far)]),
            ("Bob", vec![("src/lib.rs", bob), ("README.md", ada)]),
        ];
        let found = overlaps(&members);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].said(|m| m), "Ada and Bob both change src/lib.rs (lines 10–30)");
        let with_project =
            Overlap { members: vec!["Ada".into()], path: "a.rs".into(), lines: Some((2, 2)), project: true };
        assert_eq!(with_project.said(|m| m), "Ada and the project both change a.rs (line 2)");
        assert_eq!(ranges_between("a\nb\nc\n", "a\nB\nc\nd\n"), [(1, 2), (3, 3)]);
    }

    #[test]
    fn an_insertion_next_to_a_change_meets_it_and_files_without_lines_meet_whole() {
        let insert: &[(usize, usize)] = &[(5, 5)];
        let change: &[(usize, usize)] = &[(3, 5)];
        let whole: &[(usize, usize)] = &[];
        let members = vec![
            ("Ada", vec![("a.txt", insert), ("new.txt", whole)]),
            ("Bob", vec![("a.txt", change), ("new.txt", whole)]),
            ("Cy", vec![("a.txt", insert)]),
        ];
        let found = overlaps(&members);
        let said: Vec<String> = found.iter().map(|o| o.said(|m| m)).collect();
        assert_eq!(
            said,
            [
                "Ada, Bob and Cy all change a.txt (lines 4–5)",
                "Ada and Cy both change a.txt (line 6)",
                "Ada and Bob both change new.txt"
            ]
        );
    }
}
