//! A worktree member's change scan read from its index (no git process) finds what git's own scan
//! finds, for every kind of change, with real git making the project, the worktree and the
//! agent's staging, and on real histories (this project's own commits, and the repositories of
//! `SIDEKICKS_MERGE_CORPUS` when set, each commit's diff applied in a member made at its parent);
//! also once the agent staged or committed (the base's trees read in the process, issue 37); where
//! the repository asks for git's ways (a nested repository, a filter in `.gitattributes`), the scan
//! is git's. The reference is git itself, in its own processes (`by_git`).

use std::path::Path;
use std::process::Command;

use sidekicks::runtime::teams::{GitWorktreeProvider, IsolationProvider, MemberCopy, Side, read_side};

use crate::common;
use crate::common::{git, write};

/// A member `id` of `main`, its copy and state in `dir`.
fn member(main: &Path, dir: &Path, id: &str) -> MemberCopy {
    GitWorktreeProvider.create(main, &dir.join(format!("{id}-copy")), &dir.join(format!("{id}-state")), id, id).unwrap()
}

/// The project of [`project`] made in `dir/main`.
fn made(dir: &Path) -> std::path::PathBuf {
    let main = dir.join("main");
    std::fs::create_dir(&main).unwrap();
    project(&main);
    main
}

/// A project with ignored files and folders, a link, a script, a file kept in an ignored folder
/// (`git add -f`), uncommitted changes and a linked dependency folder.
fn project(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.email", "t@example.com"]);
    git(dir, &["config", "user.name", "T"]);
    write(dir, ".gitignore", "node_modules/\n*.log\nbuild/\n");
    write(dir, "a.txt", "one\ntwo\nthree\n");
    write(dir, "same.txt", "12345\n");
    write(dir, "run.sh", "echo hi\n");
    write(dir, "gone.txt", "bye\n");
    write(dir, "moved.txt", "moving\n");
    write(dir, "becomes-folder", "a file\n");
    write(dir, "touched.txt", "touched, not changed\n");
    write(dir, "build/kept.txt", "kept in an ignored folder\n");
    std::os::unix::fs::symlink("a.txt", dir.join("link")).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["add", "-f", "build/kept.txt"]);
    // The repository's own excludes (in the common folder, shared by its worktrees).
    std::fs::write(dir.join(".git/info/exclude"), "*.tmp\n").unwrap();
    git(dir, &["commit", "-q", "-m", "start"]);
    write(dir, "a.txt", "one\ntwo\nthree\nuncommitted\n");
    write(dir, "node_modules/dep/index.js", "module.exports = 1;\n");
}

