//! A live ACP connection to an agent process: its record (the session in use, the requests and
//! questions waiting for the person, its context), its errors, and the time limits its requests
//! run under. The connection's workings are in `client.rs`, the agent's requests in `handlers.rs`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::protocol::attachments::PromptAbilities;
use agent_client_protocol::Agent;
use agent_client_protocol::v1::schema::SessionId;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::context::ClientContext;
use super::convert;
use super::permissions::PendingMap;
use super::session::SessionGate;
use crate::model::session_config::{ConfigOption, Modes};
use crate::protocol::HandshakeFailure;
use crate::protocol::auth::AuthMethod;
use crate::protocol::threads::SessionAbilities;
use crate::runtime::permission_rules::PermissionRules;

/// Errors of the ACP connection.
#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    /// The agent did not answer in time.
    #[error("the agent did not answer {step} within {seconds} s")]
    Timeout {
        /// The step that failed.
        step: &'static str,
        /// How many seconds.
        seconds: u64,
    },
    /// The agent answered with an error, or the connection failed.
    #[error("{step}: {message}")]
    Protocol {
        /// The step that failed.
        step: &'static str,
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// The agent speaks a protocol version this client does not.
    #[error("the agent speaks ACP version {version}, Sidekicks speaks version 1")]
    Version {
        /// The version.
        version: String,
    },
    /// The agent wants the person to log in first (it answered "authentication required").
    #[error("{step}: the agent asks to log in ({message})")]
    AuthRequired {
        /// The step that was refused.
        step: &'static str,
        /// The agent's words.
        message: String,
        /// The ways to log in it offers.
        methods: Vec<AuthMethod>,
    },
}

impl AcpError {
    /// The failure as data the UI puts into words.
    pub fn failure(&self) -> HandshakeFailure {
        match self {
            AcpError::Timeout { step, seconds } => {
                HandshakeFailure::Timeout { step: step.to_string(), seconds: *seconds }
            }
            // The SDK's words for a version it does not speak: said as one.
            AcpError::Protocol { message, .. } if message.contains("peer negotiated ") => {
                let after = message.split("peer negotiated ").nth(1).unwrap_or_default();
                let version: String = after.chars().take_while(char::is_ascii_digit).collect();
                HandshakeFailure::Version { version }
            }
            AcpError::Protocol { step, message } => {
                HandshakeFailure::Error { step: step.to_string(), message: message.clone() }
            }
            AcpError::Version { version } => HandshakeFailure::Version { version: version.clone() },
            AcpError::AuthRequired { message, methods, .. } => {
                HandshakeFailure::AuthRequired { message: message.clone(), methods: methods.clone() }
            }
        }
    }
}

/// Elicitations waiting for the person, by id.
pub(super) type ElicitMap =
    Arc<Mutex<HashMap<u64, Responder<agent_client_protocol::v1::schema::CreateElicitationResponse>>>>;

/// A live connection with one session.
pub struct AcpConnection {
    pub(super) cx: ConnectionTo<Agent>,
    /// The session in use (another one when the person switches threads).
    pub(super) session: Mutex<OpenSession>,
    pub(super) close_tx: Option<oneshot::Sender<()>>,
    pub(super) driver: JoinHandle<()>,
    /// Becomes true when the agent closes its output (hangs up) before it is asked to.
    pub(super) hung_up: tokio::sync::watch::Receiver<bool>,
    pub(super) pending: PendingMap,
    pub(super) elicits: ElicitMap,
    pub(super) gate: SessionGate,
    pub(super) ctx: ClientContext,
    pub(super) cwd: PathBuf,
    pub(super) rules: Arc<dyn PermissionRules>,
    pub(super) terminals: Arc<crate::runtime::agent_terminals::AgentTerminals>,
    /// The name the agent gave, if any.
    pub agent_name: Option<String>,
    /// What the agent said it is, with its version (`Claude Code 0.9.1`), from `initialize`.
    pub implementation: Option<String>,
    /// What the agent can do with sessions.
    pub abilities: SessionAbilities,
    /// Whether the session is an earlier one, reopened.
    pub resumed: bool,
    /// The ways to log in the agent offers.
    pub auth_methods: Vec<AuthMethod>,
    /// Whether the agent can log out.
    pub can_logout: bool,
    /// What the agent takes in a prompt besides text.
    pub prompts: PromptAbilities,
    /// The MCP transports the agent takes.
    pub mcp_abilities: super::mcp::McpAbilities,
}

/// The session a connection uses.
pub(super) struct OpenSession {
    /// Its id (empty while none is open).
    pub(super) id: SessionId,
    /// Its options as it opened (remembered choices applied).
    pub(super) options: Vec<ConfigOption>,
    /// Its modes (older agents), as it opened.
    pub(super) modes: Option<Modes>,
}

impl Drop for AcpConnection {
    fn drop(&mut self) {
        // The session is over (however it ended): so are the commands the agent ran.
        let terminals = self.terminals.clone();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move { terminals.close_all().await });
        }
    }
}

/// How a request with a time limit went wrong.
pub(super) enum Refused {
    /// No answer in time.
    Late,
    /// "Authentication required" (the agent's words).
    Auth(String),
    /// Any other error.
    Other(agent_client_protocol::Error),
}

/// A request's answer within a time limit, telling "authentication required" apart.
pub(super) trait WithLimit<T> {
    async fn with_limit(self, limit: Duration) -> Result<T, Refused>;
}

impl<T, F: Future<Output = Result<T, agent_client_protocol::Error>>> WithLimit<T> for F {
    async fn with_limit(self, limit: Duration) -> Result<T, Refused> {
        match tokio::time::timeout(limit, self).await {
            Err(_) => Err(Refused::Late),
            Ok(Err(e)) if e.code == agent_client_protocol::ErrorCode::AUTH_REQUIRED => {
                Err(Refused::Auth(convert::error_text(&e)))
            }
            Ok(Err(e)) => Err(Refused::Other(e)),
            Ok(Ok(v)) => Ok(v),
        }
    }
}

/// The answer as the handshake reports it.
pub(super) trait IntoResult<T> {
    fn into_result(self, step: &'static str, limit: Duration) -> Result<T, AcpError>;
}

impl<T> IntoResult<T> for Result<T, Refused> {
    fn into_result(self, step: &'static str, limit: Duration) -> Result<T, AcpError> {
        match self {
            Ok(v) => Ok(v),
            Err(Refused::Late) => Err(AcpError::Timeout { step, seconds: limit.as_secs() }),
            Err(Refused::Auth(message)) => Err(AcpError::Protocol { step, message }),
            Err(Refused::Other(e)) => Err(AcpError::Protocol { step, message: convert::error_text(&e) }),
        }
    }
}

pub(super) async fn with_timeout<T>(
    step: &'static str,
    limit: Duration,
    fut: impl Future<Output = Result<T, agent_client_protocol::Error>>,
) -> Result<T, AcpError> {
    match tokio::time::timeout(limit, fut).await {
        Err(_) => Err(AcpError::Timeout { step, seconds: limit.as_secs() }),
        Ok(Err(e)) => Err(AcpError::Protocol { step, message: convert::error_text(&e) }),
        Ok(Ok(v)) => Ok(v),
    }
}
