//! The built-in demo agent (`sidekicks demo-agent`): a real ACP agent over stdin/stdout, built on
//! the official SDK's agent side. Offline, no key. Words in the prompt choose a scenario (see
//! `scenarios.rs` and docs/demo-agent.md); it honours `session/cancel`.

pub mod auth;
mod content;
mod elicit;
pub mod mcp;
pub mod misbehaving;
mod resolve;
mod scenarios;
mod serve;
mod sessions;
pub mod settings;
mod terminal_scenario;
mod turn;

use std::path::PathBuf;

use agent_client_protocol::Lines;
use agent_client_protocol::v1::schema::ContentBlock;
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

pub use scenarios::{FLOOD, Scenario, reply_chunks};

/// Lets a scenario write a raw line on stdout (between protocol messages, never inside one).
#[derive(Clone)]
pub struct RawOut(futures::channel::mpsc::Sender<String>);

impl RawOut {
    /// Writes `line` as is.
    pub async fn line(&mut self, line: String) {
        let _ = self.0.send(line).await;
    }
}

/// What the demo agent offers besides conversations.
#[derive(Clone, Copy, Debug, Default)]
pub struct DemoOptions {
    /// Advertise `loadSession` and reopen any session it is asked to (replaying a greeting).
    pub load_session: bool,
    /// Offer ways to log in and open no session before (see `auth.rs`).
    pub require_login: bool,
    /// Offer only the older session modes (no config options).
    pub modes_only: bool,
    /// Keep its sessions: list, resume, close, delete, titles (see `sessions.rs`).
    pub sessions: bool,
    /// Take only text in prompts (no images, no files' text: links only).
    pub text_only: bool,
}

/// Runs the demo agent on this process's stdin/stdout until stdin closes.
pub async fn run_stdio(options: DemoOptions) -> anyhow::Result<()> {
    let (out_tx, mut out_rx) = futures::channel::mpsc::channel::<String>(64);
    let require_login = options.require_login;
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(mut line) = out_rx.next().await {
            if require_login && line.contains("\"authMethods\"") {
                line = auth::rewrite_initialize(line);
            }
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
    let folder = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    serve::Demo::new(options, folder, raw).handlers().connect_to(transport).await?;
    Ok(())
}

pub(crate) fn prompt_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
