//! MCP for the demo: a tiny MCP server (`sidekicks demo-mcp`: tools `echo` and `add`, JSON-RPC
//! lines on stdin/stdout), and the demo agent's side: it keeps the MCP servers each session got
//! and, for the word `mcp`, starts each stdio one, asks for its tools (`initialize`,
//! `tools/list`) and says what it found; http and sse servers are listed by address.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::v1::schema::{McpServer, SessionId};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The MCP servers each session got.
pub type Servers = Arc<Mutex<HashMap<SessionId, Vec<McpServer>>>>;

/// Runs the demo MCP server on stdin/stdout until stdin closes.
pub async fn run_server() -> anyhow::Result<()> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    while let Some(line) = lines.next_line().await? {
        let Ok(request) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = request.get("id").cloned() else { continue };
        let result = match request["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": request["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                "capabilities": {"tools": {}},
                // Where it runs (a container's own name when it runs in one).
                "serverInfo": {"name": "sidekicks-demo-mcp", "version": env!("CARGO_PKG_VERSION"),
                    "title": std::fs::read_to_string("/etc/hostname").unwrap_or_default().trim()},
            }),
            "tools/list" => json!({"tools": [
                {"name": "echo", "description": "Says the text back", "inputSchema": {"type": "object",
                    "properties": {"text": {"type": "string"}}, "required": ["text"]}},
                {"name": "add", "description": "Adds two numbers", "inputSchema": {"type": "object",
                    "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
            ]}),
            "tools/call" => {
                let args = &request["params"]["arguments"];
                let text = match request["params"]["name"].as_str() {
                    Some("echo") => args["text"].as_str().unwrap_or_default().to_string(),
                    Some("add") => (args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0)).to_string(),
                    _ => "no such tool".into(),
                };
                json!({"content": [{"type": "text", "text": text}]})
            }
            _ => {
                let error =
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}});
                stdout.write_all(format!("{error}\n").as_bytes()).await?;
                continue;
            }
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        stdout.write_all(format!("{answer}\n").as_bytes()).await?;
        stdout.flush().await?;
    }
    Ok(())
}

/// What the session's MCP servers offer, in words.
pub async fn describe(servers: Vec<McpServer>) -> String {
    if servers.is_empty() {
        return "I was given no MCP server.".into();
    }
    let mut lines = vec![format!("I was given {} MCP server(s):", servers.len())];
    for server in servers {
        lines.push(match server {
            McpServer::Stdio(s) => {
                let env: Vec<(String, String)> = s.env.iter().map(|e| (e.name.clone(), e.value.clone())).collect();
                let tools = match tokio::time::timeout(Duration::from_secs(20), tools(&s.command, &s.args, &env)).await
                {
                    Ok(Ok((tools, host))) => format!("tools {} (running on {host})", tools.join(", ")),
                    Ok(Err(e)) => format!("it failed: {e}"),
                    Err(_) => "it did not answer within 20 s".into(),
                };
                format!("- {} (stdio, `{}`): {tools}", s.name, s.command.display())
            }
            McpServer::Http(h) => format!("- {} (http, {})", h.name, h.url),
            McpServer::Sse(h) => format!("- {} (sse, {})", h.name, h.url),
            _ => "- a server of a kind I do not know".into(),
        });
    }
    lines.join("\n")
}

/// Starts a stdio MCP server and lists its tools; also the title it gives (where it runs).
async fn tools(
    command: &std::path::Path,
    args: &[String],
    env: &[(String, String)],
) -> anyhow::Result<(Vec<String>, String)> {
    let (mut session, initialized) = Session::start(command, args, env).await?;
    let host = initialized["result"]["serverInfo"]["title"].as_str().unwrap_or("?").to_string();
    let listed = session.ask("tools/list", json!({})).await?;
    let names = listed["result"]["tools"]
        .as_array()
        .map_or_else(Vec::new, |tools| tools.iter().filter_map(|t| t["name"].as_str().map(String::from)).collect());
    Ok((names, host))
}

/// `call SERVER TOOL {json}` lines: starts each named stdio server of the session once, calls
/// the tools in order and says what each answered (the demo's way to drive MCP tools, e.g. a
/// team's `sidekicks-team` as its lead).
pub async fn call(servers: Vec<McpServer>, asked: &str) -> String {
    let mut said = Vec::new();
    let mut started: HashMap<String, Session> = HashMap::new();
    for line in asked.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut words = line.splitn(4, ' ');
        let (_, server, tool, args) = (words.next(), words.next(), words.next(), words.next());
        let (Some(server), Some(tool)) = (server, tool) else {
            said.push(format!("{line}: say `call SERVER TOOL {{json}}`"));
            continue;
        };
        let args: Value = match serde_json::from_str(args.unwrap_or("{}")) {
            Ok(args) => args,
            Err(e) => {
                said.push(format!("{tool}: the arguments are not JSON ({e})"));
                continue;
            }
        };
        if !started.contains_key(server) {
            let found = servers.iter().find_map(|s| match s {
                McpServer::Stdio(s) if s.name == server => Some(s.clone()),
                _ => None,
            });
            let Some(stdio) = found else {
                said.push(format!("{tool}: I was given no stdio MCP server named {server}"));
                continue;
            };
            let env: Vec<(String, String)> = stdio.env.iter().map(|e| (e.name.clone(), e.value.clone())).collect();
            match Session::start(&stdio.command, &stdio.args, &env).await {
                Ok((session, _)) => started.insert(server.to_string(), session),
                Err(e) => {
                    said.push(format!("{tool}: {server} did not start: {e}"));
                    continue;
                }
            };
        }
        let Some(session) = started.get_mut(server) else { continue };
        let answer = session.ask("tools/call", json!({"name": tool, "arguments": args})).await;
        said.push(match answer {
            Ok(answer) if answer.get("error").is_some() => format!("{tool} → error {}", answer["error"]),
            Ok(answer) => {
                let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string();
                let failed = answer["result"]["isError"].as_bool().unwrap_or(false);
                format!("{tool} →{} {text}", if failed { " failed:" } else { "" })
            }
            Err(e) => format!("{tool} → {e}"),
        });
    }
    said.join("\n\n")
}

/// A stdio MCP server started and initialised.
struct Session {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    out: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    next: u64,
}

impl Session {
    /// Starts it and says `initialize`: the session, and the server's answer.
    async fn start(
        command: &std::path::Path,
        args: &[String],
        env: &[(String, String)],
    ) -> anyhow::Result<(Self, Value)> {
        let mut child = tokio::process::Command::new(command)
            .args(args)
            .envs(env.iter().cloned())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| anyhow::anyhow!("no stdin"))?;
        let out = BufReader::new(child.stdout.take().ok_or_else(|| anyhow::anyhow!("no stdout"))?).lines();
        let mut session = Self { child, stdin, out, next: 0 };
        let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "sidekicks-demo-agent", "version": env!("CARGO_PKG_VERSION")}});
        let initialized = session.ask("initialize", init).await?;
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        session.stdin.write_all(format!("{note}\n").as_bytes()).await?;
        Ok((session, initialized))
    }

    async fn ask(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        self.next += 1;
        let id = self.next;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.stdin.write_all(format!("{request}\n").as_bytes()).await?;
        loop {
            let line = self.out.next_line().await?.ok_or_else(|| anyhow::anyhow!("it exited"))?;
            let answer: Value = serde_json::from_str(&line)?;
            if answer["id"] == json!(id) {
                return Ok(answer);
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}
