//! Reviewing a change: a file's diff as hunks of numbered lines with intra-line (word) emphasis,
//! the rows of a side-by-side view, applying only some hunks (accepting or rejecting one), the
//! changed files as a tree with counts, and the review's comments as one message. Pure: the
//! runtime computes diffs off the UI thread, the UI only lays out the rows it shows.

use std::ops::Range;

use similar::{Algorithm, DiffOp};

/// Texts larger than this are reviewed as a whole file (no line diff).
pub const REVIEW_SIZE_LIMIT: usize = 4 * 1024 * 1024;

/// The text of a file's bytes for a line diff: `None` for binary content (git's test), text that
/// is not UTF-8, or more than [`REVIEW_SIZE_LIMIT`].
pub fn reviewable_text(bytes: &[u8]) -> Option<&str> {
    if bytes.len() > REVIEW_SIZE_LIMIT || crate::model::merge::is_binary(bytes) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Lines longer than this get no intra-line emphasis (the word diff costs too much).
const EMPH_LIMIT: usize = 1_000;

/// What a line of a diff is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LineKind {
    /// The same on both sides.
    Context,
    /// Only in the new version.
    Added,
    /// Only in the old version.
    Removed,
}

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DiffLine {
    /// What it is.
    pub kind: LineKind,
    /// Its number in the old version (from 1), if it is there.
    pub old: Option<u32>,
    /// Its number in the new version (from 1), if it is there.
    pub new: Option<u32>,
    /// Its text, without the line ending.
    pub text: String,
    /// The byte ranges of `text` that changed against its counterpart line.
    pub emph: Vec<Range<usize>>,
}

/// A run of changes with context around.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hunk {
    /// The old lines it covers (0-based).
    pub old: Range<usize>,
    /// The new lines it covers (0-based).
    pub new: Range<usize>,
    /// Its lines.
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    /// `@@ -12,7 +12,9 @@`, as diff prints it.
    pub fn header(&self) -> String {
        let start = |r: &Range<usize>| if r.is_empty() { r.start } else { r.start + 1 };
        format!("@@ -{},{} +{},{} @@", start(&self.old), self.old.len(), start(&self.new), self.new.len())
    }

    /// Lines added and removed.
    pub fn counts(&self) -> (usize, usize) {
        let added = self.lines.iter().filter(|l| l.kind == LineKind::Added).count();
        (added, self.lines.iter().filter(|l| l.kind == LineKind::Removed).count())
    }
}

/// One file's diff.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDiff {
    /// Its hunks (none for a binary file or an identical text).
    pub hunks: Vec<Hunk>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
}

/// The lines of `text`, each with its ending.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn ops(old: &[&str], new: &[&str]) -> Vec<Vec<DiffOp>> {
    let ops = similar::capture_diff_slices(Algorithm::Myers, old, new);
    similar::group_diff_ops(ops, CONTEXT)
}

fn trimmed(line: &str) -> &str {
    line.strip_suffix('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).unwrap_or(line)
}

/// The diff of `old` and `new` (text; an absent side is empty).
pub fn diff(old: &str, new: &str) -> FileDiff {
    let (a, b) = (lines(old), lines(new));
    let mut out = FileDiff::default();
    for group in ops(&a, &b) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let mut hunk = Hunk {
            old: first.old_range().start..last.old_range().end,
            new: first.new_range().start..last.new_range().end,
            lines: Vec::new(),
        };
        for op in &group {
            let line = |kind, old: Option<usize>, new: Option<usize>, text: &str| DiffLine {
                kind,
                old: old.map(|i| i as u32 + 1),
                new: new.map(|i| i as u32 + 1),
                text: trimmed(text).to_string(),
                emph: Vec::new(),
            };
            match *op {
                DiffOp::Equal { old_index, new_index, len } => {
                    for i in 0..len {
                        hunk.lines.push(line(
                            LineKind::Context,
                            Some(old_index + i),
                            Some(new_index + i),
                            a[old_index + i],
                        ));
                    }
                }
                DiffOp::Delete { old_index, old_len, .. } => {
                    for (i, text) in a.iter().enumerate().skip(old_index).take(old_len) {
                        hunk.lines.push(line(LineKind::Removed, Some(i), None, text));
                    }
                }
                DiffOp::Insert { new_index, new_len, .. } => {
                    for (i, text) in b.iter().enumerate().skip(new_index).take(new_len) {
                        hunk.lines.push(line(LineKind::Added, None, Some(i), text));
                    }
                }
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    let start = hunk.lines.len();
                    for (i, text) in a.iter().enumerate().skip(old_index).take(old_len) {
                        hunk.lines.push(line(LineKind::Removed, Some(i), None, text));
                    }
                    for (i, text) in b.iter().enumerate().skip(new_index).take(new_len) {
                        hunk.lines.push(line(LineKind::Added, None, Some(i), text));
                    }
                    // Pair the n-th removed line with the n-th added one.
                    for k in 0..old_len.min(new_len) {
                        let (r, s) = (start + k, start + old_len + k);
                        let (re, ae) = emphasis(&hunk.lines[r].text, &hunk.lines[s].text);
                        hunk.lines[r].emph = re;
                        hunk.lines[s].emph = ae;
                    }
                }
            }
        }
        let (added, removed) = hunk.counts();
        out.added += added;
        out.removed += removed;
        out.hunks.push(hunk);
    }
    out
}

