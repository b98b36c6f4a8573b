//! The thread bar of a conversation (egui_kittest, demo agent with `--sessions`, real history):
//! New thread opens an empty conversation; the list switches back to the first thread, its
//! messages shown again; Rename renames it; Delete asks first and then removes it; the agent's
//! own sessions are listed and one opens as a thread.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::runtime::store::Store;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

fn answers(h: &H) -> usize {
    h.state().state.agent("demo").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

fn texts(h: &H) -> Vec<String> {
    h.state().state.agent("demo").map_or_else(Vec::new, |a| a.conversation.messages.iter().map(|m| m.text()).collect())
}

fn titles(h: &H) -> Vec<String> {
    h.state().state.agent("demo").map_or_else(Vec::new, |a| a.threads.list.iter().map(|t| t.title.clone()).collect())
}

fn current(h: &H) -> Option<i64> {
    h.state().state.agent("demo").and_then(|a| a.threads.current)
}

fn idle(h: &H) -> bool {
    h.state().state.agent("demo").is_some_and(|a| a.state == sidekicks::app::AgentState::Idle)
}

/// Clicks the button labelled `label`; the last one drawn when there are several.
fn click(h: &mut H, label: &str) {
    // Once the button is enabled (the thread bar's are greyed while the agent starts or stops,
    // as it may just after a switch of threads) and where the settled layout puts it: a frame
    // that applies an event can move the header's buttons, and a click aimed before lands beside.
    use egui_kittest::kittest::NodeT;
    let at = |h: &H| {
        h.get_all_by_role_and_label(Role::Button, label)
            .last()
            .filter(|n| !n.accesskit_node().is_disabled())
            .map(|n| n.rect())
    };
    let deadline = std::time::Instant::now() + LONG;
    loop {
        let before = at(h);
        h.step();
        if (before.is_some() && at(h) == before) || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    h.get_all_by_role_and_label(Role::Button, label).last().unwrap_or_else(|| panic!("no {label}")).click();
    h.step();
    h.step();
}

/// Opens the thread list (the combo box showing `shown`) and picks the entry starting with `title`.
fn pick_thread(h: &mut H, shown: &str, title: &str) {
    h.get_all_by_role(Role::ComboBox)
        .find(|n| n.value().as_deref() == Some(shown))
        .unwrap_or_else(|| panic!("no list showing {shown}"))
        .click();
    h.step();
    h.step();
    h.get_by_label_contains(&format!("{title}  ·  ")).click();
    h.step();
    h.step();
}

#[test]
fn the_thread_bar_makes_switches_renames_deletes_and_opens_the_agents_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let store = Store::open(&dir.path().join("db/sidekicks.db")).unwrap();
    let config = config_text("", &[("demo", BIN, &["demo-agent", "--sessions"])], dir.path());
    let mut h = window(&config, dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the agent, in a thread", |h| current(h).is_some());
    send(&mut h, "fix the flaky build");
    step_until(&mut h, LONG, "the answer and the title", |h| {
        answers(h) == 1 && titles(h).contains(&"fix the flaky build".to_string())
    });
    let first = current(&h);

    // New thread: an empty conversation, in the same agent.
    click(&mut h, "New thread");
    step_until(&mut h, LONG, "a new, empty thread", |h| current(h) != first && texts(h).is_empty() && idle(h));
    send(&mut h, "write the docs");
    step_until(&mut h, LONG, "the second answer", |h| {
        answers(h) == 1 && titles(h).contains(&"write the docs".to_string())
    });
    assert_eq!(titles(&h).len(), 2, "{:?}", titles(&h));

    // Back to the first thread through the list: its messages are shown again.
    pick_thread(&mut h, "write the docs", "fix the flaky build");
    step_until(&mut h, LONG, "the first thread again", |h| current(h) == first && idle(h));
    assert_eq!(texts(&h).first().map(String::as_str), Some("fix the flaky build"));

    // Rename it, in place: the name is typed where the list was, and Delete has not moved (the
    // bar reflowed and put Delete under the pointer).
    let list =
        h.get_all_by_role(Role::ComboBox).find(|n| n.value().as_deref() == Some("fix the flaky build")).unwrap().rect();
    let delete = h.get_by_role_and_label(Role::Button, "Delete").rect();
    let rename = h.get_by_role_and_label(Role::Button, "Rename").rect();
    click(&mut h, "Rename");
    let field = h.get_by_role(Role::TextInput).rect();
    assert!((field.left() - list.left()).abs() < 2.0 && (field.top() - list.top()).abs() < 4.0, "{field:?} {list:?}");
    let moved = h.get_by_role_and_label(Role::Button, "Delete").rect().min - delete.min;
    assert!(moved.length() < 1.0, "Delete stays where it was: moved by {moved:?}");
    assert!(!h.get_by_role_and_label(Role::Button, "Delete").rect().intersects(rename), "nothing under the pointer");
    let edit =
        h.get_all_by_role(Role::TextInput).find(|n| n.value().as_deref() == Some("fix the flaky build")).unwrap();
    edit.click();
    h.step();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.step();
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.value().as_deref() == Some("fix the flaky build"))
        .unwrap()
        .type_text("flaky CI");
    h.step();
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the new name", |h| titles(h).contains(&"flaky CI".to_string()));
    assert!(
        h.get_all_by_role(Role::ComboBox).any(|n| n.value().as_deref() == Some("flaky CI")),
        "the list shows the new name"
    );

    // Every thread to scan (it was only a drop-down): title, agent, last activity; a click
    // opens it in its agent's conversation.
    let flaky = current(&h);
    h.get_by_label("All threads").click();
    step_until(&mut h, LONG, "the list of threads", |h| h.query_by_label("Last activity").is_some());
    assert!(h.query_by_label("flaky CI").is_some() && h.query_by_label("write the docs").is_some());
    assert!(h.query_all_by_label("demo").count() >= 2, "each thread's agent");
    h.get_by_label("write the docs").click();
    step_until(&mut h, LONG, "the other thread open", |h| current(h) != flaky && idle(h));
    assert_eq!(texts(&h).first().map(String::as_str), Some("write the docs"));
    pick_thread(&mut h, "write the docs", "flaky CI");
    step_until(&mut h, LONG, "back to the renamed thread", |h| current(h) == flaky && idle(h));

    // Delete asks first; Cancel keeps the thread, Delete removes it and shows the other one.
    click(&mut h, "Delete");
    assert!(h.query_by_label_contains("Delete the thread “flaky CI”").is_some(), "Delete asks first");
    click(&mut h, "Cancel");
    assert!(h.query_by_label_contains("Delete the thread").is_none());
    assert_eq!(titles(&h).len(), 2);
    click(&mut h, "Delete");
    click(&mut h, "Delete");
    step_until(&mut h, LONG, "the thread gone, the other shown", |h| {
        titles(h) == ["write the docs"] && current(h).is_some_and(|c| Some(c) != first) && idle(h)
    });
    assert_eq!(texts(&h).first().map(String::as_str), Some("write the docs"));

    // The agent's own sessions: the earlier one it kept opens as a thread, in the same agent.
    click(&mut h, "demo's sessions…");
    step_until(&mut h, LONG, "the agent's sessions", |h| {
        h.query_by_label("An earlier session, from before Sidekicks").is_some()
    });
    assert!(h.query_by_label("(a thread)").is_some(), "the session shown as a thread is marked");
    let earlier = h.get_by_label("An earlier session, from before Sidekicks").rect();
    let open = h
        .get_all_by_role_and_label(Role::Button, "Open")
        .min_by(|a, b| {
            (a.rect().center().y - earlier.center().y)
                .abs()
                .total_cmp(&(b.rect().center().y - earlier.center().y).abs())
        })
        .unwrap();
    open.click();
    step_until(&mut h, LONG, "the earlier session as a thread", |h| {
        titles(h).contains(&"An earlier session, from before Sidekicks".to_string()) && idle(h)
    });
    assert_eq!(titles(&h).len(), 2);
    h.state_mut().shutdown();
}

/// An agent that names no session: its thread took the title of its first message only after a
/// restart ("New thread" in the bar and in All threads meanwhile).
#[test]
fn a_thread_is_named_by_its_first_message_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let store = Store::open(&dir.path().join("db/sidekicks.db")).unwrap();
    let config = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    let mut h = window(&config, dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the agent, in a thread", |h| current(h).is_some());
    send(&mut h, "tidy the release notes");
    step_until(&mut h, LONG, "the title from the first message", |h| {
        answers(h) == 1 && titles(h) == ["tidy the release notes"]
    });
    h.state_mut().shutdown();
}

/// History follows the agent (issue 48, item 9): renamed in the file, the agent keeps its
/// thread; removed, its threads are listed in All threads as not in this config, open read only
/// and can be deleted.
#[test]
fn a_renamed_agent_keeps_its_thread_and_a_removed_ones_are_read_only_and_deletable() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let store = Store::open(&dir.path().join("db/sidekicks.db")).unwrap();
    let config = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    let mut h = window(&config, dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "the agent, in a thread", |h| current(h).is_some());
    send(&mut h, "fix the flaky build");
    step_until(&mut h, LONG, "the answer and the title", |h| {
        answers(h) == 1 && titles(h).contains(&"fix the flaky build".to_string())
    });
    let thread = current(&h).unwrap();

    // Renamed in the file (same command, same folder): the new name shows the same thread.
    let file = dir.path().join("sidekicks.toml");
    std::fs::write(&file, config.replace("name = \"demo\"", "name = \"helper\"")).unwrap();
    step_until(&mut h, LONG, "helper, with demo's thread", |h| {
        h.state().state.agent("helper").is_some_and(|a| {
            a.threads.current == Some(thread)
                && a.conversation.messages.first().is_some_and(|m| m.text() == "fix the flaky build")
        })
    });

    // Removed (another agent in its place): its thread is listed, not in this config.
    std::fs::write(&file, config_text("", &[("other", BIN, &["demo-agent", "--sessions"])], dir.path())).unwrap();
    step_until(&mut h, LONG, "helper gone, its thread kept", |h| {
        h.state().state.agent("helper").is_none()
            && h.state().state.other_threads.iter().any(|t| t.summary.id == thread)
    });
    h.get_by_label("All threads").click();
    step_until(&mut h, LONG, "the list with helper's thread", |h| {
        h.query_by_label("helper — not in this config").is_some()
    });
    h.get_by_label("fix the flaky build").click();
    step_until(&mut h, LONG, "the thread, read only", |h| {
        h.query_by_label_contains("Read only: helper is not in this config").is_some()
            && h.query_all_by_label("fix the flaky build").count() >= 2
    });
    assert!(h.query_by_label("Send").is_none(), "nothing to send to: read only");

    // Delete asks first, then the thread goes from the list and from the history.
    click(&mut h, "Delete");
    assert!(h.query_by_label_contains("Delete the thread “fix the flaky build”").is_some(), "Delete asks first");
    click(&mut h, "Delete");
    step_until(&mut h, LONG, "the thread deleted", |h| h.state().state.other_threads.is_empty());
    assert!(store.all_threads().unwrap().iter().all(|t| t.row.id != thread));
    assert!(h.query_by_label_contains("Read only").is_none(), "back to the list");
    h.state_mut().shutdown();
}

/// A thread nothing was said in is not listed in All threads (every agent has one, shown as
/// "New thread (open)" for agents never spoken to: a new user's trial).
#[test]
fn all_threads_lists_no_empty_thread() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let store = Store::open(&dir.path().join("db/sidekicks.db")).unwrap();
    let agents: &[(&str, &str, &[&str])] = &[("demo", BIN, &["demo-agent"]), ("quiet", BIN, &["demo-agent"])];
    let mut h = window(&config_text("", agents, dir.path()), dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the agents, in threads", |h| {
        current(h).is_some() && h.state().state.agent("quiet").is_some_and(|a| a.threads.current.is_some())
    });
    send(&mut h, "fix the flaky build");
    step_until(&mut h, LONG, "the answer and the title", |h| {
        answers(h) == 1 && titles(h).contains(&"fix the flaky build".to_string())
    });
    h.get_by_label("All threads").click();
    step_until(&mut h, LONG, "the list", |h| h.query_by_label("Last activity").is_some());
    assert!(h.query_by_label("fix the flaky build").is_some());
    assert!(h.query_by_label("New thread").is_none(), "quiet's empty thread is not listed");
    h.state_mut().shutdown();
}
