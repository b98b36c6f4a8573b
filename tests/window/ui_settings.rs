//! The settings view driven like a person would (egui_kittest): live validation with the loader,
//! Save refused while invalid, a save reloads the running config, and a change on disk under
//! unsaved edits shows the conflict bar.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(20);

/// Replaces the editor's text the way a person would: select all, type.
fn retype(h: &mut egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>, text: &str) {
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text(text);
    h.step();
    h.step();
}

#[test]
fn edit_validate_save_and_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let one = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    let mut h = window(&one, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_by_label("Settings").click();
    step_until(&mut h, LONG, "the editor", |h| h.query_by_role(Role::MultilineTextInput).is_some());
    assert_eq!(h.get_by_role(Role::MultilineTextInput).value().as_deref(), Some(one.as_str()));
    // The editor fills its page down to the problems below it (it was 20 rows high).
    let editor = h.get_by_role(Role::MultilineTextInput).rect();
    // (The panel's "no problems", above the status bar's.)
    let problems =
        h.get_all_by_label("no problems").map(|n| n.rect()).min_by(|a, b| a.top().total_cmp(&b.top())).unwrap();
    assert!(problems.top() - editor.bottom() < 60.0, "editor ends at {editor:?}, problems at {problems:?}");

    // An invalid runtime type: the problem with its line, Save disabled.
    let bad = format!("{one}runtime = {{ type = \"dockr\" }}\n");
    retype(&mut h, &bad);
    step_until(&mut h, LONG, "the problem", |h| h.query_by_label_contains("Unknown runtime type \"dockr\"").is_some());
    let line = bad.lines().count();
    assert!(h.query_by_label_contains(&format!("{line}:20  Unknown runtime type")).is_some());
    assert!(h.get_by_label("Save").accesskit_node().is_disabled(), "Save is refused while the text is invalid");
    // One count everywhere: the status bar says so too (it said "no problems").
    assert!(h.query_by_label("1 problem in the text not saved").is_some());
    assert!(h.query_by_label("no problems").is_none());

    // Fixed, with a second agent: Save enabled; saved, the running config follows.
    let two = config_text("", &[("demo", BIN, &["demo-agent"]), ("second", BIN, &["demo-agent"])], dir.path());
    retype(&mut h, &two);
    step_until(&mut h, LONG, "the fixed text", |h| h.query_by_label_contains("Unknown runtime type").is_none());
    let typed = h.get_by_role(Role::MultilineTextInput).value().unwrap_or_default();
    assert_eq!(typed, two);
    assert!(!h.get_by_label("Save").accesskit_node().is_disabled());
    h.get_by_label("Save").click();
    step_until(&mut h, LONG, "the new agent in the sidebar", |h| h.state().state.agent("second").is_some());
    assert_eq!(std::fs::read_to_string(dir.path().join("sidekicks.toml")).unwrap(), two);
    assert!(h.query_by_label("Saved.").is_some());

    // Unsaved edits, then someone else writes the file: the conflict bar, nothing overwritten.
    retype(&mut h, &format!("{two}# mine\n"));
    let theirs = format!("{two}# theirs\n");
    std::fs::write(dir.path().join("sidekicks.toml"), &theirs).unwrap();
    step_until(&mut h, LONG, "the conflict bar", |h| h.query_by_label("Take their version").is_some());
    assert!(h.query_by_label("Keep mine").is_some());
    assert!(h.get_by_label("Save").accesskit_node().is_disabled(), "no save over their version before choosing");
    h.get_by_label("Take their version").click();
    h.step();
    h.step();
    assert_eq!(h.get_by_role(Role::MultilineTextInput).value().as_deref(), Some(theirs.as_str()));
    assert!(h.query_by_label("Take their version").is_none());

    // Ctrl+S saves, as the Save button does.
    let three = format!("{theirs}# saved with the keyboard\n");
    retype(&mut h, &three);
    step_until(&mut h, LONG, "Save enabled", |h| !h.get_by_label("Save").accesskit_node().is_disabled());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    step_until(&mut h, LONG, "saved with Ctrl+S", |h| {
        std::fs::read_to_string(h.state().state.config_path.clone().unwrap()).unwrap_or_default() == three
    });
}

