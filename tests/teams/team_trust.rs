//! Trust in the team layer (issue 45), through `sidekicks team` processes on a real git project:
//! a reader (`team status`, `team list`) while a merge of thousands of edits is under way loses
//! none of them; a link the project holds never lets a copy team delete outside files; a
//! member's own git settings (its copy's `.git` pointed at a git folder it made) never run here;
//! a recipe a member wrote runs only once the person accepts it by name.

use std::path::{Path, PathBuf};

use crate::common;
use common::team_run::team;
use common::{BIN, config_text, git};

/// A person's folders and a config with agents ada and bob (demo agents) working in `home`.
struct Person {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    project: PathBuf,
}

impl Person {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let project = root.join("project");
        std::fs::create_dir(&project).unwrap();
        let home = root.join("home");
        std::fs::create_dir(&home).unwrap();
        let config = root.join("sidekicks.toml");
        let agents =
            [("ada", BIN, &["demo-agent"][..]), ("bob", BIN, &["demo-agent"][..]), ("cy", BIN, &["demo-agent"][..])];
        std::fs::write(&config, config_text("", &agents, &home)).unwrap();
        Self { _dir: dir, root, config, project }
    }

    fn commit(&self) {
        git(&self.project, &["init", "-q", "-b", "main"]);
        git(&self.project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
        git(&self.project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    }

    fn team(&self, args: &[&str]) -> (i32, String, String) {
        team(&self.config, &self.root, args)
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let (code, out, err) = self.team(args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
    }

    /// Makes team `squad` of `agents` with `provider`; the members' copies.
    fn squad(&self, provider: &str, agents: &[&str]) -> Vec<PathBuf> {
        let mut args = vec!["new", "--project", self.project.to_str().unwrap(), "--name", "squad", "--json"];
        args.extend(["--provider", provider]);
        for a in agents {
            args.extend(["--agent", a]);
        }
        let made = self.json(&args);
        let members = made["members"].as_array().unwrap();
        members.iter().map(|m| PathBuf::from(m["copy"].as_str().unwrap())).collect()
    }
}

const FILES: usize = 2500;

fn file(i: usize) -> String {
    format!("src/m{}/f{i}.txt", i % 40)
}

#[test]
fn a_reader_during_a_merge_loses_no_edit() {
    let p = Person::new();
    for i in 0..FILES {
        let path = p.project.join(file(i));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("line one of {i}\nline two\n")).unwrap();
    }
    p.commit();
    let copy = p.squad("worktree", &["ada"]).remove(0);
    for i in 0..FILES {
        std::fs::write(copy.join(file(i)), format!("line one of {i}\nedited by ada\n")).unwrap();
    }
    let edited = |root: &Path| {
        (0..FILES).filter(|i| std::fs::read_to_string(root.join(file(*i))).unwrap().contains("edited by ada")).count()
    };
    // Readers in a loop for as long as the merge runs.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = [&["status", "squad", "--json"][..], &["list", "--json"][..]]
        .into_iter()
        .map(|args| {
            let (config, root, done) = (p.config.clone(), p.root.clone(), done.clone());
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            std::thread::spawn(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let mut reads = 0;
                while !done.load(std::sync::atomic::Ordering::SeqCst) || reads == 0 {
                    let (code, out, err) = team(&config, &root, &args);
                    assert_eq!(code, 0, "a reader failed: {out}{err}");
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    for reader in readers {
        assert!(reader.join().unwrap() > 0);
    }
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(report["applied"].as_array().map(Vec::len), Some(FILES), "{out}");
    assert_eq!(edited(&p.project), FILES, "every edit the merge said it applied is in the project");
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let again: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(again["applied"], serde_json::json!([]), "nothing left to merge: {out}");
}

#[test]
fn a_link_in_the_project_never_lets_a_copy_team_delete_outside_files() {
    let p = Person::new();
    let outside = p.root.join("outside/shared");
    std::fs::create_dir_all(outside.join("precious")).unwrap();
    std::fs::write(outside.join("precious/keep.txt"), "keep me\n").unwrap();
    std::fs::write(p.project.join("a.txt"), "a\n").unwrap();
    std::os::unix::fs::symlink(&outside, p.project.join("vendor")).unwrap();
    std::fs::write(p.project.join(".worktreeinclude"), "vendor/precious\n").unwrap();
    let copy = p.squad("copy", &["ada"]).remove(0);
    assert_eq!(std::fs::read_to_string(outside.join("precious/keep.txt")).unwrap(), "keep me\n");
    assert_eq!(std::fs::read_to_string(copy.join("a.txt")).unwrap(), "a\n");
    // Discarding the team leaves the outside folder too.
    let (code, out, err) = p.team(&["discard", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(outside.join("precious/keep.txt")).unwrap(), "keep me\n");
}

/// The member's record (its `member.json`) under the person's data folder.
fn member_of(root: &Path) -> sidekicks::runtime::teams::MemberCopy {
    fn find(dir: &Path) -> Option<PathBuf> {
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == "member.json") {
                return Some(dir.to_path_buf());
            }
            if entry.file_type().is_ok_and(|t| t.is_dir())
                && path.file_name().is_some_and(|n| n != "base")
                && let Some(found) = find(&path)
            {
                return Some(found);
            }
        }
        None
    }
    let state = find(&root.join("user/data")).expect("a member's state");
    sidekicks::runtime::teams::MemberCopy::load(&state).unwrap()
}

#[test]
fn a_members_own_git_settings_never_run_here() {
    let p = Person::new();
    std::fs::write(p.project.join("notes.txt"), "one\n").unwrap();
    p.commit();
    let copy = p.squad("worktree", &["ada"]).remove(0);
    let member = member_of(&p.root);
    // The member makes a git folder of its own (a full copy of the project's, with every object)
    // whose settings run commands, and points its copy's `.git` at it.
    let ran = p.root.join("ran");
    let evil = copy.join(".evil-git");
    let copied = std::process::Command::new("cp").arg("-r").arg(p.project.join(".git")).arg(&evil).status().unwrap();
    assert!(copied.success());
    let _ = std::fs::remove_dir_all(evil.join("worktrees"));
    let hook = format!("echo ran >> {}", ran.display());
    for (key, value) in [
        ("core.fsmonitor", hook.clone()),
        ("filter.evil.clean", format!("{hook}; cat")),
        ("filter.evil.process", hook.clone()),
        ("core.hooksPath", "/nonexistent".to_string()),
    ] {
        git(&evil, &["config", key, &value]);
    }
    std::fs::write(copy.join(".git"), "gitdir: .evil-git\n").unwrap();
    std::fs::write(copy.join(".gitattributes"), "* filter=evil\n").unwrap();
    std::fs::write(copy.join("notes.txt"), "one\ntwo\n").unwrap();
    std::fs::write(copy.join("new.txt"), "new\n").unwrap();
    // What the window's change scan and the merge read: the member's changes, with the
    // project's own settings.
    let paths = member.provider().changed_paths(&member).unwrap();
    let listed = sidekicks::runtime::teams::changes(&member).unwrap();
    let bases = sidekicks::runtime::teams::read_bases(&member, &["notes.txt".to_string()]).unwrap();
    assert!(paths.contains(&"notes.txt".to_string()) && paths.contains(&"new.txt".to_string()), "{paths:?}");
    assert!(listed.iter().any(|c| c.path == "notes.txt"), "{listed:?}");
    assert!(matches!(&bases[0], sidekicks::runtime::teams::Side::File { content, .. } if content == b"one\n"));
    let (code, out, err) = p.team(&["diff", "squad", "ada"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(p.project.join("notes.txt")).unwrap(), "one\ntwo\n");
    assert!(!ran.exists(), "a member's git settings ran here: {}", std::fs::read_to_string(&ran).unwrap_or_default());
}

#[test]
fn a_recipe_a_member_wrote_runs_only_once_the_person_accepts_it() {
    let p = Person::new();
    std::fs::write(p.project.join("notes.txt"), "one\n").unwrap();
    p.commit();
    let copy = p.squad("worktree", &["ada"]).remove(0);
    // The member writes a recipe whose check would run a command of its own in the project.
    let ran = p.root.join("ran");
    std::fs::create_dir_all(copy.join(".sidekicks")).unwrap();
    let recipe = format!("[check]\ncommand = \"echo ran >> {}\"\n", ran.display());
    std::fs::write(copy.join(".sidekicks/team.toml"), &recipe).unwrap();
    std::fs::write(copy.join("notes.txt"), "one\ntwo\n").unwrap();
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    let said = format!("{out}{err}");
    assert_eq!(std::fs::read_to_string(p.project.join(".sidekicks/team.toml")).unwrap(), recipe, "{said}");
    assert!(!ran.exists(), "the member's check ran after its own merge: {said}");
    assert_ne!(code, 0, "the check that was not run is not a success: {said}");
    assert!(said.contains("written by ada · squad") && said.contains("accept-recipe"), "{said}");
    // The next merge does not run it either, nor does a new team's setup use it.
    std::fs::write(copy.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    let (_, out, err) = p.team(&["merge", "squad", "--json"]);
    assert!(!ran.exists(), "{out}{err}");
    // Accepted by name: it is the person's now, and runs.
    let (code, out, err) = p.team(&["accept-recipe", "squad"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("written by ada · squad"), "{out}");
    std::fs::write(copy.join("notes.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "ran\n");
    // The person's own edit of the recipe is theirs: it runs without asking.
    let own = format!("[check]\ncommand = \"echo mine >> {}\"\n", ran.display());
    std::fs::write(p.project.join(".sidekicks/team.toml"), &own).unwrap();
    std::fs::write(copy.join("notes.txt"), "one\ntwo\nthree\nfour\nfive\n").unwrap();
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "ran\nmine\n");
}

/// A file name of 250 bytes (legal: the limit is 255) failed the whole merge ("File name too
/// long" on the staging name).
#[test]
fn a_file_with_a_long_name_merges() {
    let p = Person::new();
    let long = format!("{}.txt", "n".repeat(246));
    std::fs::write(p.project.join(&long), "one\n").unwrap();
    p.commit();
    let copy = p.squad("worktree", &["ada"]).remove(0);
    std::fs::write(copy.join(&long), "one\ntwo\n").unwrap();
    let new = format!("{}.md", "m".repeat(247));
    std::fs::write(copy.join(&new), "new\n").unwrap();
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(p.project.join(&long)).unwrap(), "one\ntwo\n");
    assert_eq!(std::fs::read_to_string(p.project.join(&new)).unwrap(), "new\n");
}

/// What a member wrote reaches the person's terminal as words: `team diff` and `team status`
/// show an escape sequence in a file or a file name, never send it raw.
#[test]
fn a_members_escape_sequences_never_reach_the_terminal_raw() {
    let p = Person::new();
    std::fs::write(p.project.join("notes.txt"), "one\n").unwrap();
    p.commit();
    let copy = p.squad("worktree", &["ada"]).remove(0);
    std::fs::write(copy.join("notes.txt"), "one\n\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\n").unwrap();
    std::fs::write(copy.join("\x1b]0;owned\x07.txt"), "x\n").unwrap();
    for args in [&["diff", "squad", "ada"][..], &["status", "squad"][..]] {
        let (code, out, err) = p.team(args);
        assert_eq!(code, 0, "{out}{err}");
        assert!(!out.contains('\x1b') && !err.contains('\x1b'), "{args:?}: {out:?}{err:?}");
    }
    let (_, out, _) = p.team(&["diff", "squad", "ada"]);
    assert!(out.contains("^[]52;c;cm0gLXJmIH4=^G^[[2J"), "{out:?}");
}

/// Spawns `sidekicks team ARGS` for the person (not waited for).
fn spawn_team(p: &Person, args: &[&str]) -> std::process::Child {
    common::team_run::command(&p.config, &p.root, args).spawn().unwrap()
}

const SHARED: usize = 600;

/// A project of SHARED files of five lines, and a team of ada, bob and cy, each of whom changes
/// its own line of every file.
fn three_members_editing_every_file() -> (Person, Vec<PathBuf>) {
    let p = Person::new();
    for i in 0..SHARED {
        let path = p.project.join(file(i));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("{i}\na\n-\nb\n-\nc\n")).unwrap();
    }
    p.commit();
    let copies = p.squad("worktree", &["ada", "bob", "cy"]);
    for (copy, (from, to)) in copies.iter().zip([("a", "ADA"), ("b", "BOB"), ("c", "CY")]) {
        for i in 0..SHARED {
            let text = std::fs::read_to_string(copy.join(file(i))).unwrap();
            std::fs::write(copy.join(file(i)), text.replacen(&format!("\n{from}\n"), &format!("\n{to}\n"), 1)).unwrap();
        }
    }
    (p, copies)
}

/// How many files of the project hold `edit`.
fn holding(p: &Person, edit: &str) -> usize {
    (0..SHARED)
        .filter(|i| std::fs::read_to_string(p.project.join(file(*i))).unwrap().contains(&format!("\n{edit}\n")))
        .count()
}

/// Three merges, two undos and readers at once, from separate processes: every merge lands
/// whole, an undo takes back exactly one merge whole, and nothing else is lost.
#[test]
fn merges_undos_and_readers_at_once_are_each_all_or_nothing() {
    let (p, _) = three_members_editing_every_file();
    let mut running: Vec<_> = ["ada", "bob", "cy"].iter().map(|m| spawn_team(&p, &["merge", "squad", m])).collect();
    running.push(spawn_team(&p, &["status", "squad"]));
    running.push(spawn_team(&p, &["list"]));
    for child in running {
        let out = child.wait_with_output().unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{said}");
    }
    for edit in ["ADA", "BOB", "CY"] {
        assert_eq!(holding(&p, edit), SHARED, "{edit}'s edits in the project");
    }
    // Two undos at once: the last merge is taken back whole, once.
    let undos = [spawn_team(&p, &["undo", "squad"]), spawn_team(&p, &["undo", "squad"])];
    let codes: Vec<Option<i32>> = undos.into_iter().map(|c| c.wait_with_output().unwrap().status.code()).collect();
    assert_eq!(codes.iter().filter(|c| **c == Some(0)).count(), 1, "{codes:?}");
    let counts: Vec<usize> = ["ADA", "BOB", "CY"].iter().map(|e| holding(&p, e)).collect();
    assert_eq!(counts.iter().filter(|c| **c == 0).count(), 1, "one merge undone whole: {counts:?}");
    assert_eq!(counts.iter().filter(|c| **c == SHARED).count(), 2, "the others untouched: {counts:?}");
    // The undone member's work is listed again, and merges again.
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    for edit in ["ADA", "BOB", "CY"] {
        assert_eq!(holding(&p, edit), SHARED, "{edit}'s edits after merging again: {out}");
    }
}

/// A merge killed with SIGKILL at points along its way, then a reader: the project holds all of
/// the member's edits or none, and merging again brings the rest.
#[test]
fn a_merge_killed_at_any_point_leaves_all_or_nothing() {
    let (p, _) = three_members_editing_every_file();
    for (round, delay_ms) in [5u64, 40, 120, 300].into_iter().enumerate() {
        let member = ["ada", "bob", "cy", "ada"][round];
        let edit = ["ADA", "BOB", "CY", "ADA"][round];
        let mut child = spawn_team(&p, &["merge", "squad", member]);
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        // A reader finds the journal (the lock is free once the killer is gone) and settles it.
        let (code, out, err) = p.team(&["status", "squad"]);
        assert_eq!(code, 0, "{out}{err}");
        let count = holding(&p, edit);
        assert!(count == 0 || count == SHARED, "round {round}: {count} of {SHARED} files hold {edit}");
    }
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    for edit in ["ADA", "BOB", "CY"] {
        assert_eq!(holding(&p, edit), SHARED, "{edit}: {out}");
    }
}

/// Discarding a member while its merge and another's run: its work is either merged or kept
/// (listed by what it says was not merged), never lost.
#[test]
fn a_discard_during_merges_keeps_what_was_not_merged() {
    let (p, _) = three_members_editing_every_file();
    let merges = [spawn_team(&p, &["merge", "squad", "ada"]), spawn_team(&p, &["merge", "squad", "bob"])];
    let discard = spawn_team(&p, &["discard", "squad", "bob", "--json"]);
    for child in merges {
        let _ = child.wait_with_output().unwrap();
    }
    let out = discard.wait_with_output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(holding(&p, "ADA"), SHARED);
    let bob = holding(&p, "BOB");
    assert!(bob == 0 || bob == SHARED, "{bob} of bob's files merged: {said}");
    if bob == 0 {
        // Not merged: kept, and restored whole.
        let (code, out, err) = p.team(&["restore", "squad"]);
        assert_eq!(code, 0, "{out}{err}");
        let (code, out, err) = p.team(&["merge", "squad", "--json"]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(holding(&p, "BOB"), SHARED, "bob's kept work, restored and merged: {out}");
    }
}

/// The largest resident size of this test process's children so far, in bytes.
fn children_peak() -> u64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) }, 0);
    usage.ru_maxrss as u64 * 1024
}

/// A member's 1 GiB file took `team status` to 2 GB and `team merge` to 4.1 GB: it is listed
/// without being read, its diff says it differs (as git says of a binary file), and its merge is
/// refused in words.
#[test]
fn a_members_huge_file_is_listed_and_refused_in_words_not_read() {
    let p = Person::new();
    std::fs::write(p.project.join("notes.txt"), "one\n").unwrap();
    p.commit();
    let copy = p.squad("worktree", &["ada"]).remove(0);
    // Sparse: a gigabyte to read, nothing on disk.
    std::fs::File::create(copy.join("huge.bin")).unwrap().set_len(1 << 30).unwrap();
    let status = p.json(&["status", "squad", "--json"]);
    let changes = &status["members"][0]["changes"];
    assert_eq!(changes[0]["path"], "huge.bin", "{status}");
    let (code, out, err) = p.team(&["merge", "squad", "--json"]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(format!("{out}{err}").contains("more than Sidekicks reads"), "{out}{err}");
    assert!(!p.project.join("huge.bin").exists());
    let (code, out, err) = p.team(&["diff", "squad", "ada"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("huge.bin differs"), "{out}{err}");
    let peak = children_peak();
    assert!(peak < 600 << 20, "a process reached {} MiB", peak >> 20);
}

/// A file whose name is not UTF-8 was left behind without a word: the merge says it did not
/// merge it, and why.
#[test]
fn a_name_that_is_not_utf8_is_said_not_left_behind_silently() {
    use std::os::unix::ffi::OsStrExt;
    let p = Person::new();
    std::fs::write(p.project.join("notes.txt"), "one\n").unwrap();
    p.commit();
    let copy = p.squad("worktree", &["ada"]).remove(0);
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(copy.join(name), "latin-1 name\n").unwrap();
    std::fs::write(copy.join("notes.txt"), "one\ntwo\n").unwrap();
    let (code, out, err) = p.team(&["merge", "squad"]);
    let said = format!("{out}{err}");
    assert_eq!(code, 1, "something was not merged: {said}");
    assert!(said.contains("their names are not UTF-8") && said.contains("caf\u{FFFD}.txt"), "{said}");
    assert_eq!(std::fs::read_to_string(p.project.join("notes.txt")).unwrap(), "one\ntwo\n", "the rest merged");
}
