//! An agent over SSH whose connection is lost mid-turn, in the window: it shows "disconnected"
//! (with Reconnect), the person's message stays, what the agent started there is ended (no
//! orphan on either side), and Reconnect brings it back to answer again. The connection is
//! killed for real: the shared OpenSSH connection (its ControlMaster) gets SIGKILL.

use std::time::{Duration, Instant};

use egui_kittest::kittest::Queryable;
use sidekicks::app::{AgentState, CrashReason};
use sidekicks::model::conversation::Role;

mod common;
use common::ssh::{DROP, available, master_pid, processes_with};
use common::window::{runtime, send, step_until, window};

const LIMIT: Duration = Duration::from_secs(60);

type H = egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>;

fn said(h: &H) -> String {
    let agent = h.state().state.agent("far").unwrap();
    agent.conversation.messages.iter().filter(|m| m.role == Role::Agent).map(|m| m.text()).collect()
}

#[test]
fn a_lost_connection_shows_disconnected_keeps_the_message_ends_the_orphans_and_reconnects() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[[agent]]\nname = \"far\"\ncommand = {:?}\nargs = [\"demo-agent\", \"--misbehave\"]\nworkspace = {:?}\nruntime = {{ type = \"ssh\", host = {DROP:?} }}\n",
        common::BIN,
        dir.path().display().to_string()
    );
    let rt = runtime();
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LIMIT, "agents", |h| h.state().state.agent("far").is_some());

    // "spawn": the agent starts `sleep 1000` there, says both pids, and never ends its turn.
    send(&mut h, "spawn");
    step_until(&mut h, LIMIT, "the pids", |h| {
        said(h).split_whitespace().filter(|w| w.parse::<i32>().is_ok()).count() >= 2
    });
    let pids: Vec<i32> = said(&h).split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert!(pids.iter().all(|p| common::alive(*p)), "{pids:?}");
    assert!(processes_with(DROP).iter().any(|(_, line)| line.starts_with("ssh ")), "its ssh client runs here");

    // The connection is lost.
    let master = master_pid(DROP);
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(master, libc::SIGKILL) }, 0);

    step_until(&mut h, LIMIT, "disconnected", |h| {
        matches!(&h.state().state.agent("far").unwrap().state,
            AgentState::Crashed(r) if matches!(&r.reason, CrashReason::Disconnected { host } if host == DROP))
    });
    step_until(&mut h, LIMIT, "the words", |h| {
        h.query_by_label_contains(&format!("Disconnected from {DROP}")).is_some()
            && h.query_by_label("Reconnect").is_some()
    });
    let agent = h.state().state.agent("far").unwrap();
    let mine: Vec<String> =
        agent.conversation.messages.iter().filter(|m| m.role == Role::User).map(|m| m.text()).collect();
    assert_eq!(mine, vec!["spawn".to_string()], "the person's message stays");

    // No orphan on either side: what it started there ends, and no ssh client is left here.
    let deadline = Instant::now() + LIMIT;
    while pids.iter().any(|p| common::alive(*p)) {
        assert!(Instant::now() < deadline, "left running there: {pids:?}");
        h.step();
        std::thread::sleep(Duration::from_millis(50));
    }
    step_until(&mut h, LIMIT, "no ssh client left", |_| {
        processes_with(DROP).iter().all(|(_, line)| !line.starts_with("ssh ") || line.contains("[mux]"))
    });

    // Reconnect: the agent starts there again and answers.
    h.get_by_label("Reconnect").click();
    step_until(&mut h, LIMIT, "running again", |h| {
        matches!(h.state().state.agent("far").unwrap().state, AgentState::Idle)
    });
    send(&mut h, "hello");
    step_until(&mut h, LIMIT, "the answer", |h| said(h).contains("hello from the misbehaving agent"));
}
