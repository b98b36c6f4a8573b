//! Agents over SSH whose connection is lost mid-turn, in the window: they show "disconnected"
//! (with Reconnect), the person's message stays, what they started there — themselves or through
//! Sidekicks' terminals — is ended (no orphan on either side), and Reconnect brings one back to
//! answer again. A terminal that cannot reach its host says why. The connection is
//! killed for real: the shared OpenSSH connection (its ControlMaster) gets SIGKILL.

use std::time::{Duration, Instant};

use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::app::{AgentState, CrashReason};
use sidekicks::model::conversation::Role;

use crate::common;
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
    let agent = |name: &str| {
        format!(
            "[[agent]]\nname = {name:?}\ncommand = {:?}\nargs = [\"demo-agent\", \"--misbehave\"]\nworkspace = {:?}\nruntime = {{ type = \"ssh\", host = {DROP:?} }}\n",
            common::BIN,
            dir.path().display().to_string()
        )
    };
    let text = format!("{}{}", agent("far"), agent("cmds"));
    let rt = runtime();
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LIMIT, "agents", |h| h.state().state.agent("cmds").is_some());

    // "terms 2 N": the agent runs two `sleep N` there through Sidekicks (ACP terminals), then
    // never ends its turn.
    let seconds = format!("{}", 40_000 + std::process::id() % 10_000);
    let sleep = format!("sleep {seconds}");
    h.get_by_label("cmds").click();
    h.step();
    send(&mut h, &format!("terms 2 {seconds}"));
    step_until(&mut h, LIMIT, "the commands", |h| {
        let a = h.state().state.agent("cmds").unwrap();
        a.conversation.messages.iter().any(|m| m.text().contains("created 2"))
    });
    // There (the command itself, under sshd, once the login shell there ran it), not here (its
    // ssh client names it too).
    let there = |sleep: &str| -> Vec<i32> {
        processes_with(sleep).into_iter().filter(|(_, line)| line.starts_with(sleep)).map(|(pid, _)| pid).collect()
    };
    step_until(&mut h, LIMIT, "both commands running there", |_| there(&sleep).len() == 2);
    let commands = there(&sleep);

    // "spawn": the agent starts `sleep 1000` there itself, says both pids, and never ends its turn.
    h.get_by_label("far").click();
    h.step();
    send(&mut h, "spawn");
    step_until(&mut h, LIMIT, "the pids", |h| {
        said(h).split_whitespace().filter(|w| w.parse::<i32>().is_ok()).count() >= 2
    });
    let mut pids: Vec<i32> = said(&h).split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert!(pids.iter().all(|p| common::alive(*p)), "{pids:?}");
    assert!(processes_with(DROP).iter().any(|(_, line)| line.starts_with("ssh ")), "its ssh client runs here");
    pids.extend(commands);

    // The connection is lost.
    let master = master_pid(DROP);
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(master, libc::SIGKILL) }, 0);

    step_until(&mut h, LIMIT, "both disconnected", |h| {
        ["far", "cmds"].iter().all(|a| {
            matches!(&h.state().state.agent(a).unwrap().state,
            AgentState::Crashed(r) if matches!(&r.reason, CrashReason::Disconnected { host } if host == DROP))
        })
    });
    step_until(&mut h, LIMIT, "the words", |h| {
        h.query_by_label_contains(&format!("Disconnected from {DROP}")).is_some()
            && h.query_by_label("Reconnect").is_some()
    });
    assert!(h.query_by_label("disconnected").is_some(), "the header says it (not \"crashed\")");
    let agent = h.state().state.agent("far").unwrap();
    let mine: Vec<String> =
        agent.conversation.messages.iter().filter(|m| m.role == Role::User).map(|m| m.text()).collect();
    assert_eq!(mine, vec!["spawn".to_string()], "the person's message stays");

    // No orphan on either side: what they started there (themselves, or through Sidekicks) ends,
    // and no ssh client is left here.
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

#[test]
fn a_terminal_that_cannot_reach_its_host_says_why() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[[agent]]\nname = \"stranger\"\ncommand = \"x\"\nworkspace = {:?}\nruntime = {{ type = \"ssh\", host = \"sidekicks-test-unknown\" }}\n",
        dir.path().display().to_string()
    );
    let rt = runtime();
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LIMIT, "agents", |h| h.state().state.agent("stranger").is_some());
    h.get_by_label("Terminal").click();
    let deadline = Instant::now() + LIMIT;
    loop {
        let ended = h.query_by_label("The shell has ended.").is_some();
        if ended && h.query_by_label_contains("Host key verification failed").is_some() {
            break;
        }
        if Instant::now() > deadline {
            // What the window shows instead, to tell why.
            let shown: Vec<String> =
                h.query_all_by_label_contains("").filter_map(|n| n.accesskit_node().label()).collect();
            panic!("timed out waiting for the shell's end (ended: {ended}) and why; shown: {shown:?}");
        }
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}
