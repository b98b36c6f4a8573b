//! git's settings outside the repository decide the change scan too: a global config asking git
//! to convert line ends (`core.autocrlf = true`) makes the member's checkout and its scan git's,
//! so a file the agent wrote again with the same bytes is not a change, as `git status` says (read
//! from the index, its CRLF text differed from the commit's); an `include` the reader does not
//! follow does the same; a global config without such settings leaves the scan read from the index. Run alone in a
//! process of its own (`common::alone`): it sets `GIT_CONFIG_GLOBAL` for the whole process (and so
//! for the git it runs).

use sidekicks::protocol::teams::ChangeKind;
use sidekicks::runtime::teams::{GitWorktreeProvider, IsolationProvider};

use crate::common;
use crate::common::git;

#[test]
fn a_global_setting_that_converts_line_ends_makes_the_scan_gits() {
    if !common::alone(concat!(module_path!(), "::a_global_setting_that_converts_line_ends_makes_the_scan_gits")) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let global = dir.path().join("global-config");
    std::fs::write(&global, "[user]\n\tname = T\n\temail = t@example.com\n").unwrap();
    // SAFETY: alone in a process of its own (`common::alone`), before it starts any thread.
    unsafe { std::env::set_var("GIT_CONFIG_GLOBAL", &global) };
    let main = dir.path().join("main");
    std::fs::create_dir(&main).unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    std::fs::write(main.join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(main.join("b.txt"), "kept\n").unwrap();
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-q", "-m", "start"]);
    let plain =
        GitWorktreeProvider.create(&main, &dir.path().join("p"), &dir.path().join("p-state"), "p", "p").unwrap();
    assert!(GitWorktreeProvider::scans_from_its_index(&plain), "a global config without such settings");

    // Line ends converted by git, as the global config asks: the member's files have CRLF.
    std::fs::write(&global, "[user]\n\tname = T\n[core]\n\tautocrlf = true\n").unwrap();
    let m = GitWorktreeProvider.create(&main, &dir.path().join("m"), &dir.path().join("m-state"), "m", "m").unwrap();
    assert_eq!(std::fs::read_to_string(m.copy.join("a.txt")).unwrap(), "one\r\ntwo\r\n");
    assert!(!GitWorktreeProvider::scans_from_its_index(&m), "the setting asks for git's scan");
    // The agent writes a.txt again with the same bytes (a formatter, a save) and changes b.txt:
    // for git only b.txt changed (a.txt's text is the commit's once converted).
    std::fs::write(m.copy.join("a.txt"), "one\r\ntwo\r\n").unwrap();
    std::fs::write(m.copy.join("b.txt"), "changed\r\n").unwrap();
    assert_eq!(git(&m.copy, &["status", "--porcelain"]), " M b.txt\n", "git's own view");
    let changes = sidekicks::runtime::teams::changes(&m).unwrap();
    let paths: Vec<(String, ChangeKind)> = changes.into_iter().map(|c| (c.path, c.kind)).collect();
    assert_eq!(paths, [("b.txt".to_string(), ChangeKind::Modified)]);

    // An include is not followed here: git's scan.
    let other = dir.path().join("other-config");
    std::fs::write(&other, "[core]\n\tautocrlf = false\n").unwrap();
    std::fs::write(&global, format!("[include]\n\tpath = {}\n", other.display())).unwrap();
    assert!(!GitWorktreeProvider::scans_from_its_index(&plain));
    // Set to false: read from the index again.
    std::fs::write(&global, "[core]\n\tautocrlf = false\n").unwrap();
    assert!(GitWorktreeProvider::scans_from_its_index(&plain));
}
