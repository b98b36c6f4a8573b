//! The client side of one ACP connection over an agent's stdin/stdout: initialize, one session,
//! prompts and cancel. Session updates become `Event`s, sent in arrival order before the turn's
//! end is reported. Lines on stdout that are not JSON go to the agent's log instead of the
//! protocol (a misbehaving agent does not break the connection).

use std::path::PathBuf;
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CancelNotification, ClientCapabilities, ContentBlock, FileSystemCapabilities, Implementation,
    InitializeRequest, NewSessionRequest, PromptRequest, SessionId, SessionNotification, SessionUpdate,
    StopReason, TextContent,
};
use agent_client_protocol::{Agent, Client, Lines};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::events::EventSink;
use crate::app::Event;
use crate::model::conversation::TurnEnd;

/// Errors of the ACP connection.
#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    /// The agent did not answer in time.
    #[error("the agent did not answer {step} within {seconds} s")]
    Timeout { step: &'static str, seconds: u64 },
    /// The agent answered with an error, or the connection failed.
    #[error("{step}: {message}")]
    Protocol { step: &'static str, message: String },
    /// The agent speaks a protocol version this client does not.
    #[error("the agent speaks ACP version {version}, Sidekicks speaks version 1")]
    Version { version: String },
}

/// A live connection with one session.
pub struct AcpConnection {
    cx: ConnectionTo<Agent>,
    session_id: SessionId,
    close_tx: Option<oneshot::Sender<()>>,
    driver: JoinHandle<()>,
    /// The name the agent gave, if any.
    pub agent_name: Option<String>,
}

impl AcpConnection {
    /// Connects over the agent's pipes, initializes and opens a session in `cwd`.
    pub async fn connect(
        agent: String,
        stdin: ChildStdin,
        stdout: ChildStdout,
        events: EventSink,
        cwd: PathBuf,
        timeout: Duration,
    ) -> Result<Self, AcpError> {
        let transport = lines_transport(agent.clone(), stdin, stdout, events.clone());
        let (cx_tx, cx_rx) = oneshot::channel();
        let (close_tx, close_rx) = oneshot::channel::<()>();
        let update_agent = agent.clone();
        let driver = tokio::spawn(async move {
            let result = Client
                .v1()
                .name("sidekicks")
                .on_receive_notification(
                    async move |n: SessionNotification, _cx| {
                        if let Some(event) = update_event(&update_agent, n.update) {
                            events.send(event).await;
                        }
                        Ok(())
                    },
                    agent_client_protocol::on_receive_notification!(),
                )
                .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                    let _ = cx_tx.send(cx.clone());
                    // Keep the connection until asked to close or the agent hangs up.
                    tokio::select! {
                        _ = close_rx => {}
                        _ = cx.incoming_closed() => {}
                    }
                    Ok(())
                })
                .await;
            if let Err(e) = result {
                tracing::debug!(agent, "ACP connection ended: {e}");
            }
        });
        let cx = match cx_rx.await {
            Ok(cx) => cx,
            Err(_) => {
                return Err(AcpError::Protocol {
                    step: "connect",
                    message: "the connection closed at once".into(),
                });
            }
        };
        let close_tx = Some(close_tx);
        let mut conn = Self {
            cx,
            session_id: SessionId::new(""),
            close_tx,
            driver,
            agent_name: None,
        };
        match conn.handshake(cwd, timeout).await {
            Ok(()) => Ok(conn),
            Err(e) => {
                conn.close().await;
                Err(e)
            }
        }
    }

    async fn handshake(&mut self, cwd: PathBuf, timeout: Duration) -> Result<(), AcpError> {
        let init = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(
                ClientCapabilities::new()
                    .fs(FileSystemCapabilities::new()
                        .read_text_file(false)
                        .write_text_file(false))
                    .terminal(false),
            )
            .client_info(Implementation::new("sidekicks", env!("CARGO_PKG_VERSION")));
        let response = with_timeout("initialize", timeout, self.cx.send_request(init).block_task()).await?;
        if response.protocol_version != ProtocolVersion::V1 {
            return Err(AcpError::Version {
                version: format!("{:?}", response.protocol_version),
            });
        }
        self.agent_name = response.agent_info.map(|i| i.title.unwrap_or(i.name));
        let session = with_timeout(
            "session/new",
            timeout,
            self.cx.send_request(NewSessionRequest::new(cwd)).block_task(),
        )
        .await?;
        self.session_id = session.session_id;
        Ok(())
    }

    /// Sends a prompt; resolves when the turn ends. Updates arrive as events before it resolves.
    pub fn prompt(&self, text: String) -> impl Future<Output = TurnEnd> + Send + 'static {
        let request = PromptRequest::new(
            self.session_id.clone(),
            vec![ContentBlock::Text(TextContent::new(text))],
        );
        let sent = self.cx.send_request(request);
        async move {
            match sent.block_task().await {
                Ok(response) => stop_reason_end(response.stop_reason),
                Err(e) => TurnEnd::Failed { message: e.message },
            }
        }
    }

    /// Asks the agent to cancel the current turn.
    pub fn cancel(&self) {
        let _ = self
            .cx
            .send_notification(CancelNotification::new(self.session_id.clone()));
    }

    /// Ends the connection; the agent's stdin is closed once the driver has ended.
    pub async fn close(mut self) {
        if let Some(tx) = self.close_tx.take() {
            let _ = tx.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut self.driver).await;
        self.driver.abort();
    }
}

