//! The `sidekicks-team` MCP server's end in the process that runs the team: a Unix socket in the
//! user's private runtime folder. Each connection (the lead's `sidekicks team-tools`, started by
//! the lead as a stdio MCP server) first gives its token, which names the lead; then MCP's
//! JSON-RPC messages, one per line, both ways. Tool calls run side by side (a `wait` does not
//! hold up a `members`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;

use super::door::Door;

/// The longest line taken (a tool call's arguments are small).
const LONGEST_LINE: usize = 1 << 20;

/// Tokens given to leads, and the lead each names.
pub type Tokens = Arc<Mutex<HashMap<String, String>>>;

/// Serves every connection of `listener`.
pub async fn serve(listener: UnixListener, tokens: Tokens, door: Door) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let (tokens, door) = (tokens.clone(), door.clone());
                tokio::spawn(async move { connection(stream, tokens, door).await });
            }
            Err(e) => {
                tracing::warn!("the team tools' socket: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

/// Reads a line of at most [`LONGEST_LINE`] bytes (`None` at the end, or a longer line).
async fn line(reader: &mut (impl AsyncBufRead + Unpin)) -> Option<String> {
    let mut bytes = Vec::new();
    let mut limited = reader.take(LONGEST_LINE as u64 + 1);
    let n = limited.read_until(b'\n', &mut bytes).await.ok()?;
    if n == 0 || bytes.len() > LONGEST_LINE {
        return None;
    }
    String::from_utf8(bytes).ok().map(|s| s.trim_end().to_string())
}

async fn connection(stream: UnixStream, tokens: Tokens, door: Door) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let token = tokio::time::timeout(Duration::from_secs(10), line(&mut reader)).await.ok().flatten();
    let lead = token.and_then(|t| tokens.lock().unwrap_or_else(|e| e.into_inner()).get(&t).cloned());
    let Some(lead) = lead else {
        tracing::warn!("a connection to the team tools without a known token: closed");
        return;
    };
    let (out, mut outbox) = mpsc::channel::<Value>(64);
    tokio::spawn(async move {
        while let Some(message) = outbox.recv().await {
            if write.write_all(format!("{message}\n").as_bytes()).await.is_err() {
                return;
            }
        }
    });
    while let Some(text) = line(&mut reader).await {
        if text.is_empty() {
            continue;
        }
        let Ok(request) = serde_json::from_str::<Value>(&text) else {
            let error = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "not JSON"}});
            let _ = out.send(error).await;
            continue;
        };
        // A notification (no id) asks for no answer.
        let Some(id) = request.get("id").cloned() else { continue };
        let method = request["method"].as_str().unwrap_or_default().to_string();
        let (door, lead, out) = (door.clone(), lead.clone(), out.clone());
        tokio::spawn(async move {
            let answer = match answer(&door, &lead, &method, &request["params"]).await {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, message)) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
                }
            };
            let _ = out.send(answer).await;
        });
    }
}

/// The answer to one request.
async fn answer(door: &Door, lead: &str, method: &str, params: &Value) -> Result<Value, (i64, String)> {
    Ok(match method {
        "initialize" => json!({
            "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "sidekicks-team", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "You lead a team of coding agents, each working in a copy of the project. Give members tasks (assign), wait for them (wait), read their work (diff), send fixes (message) and merge it (merge).",
        }),
        "ping" => json!({}),
        "tools/list" => json!({"tools": super::tools::list()}),
        "tools/call" => {
            let name = params["name"].as_str().unwrap_or_default();
            let args = params.get("arguments").cloned().unwrap_or(json!({}));
            // A tool's failure is its answer (the model reads it), not a protocol error.
            match super::tools::call(door, lead, name, &args).await {
                Ok(value) => {
                    json!({"content": [{"type": "text", "text": value.to_string()}], "structuredContent": value})
                }
                Err(why) => json!({"content": [{"type": "text", "text": why}], "isError": true}),
            }
        }
        _ => return Err((-32601, format!("method not found: {method}"))),
    })
}
