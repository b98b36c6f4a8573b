//! The misbehaving agent (`sidekicks demo-agent --misbehave`): raw JSON-RPC lines, no SDK, so it
//! can do what a well-typed agent cannot. Agents in the wild do each of these; the tests drive
//! Sidekicks with it. The first word of the prompt picks the misdeed (`help` lists them):
//!
//! - `chunk N`: one `agent_message_chunk` of N MB (default 10), then the end of the turn.
//! - `stream N`: N MB (default 50) in 64 KB chunks, then the end of the turn.
//! - `die`: a few words, three lines on stderr, then exit with code 7 in the middle of the turn.
//! - `stopask`: asks a permission; once cancelled, asks another and says how it was answered.
//! - `foreign`: an update, a permission request and a read for a session that is not its own.
//! - `oddkind`: a permission request with an option kind no client knows, then says what was chosen.
//! - `ghost`: an update for a tool call that was never announced.
//! - `read PATH LINE LIMIT`: `fs/read_text_file` and says what came back (size or error code).
//! - `leak`: prints `$SECRET_TOKEN` on stderr and as a non-ACP line, then exits with code 9.
//! - `spawn`: starts `sleep 1000`, says both pids, then never ends the turn (ignores cancel).
//! - `byid CMD`, `otherraw CMD`, `editraw PATH`, `bare`: a permission request naming its tool call by
//!   id alone (as mistral-vibe asks), the call announced before with its input (or never); the
//!   agent runs the command or writes the file itself when allowed.
//!
//! With `--silent` it never answers `initialize` (and exits 0 when its stdin closes); with
//! `DEMO_PROTOCOL_VERSION=N` in its environment it answers `initialize` with version N.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

const SESSION: &str = "misbehaving-1";

/// Its words (the first word of a message picks the misdeed), for `help`.
const WORDS: &[(&str, &str)] = &[
    ("chunk N", "one message chunk of N MB (default 10)"),
    ("stream N", "N MB (default 50) in 64 KB chunks"),
    ("nest N", "a list nested N deep on one line"),
    ("tools N", "N tool calls, each announced then completed"),
    ("askend N", "N permission requests, then ends its turn without waiting"),
    ("stopask", "asks a permission; once cancelled, asks another"),
    ("oddkind", "a permission with an option kind no client knows"),
    ("write PATH MB", "writes a file of MB megabytes through Sidekicks"),
    ("read PATH LINE LIMIT", "reads a file through Sidekicks, says what came back"),
    ("terms N ARG", "runs N commands `sleep ARG` through Sidekicks, then waits"),
    ("mute", "stops talking (closes its output) mid-answer and keeps running"),
    ("die", "exits with code 7 in the middle of a turn"),
    ("spawn", "starts `sleep 1000` and never ends its turn"),
    ("foreign", "updates and requests for a session not its own"),
    ("ghost", "an update for a tool call never announced"),
    ("leak", "prints $SECRET_TOKEN on stderr, then exits"),
    ("byid CMD", "announces a command, asks by the call's id alone, runs it itself if allowed"),
    ("otherraw CMD", "the same with kind other, no title, the command only in raw input"),
    ("editraw PATH", "announces a write (path only in raw input), asks by id, writes it if allowed"),
    ("bare", "asks about a call it never announced, by id alone"),
    ("escapes", "says text holding a clipboard write (OSC 52), a title change and a screen clear"),
];

fn help() -> String {
    let mut text = String::from("I misbehave on purpose. The first word of a message picks what I do:\n\n");
    for (word, what) in WORDS {
        text.push_str(&format!("- `{word}`: {what}\n"));
    }
    text
}

