//! The team lead's tools (issue 47, ADR 0035): an MCP server named `sidekicks-team` given to the
//! lead of a team on every session it opens, a door onto the same team service as the window and
//! `sidekicks team`, acting inside the process that runs the team.
//!
//! The lead (any ACP agent on this computer) starts `sidekicks team-tools` as a stdio MCP server;
//! that small process joins this one through a Unix socket in the user's private runtime folder
//! and gives the token it was started with, which names the lead: a member, another agent or
//! another user's process does not have it, so it cannot reach the tools. Here the calls are
//! served by [`tools`] through the [`door::Door`].

mod door;
mod server;
mod tools;

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::PathBuf;
use std::sync::Arc;

pub(super) use door::Door;

use crate::model::config::{McpConfig, McpTransport};

/// The MCP server's name, as the lead sees it (its tools read `mcp__sidekicks-team__assign`…).
pub const SERVER_NAME: &str = "sidekicks-team";
/// The variable naming the socket, for `sidekicks team-tools`.
pub const SOCKET_VAR: &str = "SIDEKICKS_TEAM_TOOLS";
/// The variable carrying the lead's token.
pub const TOKEN_VAR: &str = "SIDEKICKS_TEAM_TOKEN";

/// The tools' socket and the leads' tokens.
pub(super) struct LeadTools {
    socket: PathBuf,
    tokens: server::Tokens,
    /// The program the lead starts (this binary).
    program: PathBuf,
}

impl LeadTools {
    /// Listens on a socket of this process in the user's private runtime folder and serves the
    /// tools through `door`; `None` (said in the log) when no socket can be made.
    pub fn start(door: Door, program: PathBuf) -> Option<Arc<Self>> {
        let dir = match crate::runtime::teams::lock::locks_dir() {
            Ok(locks) => locks.parent().map(|p| p.to_path_buf())?,
            Err(e) => {
                tracing::warn!("no team tools: {e}");
                return None;
            }
        };
        // One per runtime: a process may run several (tests do), each with its own teams.
        static RUNTIMES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = RUNTIMES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let socket = dir.join(format!("team-tools-{}-{n}.sock", std::process::id()));
        let _ = std::fs::remove_file(&socket);
        let listener = match tokio::net::UnixListener::bind(&socket) {
            Ok(listener) => listener,
            Err(e) => {
                tracing::warn!("no team tools: cannot listen on {}: {e}", socket.display());
                return None;
            }
        };
        let tokens = server::Tokens::default();
        tokio::spawn(server::serve(listener, tokens.clone(), door));
        Some(Arc::new(Self { socket, tokens, program }))
    }

    /// The `sidekicks-team` server each of `leads` gets (a token each, kept while it leads).
    pub fn servers(&self, leads: &[String]) -> BTreeMap<String, McpConfig> {
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.retain(|_, lead| leads.contains(lead));
        let mut servers = BTreeMap::new();
        for lead in leads {
            let token = match tokens.iter().find(|(_, l)| *l == lead) {
                Some((token, _)) => token.clone(),
                None => {
                    let token = new_token();
                    tokens.insert(token.clone(), lead.clone());
                    token
                }
            };
            let env = [(SOCKET_VAR.to_string(), self.socket.display().to_string()), (TOKEN_VAR.to_string(), token)];
            let server = McpConfig {
                name: SERVER_NAME.to_string(),
                transport: McpTransport::Stdio,
                command: Some(self.program.display().to_string()),
                args: vec!["team-tools".to_string()],
                env: env.into_iter().collect(),
                url: None,
                headers: BTreeMap::new(),
                agents: vec![lead.clone()],
            };
            servers.insert(lead.clone(), server);
        }
        servers
    }
}

impl Drop for LeadTools {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// 32 random hex digits from the system's generator.
fn new_token() -> String {
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        // No generator: a token from the clock and the process (still private to the lead's env).
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        bytes = (nanos ^ (u128::from(std::process::id()) << 64)).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Copies `from` to `to` as it comes, each piece flushed at once (the other side waits for it).
fn pipe(from: &mut impl std::io::Read, to: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut buffer = [0u8; 8192];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buffer[..n])?;
        to.flush()?;
    }
}

