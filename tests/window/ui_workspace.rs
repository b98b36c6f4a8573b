//! The workspace view driven like a person would (egui_kittest): open a file, edit it, someone else
//! writes it → the conflict bar; "Keep mine" saves over theirs; the tree shows what an agent created.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::app::Command;
use sidekicks::protocol::teams::{ProviderKind, TeamCommand};
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(20);

#[test]
fn edit_next_to_a_working_agent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "hello\n").unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    step_until(&mut h, LONG, "the tree", |h| h.query_by_label("notes.md").is_some());
    assert!(h.query_by_label("sidekicks.toml").is_some());

    h.get_by_label("notes.md").click();
    step_until(&mut h, LONG, "the file", |h| {
        h.query_by_role(Role::MultilineTextInput).is_some_and(|n| n.value().as_deref() == Some("hello\n"))
    });

    // Edit without saving.
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text("mine\n");
    h.step();
    step_until(&mut h, LONG, "the dirty marker", |h| h.query_by_label("modified").is_some());

    // Someone else writes the file: the conflict bar, nothing overwritten.
    std::fs::write(dir.path().join("notes.md"), "theirs\n").unwrap();
    step_until(&mut h, LONG, "the conflict bar", |h| h.query_by_label("Keep mine").is_some());
    assert_eq!(std::fs::read_to_string(dir.path().join("notes.md")).unwrap(), "theirs\n");
    h.get_by_label("Keep mine").click();
    step_until(&mut h, LONG, "saved", |h| {
        h.query_by_label("modified").is_none()
            && std::fs::read_to_string(h.state().state.config_path.as_ref().unwrap().with_file_name("notes.md"))
                .unwrap()
                == "mine\n"
    });
    // Said (issue 48, item 10), and no more once the text changes again.
    step_until(&mut h, LONG, "Saved said", |h| h.query_by_label("Saved ✓").is_some());
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text("more");
    step_until(&mut h, LONG, "dirty again", |h| h.query_by_label("modified").is_some());
    assert!(h.query_by_label("Saved ✓").is_none());

    // The agent creates a file through the client: the tree shows it.
    h.state_mut().send(Command::prompt("demo", "files"));
    step_until(&mut h, LONG, "the agent's folder in the tree", |h| h.query_by_label("notes/").is_some());
}

#[test]
fn the_terminal_tab_runs_a_shell_in_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("here.txt"), "").unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    h.step();
    h.get_by_label("Terminal").click();
    step_until(&mut h, LONG, "a shell", |h| h.state().terminal_text("demo").is_some());
    h.step();
    // Typed into the terminal like a person (it has the keyboard).
    h.event(egui::Event::Text("ls; echo done-$((40+2))".into()));
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the output", |h| h.state().terminal_text("demo").is_some_and(|t| t.contains("done-42")));
    assert!(h.state().terminal_text("demo").unwrap().contains("here.txt"));
    // Another tab and back: the same terminal.
    h.get_by_label("Log").click();
    h.step();
    h.get_by_label("Terminal").click();
    h.step();
    assert!(h.state().terminal_text("demo").unwrap().contains("done-42"));
    let pids = h.state().terminal_pids("demo");
    assert_eq!(pids.len(), 1);
    h.state_mut().shutdown();
    assert!(h.state().terminal_text("demo").is_none(), "closing the window closes the terminal");
    assert!(!common::alive(pids[0] as i32), "the terminal's shell is still running after the window closed");
}

