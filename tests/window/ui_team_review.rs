//! The review panel driven like a person would (egui_kittest, a real git project, a demo agent):
//! opened from the team page, it lists the member's files as a tree with counts and every diff
//! with numbered lines and hunk headers; n and p move between files; accepting one hunk merges
//! only it; side by side shows both versions; a comment on a line goes to the member, with "Send
//! review", as one message naming the file and the line.

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{make_team, runtime, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(30);

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

fn selected(h: &Harness<'static, SidekicksApp>, label: &str) -> bool {
    h.get_all_by_label(label).any(|n| n.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
}

#[test]
fn a_members_work_is_reviewed_hunk_by_hunk_and_commented() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("long.txt"), numbered(40)).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    let copy = make_team(&mut h, "T", &project, &["ada"], &home).remove(0);
    let mine = numbered(40).replace("line 5\n", "line five\n").replace("line 30\n", "line thirty\n");
    std::fs::write(copy.join("long.txt"), &mine).unwrap();
    std::fs::create_dir(copy.join("src")).unwrap();
    std::fs::write(copy.join("src/main.rs"), "fn main() {}\n").unwrap();
    h.get_all_by_label("T").next().unwrap().click();
    step_until(&mut h, LONG, "her changes", |h| h.query_by_label("long.txt").is_some());
    step_until(&mut h, LONG, "the button", |h| !h.get_by_label("Review…").accesskit_node().is_disabled());
    h.get_by_label("Review…").click();
    step_until(&mut h, LONG, "the review", |h| h.query_by_label("@@ -2,7 +2,7 @@").is_some());

    // The tree: the folder with its counts, the files; the diff: both hunks, numbered lines.
    assert!(h.query_by_label("Review of ada · T's work").is_some());
    assert!(h.query_by_label("2 files, +3 -2").is_some());
    assert!(h.query_by_label("src/").is_some() && h.query_by_label("main.rs").is_some());
    assert!(h.query_by_label("@@ -27,7 +27,7 @@").is_some());
    assert!(h.query_by_label("line five").is_some() && h.query_by_label("line thirty").is_some());
    assert!(selected(&h, "long.txt"), "the first file is the current one");
    // n goes to the next file, p back.
    h.key_press(egui::Key::N);
    step_until(&mut h, LONG, "the next file", |h| selected(h, "main.rs"));
    h.key_press(egui::Key::P);
    step_until(&mut h, LONG, "the previous file", |h| selected(h, "long.txt"));

    // Accept the first hunk only: the project gets line five, not line thirty.
    h.get_all_by_label("Accept").nth(1).unwrap().click();
    step_until(&mut h, LONG, "one hunk left", |h| h.query_by_label("@@ -2,7 +2,7 @@").is_none());
    assert_eq!(
        std::fs::read_to_string(project.join("long.txt")).unwrap(),
        numbered(40).replace("line 5\n", "line five\n")
    );
    assert_eq!(std::fs::read_to_string(copy.join("long.txt")).unwrap(), mine);
    assert!(h.query_by_label("@@ -27,7 +27,7 @@").is_some());
    // Said, not only seen by a hunk going away (issue 48, item 10).
    step_until(&mut h, LONG, "the merge said", |h| h.query_by_label("Merged into the project ✓ (1 file)").is_some());

    // Side by side: the old and the new line of the pair, each with its number.
    h.get_by_label("Side by side").click();
    step_until(&mut h, LONG, "side by side", |h| h.query_by_label("   30  -").is_some());
    assert!(h.query_by_label("line 30").is_some() && h.query_by_label("line thirty").is_some());
    h.get_by_label("Unified").click();
    h.step();

    // A comment on line 30, sent as one message.
    let gutter = format!("{:5} {:>5} +", "", 30);
    step_until(&mut h, LONG, "line 30's number", |h| h.query_by_label(&gutter).is_some());
    h.get_by_label(&gutter).click();
    step_until(&mut h, LONG, "the comment field", |h| h.query_by_role(egui::accesskit::Role::TextInput).is_some());
    h.step();
    h.get_by_role(egui::accesskit::Role::TextInput).type_text("spell it with digits");
    h.step();
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the comment", |h| h.query_by_label("spell it with digits").is_some());
    h.get_by_label("Send review (1)").click();
    step_until(&mut h, LONG, "sent", |h| h.query_by_label("Review sent to ada · T.").is_some());
    step_until(&mut h, LONG, "ada has it", |h| {
        h.state().state.agent("ada · T").is_some_and(|a| {
            a.conversation
                .messages
                .iter()
                .any(|m| format!("{m:?}").contains("In long.txt line 30: spell it with digits"))
        })
    });
    h.get_by_label("Back to the team").click();
    step_until(&mut h, LONG, "the team page", |h| h.query_by_label("Merge all").is_some());
    h.state_mut().shutdown();
}
