//! One turn of the demo agent in progress: its connection, session, folder and cancel flag, and
//! how it speaks (text, streamed words, tool calls). What every scenario file uses.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionId, SessionNotification, SessionUpdate, StopReason, TextContent, ToolCall,
    ToolCallUpdate, ToolCallUpdateFields,
};
use agent_client_protocol::{Client, Error};

use super::RawOut;

/// One turn in progress.
pub(super) struct Turn {
    pub cx: ConnectionTo<Client>,
    pub session: SessionId,
    pub cwd: PathBuf,
    pub cancel: Arc<AtomicBool>,
    pub raw: RawOut,
}

pub(super) type Outcome = Result<StopReason, Error>;

impl Turn {
    pub(super) fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    pub(super) fn send(&self, update: SessionUpdate) -> Result<(), Error> {
        self.cx.send_notification(SessionNotification::new(self.session.clone(), update))
    }

    pub(super) fn say(&self, text: &str) -> Result<(), Error> {
        self.send(SessionUpdate::AgentMessageChunk(chunk(text)))
    }

    pub(super) async fn stream(&self, text: &str, delay: Duration) -> Outcome {
        self.stream_chunks(&chunk_words(text, 3), delay).await
    }

    pub(super) async fn stream_chunks(&self, chunks: &[String], delay: Duration) -> Outcome {
        for piece in chunks {
            if self.cancelled() {
                return Ok(StopReason::Cancelled);
            }
            self.say(piece)?;
            tokio::time::sleep(delay).await;
        }
        Ok(if self.cancelled() { StopReason::Cancelled } else { StopReason::EndTurn })
    }

    pub(super) fn tool(&self, call: ToolCall) -> Result<(), Error> {
        self.send(SessionUpdate::ToolCall(call))
    }

    pub(super) fn tool_update(&self, id: &str, fields: ToolCallUpdateFields) -> Result<(), Error> {
        self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.to_string(), fields)))
    }
}

pub(super) fn chunk(text: &str) -> ContentChunk {
    ContentChunk::new(ContentBlock::Text(TextContent::new(text)))
}

/// Splits `text` into pieces of about `words` words, keeping every character.
pub(super) fn chunk_words(text: &str, words: usize) -> Vec<String> {
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