#[test]
fn the_window_speaks_french_when_the_config_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let text = config_text("language = \"fr\"", &[("demo", BIN, &["demo-agent"])], dir.path());
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "French", |h| h.query_by_label("Réglages").is_some());
    assert!(h.query_by_label("Démarrer l’agent").is_some());
    assert!(h.query_by_label("Envoyer").is_some());
    h.get_by_label("Réglages").click();
    step_until(&mut h, LONG, "the editor", |h| h.query_by_role(Role::MultilineTextInput).is_some());
    retype(&mut h, &format!("{text}comand = \"x\"\n"));
    step_until(&mut h, LONG, "a French problem", |h| {
        h.query_by_label_contains("Clé inconnue « comand » ; vouliez-vous dire « command » ?").is_some()
    });
    // The TOML parser's own words too, not half of the sentence.
    retype(&mut h, &format!("{text}[agent\n"));
    step_until(&mut h, LONG, "a French syntax error", |h| {
        h.query_by_label_contains("Syntaxe TOML : table non fermée").is_some()
    });
    assert!(h.query_by_label_contains("unclosed").is_none());
}

#[test]
fn looking_for_installed_agents_says_when_it_finds_none() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_by_label("Settings").click();
    step_until(&mut h, LONG, "the editor", |h| h.query_by_role(Role::MultilineTextInput).is_some());
    // The discovery's Search (the sidebar's is at the left).
    let count = h.get_all_by_label("Search").count();
    assert_eq!(count, 2, "the sidebar's Search and the discovery's");
    let search = h.get_all_by_label("Search").max_by(|a, b| a.rect().left().total_cmp(&b.rect().left())).unwrap();
    search.scroll_to_me();
    h.step();
    let search = h.get_all_by_label("Search").max_by(|a, b| a.rect().left().total_cmp(&b.rect().left())).unwrap();
    search.click();
    step_until(&mut h, LONG, "the search's answer", |h| h.state().state.found_agents.is_some());
    h.step();
    let none = h.state().state.found_agents.as_ref().unwrap().is_empty();
    // Whatever this machine has installed, the view says it: the agents, or that there are none.
    assert_eq!(h.query_by_label_contains("No agents found").is_some(), none);
    if !none {
        let rows = h.query_all_by_label("Add").count() + h.query_all_by_label("already in the config").count();
        assert_eq!(rows, h.state().state.found_agents.as_ref().unwrap().len());
    }
}

type H = egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>;

/// The fields of the agent form (the panel at the right) with `role`, top to bottom.
fn fields(h: &H, role: Role) -> Vec<egui::Rect> {
    let mut rects: Vec<egui::Rect> = h.get_all_by_role(role).map(|n| n.rect()).filter(|r| r.left() > 500.0).collect();
    rects.sort_by(|a, b| a.top().total_cmp(&b.top()).then(a.left().total_cmp(&b.left())));
    rects
}

/// Types `text` into the `n`th field with `role` of the form (replacing what it holds); found
/// again after the click, which may move the layout.
fn fill(h: &mut H, role: Role, n: usize, text: &str) {
    let at = |h: &H| fields(h, role)[n];
    let rect = at(h);
    h.get_all_by_role(role).find(|f| f.rect() == rect).unwrap().click();
    h.step();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.step();
    let rect = at(h);
    h.get_all_by_role(role).find(|f| f.rect() == rect).unwrap().type_text(text);
    h.step();
}

/// Opens Settings and its form for a new agent.
fn open_new_agent_form(h: &mut H) {
    // The sidebar's (on the page, its heading says Settings too).
    h.get_all_by_label("Settings").next().unwrap().click();
    step_until(h, LONG, "the form's list", |h| h.query_by_label("Add an agent…").is_some());
    h.get_by_label("Add an agent…").click();
    h.step();
    h.step();
}

