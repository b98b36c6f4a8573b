//! Against an ACP agent written by others: the example agent of the ACP TypeScript SDK
//! (`@agentclientprotocol/sdk` 1.9.0, pinned in tests/ts-agent/package-lock.json), run with node.
//! It streams chunks, makes tool calls and asks a permission; the client handles all of it and
//! cancels. npm installs it on first run. Without node/npm the test is skipped with a reason,
//! except in CI (`CI` set), where that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Duration;

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{Command, Event};
use sidekicks::model::conversation::{Conversation, Part, TurnEnd};
use sidekicks::model::permission::{OptionKind, PermissionAnswer};
use sidekicks::model::tool::{ToolKind, ToolStatus};

use crate::common;
use common::{Rig, config_text, fast_settings, load_config};

/// The example agent's script, installed with `npm ci` when missing; `None` (with the reason
/// printed) when node or npm is missing outside CI.
fn example_agent() -> Option<PathBuf> {
    // Both tests need it; install once.
    static INSTALLED: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    INSTALLED.get_or_init(install).clone()
}

fn install() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ts-agent");
    let script = dir.join("node_modules/@agentclientprotocol/sdk/dist/examples/agent.js");
    let have = |tool: &str| Process::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if !have("node") || !have("npm") {
        assert!(std::env::var_os("CI").is_none(), "node and npm are required in CI for the TypeScript agent test");
        println!("skipped: node or npm is not installed (the TypeScript SDK's example agent needs them)");
        return None;
    }
    if !script.exists() {
        let out = Process::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .output()
            .expect("run npm ci");
        assert!(out.status.success(), "npm ci failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Some(script)
}

async fn ts_rig(script: &Path, dir: &Path) -> Rig {
    let rig = Rig::new(fast_settings());
    let script = script.display().to_string();
    load_config(&rig, dir, &config_text("", &[("ts", "node", &[script.as_str()])], dir)).await;
    rig
}

#[tokio::test]
async fn the_typescript_example_agent_streams_calls_tools_and_asks_permission() {
    let Some(script) = example_agent() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut rig = ts_rig(&script, dir.path()).await;

    rig.send(Command::prompt("ts", "improve the config")).await;
    let e = rig
        .wait_for(Duration::from_secs(30), "permission", |e| {
            matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. }))
        })
        .await;
    let Event::Agent(_, AgentEvent::PermissionRequested { request, .. }) = e else { unreachable!() };
    assert_eq!(request.tool.kind, ToolKind::Edit);
    assert_eq!(request.tool.title, "Modifying critical configuration file");
    let allow = request.option(OptionKind::AllowOnce).expect("allow_once offered").clone();
    assert!(request.option(OptionKind::RejectOnce).is_some());
    let answer = PermissionAnswer::Selected { option_id: allow.id, kind: OptionKind::AllowOnce };
    rig.send(Command::Agent("ts".into(), AgentCommand::AnswerPermission { id: request.id, answer })).await;
    assert_eq!(rig.wait_turn_end("ts").await, TurnEnd::EndTurn);

    let text = rig.agent_text("ts");
    assert!(text.starts_with("I'll help you with that."), "{text}");
    assert!(text.contains("successfully updated the configuration"), "{text}");
    let mut conversation = Conversation::default();
    for u in rig.updates("ts") {
        conversation.apply(u);
    }
    let tools: Vec<_> = conversation.messages[0]
        .parts
        .iter()
        .filter_map(|p| if let Part::Tool(t) = p { Some(t.clone()) } else { None })
        .collect();
    assert_eq!(tools.len(), 2);
    assert_eq!((tools[0].kind, tools[0].status), (ToolKind::Read, ToolStatus::Completed));
    assert!(tools[0].content[0].starts_with("# My Project"));
    assert_eq!((tools[1].kind, tools[1].status), (ToolKind::Edit, ToolStatus::Completed));
}

#[tokio::test]
async fn the_typescript_example_agent_is_cancelled_while_it_waits_for_permission() {
    let Some(script) = example_agent() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut rig = ts_rig(&script, dir.path()).await;
    rig.send(Command::prompt("ts", "go")).await;
    let e = rig
        .wait_for(Duration::from_secs(30), "permission", |e| {
            matches!(e, Event::Agent(_, AgentEvent::PermissionRequested { .. }))
        })
        .await;
    let Event::Agent(_, AgentEvent::PermissionRequested { request, .. }) = e else { unreachable!() };
    rig.send(Command::Agent("ts".into(), AgentCommand::Cancel)).await;
    let end = rig.wait_turn_end("ts").await;
    // This agent answers a cancelled permission by ending its turn normally.
    assert!(matches!(end, TurnEnd::EndTurn | TurnEnd::Cancelled), "{end:?}");
    assert!(rig.seen.iter().any(|e| matches!(
        e,
        Event::Agent(_, AgentEvent::PermissionResolved { id, answer: PermissionAnswer::Cancelled, .. }) if *id == request.id
    )));
    assert!(!rig.agent_text("ts").contains("successfully updated"));
}