/// What changed, as `changes` sees it: the paths whose content is not their base's.
fn changed(m: &MemberCopy, found: Vec<(String, Side)>) -> Vec<(String, Side)> {
    let mut found: Vec<(String, Side)> =
        found.into_iter().filter(|(p, base)| read_side(&m.copy, p).unwrap() != *base).collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn by_index(m: &MemberCopy) -> Vec<(String, Side)> {
    changed(m, GitWorktreeProvider.changed_with_bases(m).unwrap().unwrap())
}

/// Git's own scan, in git's processes: `git diff --name-only` against the base and `ls-files
/// --others`, then each path's base through `ls-tree` and `cat-file`.
fn by_git(m: &MemberCopy) -> Vec<(String, Side)> {
    let raw = |args: &[&str]| -> Vec<u8> {
        let out = Command::new("git").arg("-C").arg(&m.copy).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let list = |bytes: Vec<u8>| -> Vec<String> {
        bytes.split(|b| *b == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned()).collect()
    };
    let mut paths = list(raw(&["diff", "--no-renames", "--name-only", "-z", &m.base]));
    paths.extend(
        list(raw(&["ls-files", "--others", "--exclude-standard", "-z"])).into_iter().filter(|p| !p.ends_with('/')),
    );
    paths.retain(|p| !m.dependencies.iter().any(|d| p == d || p.starts_with(&format!("{d}/"))));
    paths.sort();
    paths.dedup();
    let bases = paths.iter().map(|p| {
        let listed = String::from_utf8_lossy(&raw(&["ls-tree", "-z", &m.base, "--", p])).into_owned();
        let Some((meta, _)) = listed.split_once('\t') else { return Side::Absent };
        let fields: Vec<&str> = meta.split(' ').collect();
        let content = || raw(&["cat-file", "blob", fields[2]]);
        match fields[0] {
            "120000" => Side::Symlink { target: String::from_utf8_lossy(&content()).into_owned() },
            mode if mode.starts_with("100") => Side::File { content: content(), executable: mode == "100755" },
            _ => Side::Absent,
        }
    });
    changed(m, paths.iter().cloned().zip(bases).collect())
}

#[test]
fn the_scan_from_the_index_finds_what_git_finds() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let m = member(&made(dir.path()), dir.path(), "m1");
    let c = &m.copy;
    assert!(GitWorktreeProvider::scans_from_its_index(&m), "a new member's index holds its base");
    assert_eq!(by_index(&m), Vec::new(), "nothing changed yet");

    write(c, "a.txt", "one\nTWO\nthree\nuncommitted\n");
    write(c, "same.txt", "54321\n");
    std::fs::set_permissions(c.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(c.join("gone.txt")).unwrap();
    std::fs::rename(c.join("moved.txt"), c.join("sub/moved.txt")).unwrap_or_else(|_| {
        std::fs::create_dir_all(c.join("sub")).unwrap();
        std::fs::rename(c.join("moved.txt"), c.join("sub/moved.txt")).unwrap();
    });
    std::fs::remove_file(c.join("becomes-folder")).unwrap();
    write(c, "becomes-folder/inside.txt", "now a folder\n");
    write(c, "touched.txt", "touched, not changed\n");
    std::fs::remove_file(c.join("link")).unwrap();
    std::os::unix::fs::symlink("same.txt", c.join("link")).unwrap();
    std::os::unix::fs::symlink("a.txt", c.join("new-link")).unwrap();
    write(c, "deep/new/folder/fresh.txt", "fresh\n");
    write(c, ".hidden", "a dotfile\n");
    write(c, "build/kept.txt", "changed in an ignored folder\n");
    write(c, "build/out.o", "ignored\n");
    write(c, "debug.log", "ignored\n");
    write(c, "deep/trace.log", "ignored\n");
    write(c, "scratch.tmp", "ignored by info/exclude\n");

    assert!(GitWorktreeProvider::scans_from_its_index(&m), "edits alone keep the index as it was");
    let found = by_index(&m);
    assert_eq!(found, by_git(&m));
    let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            ".hidden",
            "a.txt",
            "becomes-folder",
            "becomes-folder/inside.txt",
            "build/kept.txt",
            "deep/new/folder/fresh.txt",
            "gone.txt",
            "link",
            "moved.txt",
            "new-link",
            "run.sh",
            "same.txt",
            "sub/moved.txt"
        ]
    );
    assert_eq!(found[1].1, Side::File { content: b"one\ntwo\nthree\nuncommitted\n".to_vec(), executable: false });

    // The agent stages a file: the index is no longer the base; still read here, the base's
    // entries from its trees.
    write(c, "staged.txt", "staged\n");
    git(c, &["add", "staged.txt"]);
    assert!(GitWorktreeProvider::scans_from_its_index(&m));
    let found = by_index(&m);
    assert_eq!(found, by_git(&m));
    assert!(found.iter().any(|(p, _)| p == "staged.txt"));
    // It commits everything, then edits, removes from the index and unstages: the same.
    git(c, &["add", "-A"]);
    git(c, &["-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qm", "the agent's commit"]);
    write(c, "a.txt", "after the commit\n");
    git(c, &["rm", "-q", "--cached", "same.txt"]);
    git(c, &["rm", "-q", "run.sh"]);
    write(c, "committed-then-new.txt", "new\n");
    assert!(GitWorktreeProvider::scans_from_its_index(&m));
    let found = by_index(&m);
    assert_eq!(found, by_git(&m));
    let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    for path in ["a.txt", "run.sh", "staged.txt", "committed-then-new.txt", "new-link"] {
        assert!(names.contains(&path), "{path} in {names:?}");
    }
    GitWorktreeProvider.discard(&m).unwrap();
}

#[test]
fn a_nested_repository_or_a_filter_leaves_the_scan_to_git() {
    let dir = tempfile::tempdir().unwrap();
    let main = made(dir.path());
    let provider = GitWorktreeProvider;
    let m = member(&main, dir.path(), "m1");
    write(&m.copy, "vendor/lib/x.txt", "x\n");
    git(&m.copy.join("vendor/lib"), &["init", "-q"]);
    assert!(!GitWorktreeProvider::scans_from_its_index(&m), "a nested repository is git's to list");
    assert_eq!(by_index(&m), by_git(&m));
    std::fs::remove_dir_all(m.copy.join("vendor")).unwrap();
    assert!(GitWorktreeProvider::scans_from_its_index(&m));
    provider.discard(&m).unwrap();

    write(&main, ".gitattributes", "*.bin filter=lfs\n");
    git(&main, &["add", ".gitattributes"]);
    git(&main, &["commit", "-q", "-m", "attributes"]);
    let m = member(&main, dir.path(), "m2");
    assert!(!GitWorktreeProvider::scans_from_its_index(&m), "a filter is git's to apply");
    write(&m.copy, "a.txt", "changed\n");
    assert_eq!(by_index(&m), by_git(&m));
    provider.discard(&m).unwrap();
}

