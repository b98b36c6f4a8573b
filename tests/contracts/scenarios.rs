//! Every demo-agent scenario through the real client: a real demo agent process over ACP.

use std::time::Duration;

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{AgentState, Command, CrashReason, Event, LogEntry};
use sidekicks::model::conversation::{Conversation, Notice, TurnEnd, Update};
use sidekicks::model::permission::{OptionKind, PermissionAnswer, PermissionRequest};
use sidekicks::model::tool::{PlanStatus, ToolKind, ToolStatus};

use crate::common;
use common::{Rig, demo_rig};

async fn next_permission(rig: &mut Rig) -> PermissionRequest {
    let e = rig
        .wait_for(Duration::from_secs(20), "permission request", |e| {
            matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. }))
        })
        .await;
    match e {
        Event::Agent(_, AgentEvent::PermissionRequested { request, .. }) => request,
        _ => unreachable!(),
    }
}

async fn answer(rig: &Rig, request: &PermissionRequest, kind: OptionKind) {
    let option = request.option(kind).expect("option offered");
    let answer = PermissionAnswer::Selected { option_id: option.id.clone(), kind };
    rig.send(Command::Agent("demo".into(), AgentCommand::AnswerPermission { id: request.id, answer })).await;
}

#[tokio::test]
async fn thinking_then_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    assert_eq!(rig.turn("demo", "think about it").await, TurnEnd::EndTurn);
    let updates = rig.updates("demo");
    let first_text = updates.iter().position(|u| matches!(u, Update::Text(_))).unwrap();
    assert!(updates[..first_text].iter().any(|u| matches!(u, Update::Thought(t) if t.contains("how I think"))));
    assert!(rig.agent_text("demo").contains("**42**"));
}

#[tokio::test]
async fn a_tool_call_with_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    assert_eq!(rig.turn("demo", "show me a diff").await, TurnEnd::EndTurn);
    let mut conversation = Conversation::default();
    for u in rig.updates("demo") {
        conversation.apply(u);
    }
    let call = conversation.messages[0]
        .parts
        .iter()
        .find_map(|p| match p {
            sidekicks::model::conversation::Part::Tool(t) => Some(t.clone()),
            _ => None,
        })
        .expect("a tool call");
    assert_eq!(call.kind, ToolKind::Edit);
    assert_eq!(call.status, ToolStatus::Completed, "the update replaced the status");
    assert!(call.diffs[0].path.ends_with("src/greeting.rs"));
    assert!(call.diffs[0].old_text.as_deref().unwrap().contains("println!(\"Hello\")"));
}

#[tokio::test]
async fn a_plan_replaced_on_each_update() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    assert_eq!(rig.turn("demo", "make a plan").await, TurnEnd::EndTurn);
    let plans: Vec<_> =
        rig.updates("demo").into_iter().filter_map(|u| if let Update::Plan(p) = u { Some(p) } else { None }).collect();
    assert_eq!(plans.len(), 4);
    assert_eq!(plans[0][0].status, PlanStatus::InProgress);
    assert!(plans[3].iter().all(|i| i.status == PlanStatus::Completed));
}

#[tokio::test]
async fn permission_allow_reject_always_and_cancel() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;

    rig.send(Command::prompt("demo", "run it")).await;
    let request = next_permission(&mut rig).await;
    assert_eq!(request.tool.kind, ToolKind::Execute);
    assert_eq!(request.tool.command().as_deref(), Some("rm -rf build"));
    assert_eq!(request.options.len(), 4);
    answer(&rig, &request, OptionKind::AllowOnce).await;
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("Allowed"));

    rig.clear();
    rig.send(Command::prompt("demo", "run it")).await;
    let request = next_permission(&mut rig).await;
    answer(&rig, &request, OptionKind::RejectOnce).await;
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("Rejected"));

    // Always allow: the next identical request is approved without asking.
    rig.clear();
    rig.send(Command::prompt("demo", "run it")).await;
    let request = next_permission(&mut rig).await;
    answer(&rig, &request, OptionKind::AllowAlways).await;
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::EndTurn);
    rig.clear();
    assert_eq!(rig.turn("demo", "run it").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("Allowed"));
    let resolved = rig.seen.iter().any(|e| {
        matches!(
            e,
            Event::Agent(
                _,
                AgentEvent::PermissionResolved {
                    answer: PermissionAnswer::Selected { kind: OptionKind::AllowAlways, .. },
                    ..
                }
            )
        )
    });
    assert!(resolved, "the remembered rule answered: {:#?}", rig.seen);
    let commands_sent =
        rig.seen.iter().filter(|e| matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. }))).count();
    assert_eq!(commands_sent, 1, "shown as already answered");
}

#[tokio::test]
async fn cancel_answers_waiting_permissions_cancelled_and_drops_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    rig.send(Command::prompt("demo", "run it")).await;
    let request = next_permission(&mut rig).await;
    rig.send(Command::prompt("demo", "queued message")).await;
    rig.send(Command::Agent("demo".into(), AgentCommand::Cancel)).await;
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::Cancelled);
    let cancelled = rig.seen.iter().any(
        |e| matches!(e, Event::Agent(_, AgentEvent::PermissionResolved { id, answer: PermissionAnswer::Cancelled, .. }) if *id == request.id),
    );
    assert!(cancelled);
    assert!(rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::QueueDropped))));
    // The queued message was never sent: the agent is idle, not answering it.
    rig.wait_for(Duration::from_secs(5), "idle", |e| {
        matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Idle, .. }))
    })
    .await;
    // A message sent now is answered next: had the dropped one been sent, its turn would come
    // first (the queue goes in order), so exactly one turn starts from here, and it is this one.
    let started =
        |rig: &common::Rig| rig.seen.iter().filter(|e| matches!(e, Event::Agent(_, AgentEvent::TurnStarted))).count();
    let before = started(&rig);
    assert_eq!(rig.turn("demo", "after the cancel").await, TurnEnd::EndTurn);
    assert_eq!(started(&rig), before + 1, "the dropped message was sent");
    assert!(!rig.agent_text("demo").contains("queued message"), "{}", rig.agent_text("demo"));
    assert!(rig.agent_text("demo").contains("after the cancel"));
}