/// Runs the agent on stdin/stdout until stdin closes.
pub async fn run_stdio(silent: bool) -> anyhow::Result<()> {
    let (out_tx, mut out_rx) = mpsc::channel::<String>(16);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(mut line) = out_rx.recv().await {
            line.push('\n');
            if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let agent = Agent { out: out_tx, waiting: Arc::default(), next_id: Arc::default(), cancelled: Arc::default() };
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let method = message.get("method").and_then(Value::as_str).map(str::to_string);
        let id = message.get("id").cloned();
        match (method.as_deref(), id) {
            (Some("initialize"), Some(_)) if silent => {}
            (Some("initialize"), Some(id)) => {
                // `DEMO_PROTOCOL_VERSION`: answer with another version (one no client speaks).
                let version = std::env::var("DEMO_PROTOCOL_VERSION").ok().and_then(|v| v.parse::<u64>().ok());
                agent.respond(id, json!({"protocolVersion": version.unwrap_or(1), "agentCapabilities": {}})).await;
            }
            (Some("session/new"), Some(id)) => agent.respond(id, json!({"sessionId": SESSION})).await,
            (Some("session/prompt"), Some(id)) => {
                let text = prompt_text(&message["params"]["prompt"]);
                agent.cancelled.notify.lock().unwrap_or_else(|e| e.into_inner()).take();
                let agent = agent.clone();
                tokio::spawn(async move {
                    let stop = agent.misbehave(&text).await;
                    agent.respond(id, json!({"stopReason": stop})).await;
                });
            }
            (Some("session/cancel"), None) => {
                if let Some(tx) = agent.cancelled.notify.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    let _ = tx.send(());
                }
            }
            (Some(_), Some(id)) => {
                let error = json!({"code": -32601, "message": "method not found"});
                agent.send(json!({"jsonrpc": "2.0", "id": id, "error": error})).await;
            }
            (None, Some(id)) => {
                let waiter =
                    id.as_u64().and_then(|id| agent.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(&id));
                if let Some(tx) = waiter {
                    let _ = tx.send(message);
                }
            }
            _ => {}
        }
    }
    drop(agent);
    let _ = writer.await;
    Ok(())
}

#[derive(Default)]
struct Cancelled {
    notify: Mutex<Option<oneshot::Sender<()>>>,
}

#[derive(Clone)]
struct Agent {
    out: mpsc::Sender<String>,
    waiting: Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>,
    next_id: Arc<Mutex<u64>>,
    cancelled: Arc<Cancelled>,
}

impl Agent {
    async fn send(&self, message: Value) {
        let _ = self.out.send(message.to_string()).await;
    }