async fn with_timeout<T>(
    step: &'static str,
    limit: Duration,
    fut: impl Future<Output = Result<T, agent_client_protocol::Error>>,
) -> Result<T, AcpError> {
    match tokio::time::timeout(limit, fut).await {
        Err(_) => Err(AcpError::Timeout {
            step,
            seconds: limit.as_secs(),
        }),
        Ok(Err(e)) => Err(AcpError::Protocol {
            step,
            message: e.message,
        }),
        Ok(Ok(v)) => Ok(v),
    }
}

fn stop_reason_end(reason: StopReason) -> TurnEnd {
    match reason {
        StopReason::EndTurn => TurnEnd::EndTurn,
        StopReason::MaxTokens => TurnEnd::MaxTokens,
        StopReason::MaxTurnRequests => TurnEnd::MaxTurnRequests,
        StopReason::Refusal => TurnEnd::Refusal,
        StopReason::Cancelled => TurnEnd::Cancelled,
        _ => TurnEnd::EndTurn,
    }
}

fn update_event(agent: &str, update: SessionUpdate) -> Option<Event> {
    let agent = agent.to_string();
    match update {
        SessionUpdate::AgentMessageChunk(chunk) => match chunk.content {
            ContentBlock::Text(t) => Some(Event::AgentText { agent, text: t.text }),
            _ => None,
        },
        SessionUpdate::AgentThoughtChunk(chunk) => match chunk.content {
            ContentBlock::Text(t) => Some(Event::AgentThought { agent, text: t.text }),
            _ => None,
        },
        other => {
            tracing::debug!(agent, "session update not shown yet: {other:?}");
            None
        }
    }
}

/// Newline-delimited JSON over the child's pipes. Lines that are not JSON objects are sent to
/// the agent's log and kept from the protocol. The writer owns stdin: it is closed (EOF for the
/// agent) when the connection ends.
fn lines_transport(
    agent: String,
    stdin: ChildStdin,
    stdout: ChildStdout,
    events: EventSink,
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
    let sink = out_tx.sink_map_err(std::io::Error::other);

    let reader = BufReader::new(stdout).lines();
    let incoming = futures::stream::unfold(
        (reader, events, agent),
        |(mut reader, events, agent)| async move {
            loop {
                match reader.next_line().await {
                    Ok(Some(line)) => {
                        let trimmed = line.trim_start();
                        if trimmed.starts_with('{') || trimmed.starts_with('[') {
                            return Some((Ok(line), (reader, events, agent)));
                        }
                        if !trimmed.is_empty() {
                            let line = format!("stdout (not ACP): {line}");
                            events
                                .send(Event::AgentLog {
                                    agent: agent.clone(),
                                    line,
                                })
                                .await;
                        }
                    }
                    Ok(None) => return None,
                    Err(e) => return Some((Err(e), (reader, events, agent))),
                }
            }
        },
    );
    Lines::new(sink, Box::pin(incoming))
}
