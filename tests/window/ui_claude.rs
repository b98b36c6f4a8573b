//! Claude Code's ACP adapter (tests/claude-agent) in the window, offline, its model a stand-in
//! Messages API that names every tool call `toolu_01` (issue 34, item 13): the adapter passes the
//! model's ids on as ACP tool call ids, so the second turn's permission request names the same
//! call as the first's. Its card must take its own answer: before, the answer went to the first
//! turn's card, the new one kept its buttons and "Needs you (1)" stayed.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::model::conversation::TurnEnd;

use crate::common;
use common::fake_anthropic::{FakeAnthropic, Ids};
use common::window::{runtime, send, step_until, window};

const LONG: Duration = Duration::from_secs(120);

type H = egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>;

fn ended(h: &H, turns: usize) -> bool {
    let a = h.state().state.agent("claude").unwrap();
    let answers = a.conversation.messages.iter().filter(|m| m.end.is_some()).count();
    answers >= turns
}

/// Waits for the turn's card (`n`th of the agent's), answers "Allow once" on it and waits until
/// that card holds the answer.
fn allow_once(h: &mut H, n: usize, turns: usize) {
    let card = |h: &H| h.state().state.agent("claude").unwrap().permissions.get(n).map(|c| c.answer.clone());
    step_until(h, LONG, "the card", |h| card(h).is_some() || ended(h, turns));
    assert_eq!(card(h), Some(None), "the turn ended without asking");
    assert_eq!(h.state().state.needs_you(), 1);
    step_until(h, LONG, "the card answered", |h| {
        if let Some(button) = h.query_by_label("Allow once") {
            button.click();
        }
        card(h).flatten().is_some()
    });
}

#[test]
fn a_card_takes_its_own_answer_when_the_agent_reuses_a_tool_call_id() {
    let Some(launcher) =
        common::codex::npm_launcher("tests/claude-agent", "claude-agent-acp", "Claude Code's ACP adapter")
    else {
        return;
    };
    use serde_json::json;
    let write = |file: &str| {
        vec![("Write".to_string(), json!({"file_path": format!("{{cwd}}/{file}"), "content": format!("{file}\n")}))]
    };
    let rules = vec![
        ("write the first note".into(), write("first.txt")),
        ("write the second note".into(), write("second.txt")),
    ];
    let model = FakeAnthropic::start(rules, Ids::Same);
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let mut text = common::config_text("", &[("claude", &launcher.display().to_string(), &[])], &home);
    text.push_str(&model.agent_env(&dir.path().join("claude-home")));
    let rt = runtime();
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("claude").is_some());

    send(&mut h, "please write the first note");
    allow_once(&mut h, 0, 1);
    step_until(&mut h, LONG, "the first answer", |h| ended(h, 1));
    assert_eq!(std::fs::read_to_string(home.join("first.txt")).unwrap(), "first.txt\n");
    assert_eq!(h.state().state.needs_you(), 0);

    // The second turn's call is `toolu_01` again: its card takes the answer. (Claude Code then
    // asks again and again for a call whose id its history already holds — the model's fault,
    // not the client's; each of those cards takes its own answer too.)
    send(&mut h, "please write the second note");
    allow_once(&mut h, 1, 2);
    allow_once(&mut h, 2, 2);
    let agent = h.state().state.agent("claude").unwrap();
    let ids: Vec<&str> = agent.permissions.iter().map(|c| c.request.tool.id.as_str()).collect();
    assert!(ids.iter().all(|id| *id == "toolu_01"), "the adapter passed the model's ids on: {ids:?}");
    assert_eq!(agent.permissions[2].message, agent.permissions[1].message, "both under the second turn's call");
    assert_ne!(agent.permissions[0].message, agent.permissions[1].message, "the first turn's card stays with its call");
    // Stop: a card still waiting is answered "cancelled"; nothing needs the person.
    h.state_mut().send(sidekicks::app::Command::Agent("claude".into(), sidekicks::app::AgentCommand::Cancel));
    step_until(&mut h, LONG, "the turn stopped", |h| ended(h, 2));
    step_until(&mut h, LONG, "no live card", |h| {
        h.state().state.agent("claude").unwrap().waiting_permissions().next().is_none()
    });
    assert_eq!(h.state().state.needs_you(), 0);
    assert_eq!(
        h.state().state.agent("claude").unwrap().conversation.messages.last().unwrap().end,
        Some(TurnEnd::Cancelled)
    );
    h.state_mut().shutdown();
}
