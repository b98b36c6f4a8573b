//! The built-in demo agent (`sidekicks demo-agent`): a real ACP agent over stdin/stdout, built on
//! the official SDK's agent side. Offline, no key. Words in the prompt choose a scenario (see
//! `scenarios.rs` and docs/demo-agent.md); it honours `session/cancel`.

mod scenarios;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ContentBlock, Implementation, InitializeRequest, InitializeResponse,
    NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, SessionId,
};
use agent_client_protocol::{Agent, Lines};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

pub use scenarios::{Scenario, reply_chunks};

/// Cancel flags of the turns in flight, by session.
type Turns = Arc<Mutex<HashMap<SessionId, Arc<AtomicBool>>>>;
/// The folder of each session.
type Folders = Arc<Mutex<HashMap<SessionId, PathBuf>>>;

/// Lets a scenario write a raw line on stdout (between protocol messages, never inside one).
#[derive(Clone)]
pub struct RawOut(futures::channel::mpsc::Sender<String>);

impl RawOut {
    /// Writes `line` as is.
    pub async fn line(&mut self, line: String) {
        let _ = self.0.send(line).await;
    }
}

/// Runs the demo agent on this process's stdin/stdout until stdin closes.
pub async fn run_stdio() -> anyhow::Result<()> {
    let (out_tx, mut out_rx) = futures::channel::mpsc::channel::<String>(64);
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(mut line) = out_rx.next().await {
            line.push('\n');
            if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let raw = RawOut(out_tx.clone());
    let sink = out_tx.sink_map_err(std::io::Error::other);
    let lines = BufReader::new(tokio::io::stdin()).lines();
    let incoming = futures::stream::unfold(lines, |mut lines| async move {
        match lines.next_line().await {
            Ok(Some(line)) => Some((Ok(line), lines)),
            Ok(None) => None,
            Err(e) => Some((Err(e), lines)),
        }
    });
    let transport = Lines::new(sink, Box::pin(incoming));

    let turns: Turns = Arc::default();
    let cancel_turns = turns.clone();
    let folders: Folders = Arc::default();
    let session_folders = folders.clone();
    let sessions = Arc::new(AtomicU64::new(0));
    Agent
        .v1()
        .name("sidekicks-demo-agent")
        .on_receive_request(
            async move |_init: InitializeRequest, responder, _cx| {
                responder.respond(
                    InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
                        .agent_capabilities(AgentCapabilities::new())
                        .agent_info(
                            Implementation::new("sidekicks-demo-agent", env!("CARGO_PKG_VERSION")).title("Demo agent"),
                        ),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: NewSessionRequest, responder, _cx| {
                let n = sessions.fetch_add(1, Ordering::Relaxed) + 1;
                let id = SessionId::new(format!("demo-{n}"));
                session_folders.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), req.cwd);
                responder.respond(NewSessionResponse::new(id))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest, responder, cx| {
                let cancel = Arc::new(AtomicBool::new(false));
                turns.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id.clone(), cancel.clone());
                let cwd = folders.lock().unwrap_or_else(|e| e.into_inner()).get(&req.session_id).cloned();
                let turn = scenarios::Turn {
                    cx: cx.clone(),
                    session: req.session_id.clone(),
                    cwd: cwd.unwrap_or_else(|| PathBuf::from(".")),
                    cancel,
                    raw: raw.clone(),
                };
                let text = prompt_text(&req.prompt);
                // Run from a task, so the dispatch loop stays free to receive session/cancel.
                cx.spawn(async move {
                    match Scenario::pick(&text).run(turn, &text).await {
                        Ok(stop) => responder.respond(PromptResponse::new(stop)),
                        Err(error) => responder.respond_with_error(error),
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CancelNotification, _cx| {
                if let Some(flag) = cancel_turns.lock().unwrap_or_else(|e| e.into_inner()).get(&n.session_id) {
                    flag.store(true, Ordering::Relaxed);
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(transport)
        .await?;
    Ok(())
}

fn prompt_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