#[test]
fn a_members_files_are_its_copy_and_the_agents_stay_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    std::fs::create_dir(&home).unwrap();
    std::fs::create_dir(&project).unwrap();
    std::fs::write(home.join("own.txt"), "").unwrap();
    std::fs::write(project.join("project.txt"), "").unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    step_until(&mut h, LONG, "the tree", |h| h.query_by_label("own.txt").is_some());

    // A team made from the agent: its member works in a copy of the project; the agent's own
    // files stay its own.
    let create = TeamCommand::Create {
        name: "T".into(),
        project: project.clone(),
        provider: ProviderKind::Copy,
        agents: vec!["demo".into()],
        lead: None,
    };
    h.state_mut().send(Command::Team(Box::new(create)));
    step_until(&mut h, LONG, "the member in its copy", |h| {
        h.state().state.agent("demo · T").is_some_and(|a| a.config.workspace != home)
    });
    assert_eq!(h.state().state.agent("demo").unwrap().config.workspace, home);
    // The member's Files: its row is under the team, after the person's agent.
    h.get_all_by_label("Files").nth(1).unwrap().click();
    step_until(&mut h, LONG, "the copy's tree", |h| {
        h.query_by_label("project.txt").is_some() && h.query_by_label("own.txt").is_none()
    });

    // The copy is followed: a file written there shows.
    let copy = h.state().state.agent("demo · T").unwrap().config.workspace.clone();
    std::fs::write(copy.join("later.txt"), "").unwrap();
    step_until(&mut h, LONG, "the new file in the copy", |h| h.query_by_label("later.txt").is_some());
    // The person's agent still shows its own folder.
    h.get_all_by_label("Files").next().unwrap().click();
    step_until(&mut h, LONG, "its own tree", |h| h.query_by_label("own.txt").is_some());
}

#[test]
fn the_file_editor_numbers_lines_and_indents_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.rs"), "// start\n").unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    step_until(&mut h, LONG, "the tree", |h| h.query_by_label("main.rs").is_some());
    h.get_by_label("main.rs").click();
    step_until(&mut h, LONG, "the file", |h| {
        h.query_by_role(Role::MultilineTextInput).is_some_and(|n| n.value().as_deref() == Some("// start\n"))
    });
    // Two lines (the second empty): numbered.
    assert!(h.query_by_label("  1\n  2\n").is_some(), "the gutter");
    // The editor fills its page, on a tall window too (it was 30 rows whatever the height).
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.step();
    h.step();
    let editor = h.get_by_role(Role::MultilineTextInput).rect();
    assert!(editor.bottom() > 1080.0 - 120.0, "the editor ends at {editor:?}");
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text("fn main() {");
    h.step();
    h.key_press(egui::Key::Enter);
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text("run();");
    h.step();
    h.key_press(egui::Key::Enter);
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text("}");
    h.step();
    let text = h.get_by_role(Role::MultilineTextInput).value().unwrap_or_default();
    assert_eq!(text, "fn main() {\n    run();\n    }", "Enter keeps the indentation, one step in after `{{`");
    step_until(&mut h, LONG, "the gutter grows", |h| h.query_by_label("  1\n  2\n  3\n").is_some());
    h.state_mut().shutdown();
}

/// Where each of the agent header's buttons is drawn (the rightmost of a label: the sidebar has
/// a "Files" button of its own, left of the header).
fn header_buttons(h: &Harness<'static, SidekicksApp>) -> Vec<(String, egui::Pos2)> {
    ["Start agent", "Stop agent", "Restart agent", "Conversation", "Files", "Terminal", "Log", "Permissions"]
        .iter()
        .map(|label| {
            let rects = h.get_all_by_label(label).map(|n| n.rect());
            let rect = rects.max_by(|a, b| a.left().total_cmp(&b.left())).unwrap_or_else(|| panic!("no {label}"));
            (label.to_string(), rect.left_top())
        })
        .collect()
}

#[test]
fn the_conversation_and_the_workspace_have_one_header() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    let over_conversation = header_buttons(&h);
    // In the header's order: the run buttons on the first line, then the pages, left to right.
    let ordered = |a: &egui::Pos2, b: &egui::Pos2| a.y < b.y || (a.y == b.y && a.x < b.x);
    assert!(over_conversation.windows(2).all(|w| ordered(&w[0].1, &w[1].1)), "{over_conversation:?}");
    let selected = |h: &Harness<'static, SidekicksApp>, label: &str| {
        h.get_all_by_label(label).any(|n| n.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
    };
    assert!(selected(&h, "Conversation") && !selected(&h, "Files"));
    // The header's Files page: the same buttons at the same places, Files marked.
    let files = h.get_all_by_label("Files").max_by(|a, b| a.rect().left().total_cmp(&b.rect().left())).unwrap();
    files.click();
    step_until(&mut h, LONG, "the files", |h| h.query_by_label("sidekicks.toml").is_some());
    assert_eq!(header_buttons(&h), over_conversation);
    assert!(selected(&h, "Files") && !selected(&h, "Conversation"));
    // From the workspace to the Log and back to the conversation, through the same header.
    h.get_by_label("Log").click();
    step_until(&mut h, LONG, "the log", |h| selected(h, "Log"));
    assert_eq!(header_buttons(&h), over_conversation);
    h.get_by_label("Conversation").click();
    step_until(&mut h, LONG, "the conversation", |h| {
        h.state().shown_agent() == Some("demo") && selected(h, "Conversation")
    });
    h.state_mut().shutdown();
}

