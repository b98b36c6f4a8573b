//! "Changes" on a turn, through the window (egui_kittest) against the demo agent: its turn
//! rewrites a file of the person's; the review lists it with its diff, a comment goes back to the
//! agent, and "Revert" puts the file back byte for byte; closing goes back to the conversation.

use std::time::Duration;

use egui_kittest::kittest::Queryable;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(30);

#[test]
fn a_turns_changes_are_reviewed_commented_and_reverted() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join("notes")).unwrap();
    std::fs::write(project.join("notes/demo.md"), "# Notes\n\nthe person's notes\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "start"]);
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], &project), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "files");
    step_until(&mut h, LONG, "the turn", |h| {
        h.state().state.agent("demo").unwrap().conversation.messages.iter().any(|m| m.end.is_some())
    });
    assert_ne!(std::fs::read_to_string(project.join("notes/demo.md")).unwrap(), "# Notes\n\nthe person's notes\n");

    h.get_all_by_label("Changes").next().unwrap().click();
    step_until(&mut h, LONG, "the review", |h| h.query_by_label("@@ -1,3 +1,3 @@").is_some());
    assert!(h.query_by_label("demo's changes since your message").is_some());
    assert!(h.query_by_label("the person's notes").is_some(), "the removed line");
    assert!(h.query_by_label("Written by the demo agent through the client.").is_some(), "the added line");
    assert!(h.query_by_label("Accept").is_none(), "nothing to accept in the agent's own workspace");

    // A comment on the added line 3, sent to the agent.
    let gutter = format!("{:5} {:>5} +", "", 3);
    h.get_by_label(&gutter).click();
    step_until(&mut h, LONG, "the comment field", |h| h.query_by_role(egui::accesskit::Role::TextInput).is_some());
    h.step();
    h.get_by_role(egui::accesskit::Role::TextInput).type_text("keep my notes");
    h.step();
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the comment", |h| h.query_by_label("keep my notes").is_some());
    h.get_by_label("Send review (1)").click();
    step_until(&mut h, LONG, "sent", |h| {
        h.state()
            .state
            .agent("demo")
            .unwrap()
            .conversation
            .messages
            .iter()
            .any(|m| format!("{m:?}").contains("In notes/demo.md line 3: keep my notes"))
    });
    // Its answer ends before the revert (a revert waits for the turn).
    step_until(&mut h, LONG, "the answer", |h| {
        h.state().state.agent("demo").unwrap().state != sidekicks::app::AgentState::Busy
    });

    // Revert the file: back byte for byte; nothing left to review.
    step_until(&mut h, LONG, "revert enabled", |h| {
        use egui_kittest::kittest::NodeT;
        h.query_all_by_label("Revert").next().is_some_and(|n| !n.accesskit_node().is_disabled())
    });
    h.get_all_by_label("Revert").next().unwrap().click();
    step_until(&mut h, LONG, "reverted", |h| h.query_by_label("No changes to review.").is_some());
    assert_eq!(std::fs::read_to_string(project.join("notes/demo.md")).unwrap(), "# Notes\n\nthe person's notes\n");
    h.get_by_label("Back to the conversation").click();
    // "Changes" on the turn that wrote, not on the review's (its answer changed nothing).
    step_until(&mut h, LONG, "the conversation", |h| h.query_all_by_label("Changes").count() == 1);
    h.state_mut().shutdown();
}