/// The byte ranges that differ between two versions of a line, word by word (none when the
/// lines have nothing in common: all of it changed, no use in emphasising).
fn emphasis(old: &str, new: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    if old.len() > EMPH_LIMIT || new.len() > EMPH_LIMIT {
        return (Vec::new(), Vec::new());
    }
    let diff = similar::TextDiff::configure().algorithm(Algorithm::Myers).diff_words(old, new);
    let (mut o, mut n) = (Vec::new(), Vec::new());
    let (mut at_old, mut at_new, mut shared) = (0usize, 0usize, false);
    let push = |v: &mut Vec<Range<usize>>, r: Range<usize>| match v.last_mut() {
        Some(last) if last.end == r.start => last.end = r.end,
        _ => v.push(r),
    };
    for change in diff.iter_all_changes() {
        let len = change.value().len();
        match change.tag() {
            similar::ChangeTag::Equal => {
                at_old += len;
                at_new += len;
                shared |= !change.value().trim().is_empty();
            }
            similar::ChangeTag::Delete => {
                push(&mut o, at_old..at_old + len);
                at_old += len;
            }
            similar::ChangeTag::Insert => {
                push(&mut n, at_new..at_new + len);
                at_new += len;
            }
        }
    }
    if shared { (o, n) } else { (Vec::new(), Vec::new()) }
}

/// The text made of `old` with the hunks `take` says yes to replaced by their new side: every
/// hunk gives `new`, none gives `old`, byte for byte. Hunks are numbered as [`diff`] numbers them.
pub fn apply_hunks(old: &str, new: &str, take: impl Fn(usize) -> bool) -> String {
    let (a, b) = (lines(old), lines(new));
    let mut out = String::with_capacity(old.len().max(new.len()));
    let mut at = 0;
    for (i, group) in ops(&a, &b).iter().enumerate() {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let (old_r, new_r) =
            (first.old_range().start..last.old_range().end, first.new_range().start..last.new_range().end);
        a[at..old_r.start].iter().for_each(|l| out.push_str(l));
        match take(i) {
            true => b[new_r].iter().for_each(|l| out.push_str(l)),
            false => a[old_r.clone()].iter().for_each(|l| out.push_str(l)),
        }
        at = old_r.end;
    }
    a[at..].iter().for_each(|l| out.push_str(l));
    out
}

/// A row of the side-by-side view: the old line on the left, the new on the right (indexes
/// into the hunk's lines).
pub type SplitRow = (Option<usize>, Option<usize>);

/// The rows of a hunk side by side: context lines face themselves; a run of removed lines faces
/// the run of added lines that follows it, line by line.
pub fn split_rows(hunk: &Hunk) -> Vec<SplitRow> {
    let mut rows = Vec::new();
    let mut i = 0;
    let lines = &hunk.lines;
    while i < lines.len() {
        match lines[i].kind {
            LineKind::Context => {
                rows.push((Some(i), Some(i)));
                i += 1;
            }
            _ => {
                let removed: Vec<usize> =
                    (i..lines.len()).take_while(|&j| lines[j].kind == LineKind::Removed).collect();
                let after = i + removed.len();
                let added: Vec<usize> =
                    (after..lines.len()).take_while(|&j| lines[j].kind == LineKind::Added).collect();
                for k in 0..removed.len().max(added.len()) {
                    rows.push((removed.get(k).copied(), added.get(k).copied()));
                }
                i = after + added.len();
            }
        }
    }
    rows
}

/// A row of the changed-files tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeRow {
    /// How deep (0: at the top).
    pub depth: usize,
    /// The folder's or file's name (folders with one child folder are joined: `src/ui`).
    pub name: String,
    /// The file's index in the list given, `None` for a folder.
    pub file: Option<usize>,
    /// Lines added below it.
    pub added: usize,
    /// Lines removed below it.
    pub removed: usize,
}

