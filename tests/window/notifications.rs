//! Desktop notifications, through a stand-in freedesktop notification service on a private D-Bus
//! session bus (Debian's dbus-daemon; the service is written here with zbus): while the window is
//! not focused, a permission waiting and a finished turn are announced (the later note about the
//! same agent replaces the earlier), a kind switched off in `[notifications]` is not, clicking a
//! note shows its conversation and brings the window forward, and nothing is sent while the window
//! is focused. Before the bus exists, notes are dropped and the app goes on.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::protocol::AgentState;
use sidekicks::ui::SidekicksApp;
use zbus::zvariant::OwnedValue;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

type H = Harness<'static, SidekicksApp>;

/// A note as the service received it.
#[derive(Clone, Debug)]
struct Received {
    id: u32,
    replaces: u32,
    summary: String,
    body: String,
    actions: Vec<String>,
}

/// The stand-in `org.freedesktop.Notifications`.
struct StandIn {
    received: Arc<Mutex<Vec<Received>>>,
    next: u32,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl StandIn {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &mut self,
        _app_name: String,
        replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let id = if replaces_id != 0 {
            replaces_id
        } else {
            self.next += 1;
            self.next
        };
        self.received.lock().unwrap().push(Received { id, replaces: replaces_id, summary, body, actions });
        id
    }

    fn get_capabilities(&self) -> Vec<String> {
        vec!["actions".into(), "body".into()]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        ("stand-in".into(), "sidekicks tests".into(), "1".into(), "1.2".into())
    }

    fn close_notification(&self, _id: u32) {}
}

/// A private session bus listening at `socket`, ended on drop.
struct Bus(Child);

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_bus(socket: &Path) -> Option<Bus> {
    let child = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--nopidfile"])
        .arg(format!("--address=unix:path={}", socket.display()))
        .stdout(Stdio::null())
        .spawn();
    let child = match child {
        Ok(child) => child,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: no dbus-daemon ({e}); CI installs it");
            return None;
        }
        Err(e) => panic!("dbus-daemon is needed in CI: {e}"),
    };
    let deadline = Instant::now() + LONG;
    while !socket.exists() {
        assert!(Instant::now() < deadline, "the bus did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(Bus(child))
}

fn shown(h: &H) -> Option<String> {
    h.state().shown_agent().map(str::to_string)
}

fn answers(h: &H, agent: &str) -> usize {
    h.state().state.agent(agent).map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

fn open(h: &mut H, agent: &str) {
    h.get_all_by_label(agent).next().unwrap().click();
    step_until(h, LONG, "the agent shown", |h| shown(h).as_deref() == Some(agent));
}

#[test]
fn notes_go_through_the_desktop_service_and_a_click_opens_the_conversation() {
    if !common::alone(concat!(
        module_path!(),
        "::notes_go_through_the_desktop_service_and_a_click_opens_the_conversation"
    )) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("bus");
    // Set once, before any thread of the app exists; the bus itself comes later.
    // SAFETY: this test runs alone in a process of its own (`common::alone`), so no one reads
    // the environment concurrently.
    unsafe { std::env::set_var("DBUS_SESSION_BUS_ADDRESS", format!("unix:path={}", socket.display())) };

    let rt = runtime();
    let agents: &[(&str, &str, &[&str])] = &[("alpha", BIN, &["demo-agent"]), ("beta", BIN, &["demo-agent"])];
    let text = format!("{}\n[notifications]\ncrashed = false\n", config_text("", agents, dir.path()));
    let mut h = window(&text, dir.path(), &rt, None);
    h.input_mut().focused = false;
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("beta").is_some());
    open(&mut h, "alpha");

    // No notification service yet: the note is dropped, the app goes on.
    send(&mut h, "hello");
    step_until(&mut h, LONG, "the first answer", |h| answers(h, "alpha") == 1);
    send(&mut h, "hello again");
    step_until(&mut h, LONG, "the second answer", |h| answers(h, "alpha") == 2);

    // The desktop's service starts.
    let Some(_bus) = start_bus(&socket) else { return };
    let received = Arc::new(Mutex::new(Vec::new()));
    let service = zbus::blocking::connection::Builder::address(format!("unix:path={}", socket.display()).as_str())
        .unwrap()
        .name("org.freedesktop.Notifications")
        .unwrap()
        .serve_at("/org/freedesktop/Notifications", StandIn { received: received.clone(), next: 0 })
        .unwrap()
        .build()
        .unwrap();
    let notes = || received.lock().unwrap().clone();

    // A permission waits: "alpha needs you", with what it asks and an action that opens it.
    send(&mut h, "run it");
    step_until(&mut h, LONG, "the needs-you note", |_| !notes().is_empty());
    let first = notes()[0].clone();
    assert_eq!(first.summary, "alpha needs you");
    assert!(first.body.starts_with("Allow “"), "{first:?}");
    assert_eq!(first.actions, ["default", "Open"]);
    assert_eq!(first.replaces, 0);

    // Beta crashes: that kind is switched off in the config.
    open(&mut h, "beta");
    send(&mut h, "crash");
    step_until(&mut h, LONG, "beta crashed", |h| {
        matches!(h.state().state.agent("beta").map(|a| &a.state), Some(AgentState::Crashed(_)))
    });

    // Answering alpha's permission lets its turn finish: a note that replaces the first.
    open(&mut h, "alpha");
    h.get_all_by_role_and_label(Role::Button, "Allow once").next().expect("the permission card").click();
    step_until(&mut h, LONG, "the finished note", |_| notes().len() == 2);
    let finished = notes()[1].clone();
    assert_eq!(finished.summary, "alpha finished");
    assert_eq!(finished.replaces, first.id, "the note about alpha is replaced, not stacked");
    assert!(!notes().iter().any(|n| n.summary.contains("crashed")), "{:?}", notes());

    // A click on the note, while beta is shown: alpha's conversation, and the window forward.
    open(&mut h, "beta");
    service
        .emit_signal(
            None::<&str>,
            "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications",
            "ActionInvoked",
            &(finished.id, "default"),
        )
        .unwrap();
    let focus = |h: &H| h.output().viewport_output.values().any(|v| v.commands.contains(&egui::ViewportCommand::Focus));
    step_until(&mut h, LONG, "alpha shown by the click", |h| shown(h).as_deref() == Some("alpha") && focus(h));

    // Focused: nothing is sent.
    h.input_mut().focused = true;
    let before = notes().len();
    let done = answers(&h, "alpha");
    send(&mut h, "hello");
    step_until(&mut h, LONG, "the answer", |h| answers(h, "alpha") == done + 1);
    h.step();
    h.step();
    assert_eq!(notes().len(), before, "no note while focused: {:?}", notes());
    h.state_mut().shutdown();
}
