//! The merge layer's decision for one path, pure: given what the path was in the base (the member's
//! copy when it was made), what it is in the main folder now and in the member's copy now, what
//! happens to the main folder. Text changed on both sides is merged three-way by git's own xdiff
//! through libgit2 (the same result as `git merge-file main base member`); everything else
//! changed on both sides is a conflict, so no change from either side is ever lost without one.

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
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
    /// A folder and a file (or link) meet at the path: one side made a folder where the other
    /// has a file, or changed a file inside a folder the other replaced by a file or link.
    Folder,
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
/// main base member` with the labels given: the merged bytes and whether it conflicted. `None` when
/// the texts cannot be merged line by line at all (libgit2 refused them: out of memory).
///
/// This is git's own merge: libgit2 carries git's xdiff (Myers diff with slider compaction, and
/// conflicts refined by diffing the two sides, then joined when only a few letterless lines stand
/// between them: the "zealous-alnum" level `git merge-file` uses). See ADR 0011 for the measurement
/// that chose it.
pub fn merge_text(base: &[u8], main: &[u8], member: &[u8], labels: [&str; 3]) -> Option<(Vec<u8>, bool)> {
    use libgit2_sys as raw;
    use std::ffi::CString;
    raw::init();
    // A label with a NUL cannot be passed to C: cut it there (labels are names we make).
    let label = |l: &str| CString::new(l.split('\0').next().unwrap_or_default()).expect("no NUL left");
    let [main_label, base_label, member_label] = labels.map(label);
    let input = |text: &[u8]| raw::git_merge_file_input {
        version: 1, // GIT_MERGE_FILE_INPUT_VERSION
        ptr: text.as_ptr().cast(),
        size: text.len(),
        path: std::ptr::null(),
        mode: 0,
    };
    let (base_input, main_input, member_input) = (input(base), input(main), input(member));
    // SAFETY: the options struct is plain data initialised by libgit2 itself; every pointer we put
    // in it (labels, inputs) outlives the call; the result is freed once, below.
    unsafe {
        let mut options: raw::git_merge_file_options = std::mem::zeroed();
        if raw::git_merge_file_options_init(&mut options, 1 /* GIT_MERGE_FILE_OPTIONS_VERSION */) != 0 {
            return None;
        }
        options.ancestor_label = base_label.as_ptr();
        options.our_label = main_label.as_ptr();
        options.their_label = member_label.as_ptr();
        options.flags = raw::GIT_MERGE_FILE_SIMPLIFY_ALNUM;
        let mut result: raw::git_merge_file_result = std::mem::zeroed();
        if raw::git_merge_file(&mut result, &base_input, &main_input, &member_input, &options) != 0 {
            return None;
        }
        let merged = if result.ptr.is_null() {
            Vec::new()
        } else {
            std::slice::from_raw_parts(result.ptr.cast::<u8>(), result.len).to_vec()
        };
        let conflicted = result.automergeable == 0;
        raw::git_merge_file_result_free(&mut result);
        if conflicted && (main.is_empty() || member.is_empty()) {
            return Some((label_empty_side(&merged, main.is_empty(), labels[0], labels[2]), true));
        }
        Some((merged, conflicted))
    }
}