    async fn respond(&self, id: Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result})).await;
    }

    async fn update(&self, session: &str, update: Value) {
        let params = json!({"sessionId": session, "update": update});
        self.send(json!({"jsonrpc": "2.0", "method": "session/update", "params": params})).await;
    }

    async fn say(&self, text: &str) {
        self.update(
            SESSION,
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}),
        )
        .await;
    }

    /// Sends a request to the client and waits for its answer (the whole response message).
    async fn request(&self, method: &str, params: Value) -> Value {
        let id = {
            let mut next = self.next_id.lock().unwrap_or_else(|e| e.into_inner());
            *next += 1;
            *next
        };
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().unwrap_or_else(|e| e.into_inner()).insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        rx.await.unwrap_or(Value::Null)
    }

    async fn ask(&self, session: &str, call: &str, options: Value) -> Value {
        let tool = json!({"toolCallId": call, "title": format!("Run {call}"), "kind": "execute", "status": "pending"});
        self.request("session/request_permission", json!({"sessionId": session, "toolCall": tool, "options": options}))
            .await
    }

    /// A subscription to the next `session/cancel`.
    fn on_cancel(&self) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        *self.cancelled.notify.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
        rx
    }

    async fn misbehave(&self, prompt: &str) -> &'static str {
        let words: Vec<&str> = prompt.split_whitespace().collect();
        if let Some(stop) = self.flood(&words).await {
            return stop;
        }
        if let Some(stop) = self.broken(&words).await {
            return stop;
        }
        if let Some(stop) = self.asks(&words).await {
            return stop;
        }
        match words.first().copied().unwrap_or("") {
            "help" => {
                self.say(&help()).await;
                "end_turn"
            }
            _ => {
                self.say("hello from the misbehaving agent (send `help` for what it does wrong)").await;
                "end_turn"
            }
        }
    }

    /// Floods: huge chunks, deep nesting, long streams, many tool calls, escape sequences.
    async fn flood(&self, words: &[&str]) -> Option<&'static str> {
        let number = |default: usize| words.get(1).and_then(|w| w.parse().ok()).unwrap_or(default);
        match words.first().copied().unwrap_or("") {
            "chunk" => {
                self.say(&filler(number(10) << 20)).await;
                Some("end_turn")
            }
            "nest" => {
                // A list N deep on one line (one short message whose layout grows with N).
                self.say(&format!("{}word", "- ".repeat(number(5_000)))).await;
                Some("end_turn")
            }
            "stream" => {
                let total = number(50) << 20;
                let piece = filler(64 << 10);
                let mut sent = 0;
                while sent < total {
                    self.say(&piece).await;
                    sent += piece.len();
                }
                self.say("\nend of stream").await;
                Some("end_turn")
            }
            "escapes" => {
                self.say("before\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2Jafter").await;
                Some("end_turn")
            }
            "tools" => {
                // `tools N`: N tool calls, each announced then completed.
                let n = number(10_000);
                for i in 0..n {
                    let id = format!("call-{i}");
                    self.update(
                        SESSION,
                        json!({"sessionUpdate": "tool_call", "toolCallId": id,
                        "title": format!("Read file {i}"), "kind": "read", "status": "in_progress"}),
                    )
                    .await;
                    self.update(
                        SESSION,
                        json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                        "status": "completed"}),
                    )
                    .await;
                }
                self.say(&format!("{n} tool calls made")).await;
                Some("end_turn")
            }
            _ => None,
        }
    }

    /// A process that breaks: stops talking, dies, leaks a secret, leaves children or commands behind.
    async fn broken(&self, words: &[&str]) -> Option<&'static str> {
        let number = |default: usize| words.get(1).and_then(|w| w.parse().ok()).unwrap_or(default);
        match words.first().copied().unwrap_or("") {
            "mute" => {
                // Stops talking (closes its output) in the middle of the answer, and keeps running.
                self.say("I will say no more").await;
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                // SAFETY: closing a descriptor of its own; nothing reads or writes it afterwards
                // but the writer, whose writes then fail.
                unsafe { libc::close(1) };
                loop {
                    tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                }
            }
            "die" => {
                self.say("I was about to").await;
                eprintln!("misbehaving: step one");
                eprintln!("misbehaving: step two");
                eprintln!("misbehaving: giving up");
                // Let the client read what was written before the pipe closes.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                std::process::exit(7);
            }
            "leak" => {
                let secret = std::env::var("SECRET_TOKEN").unwrap_or_default();
                eprintln!("token is {secret}");
                let _ = self.out.send(format!("not json: SECRET_TOKEN={secret}")).await;
                self.say("leaked").await;
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                std::process::exit(9);
            }
            "terms" => {
                // `terms N ARG`: N commands `sleep ARG` through the client, then waits (Stop ends it).
                let arg = words.get(2).copied().unwrap_or("1000");
                let (mut created, mut refused) = (0, Vec::new());
                for _ in 0..number(100) {
                    let params = json!({"sessionId": SESSION, "command": "sleep", "args": [arg]});
                    let answer = self.request("terminal/create", params).await;
                    match answer.get("error") {
                        Some(error) => refused.push(error["message"].as_str().unwrap_or("").to_string()),
                        None => created += 1,
                    }
                }
                let first = refused.first().cloned().unwrap_or_default();
                self.say(&format!("created {created}, refused {}: {first}", refused.len())).await;
                std::future::pending::<()>().await;
                Some("end_turn")
            }
            "spawn" => {
                let child = std::process::Command::new("sleep").arg("1000").spawn();
                let child_pid = child.as_ref().map(|c| c.id()).unwrap_or(0);
                self.say(&format!("pids {} {child_pid}", std::process::id())).await;
                std::future::pending::<()>().await;
                Some("end_turn")
            }
            _ => None,
        }
    }

    /// Requests that bend the protocol: permissions left or cancelled, another session named, odd kinds, unknown calls, reads and writes.
    async fn asks(&self, words: &[&str]) -> Option<&'static str> {
        let number = |default: usize| words.get(1).and_then(|w| w.parse().ok()).unwrap_or(default);
        match words.first().copied().unwrap_or("") {
            "stopask" => {
                let cancelled = self.on_cancel();
                let first = self.ask(SESSION, "first", allow_reject()).await;
                let _ = cancelled.await;
                let second = self.ask(SESSION, "second", allow_reject()).await;
                self.say(&format!("first: {}; second: {}", outcome(&first), outcome(&second))).await;
                Some("cancelled")
            }
            "askend" => {
                // N permission requests (one tool call id for all), then the turn ends without
                // waiting for their answers.
                for _ in 0..number(1000) {
                    let agent = self.clone();
                    tokio::spawn(async move { agent.ask(SESSION, "same-call", allow_reject()).await });
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                self.say("asked, and done").await;
                Some("end_turn")
            }
            "foreign" => {
                self.update(
                    "someone-else",
                    json!({"sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "FOREIGN TEXT"}}),
                )
                .await;
                let asked = self.ask("someone-else", "foreign", allow_reject()).await;
                let read = self
                    .request("fs/read_text_file", json!({"sessionId": "someone-else", "path": "/etc/hostname"}))
                    .await;
                self.say(&format!("foreign permission: {}; foreign read: {}", outcome(&asked), outcome(&read))).await;
                Some("end_turn")
            }
            "oddkind" => {
                let options = json!([
                    {"optionId": "later", "name": "Ask me next week", "kind": "defer_forever"},
                    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                ]);
                let answer = self.ask(SESSION, "odd", options).await;
                self.say(&format!("chose: {}", outcome(&answer))).await;
                Some("end_turn")
            }
            "ghost" => {
                self.update(
                    SESSION,
                    json!({"sessionUpdate": "tool_call_update", "toolCallId": "never-announced",
                    "status": "completed"}),
                )
                .await;
                self.say("ghost sent").await;
                Some("end_turn")
            }
            "read" => {
                let mut params = json!({"sessionId": SESSION, "path": words.get(1).copied().unwrap_or("")});
                if let Some(line) = words.get(2).and_then(|w| w.parse::<u64>().ok()) {
                    params["line"] = json!(line);
                }
                if let Some(limit) = words.get(3).and_then(|w| w.parse::<u64>().ok()) {
                    params["limit"] = json!(limit);
                }
                let read = self.request("fs/read_text_file", params).await;
                self.say(&format!("read: {}", outcome(&read))).await;
                Some("end_turn")
            }
            "write" => {
                // `write PATH MB`: a file of MB megabytes through the client.
                let content = "a".repeat(words.get(2).and_then(|w| w.parse::<usize>().ok()).unwrap_or(1) << 20);
                let params =
                    json!({"sessionId": SESSION, "path": words.get(1).copied().unwrap_or(""), "content": content});
                let written = self.request("fs/write_text_file", params).await;
                let said = match written.get("error") {
                    Some(error) => {
                        format!("write: error {}: {}", error["code"], error["message"].as_str().unwrap_or(""))
                    }
                    None => "write: written".to_string(),
                };
                self.say(&said).await;
                Some("end_turn")
            }
            "byid" | "otherraw" | "editraw" | "bare" => {
                let said = self.by_id(words).await;
                self.say(&said).await;
                Some("end_turn")
            }
            _ => None,
        }
    }
}

fn allow_reject() -> Value {
    json!([
        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    ])
}

impl Agent {
    /// Announces a tool call, then asks permission naming it by its id alone (as mistral-vibe
    /// does), and does the work itself when allowed: runs the command, writes the file.
    async fn by_id(&self, words: &[&str]) -> String {
        let call = {
            let mut next = self.next_id.lock().unwrap_or_else(|e| e.into_inner());
            *next += 1;
            format!("call-{next}")
        };
        let rest = words[1..].join(" ");
        let content = "one\ntwo\n";
        let announced = match words[0] {
            "byid" => Some(json!({"title": "Shell", "kind": "execute", "rawInput": {"command": rest}})),
            "otherraw" => Some(json!({"title": "", "kind": "other", "rawInput": {"command": rest}})),
            "editraw" => Some(
                json!({"title": "write_text_file", "kind": "edit", "rawInput": {"path": rest, "content": content}}),
            ),
            _ => None,
        };
        if let Some(mut fields) = announced {
            fields["sessionUpdate"] = json!("tool_call");
            fields["toolCallId"] = json!(call);
            fields["status"] = json!("pending");
            self.update(SESSION, fields).await;
        }
        let options = json!([
            {"optionId": "once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "always", "name": "Always", "kind": "allow_always"},
            {"optionId": "no", "name": "No", "kind": "reject_once"},
            {"optionId": "never", "name": "Never", "kind": "reject_always"},
        ]);
        let params = json!({"sessionId": SESSION, "toolCall": {"toolCallId": call}, "options": options});
        let chose = outcome(&self.request("session/request_permission", params).await);
        let did = match (chose.as_str(), words[0]) {
            ("once" | "always", "byid" | "otherraw") => {
                let status = tokio::process::Command::new("sh").arg("-c").arg(&rest).status().await;
                if status.is_ok_and(|s| s.success()) { "ran" } else { "failed" }
            }
            ("once" | "always", "editraw") => match std::fs::write(&rest, content) {
                Ok(()) => "wrote",
                Err(_) => "failed",
            },
            _ => "nothing",
        };
        format!("chose: {chose}; did: {did}")
    }
}

/// A response in a few words: the chosen option, `cancelled`, the size of a read's content, or
/// `error CODE`.
fn outcome(response: &Value) -> String {
    if let Some(error) = response.get("error") {
        return format!("error {}", error["code"]);
    }
    let result = &response["result"];
    if let Some(content) = result.get("content").and_then(Value::as_str) {
        return format!("{} bytes", content.len());
    }
    match result["outcome"]["outcome"].as_str() {
        Some("selected") => result["outcome"]["optionId"].as_str().unwrap_or("?").to_string(),
        Some(other) => other.to_string(),
        None => "no answer".into(),
    }
}

/// `size` bytes of readable lines.
fn filler(size: usize) -> String {
    let line = "All work and no play makes a huge message. 0123456789 abcdefghij\n";
    line.repeat(size / line.len() + 1)[..size].to_string()
}

fn prompt_text(blocks: &Value) -> String {
    let texts = blocks.as_array().into_iter().flatten().filter_map(|b| b["text"].as_str());
    texts.collect::<Vec<_>>().join("\n")
}