/// The tree of `files` (path, added, removed), folders first then files, each by name.
pub fn tree(files: &[(&str, usize, usize)]) -> Vec<TreeRow> {
    #[derive(Default)]
    struct Node {
        folders: std::collections::BTreeMap<String, Node>,
        files: Vec<(String, usize)>,
        added: usize,
        removed: usize,
    }
    let mut root = Node::default();
    for (i, (path, added, removed)) in files.iter().enumerate() {
        let mut node = &mut root;
        node.added += added;
        node.removed += removed;
        let mut parts: Vec<&str> = path.split('/').collect();
        let name = parts.pop().unwrap_or_default();
        for part in parts {
            node = node.folders.entry(part.to_string()).or_default();
            node.added += added;
            node.removed += removed;
        }
        node.files.push((name.to_string(), i));
    }
    fn walk(node: &Node, depth: usize, files: &[(&str, usize, usize)], out: &mut Vec<TreeRow>) {
        for (name, mut child) in &node.folders {
            let mut name = name.clone();
            while child.files.is_empty() && child.folders.len() == 1 {
                let (next, grand) = child.folders.iter().next().expect("one folder");
                name = format!("{name}/{next}");
                child = grand;
            }
            out.push(TreeRow { depth, name, file: None, added: child.added, removed: child.removed });
            walk(child, depth + 1, files, out);
        }
        let mut own = node.files.clone();
        own.sort();
        for (name, i) in own {
            out.push(TreeRow { depth, name, file: Some(i), added: files[i].1, removed: files[i].2 });
        }
    }
    let mut out = Vec::new();
    walk(&root, 0, files, &mut out);
    out
}

/// A comment on a line of a file under review.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Comment {
    /// The file.
    pub path: String,
    /// The line's number in the new version, or in the old one for a removed line.
    pub line: u32,
    /// The line was removed (its number is the old version's).
    pub removed: bool,
    /// What the person wrote.
    pub text: String,
}

/// The review as one message to the member: "In src/a.rs line 12: …", one per comment, by file
/// and line.
pub fn review_message(comments: &[Comment]) -> String {
    let mut sorted: Vec<&Comment> = comments.iter().filter(|c| !c.text.trim().is_empty()).collect();
    sorted.sort();
    let mut out = String::from("Review of your changes:\n");
    for c in sorted {
        let which = if c.removed { " (removed)" } else { "" };
        out.push_str(&format!("- In {} line {}{which}: {}\n", c.path, c.line, c.text.trim()));
    }
    out.push_str("Please address these comments in your copy.");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_number_lines_and_apply_any_subset_byte_for_byte() {
        let old: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let mut new = old.replace("line 5\n", "line five\n").replace("line 30\n", "");
        new.push_str("tail");
        let d = diff(&old, &new);
        assert_eq!(d.hunks.len(), 3, "{:#?}", d.hunks);
        assert_eq!(d.hunks[0].header(), "@@ -2,7 +2,7 @@");
        let five = d.hunks[0].lines.iter().find(|l| l.kind == LineKind::Added).unwrap();
        assert_eq!((five.new, five.text.as_str()), (Some(5), "line five"));
        assert_eq!(five.emph, vec![5..9], "only the changed word");
        assert_eq!((d.added, d.removed), (2, 2));
        assert_eq!(apply_hunks(&old, &new, |_| true), new);
        assert_eq!(apply_hunks(&old, &new, |_| false), old);
        let only_middle = apply_hunks(&old, &new, |i| i == 1);
        assert!(!only_middle.contains("line 30\n") && only_middle.contains("line 5\n"));
        // What is left after taking one hunk is the other two.
        assert_eq!(diff(&only_middle, &new).hunks.len(), 2);
    }

    #[test]
    fn side_by_side_pairs_removed_with_added_runs() {
        let d = diff("a\nb\nc\nd\n", "a\nB\nC\nX\nd\n");
        let rows = split_rows(&d.hunks[0]);
        let kinds: Vec<_> = rows
            .iter()
            .map(|(l, r)| (l.map(|i| d.hunks[0].lines[i].text.clone()), r.map(|i| d.hunks[0].lines[i].text.clone())))
            .collect();
        let s = |x: &str| Some(x.to_string());
        assert_eq!(kinds, vec![(s("a"), s("a")), (s("b"), s("B")), (s("c"), s("C")), (None, s("X")), (s("d"), s("d"))]);
    }

    #[test]
    fn the_tree_joins_lone_folders_and_sums_counts() {
        let rows = tree(&[("src/ui/a.rs", 3, 1), ("src/ui/b.rs", 1, 0), ("README.md", 2, 2)]);
        let shown: Vec<_> = rows.iter().map(|r| (r.depth, r.name.as_str(), r.file, r.added, r.removed)).collect();
        assert_eq!(
            shown,
            vec![
                (0, "src/ui", None, 4, 1),
                (1, "a.rs", Some(0), 3, 1),
                (1, "b.rs", Some(1), 1, 0),
                (0, "README.md", Some(2), 2, 2)
            ]
        );
    }

    #[test]
    fn the_message_lists_comments_by_file_and_line() {
        let c = |path: &str, line, text: &str| Comment { path: path.into(), line, removed: false, text: text.into() };
        let text = review_message(&[c("src/b.rs", 3, "why?"), c("src/a.rs", 12, " rename this "), c("x", 1, "  ")]);
        assert_eq!(
            text,
            "Review of your changes:\n- In src/a.rs line 12: rename this\n- In src/b.rs line 3: why?\nPlease address these comments in your copy."
        );
    }
}
