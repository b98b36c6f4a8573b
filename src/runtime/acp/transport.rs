//! Newline-delimited JSON over an agent's pipes. Lines that are not JSON are sent to the agent's
//! log and kept from the protocol; the writer owns stdin and closes it (EOF for the agent) when
//! the connection ends.

use agent_client_protocol::Lines;
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

use crate::protocol::AgentEvent;
use crate::protocol::{Event, LogEntry};
use crate::runtime::events::EventSink;

/// Longest line accepted from an agent; a longer one is logged (its start) and skipped.
pub const MAX_LINE: usize = 64 * 1024 * 1024;
/// How much of a skipped line the log shows.
const LOG_PREFIX: usize = 200;

/// The last lines of an agent's stdout that were not the protocol's.
pub type Words = std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<String>>>;
/// How many of them are kept.
const WORDS_KEPT: usize = 10;

/// The transport for one agent.
pub fn lines_transport(
    agent: String,
    stdin: ChildStdin,
    stdout: ChildStdout,
    events: EventSink,
    redact: crate::runtime::redact::Redactor,
    (init_line, words): (std::sync::Arc<std::sync::Mutex<Option<String>>>, Words),
) -> Lines<
    impl futures::Sink<String, Error = std::io::Error> + Send + 'static,
    impl futures::Stream<Item = std::io::Result<String>> + Send + 'static,
> {
    let (out_tx, mut out_rx) = futures::channel::mpsc::channel::<String>(64);
    tokio::spawn(async move {
        let mut stdin = stdin;
        while let Some(mut line) = out_rx.next().await {
            line.push('\n');
            if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                break;
            }
        }
        // Dropping stdin here is the EOF the agent sees.
    });
    let refuse = out_tx.clone();
    let sink = out_tx.sink_map_err(std::io::Error::other);

    let reader = BufReader::with_capacity(64 * 1024, stdout);
    let incoming = futures::stream::unfold((reader, events, agent), move |(mut reader, events, agent)| {
        let redact = redact.clone();
        let init_line = init_line.clone();
        let words = words.clone();
        let mut refuse = refuse.clone();
        async move {
            loop {
                let mut buf = Vec::new();
                match read_line_limited(&mut reader, &mut buf).await {
                    Ok(0) => return None,
                    Ok(_) => {}
                    Err(e) => return Some((Err(e), (reader, events, agent))),
                }
                if buf.len() > MAX_LINE {
                    // Hidden before the cut, so no part of a value shows.
                    let head =
                        redact.apply(String::from_utf8_lossy(&buf[..(4 * LOG_PREFIX).min(buf.len())]).into_owned());
                    let start: String = head.chars().take(LOG_PREFIX).collect();
                    let entry = LogEntry::LongLine { megabytes: MAX_LINE >> 20, start };
                    events.send(Event::Agent(agent.clone().into(), AgentEvent::Log { entry })).await;
                    // A request gets its answer: refused, in words (the agent would wait forever).
                    if let Some(answer) = too_long_answer(&buf[..buf.len().min(4096)]) {
                        let _ = refuse.send(answer).await;
                    }
                    continue;
                }
                let line = String::from_utf8_lossy(&buf).trim_end_matches(['\n', '\r']).to_string();
                let trimmed = line.trim_start();
                if trimmed.starts_with('{') || trimmed.starts_with('[') {
                    // The `initialize` answer, raw: the SDK's schema drops parts of its `authMethods`.
                    if line.contains("\"authMethods\"") {
                        let mut kept = init_line.lock().unwrap_or_else(|e| e.into_inner());
                        if kept.is_none() {
                            *kept = Some(line.clone());
                        }
                    }
                    let line = match line.contains("\"session/request_permission\"") {
                        true => super::convert::known_option_kinds(&line).unwrap_or(line),
                        false => line,
                    };
                    return Some((Ok(line), (reader, events, agent)));
                }
                if !trimmed.is_empty() {
                    let mut shown = redact.apply(line);
                    if shown.len() > 4 * LOG_PREFIX {
                        let mut cut = 4 * LOG_PREFIX;
                        while !shown.is_char_boundary(cut) {
                            cut -= 1;
                        }
                        shown.truncate(cut);
                        shown.push('…');
                    }
                    {
                        let mut kept = words.lock().unwrap_or_else(|e| e.into_inner());
                        if kept.len() == WORDS_KEPT {
                            kept.pop_front();
                        }
                        kept.push_back(shown.clone());
                    }
                    let entry = LogEntry::NotAcp(shown);
                    events.send(Event::Agent(agent.clone().into(), AgentEvent::Log { entry })).await;
                }
            }
        }
    });
    Lines::new(sink, Box::pin(incoming))
}

/// The error answering a request whose line was too long to read, from the line's start (its
/// `id` and `method`); none for anything else (a notification, an answer).
fn too_long_answer(head: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(head);
    let method = value_after(&head, "\"method\"")?;
    let id = value_after(&head, "\"id\"")?;
    let message = format!(
        "{}: the message is larger than {} MiB, which Sidekicks does not read; send less at once",
        method.trim_matches('"'),
        MAX_LINE >> 20
    );
    let error = serde_json::json!({"code": -32600, "message": message});
    let id: serde_json::Value = serde_json::from_str(&id).ok()?;
    Some(serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string())
}

/// The value (a number or a string, as JSON) of key `key` of the top-level object that `text`
/// starts (which may be cut anywhere after it).
fn value_after(text: &str, key: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                // A string: its end (escapes skipped).
                let mut end = i + 1;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                let string = text.get(i..=end)?;
                let rest = text.get(end + 1..)?.trim_start();
                if depth == 1
                    && string == key
                    && let Some(value) = rest.strip_prefix(':')
                {
                    let value = value.trim_start();
                    let taken: String = match value.strip_prefix('"') {
                        Some(body) => format!("\"{}\"", &body[..body.find('"')?]),
                        None => value.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect(),
                    };
                    return (!taken.is_empty()).then_some(taken);
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Reads one line into `buf`, keeping at most `MAX_LINE + 1` bytes of it (the rest is read and
/// dropped, so one huge line cannot exhaust memory). Returns the bytes read, 0 at EOF.
async fn read_line_limited(reader: &mut BufReader<ChildStdout>, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let room = (MAX_LINE + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        total += used;
        reader.consume(used);
        if done {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_too_long_to_read_is_answered_with_its_id() {
        let head = br#"{"jsonrpc":"2.0","id":17,"method":"fs/write_text_file","params":{"sessionId":"s","path":"/w/a","content":"xxxx"#;
        let answer: serde_json::Value = serde_json::from_str(&too_long_answer(head).unwrap()).unwrap();
        assert_eq!(answer["id"], 17);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("fs/write_text_file: the message is larger than 64 MiB"), "{message}");
        let named = br#"{"method":"x","params":{"toolCallId":"t"},"id":"a-1","#;
        assert_eq!(serde_json::from_str::<serde_json::Value>(&too_long_answer(named).unwrap()).unwrap()["id"], "a-1");
    }

    #[test]
    fn notifications_and_answers_get_none() {
        assert!(too_long_answer(br#"{"jsonrpc":"2.0","method":"session/update","params":{"id":3,"x":"#).is_none());
        assert!(too_long_answer(br#"{"jsonrpc":"2.0","id":4,"result":{"content":"xx"#).is_none());
    }
}