/// Each commit of `repo`'s recent first-parent history (up to `count`) applied, as its diff, in a
/// member made at its parent: both scans agree, and they find the paths the commit changed.
/// Returns how many commits were scanned from the index.
fn check_history(repo: &Path, dir: &Path, count: usize) -> usize {
    use std::io::Write;
    let main = dir.join("project");
    git(dir, &["clone", "-q", "--no-checkout", &repo.to_string_lossy(), &main.to_string_lossy()]);
    git(&main, &["config", "user.email", "t@example.com"]);
    git(&main, &["config", "user.name", "T"]);
    let commits = git(&main, &["rev-list", "--first-parent", "--no-merges", "-n", &count.to_string(), "HEAD"]);
    let mut from_index = 0;
    for (i, commit) in commits.lines().enumerate() {
        let parent = format!("{commit}^");
        if Command::new("git")
            .arg("-C")
            .arg(&main)
            .args(["rev-parse", "-q", "--verify", &parent])
            .output()
            .is_ok_and(|o| !o.status.success())
        {
            continue;
        }
        git(&main, &["checkout", "-q", "--force", "--detach", &parent]);
        git(&main, &["clean", "-qfdx"]);
        let m = member(&main, dir, &format!("h{i}"));
        let from_start = GitWorktreeProvider::scans_from_its_index(&m);
        let patch = Command::new("git")
            .arg("-C")
            .arg(&main)
            .args(["diff", "--binary", "--no-renames", &parent, commit])
            .output()
            .unwrap()
            .stdout;
        let mut apply = Command::new("git")
            .arg("-C")
            .arg(&m.copy)
            .args(["apply", "--whitespace=nowarn", "-"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        apply.stdin.take().unwrap().write_all(&patch).unwrap();
        assert!(apply.wait().unwrap().success(), "{commit}: the diff applies");
        let origin = format!("{} {commit}", repo.display());
        let found = by_index(&m);
        assert_eq!(found, by_git(&m), "{origin}");
        // Committed in the copy, as agents do: the same changes, still read here.
        if i % 2 == 0 {
            git(&m.copy, &["add", "-A"]);
            git(
                &m.copy,
                &[
                    "-c",
                    "user.name=a",
                    "-c",
                    "user.email=a@a",
                    "commit",
                    "-qm",
                    "agent",
                    "--no-verify",
                    "--allow-empty",
                ],
            );
            assert_eq!(by_index(&m), found, "{origin}: committed");
            assert_eq!(by_git(&m), found, "{origin}: committed, by git");
        }
        let mut expected: Vec<String> =
            git(&main, &["diff", "--name-only", "--no-renames", &parent, commit]).lines().map(String::from).collect();
        expected.retain(|p| !m.dependencies.iter().any(|d| p == d || p.starts_with(&format!("{d}/"))));
        // A file the commit added though the rules ignore it (`git add -f`) is not a change of a
        // member's, as it is not one for `git status`.
        let ignored = ignored(&m.copy, &expected);
        expected.retain(|p| !ignored.contains(p));
        let names: Vec<String> = found.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(names, expected, "{origin}");
        if from_start && GitWorktreeProvider::scans_from_its_index(&m) {
            from_index += 1;
        }
        GitWorktreeProvider.discard(&m).unwrap();
    }
    from_index
}

/// Those of `paths` (not tracked in `copy`) that git's ignore rules ignore there.
fn ignored(copy: &Path, paths: &[String]) -> Vec<String> {
    use std::io::Write;
    let mut check = Command::new("git")
        .arg("-C")
        .arg(copy)
        .args(["check-ignore", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    check.stdin.take().unwrap().write_all(paths.join("\n").as_bytes()).unwrap();
    // (Exit code 1: none is ignored.)
    let out = check.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect()
}

/// The commits of each history checked (60 each, run by hand on 2026-12-02: this project,
/// ripgrep and flask all from the index, jq — it has a submodule — all by git).
const COMMITS: usize = 12;

#[test]
fn the_scan_from_the_index_holds_on_real_histories() {
    let own = Path::new(env!("CARGO_MANIFEST_DIR"));
    for repo in common::history::own_and_corpus_repositories() {
        let dir = tempfile::tempdir().unwrap();
        let from_index = check_history(&repo, dir.path(), COMMITS);
        // (A repository with a submodule or a filter is git's to scan: the two agreeing is the test.)
        println!("{}: {from_index} of {COMMITS} commits scanned from the index", repo.display());
        if repo == own {
            assert!(from_index > 0, "this project's commits are scanned from the index");
        }
    }
}