/// libgit2 leaves out the label of an empty side (git does not): its conflicts then open with a
/// bare `<<<<<<<` just before `=======` (main empty) or close with a bare `>>>>>>>` just after it
/// (the member empty). Puts the label back on exactly those lines.
fn label_empty_side(merged: &[u8], main_empty: bool, main_label: &str, member_label: &str) -> Vec<u8> {
    let all: Vec<&[u8]> = lines(merged).collect();
    let mut out = Vec::with_capacity(merged.len() + 64);
    for (i, line) in all.iter().enumerate() {
        let eol = &line[eol_trimmed(line).len()..];
        let is = |l: Option<&&[u8]>, marker: &[u8]| l.is_some_and(|l| eol_trimmed(l) == marker);
        if main_empty && eol_trimmed(line) == b"<<<<<<<" && is(all.get(i + 1), b"=======") {
            out.extend_from_slice(format!("<<<<<<< {main_label}").as_bytes());
            out.extend_from_slice(eol);
        } else if !main_empty && eol_trimmed(line) == b">>>>>>>" && i > 0 && is(all.get(i - 1), b"=======") {
            out.extend_from_slice(format!(">>>>>>> {member_label}").as_bytes());
            out.extend_from_slice(eol);
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The lines of `text`, each with its line end.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split_inclusive(|b| *b == b'\n')
}

fn eol_trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// True when `side` is a file that still holds conflict markers as Sidekicks writes them: a
/// line `<<<<<<< main`, then a line `=======`, then a line `>>>>>>> ` and a name. (A merge
/// refuses such a file while the path is in conflict, as git refuses unmerged paths.)
pub fn holds_markers(side: &Side) -> bool {
    let Side::File { content, .. } = side else { return false };
    let mut wanted = 0;
    for line in content.split(|b| *b == b'\n').map(eol_trimmed) {
        wanted = match wanted {
            0 if line == b"<<<<<<< main" => 1,
            1 if line == b"=======" => 2,
            2 if line.starts_with(b">>>>>>> ") => return true,
            w => w,
        };
    }
    false
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
            let Some((merged, conflicted)) = merge_text(base_text, ours, theirs, ["main", "base", member_label]) else {
                return conflict(ConflictKind::TooLarge);
            };
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

    #[test]
    fn markers_are_found_only_in_order_and_whole() {
        let m = |t: &str| holds_markers(&Side::file(t));
        assert!(m("a\n<<<<<<< main\nx\n=======\ny\n>>>>>>> Bob\nb\n"));
        assert!(m("<<<<<<< main\r\n=======\r\n>>>>>>> Bob · squad\r\n"), "CRLF lines");
        assert!(!m("<<<<<<< main\nx\n=======\ny\n"), "no end");
        assert!(!m(">>>>>>> Bob\n=======\n<<<<<<< main\n"), "out of order");
        assert!(!m("  <<<<<<< main\n=======\n>>>>>>> Bob\n"), "indented: not a marker");
        assert!(!m("<<<<<<< HEAD\n=======\n>>>>>>> Bob\n"), "git's own, not Sidekicks'");
        assert!(!holds_markers(&Side::Symlink { target: "<<<<<<< main".into() }));
    }

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

    fn git_merge_file(base: &str, main: &str, member: &str) -> (Vec<u8>, bool) {
        let dir = std::env::temp_dir().join(format!("sidekicks-merge-unit-{}-{}", std::process::id(), base.len()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in [("main", main), ("base", base), ("member", member)] {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let out = std::process::Command::new("git")
            .current_dir(&dir)
            .args(["merge-file", "-p", "-L", "main", "-L", "base", "-L", "member", "main", "base", "member"])
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        (out.stdout, out.status.code().unwrap() > 0)
    }

    /// Issue 14, case 1: both add the same block among repeated lines, the member also removes the
    /// block after it. git sees a conflict; a diff that slides the insertion the other way merged
    /// "cleanly" with the block twice.
    #[test]
    fn an_insertion_among_repeated_lines_conflicts_as_in_git() {
        let strsim = "[[package]]\nname = \"strsim\"\nversion = \"0.6.0\"\nsource = \"registry\"\n\n";
        let term_size = "[[package]]\nname = \"term_size\"\nversion = \"0.3.0\"\nsource = \"registry\"\ndependencies = [\n \"kernel32-sys\",\n]\n\n";
        let tempdir = "[[package]]\nname = \"tempdir\"\nversion = \"0.3.5\"\nsource = \"registry\"\ndependencies = [\n \"rand\",\n]\n\n";
        let termcolor = "[[package]]\nname = \"termcolor\"\nversion = \"0.3.3\"\n";
        let base = format!("{strsim}{term_size}{termcolor}");
        let main = format!("{strsim}{tempdir}{term_size}{termcolor}");
        let member = format!("{strsim}{tempdir}{termcolor}");
        let ours = merge_text(base.as_bytes(), main.as_bytes(), member.as_bytes(), ["main", "base", "member"]).unwrap();
        assert!(ours.1, "a conflict, as git says");
        assert_eq!(ours, git_merge_file(&base, &main, &member));
        let text = String::from_utf8(ours.0).unwrap();
        assert!(text.contains("<<<<<<< main\n"), "{text}");
    }

    /// Issue 14, case 2: both add the same function with two different lines: two one-line
    /// conflicts (git refines a conflict by diffing the two sides), not one of the whole function.
    #[test]
    fn a_conflict_is_refined_to_the_lines_that_differ() {
        let base = "use serde;\n\nfn main() {}\n";
        let body = |a: &str, b: &str| {
            format!(
                "use serde;\n\nfn show(v: &V) -> String {{\n    let s = serde_json::{a}(v).unwrap();\n    let t = s.trim();\n    let u = t.to_uppercase();\n    let w = u.replace(' ', \"_\");\n    let x = w.len();\n    let y = x + 1;\n    {b}(&w, y)\n}}\n\nfn main() {{}}\n"
            )
        };
        let main = body("to_string", "pretty");
        let member = body("to_string_pretty", "pretty_print");
        let (merged, conflicted) =
            merge_text(base.as_bytes(), main.as_bytes(), member.as_bytes(), ["main", "base", "member"]).unwrap();
        assert!(conflicted);
        let text = String::from_utf8(merged.clone()).unwrap();
        assert_eq!(text.matches("<<<<<<< main").count(), 2, "{text}");
        assert!(text.contains("    let t = s.trim();\n"), "the common lines stay outside: {text}");
        assert_eq!((merged, conflicted), git_merge_file(base, &main, &member));
    }

    #[test]
    fn an_emptied_side_keeps_its_label_in_the_markers() {
        let base = "a\nb\nc\n";
        for (main, member) in [("", "a\nB\nc\n"), ("a\nB\nc\n", "")] {
            let ours =
                merge_text(base.as_bytes(), main.as_bytes(), member.as_bytes(), ["main", "base", "member"]).unwrap();
            assert_eq!(ours, git_merge_file(base, main, member), "main {main:?} member {member:?}");
        }
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
