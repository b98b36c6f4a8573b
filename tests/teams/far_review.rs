//! Reviewing a far member's work hunk by hunk (issue 49): the copy is kept in a Docker container
//! (reached with `docker exec -i`, nothing bound), and the review reads and writes it there —
//! accepting a hunk merges only that hunk here (and is undone as a merge), rejecting a hunk or a
//! file takes it out of the copy there and nothing else.

use std::path::Path;

use crate::common;

use common::git;
use sidekicks::runtime::copies::place::{Place, use_binary};
use sidekicks::runtime::teams::review::{accept_hunk, reject_files, reject_hunk, review};
use sidekicks::runtime::teams::{Places, ProviderKind, TeamError, create_team_at, undo_merge};

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn a_far_members_hunks_are_accepted_and_rejected_there() {
    if !common::docker::available() {
        return;
    }
    use_binary(common::BIN.into());
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("project");
    std::fs::create_dir(&main).unwrap();
    std::fs::write(main.join("long.txt"), numbered(40)).unwrap();
    std::fs::write(main.join("gone.txt"), "to delete\n").unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    git(&main, &["add", "-A"]);
    git(&main, &["commit", "-q", "-m", "start"]);
    let container = common::docker::Container::start(&[]);
    let place = Place { runtime: "container".into(), target: container.name.clone() };
    let far: Places = [("ada".to_string(), place)].into();
    let agents = [("ada".to_string(), "ada".to_string())];
    let made = create_team_at(&dir.path().join("teams"), ("t", &main), ProviderKind::GitWorktree, &agents, None, &far);
    let (_, members) = made.unwrap();
    let ada = &members[0];
    assert!(ada.far.is_some() && !ada.copy.exists(), "kept in the container: {ada:?}");
    let copy = ada.copy.display().to_string();
    let there = |rel: &str| container.sh(&format!("cat '{copy}/{rel}' 2>/dev/null"));
    let write_there = |rel: &str, text: &str| {
        let file = Path::new(&copy).join(rel).display().to_string();
        let out = std::process::Command::new("docker")
            .args(["exec", "-i", &container.name, "sh", "-c", "cat > \"$1\"", "sh", &file])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(text.as_bytes())?;
                c.wait()
            })
            .unwrap();
        assert!(out.success());
    };
    let mine = numbered(40).replace("line 5\n", "line five\n").replace("line 30\n", "line thirty\n");
    write_there("long.txt", &mine);
    write_there("new.txt", "new\n");
    container.sh(&format!("rm '{copy}/gone.txt'"));

    let files = review(ada).unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.change.path.as_str()).collect();
    assert_eq!(paths, ["gone.txt", "long.txt", "new.txt"]);
    let long = files[1].diff.clone().unwrap();
    assert_eq!(long.hunks.len(), 2);

    // Accept the first hunk: the project gets line 5 only; the copy there is untouched.
    let report = accept_hunk(ada, "long.txt", &long.hunks[0]).unwrap();
    assert_eq!(report.applied, ["long.txt"]);
    let read = |rel: &str| std::fs::read_to_string(main.join(rel)).unwrap();
    assert_eq!(read("long.txt"), numbered(40).replace("line 5\n", "line five\n"));
    assert_eq!(there("long.txt"), mine);
    assert_eq!(review(ada).unwrap()[1].diff.as_ref().unwrap().hunks.len(), 1);
    assert_eq!(accept_hunk(ada, "long.txt", &long.hunks[0]), Err(TeamError::ReviewStale("long.txt".into())));
    undo_merge(ada).unwrap();
    assert_eq!(read("long.txt"), numbered(40));

    // Reject the line-30 hunk there, then the other files: the copy there loses them.
    let hunks = review(ada).unwrap()[1].diff.clone().unwrap().hunks;
    reject_hunk(ada, "long.txt", &hunks[1]).unwrap();
    assert_eq!(there("long.txt"), numbered(40).replace("line 5\n", "line five\n"));
    let changes: Vec<_> =
        review(ada).unwrap().into_iter().filter(|f| f.change.path != "long.txt").map(|f| f.change).collect();
    reject_files(ada, &changes).unwrap();
    assert_eq!(there("new.txt"), "");
    assert_eq!(there("gone.txt"), "to delete\n");
    let left: Vec<String> = review(ada).unwrap().into_iter().map(|f| f.change.path).collect();
    assert_eq!(left, ["long.txt"]);
    assert_eq!(read("long.txt"), numbered(40), "the project is untouched by rejections");
    ada.provider().discard(ada).unwrap();
    assert_eq!(container.sh(&format!("ls -d '{copy}' 2>/dev/null")), "", "discarded there");
}
