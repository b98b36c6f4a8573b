//! `terminal`: the demo agent runs commands through the client (ACP `terminal/*`), after asking:
//! a short one that prints steps and exits 3 (its tool card embeds the terminal, so the output shows
//! live), read back with a byte limit that cuts inside a multi-byte character; a long one with a
//! background child, killed; a folder outside the workspace, refused; then both released.

use std::time::Duration;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, KillTerminalRequest, PermissionOption, PermissionOptionKind, ReleaseTerminalRequest,
    RequestPermissionOutcome, RequestPermissionRequest, StopReason, Terminal, TerminalOutputRequest, ToolCall,
    ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind, WaitForTerminalExitRequest,
};

use super::turn::Turn;

/// The short command: four steps, a line of `é`, exit code 3.
pub const STEPS: &str = "for i in 1 2 3 4; do echo \"step $i\"; sleep 0.2; done; printf 'ééééé\\n'; exit 3";

pub(super) async fn terminal(t: &Turn) -> Result<StopReason, Error> {
    let id = "term-call-1";
    t.tool(ToolCall::new(id, "Run the build steps").kind(ToolKind::Execute).status(ToolCallStatus::Pending))?;
    let options = vec![
        PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
        PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
    ];
    let fields = ToolCallUpdateFields::new().title("Run the build steps").kind(ToolKind::Execute);
    let request = RequestPermissionRequest::new(t.session.clone(), ToolCallUpdate::new(id, fields), options);
    match t.cx.send_request(request).block_task().await?.outcome {
        RequestPermissionOutcome::Selected(s) if s.option_id.0.as_ref() == "allow" => {}
        RequestPermissionOutcome::Selected(_) => {
            t.tool_update(id, ToolCallUpdateFields::new().status(ToolCallStatus::Failed))?;
            return t.stream("Rejected: I ran nothing.", Duration::from_millis(20)).await;
        }
        _ => return Ok(StopReason::Cancelled),
    }
    let session = t.session.clone();
    let create = |command: &str, limit: Option<u64>| {
        CreateTerminalRequest::new(session.clone(), "sh")
            .args(vec!["-c".into(), command.into()])
            .output_byte_limit(limit)
    };
    // The short one, shown live in the tool card.
    let short = t.cx.send_request(create(STEPS, Some(10))).block_task().await?.terminal_id;
    t.tool_update(
        id,
        ToolCallUpdateFields::new()
            .status(ToolCallStatus::InProgress)
            .content(vec![ToolCallContent::Terminal(Terminal::new(short.clone()))]),
    )?;
    let exit = t.cx.send_request(WaitForTerminalExitRequest::new(session.clone(), short.clone())).block_task().await?;
    let output = t.cx.send_request(TerminalOutputRequest::new(session.clone(), short.clone())).block_task().await?;
    // The long one, with a child of its own, killed.
    let long = t.cx.send_request(create("sleep 300 & sleep 301; echo never", None)).block_task().await?.terminal_id;
    tokio::time::sleep(Duration::from_millis(200)).await;
    t.cx.send_request(KillTerminalRequest::new(session.clone(), long.clone())).block_task().await?;
    let killed = t.cx.send_request(WaitForTerminalExitRequest::new(session.clone(), long.clone())).block_task().await?;
    // A folder outside the workspace.
    let outside = create("pwd", None).cwd(t.cwd.join("../.."));
    let refused = t.cx.send_request(outside).block_task().await.is_err();
    for terminal in [short, long] {
        t.cx.send_request(ReleaseTerminalRequest::new(session.clone(), terminal)).block_task().await?;
    }
    let status = if exit.exit_status.exit_code == Some(3) { ToolCallStatus::Completed } else { ToolCallStatus::Failed };
    t.tool_update(id, ToolCallUpdateFields::new().status(status))?;
    let summary = format!(
        "Exit code {:?}; last output {:?} (truncated: {}). The long one ended by {:?}. Outside the workspace: {}.",
        exit.exit_status.exit_code,
        output.output,
        output.truncated,
        killed.exit_status.signal,
        if refused { "refused" } else { "allowed (that is wrong)" }
    );
    t.stream(&summary, Duration::from_millis(10)).await
}