/// Unsaved edits were dropped silently when another file was opened: they stay with their file
/// and come back when it is opened again.
#[test]
fn unsaved_edits_survive_opening_another_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.rs"), "// start\n").unwrap();
    std::fs::write(dir.path().join("other.md"), "# other\n").unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    step_until(&mut h, LONG, "the tree", |h| h.query_by_label("main.rs").is_some());
    let editor = |h: &Harness<'static, SidekicksApp>| h.query_by_role(Role::MultilineTextInput).and_then(|n| n.value());
    h.get_by_label("main.rs").click();
    step_until(&mut h, LONG, "main.rs", |h| editor(h).as_deref() == Some("// start\n"));
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text("// unsaved ");
    h.step();
    let edited = editor(&h).unwrap();
    assert_ne!(edited, "// start\n");
    h.get_by_label("other.md").click();
    step_until(&mut h, LONG, "other.md", |h| editor(h).as_deref() == Some("# other\n"));
    h.get_by_label("main.rs").click();
    step_until(&mut h, LONG, "main.rs again", |h| editor(h).is_some_and(|t| t != "# other\n"));
    h.step();
    h.step();
    assert_eq!(editor(&h).unwrap(), edited, "the edits came back");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("main.rs")).unwrap(),
        "// start\n",
        "not saved behind the person's back"
    );
    h.state_mut().shutdown();
}

/// Rename and Delete are in sight beside the open file, not only on the tree's right-click
/// (issue 48, item 10): Rename renames it on disk, Delete asks first and Cancel keeps it.
#[test]
fn the_open_file_is_renamed_and_its_deletion_asked_from_its_header() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("draft.md"), "words\n").unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    step_until(&mut h, LONG, "the tree", |h| h.query_by_label("draft.md").is_some());
    h.get_by_label("draft.md").click();
    step_until(&mut h, LONG, "the file", |h| h.query_by_role_and_label(Role::Button, "Rename").is_some());

    h.get_by_role_and_label(Role::Button, "Delete").click();
    step_until(&mut h, LONG, "the question", |h| {
        h.query_by_label("Move draft.md to the trash? You can restore it from there.").is_some()
    });
    h.get_by_label("Cancel").click();
    h.step();
    assert!(dir.path().join("draft.md").exists(), "Cancel keeps the file");

    // Edits not saved yet go with the file when it is renamed, into a folder too (they were lost,
    // and "a/b" was said to be outside the workspace).
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text("more ");
    step_until(&mut h, LONG, "the edit", |h| h.query_by_label("modified").is_some());
    h.get_by_role_and_label(Role::Button, "Rename").click();
    step_until(&mut h, LONG, "the name field", |h| {
        h.query_by_role(Role::TextInput).is_some_and(|n| n.value().as_deref() == Some("draft.md"))
    });
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.step();
    h.get_by_role(Role::TextInput).type_text("notes/final.md");
    h.step();
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "renamed on disk", |_| dir.path().join("notes/final.md").exists());
    assert!(!dir.path().join("draft.md").exists());
    assert_eq!(std::fs::read_to_string(dir.path().join("notes/final.md")).unwrap(), "words\n");
    step_until(&mut h, LONG, "the editor on the new name, the edit kept", |h| {
        h.query_by_label("notes/final.md").is_some()
            && h.query_by_label("modified").is_some()
            && h.query_by_role(Role::MultilineTextInput).is_some_and(|n| n.value().is_some_and(|v| v.contains("more")))
    });
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    step_until(&mut h, LONG, "saved under the new name", |_| {
        std::fs::read_to_string(dir.path().join("notes/final.md")).is_ok_and(|t| t.contains("more"))
    });
    assert!(!dir.path().join("draft.md").exists(), "not written back under the old name");
}