/// Adding an agent meant typing `[[agent]]`: the form adds one and edits another, the file keeps
/// its comments, and what cannot be written is said (issue 35 item 12).
#[test]
fn the_agent_form_adds_and_edits_agents_keeping_the_files_comments() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let text = format!("# my agents, by hand\n{}", config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()));
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    // A new agent: name, command, arguments, workspace, a variable.
    open_new_agent_form(&mut h);
    assert_eq!(fields(&h, Role::TextInput).len(), 4, "name, command, workspace, channels");
    fill(&mut h, Role::TextInput, 0, "helper");
    fill(&mut h, Role::TextInput, 1, BIN);
    fill(&mut h, Role::TextInput, 2, &dir.path().display().to_string());
    fill(&mut h, Role::MultilineTextInput, 0, "demo-agent");
    h.get_by_label("+ variable").click();
    h.step();
    h.step();
    fill(&mut h, Role::TextInput, 3, "HELPER_TOKEN");
    fill(&mut h, Role::PasswordInput, 0, "s3cret");
    h.get_by_label("Save agent").click();
    step_until(&mut h, LONG, "the new agent running in the sidebar", |h| h.state().state.agent("helper").is_some());
    let saved = std::fs::read_to_string(dir.path().join("sidekicks.toml")).unwrap();
    assert!(saved.starts_with(&text), "the file as it was, then the agent:\n{saved}");
    assert!(saved.contains("name = \"helper\"") && saved.contains("HELPER_TOKEN = \"s3cret\""), "{saved}");
    assert!(saved.contains("args = [\"demo-agent\"]"), "{saved}");

    // A name taken is said, nothing written.
    h.get_by_label("Add an agent…").click();
    h.step();
    h.step();
    fill(&mut h, Role::TextInput, 0, "helper");
    fill(&mut h, Role::TextInput, 1, BIN);
    fill(&mut h, Role::TextInput, 2, &dir.path().display().to_string());
    h.get_by_label("Save agent").click();
    step_until(&mut h, LONG, "the name taken, said", |h| {
        h.query_by_label_contains("an agent named \"helper\" is already in the config file").is_some()
    });
    h.get_by_label("Cancel").click();
    step_until(&mut h, LONG, "the list again", |h| h.query_all_by_label("Edit").next().is_some());

    // Edit demo: renamed in place, the comment kept.
    h.get_all_by_label("Edit").next().unwrap().click();
    h.step();
    h.step();
    fill(&mut h, Role::TextInput, 0, "demo two");
    h.get_by_label("Save agent").click();
    step_until(&mut h, LONG, "the renamed agent", |h| {
        h.state().state.agent("demo two").is_some() && h.state().state.agent("demo").is_none()
    });
    let saved = std::fs::read_to_string(dir.path().join("sidekicks.toml")).unwrap();
    assert!(saved.starts_with("# my agents, by hand\n") && saved.contains("name = \"demo two\""), "{saved}");
    h.state_mut().shutdown();
}

/// A form can always save what it shows (issue 48, item 1): a workspace that does not exist is
/// written into the text but not saved; fixed in the form, Save agent changes the agent it wrote
/// (no "already in the config file"), the old error goes, and the file is saved.
#[test]
fn the_agent_form_saves_after_its_own_error_is_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let text = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    open_new_agent_form(&mut h);
    fill(&mut h, Role::TextInput, 0, "Helper");
    fill(&mut h, Role::TextInput, 1, BIN);
    fill(&mut h, Role::TextInput, 2, &dir.path().join("nowhere").display().to_string());
    fill(&mut h, Role::MultilineTextInput, 0, "demo-agent");
    h.get_by_label("Save agent").click();
    step_until(&mut h, LONG, "not saved, said", |h| {
        h.query_by_label_contains("Written into the file's text but not saved").is_some()
    });
    assert_eq!(std::fs::read_to_string(dir.path().join("sidekicks.toml")).unwrap(), text, "nothing saved yet");
    // Cancel takes back what the form wrote: the text is the file's again.
    h.get_by_label("Cancel").click();
    step_until(&mut h, LONG, "the text as it was", |h| {
        h.query_by_label("Saved.").is_some() && h.query_by_label_contains("does not exist").is_none()
    });
    // Again, then fixed in the form.
    open_new_agent_form(&mut h);
    fill(&mut h, Role::TextInput, 0, "Helper");
    fill(&mut h, Role::TextInput, 1, BIN);
    fill(&mut h, Role::TextInput, 2, &dir.path().join("nowhere").display().to_string());
    fill(&mut h, Role::MultilineTextInput, 0, "demo-agent");
    h.get_by_label("Save agent").click();
    step_until(&mut h, LONG, "not saved, said again", |h| {
        h.query_by_label_contains("Written into the file's text but not saved").is_some()
    });
    fill(&mut h, Role::TextInput, 2, &dir.path().display().to_string());
    h.get_by_label("Save agent").click();
    step_until(&mut h, LONG, "the fixed agent saved and running", |h| h.state().state.agent("Helper").is_some());
    assert!(h.query_by_label_contains("already in the config file").is_none());
    assert!(h.query_by_label_contains("Written into the file's text but not saved").is_none());
    let saved = std::fs::read_to_string(dir.path().join("sidekicks.toml")).unwrap();
    assert_eq!(saved.matches("name = \"Helper\"").count(), 1, "{saved}");
    assert!(!saved.contains("nowhere"), "{saved}");
    h.state_mut().shutdown();
}

