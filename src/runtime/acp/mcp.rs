//! The config's MCP servers as ACP gives them to a session (`session/new`, `load`, `resume`):
//! stdio always (the agent starts the program where it runs: in its container for a container
//! agent); http and sse only when the agent advertises them (`mcpCapabilities`), else left out
//! and said so.

use agent_client_protocol::v1::schema::{
    EnvVariable, HttpHeader, McpServer, McpServerHttp, McpServerSse, McpServerStdio,
};

use crate::model::config::{McpConfig, McpTransport};
use crate::protocol::McpStatus;

/// What the agent said it takes (`mcpCapabilities`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct McpAbilities {
    /// HTTP servers.
    pub http: bool,
    /// SSE servers.
    pub sse: bool,
}

/// The servers to give a session, and what happened to each (for the agent's header).
/// `sidekicks` as a stdio command means this very binary (like an agent's `command`).
pub fn servers(config: &[McpConfig], abilities: McpAbilities) -> (Vec<McpServer>, Vec<McpStatus>) {
    let mut servers = Vec::new();
    let mut statuses = Vec::new();
    for m in config {
        let taken = match m.transport {
            McpTransport::Stdio => true,
            McpTransport::Http => abilities.http,
            McpTransport::Sse => abilities.sse,
        };
        statuses.push(McpStatus { name: m.name.clone(), transport: m.transport.code().into(), given: taken });
        if !taken {
            continue;
        }
        let headers = || m.headers.iter().map(|(k, v)| HttpHeader::new(k, v)).collect::<Vec<_>>();
        servers.push(match m.transport {
            McpTransport::Stdio => {
                let command = crate::runtime::exec::resolve_program(m.command.as_deref().unwrap_or_default());
                McpServer::Stdio(
                    McpServerStdio::new(&m.name, command)
                        .args(m.args.clone())
                        .env(m.env.iter().map(|(k, v)| EnvVariable::new(k, v)).collect()),
                )
            }
            McpTransport::Http => {
                McpServer::Http(McpServerHttp::new(&m.name, m.url.clone().unwrap_or_default()).headers(headers()))
            }
            McpTransport::Sse => {
                McpServer::Sse(McpServerSse::new(&m.name, m.url.clone().unwrap_or_default()).headers(headers()))
            }
        });
    }
    (servers, statuses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, transport: McpTransport) -> McpConfig {
        McpConfig {
            name: name.into(),
            transport,
            command: (transport == McpTransport::Stdio).then(|| "mcp-files".into()),
            args: vec!["--root".into(), "/w".into()],
            env: [("TOKEN".to_string(), "t".to_string())].into(),
            url: (transport != McpTransport::Stdio).then(|| "http://127.0.0.1:9/mcp".into()),
            headers: [("Authorization".to_string(), "Bearer x".to_string())].into(),
            agents: Vec::new(),
        }
    }

    #[test]
    fn stdio_always_http_and_sse_only_when_the_agent_takes_them() {
        let config =
            [server("files", McpTransport::Stdio), server("web", McpTransport::Http), server("old", McpTransport::Sse)];
        let (given, statuses) = servers(&config, McpAbilities { http: true, sse: false });
        assert_eq!(given.len(), 2);
        let json = serde_json::to_value(&given).unwrap();
        assert_eq!(json[0]["name"], "files");
        assert_eq!(json[0]["args"][1], "/w");
        assert_eq!(json[0]["env"][0]["name"], "TOKEN");
        assert_eq!(json[1]["type"], "http");
        assert_eq!(json[1]["headers"][0]["value"], "Bearer x");
        assert_eq!(statuses.iter().map(|s| s.given).collect::<Vec<_>>(), [true, true, false]);
    }
}