#[tokio::test]
async fn a_message_sent_during_a_turn_waits_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    rig.send(Command::prompt("demo", "slow")).await;
    rig.send(Command::prompt("demo", "hello")).await;
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::EndTurn);
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::EndTurn);
    let text = rig.agent_text("demo");
    let slow = text.find("slowly").unwrap();
    let hello = text.find("**Hello!**").unwrap();
    assert!(slow < hello, "answered in order: {text}");
    let starts = rig.seen.iter().filter(|e| matches!(e, Event::Agent(_, AgentEvent::TurnStarted))).count();
    assert_eq!(starts, 2);
}

#[tokio::test]
async fn repeated_failures_raise_the_loop_notice_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    assert_eq!(rig.turn("demo", "fail").await, TurnEnd::EndTurn);
    let mut conversation = Conversation::default();
    let mut notices = Vec::new();
    for u in rig.updates("demo") {
        notices.extend(conversation.apply(u));
    }
    assert_eq!(notices, vec![Notice::Loop { failures: 3 }]);
    assert_eq!(conversation.failures_in_a_row, 4);
}

#[tokio::test]
async fn an_error_reads_as_the_agents_own_words() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    let end = rig.turn("demo", "error").await;
    assert_eq!(end, TurnEnd::Failed { message: "The demo model is overloaded; try again in a minute.".into() });
}

#[tokio::test]
async fn a_crash_mid_turn_then_a_new_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    assert_eq!(rig.turn("demo", "hello").await, TurnEnd::EndTurn);
    let end = rig.turn("demo", "crash").await;
    assert_eq!(end, TurnEnd::AgentExited);
    let crashed = rig
        .wait_for(Duration::from_secs(10), "crash", |e| {
            matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(_), .. }))
        })
        .await;
    let Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(report), .. }) = crashed else { unreachable!() };
    assert_eq!(report.reason, CrashReason::Exited { code: 3 });
    assert!(report.stderr_tail.iter().any(|l| l.contains("crashing on purpose")));
    // The next message starts a new process and session, and says the agent forgot.
    rig.clear();
    assert_eq!(rig.turn("demo", "hello again").await, TurnEnd::EndTurn);
    assert!(
        rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Notice { notice: Notice::NewSession, .. })))
    );
}

#[tokio::test]
async fn garbage_and_a_10_mb_line_go_to_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    assert_eq!(rig.turn("demo", "garbage").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("should be in my Log"));
    assert!(rig.seen.iter().any(
        |e| matches!(e, Event::Agent(_, AgentEvent::Log { entry: LogEntry::NotAcp(line), .. }) if line == "Welcome! This line is not JSON-RPC.")
    ));
    rig.clear();
    assert_eq!(rig.turn("demo", "huge").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("still fine"));
    let logged = rig.seen.iter().find_map(|e| match e {
        Event::Agent(_, AgentEvent::Log { entry: LogEntry::NotAcp(line), .. }) if line.starts_with("xxxx") => {
            Some(line.len())
        }
        _ => None,
    });
    assert!(logged.is_some_and(|len| len < 2000), "the huge line is logged cut short: {logged:?}");
}

#[tokio::test]
async fn files_are_read_and_written_inside_the_workspace_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    assert_eq!(rig.turn("demo", "files").await, TurnEnd::EndTurn);
    let text = rig.agent_text("demo");
    assert!(text.contains("was refused"), "{text}");
    let written = std::fs::read_to_string(dir.path().join("notes/demo.md")).unwrap();
    assert!(written.starts_with("# Notes"));
}

#[tokio::test]
async fn an_update_that_does_not_parse_is_logged_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    assert_eq!(rig.turn("demo", "usage").await, TurnEnd::EndTurn);
    let cost = Some(sidekicks::model::conversation::Cost { millionths: 12_300, currency: "USD".into() });
    assert!(rig.updates("demo").contains(&Update::Usage { used: 1234, size: 200000, cost }));
    assert!(rig.agent_text("demo").contains("malformed"));
    assert!(rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Log { entry: LogEntry::BadUpdate { update, .. }, .. }) if update.contains("usage_update"))));
}

#[tokio::test]
async fn an_agent_that_ignores_cancel_is_stopped_after_a_grace() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    rig.send(Command::prompt("demo", "ignore")).await;
    // Once the agent has the prompt (a Stop before that ends the turn without sending it).
    rig.wait_for(
        Duration::from_secs(20),
        "the agent's words",
        |e| matches!(e, Event::Agent(_, AgentEvent::Update { update: Update::Text(t), .. }) if t.contains("will not answer")),
    )
    .await;
    rig.send(Command::Agent("demo".into(), AgentCommand::Cancel)).await;
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::Cancelled);
    assert!(
        rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Notice { notice: Notice::Unresponsive, .. })))
    );
    rig.wait_for(Duration::from_secs(10), "stopped", |e| {
        matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Stopped, .. }))
    })
    .await;
    // It answers again after that, in a new session.
    rig.clear();
    assert_eq!(rig.turn("demo", "hello").await, TurnEnd::EndTurn);
    assert!(
        rig.seen.iter().any(|e| matches!(e, Event::Agent(_, AgentEvent::Notice { notice: Notice::NewSession, .. })))
    );
}