/// An agent on another machine from the form: choosing "another machine (over SSH)" asks for the
/// host and the folder there, written into `runtime` (issue 36).
#[test]
fn the_agent_form_places_an_agent_on_another_machine() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let text = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    open_new_agent_form(&mut h);
    fill(&mut h, Role::TextInput, 0, "far");
    fill(&mut h, Role::TextInput, 1, "claude-agent-acp");
    fill(&mut h, Role::TextInput, 2, &dir.path().display().to_string());
    assert!(h.query_by_label("Host").is_none(), "no host for an agent on this computer");
    let runs = *fields(&h, Role::ComboBox).last().unwrap();
    h.get_all_by_role(Role::ComboBox).find(|c| c.rect() == runs).unwrap().click();
    h.step();
    h.step();
    h.get_by_label("another machine (over SSH)").click();
    step_until(&mut h, LONG, "the host and folder fields", |h| {
        h.query_by_label("Host").is_some() && h.query_by_label("Folder there").is_some()
    });
    assert_eq!(fields(&h, Role::TextInput).len(), 6, "name, command, workspace, host, folder there, channels");
    fill(&mut h, Role::TextInput, 3, "me@build-box:2222");
    fill(&mut h, Role::TextInput, 4, "/srv/project");
    h.get_by_label("Save agent").click();
    step_until(&mut h, LONG, "the new agent in the sidebar", |h| h.state().state.agent("far").is_some());
    let far = &h.state().state.agent("far").unwrap().config.runtime;
    assert_eq!(far.kind, sidekicks::model::config::RuntimeKind::Ssh);
    assert_eq!(far.host.as_deref(), Some("me@build-box:2222"));
    assert_eq!(far.workspace_path.as_deref(), Some(std::path::Path::new("/srv/project")));
    let saved = std::fs::read_to_string(dir.path().join("sidekicks.toml")).unwrap();
    assert!(saved.contains("type = \"ssh\"") && saved.contains("host = \"me@build-box:2222\""), "{saved}");
    h.state_mut().shutdown();
}

/// One count everywhere: a problem of the file itself (readable by others while it holds env
/// values) showed in the status bar while Settings said "no problems".
#[test]
fn settings_and_the_status_bar_count_the_same_problems() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut text = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    text.push_str("env = { DEMO_TOKEN = \"x\" }\n");
    let mut h = window(&text, dir.path(), &rt, None);
    std::fs::set_permissions(dir.path().join("sidekicks.toml"), std::fs::Permissions::from_mode(0o644)).unwrap();
    // Written again so the loader reads it with its new mode.
    std::fs::write(dir.path().join("sidekicks.toml"), &text).unwrap();
    step_until(&mut h, LONG, "the file's warning", |h| h.query_by_label("1 problem").is_some());
    h.get_by_label("Settings").click();
    step_until(&mut h, LONG, "the same warning in Settings", |h| {
        h.query_by_label_contains("other users of this computer can read it").is_some()
    });
    assert!(h.query_by_label("no problems").is_none(), "Settings and the status bar agree");
    h.state_mut().shutdown();
}