/// `sidekicks team-tools`: the lead's stdio MCP server, a pipe between the lead and the process
/// that runs its team (the socket and token from its environment).
pub fn run_bridge() -> anyhow::Result<()> {
    use std::io::Write as _;
    use std::os::unix::net::UnixStream;
    let socket = std::env::var_os(SOCKET_VAR).ok_or_else(|| {
        anyhow::anyhow!("{SOCKET_VAR} is not set: only a team's lead, started by Sidekicks, has the team tools")
    })?;
    let token = std::env::var(TOKEN_VAR).map_err(|_| anyhow::anyhow!("{TOKEN_VAR} is not set"))?;
    let mut stream = UnixStream::connect(&socket).map_err(|e| {
        anyhow::anyhow!("cannot reach the Sidekicks that runs the team ({}): {e}", PathBuf::from(&socket).display())
    })?;
    stream.write_all(format!("{token}\n").as_bytes())?;
    let mut to_sidekicks = stream.try_clone()?;
    std::thread::spawn(move || {
        let _ = pipe(&mut std::io::stdin().lock(), &mut to_sidekicks);
        let _ = to_sidekicks.shutdown(std::net::Shutdown::Write);
    });
    pipe(&mut stream, &mut std::io::stdout().lock())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::Value;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    use tokio::net::UnixStream;

    use super::*;

    /// Writes `lines` on a new connection to `socket` and reads every answer until it closes
    /// or `wanted` have come, by id.
    async fn talk(socket: &str, lines: &[&str], wanted: usize) -> HashMap<u64, Value> {
        let mut stream = UnixStream::connect(socket).await.unwrap();
        stream.write_all(format!("{}\n", lines.join("\n")).as_bytes()).await.unwrap();
        let mut answers = HashMap::new();
        let mut reader = BufReader::new(stream);
        while answers.len() < wanted {
            let mut line = String::new();
            if reader.read_line(&mut line).await.unwrap() == 0 {
                break;
            }
            let value: Value = serde_json::from_str(&line).unwrap();
            answers.insert(value["id"].as_u64().unwrap(), value);
        }
        if wanted == 0 {
            let mut rest = String::new();
            reader.read_to_string(&mut rest).await.unwrap();
            assert!(rest.is_empty(), "answered without the token: {rest}");
        }
        answers
    }

    #[tokio::test]
    async fn only_a_lead_s_own_token_reaches_the_tools() {
        let (commands, _served) = tokio::sync::mpsc::channel(8);
        let (tap, _) = tokio::sync::broadcast::channel(8);
        let door = Door::new(commands, tap, Arc::default());
        let tools = LeadTools::start(door, "/usr/bin/sidekicks".into()).expect("a socket in the runtime folder");
        let servers = tools.servers(&["Lead".to_string()]);
        let server = &servers["Lead"];
        assert_eq!((server.name.as_str(), server.args.as_slice()), (SERVER_NAME, &["team-tools".to_string()][..]));
        assert_eq!(server.agents, ["Lead"]);
        let (socket, token) = (server.env[SOCKET_VAR].clone(), server.env[TOKEN_VAR].clone());
        assert_eq!(token.len(), 32);
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

        // A wrong token, or none: closed, nothing answered.
        talk(&socket, &["0123456789abcdef0123456789abcdef", list], 0).await;
        talk(&socket, &[list], 0).await;

        // The lead's: MCP answered, the tools listed, a call acting as that lead.
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#;
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"members","arguments":{}}}"#;
        let odd = r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#;
        let answers = talk(&socket, &[&token, init, note, list, call, odd], 4).await;
        assert_eq!(answers[&1]["result"]["serverInfo"]["name"], SERVER_NAME);
        let names: Vec<&str> =
            answers[&2]["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["members", "assign", "wait", "diff", "message", "merge"]);
        assert_eq!(answers[&3]["result"]["isError"], true);
        assert_eq!(answers[&3]["result"]["content"][0]["text"], "Lead leads no team now");
        assert_eq!(answers[&4]["error"]["code"], -32601);

        // No longer a lead: its token no longer opens.
        let again = tools.servers(&[]);
        assert!(again.is_empty());
        talk(&socket, &[&token, list], 0).await;
    }
}
