//! The built-in demo agent (`sidekicks demo-agent`): a real ACP agent over stdin/stdout, built
//! on the official SDK's agent side. Offline, no key. It answers every prompt by streaming a
//! Markdown reply in several chunks and honours `session/cancel`. A prompt containing the word
//! `wait` streams slowly for a minute, which gives tests (and curious people) time to cancel.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ContentBlock, ContentChunk, Implementation, InitializeRequest,
    InitializeResponse, NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, SessionId,
    SessionNotification, SessionUpdate, StopReason, TextContent,
};
use agent_client_protocol::{Agent, ByteStreams};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// Cancel flags of the turns in flight, by session.
type Turns = Arc<Mutex<HashMap<SessionId, Arc<AtomicBool>>>>;

/// Runs the demo agent on this process's stdin/stdout until stdin closes.
pub async fn run_stdio() -> anyhow::Result<()> {
    let transport = ByteStreams::new(tokio::io::stdout().compat_write(), tokio::io::stdin().compat());
    let turns: Turns = Arc::default();
    let cancel_turns = turns.clone();
    let sessions = Arc::new(AtomicU64::new(0));
    Agent
        .v1()
        .name("sidekicks-demo-agent")
        .on_receive_request(
            async move |init: InitializeRequest, responder, _cx| {
                let _ = init;
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
            async move |_req: NewSessionRequest, responder, _cx| {
                let n = sessions.fetch_add(1, Ordering::Relaxed) + 1;
                responder.respond(NewSessionResponse::new(SessionId::new(format!("demo-{n}"))))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest, responder, cx| {
                let cancel = Arc::new(AtomicBool::new(false));
                turns.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id.clone(), cancel.clone());
                let text = prompt_text(&req.prompt);
                let session = req.session_id.clone();
                let stream_cx = cx.clone();
                // Stream from a task, so the dispatch loop stays free to receive session/cancel.
                cx.spawn(async move {
                    let (chunks, delay) = reply(&text);
                    let mut stop = StopReason::EndTurn;
                    for chunk in chunks {
                        if cancel.load(Ordering::Relaxed) {
                            stop = StopReason::Cancelled;
                            break;
                        }
                        let update = SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::Text(
                            TextContent::new(chunk),
                        )));
                        stream_cx.send_notification(SessionNotification::new(session.clone(), update))?;
                        tokio::time::sleep(delay).await;
                    }
                    if cancel.load(Ordering::Relaxed) {
                        stop = StopReason::Cancelled;
                    }
                    responder.respond(PromptResponse::new(stop))
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

/// The reply to `prompt`, cut into chunks, and the pause between chunks.
pub fn reply(prompt: &str) -> (Vec<String>, Duration) {
    if prompt.split_whitespace().any(|w| w.eq_ignore_ascii_case("wait")) {
        let chunks = (1..=600).map(|i| format!("{i}… ")).collect();
        return (chunks, Duration::from_millis(100));
    }
    let quoted: String = prompt.lines().map(|l| format!("> {l}\n")).collect();
    let text = format!(
        "**Hello!** I am the Sidekicks demo agent. You said:\n\n{quoted}\n\
         I run inside Sidekicks, offline, with no key. Every answer of mine is:\n\n\
         - streamed in small pieces over ACP,\n\
         - written in *Markdown*.\n\n\
         Send `wait` to see a long answer you can stop."
    );
    (chunk_words(&text, 3), Duration::from_millis(30))
}

/// Splits `text` into pieces of about `words` words, keeping every character.
fn chunk_words(text: &str, words: usize) -> Vec<String> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut count = 0;
    for piece in text.split_inclusive([' ', '\n']) {
        current.push_str(piece);
        count += 1;
        if count == words {
            chunks.push(std::mem::take(&mut current));
            count = 0;
        }
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_rejoin_into_the_reply() {
        let (chunks, _) = reply("hello");
        assert!(chunks.len() > 5);
        let joined: String = chunks.concat();
        assert!(joined.contains("> hello\n"));
        assert!(joined.starts_with("**Hello!**"));
    }
}
