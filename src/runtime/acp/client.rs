//! The client side of one ACP connection over an agent's stdin/stdout: initialize (protocol v1,
//! capabilities fs read/write), one session, prompts, cancel; permission requests waiting for
//! the person (or answered by a remembered rule); fs requests served inside the workspace.
//! Session updates become `Event`s, sent in arrival order before the turn's end is reported.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::model::elicitation::ElicitAnswer;
use crate::protocol::attachments::{Attachment, PromptAbilities};
use agent_client_protocol::Agent;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AuthCapabilities, AuthenticateRequest, CancelNotification, ClientCapabilities, FileSystemCapabilities,
    Implementation, InitializeRequest, LogoutRequest, PromptRequest, RequestPermissionOutcome,
    SessionConfigOptionValue, SessionId, SetSessionConfigOptionRequest, SetSessionModeRequest,
};
use tokio::sync::oneshot;

pub use super::connection::{AcpConnection, AcpError};
use super::connection::{ElicitMap, IntoResult, OpenSession, Refused, WithLimit, with_timeout};
pub use super::context::{ClientContext, LoginPlan};
use super::convert;
use super::handlers::handlers;
pub use super::permissions::unattended_answer;
use super::permissions::{Pending, PendingMap, answer_pending};
use super::session::SessionGate;
pub use super::sessions::Reopen;
use super::transport::lines_transport;
use crate::model::conversation::TurnEnd;
use crate::model::permission::PermissionAnswer;
use crate::model::session_config::{ConfigOption, Modes, OptionValue};
use crate::protocol::auth::AuthKind;
use crate::protocol::threads::SessionAbilities;

impl AcpConnection {
    /// Follows whether the agent closed its output (true once it did).
    pub fn hung_up(&self) -> tokio::sync::watch::Receiver<bool> {
        self.hung_up.clone()
    }

    /// Connects over the agent's pipes, initializes and opens a session in `cwd`.
    pub async fn connect(
        ctx: ClientContext,
        stdin: tokio::process::ChildStdin,
        stdout: tokio::process::ChildStdout,
        cwd: PathBuf,
        resume: Option<Reopen>,
    ) -> Result<Self, AcpError> {
        let init_line: Arc<Mutex<Option<String>>> = Arc::default();
        let transport = lines_transport(
            ctx.agent.clone(),
            stdin,
            stdout,
            ctx.events.clone(),
            ctx.redact.clone(),
            (init_line.clone(), ctx.words.clone()),
        );
        let pending: PendingMap = Arc::default();
        let elicits: ElicitMap = Arc::default();
        let gate = SessionGate::default();
        let (cx_tx, cx_rx) = oneshot::channel();
        let (close_tx, close_rx) = oneshot::channel::<()>();
        let builder = handlers(ctx.clone(), pending.clone(), elicits.clone(), gate.clone());
        let agent = ctx.agent.clone();
        let (hung_tx, hung_up) = tokio::sync::watch::channel(false);
        let driver = tokio::spawn(async move {
            let result = builder
                .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                    let _ = cx_tx.send(cx.clone());
                    // Keep the connection until asked to close or the agent hangs up.
                    tokio::select! {
                        _ = close_rx => {}
                        _ = cx.incoming_closed() => {
                            let _ = hung_tx.send(true);
                        }
                    }
                    Ok(())
                })
                .await;
            if let Err(e) = result {
                tracing::debug!(agent, "ACP connection ended: {e}");
            }
        });
        let Ok(cx) = cx_rx.await else {
            return Err(AcpError::Protocol { step: "connect", message: "the connection closed at once".into() });
        };
        let mut conn = Self {
            cx,
            session: Mutex::new(OpenSession { id: SessionId::new(""), options: Vec::new(), modes: None }),
            close_tx: Some(close_tx),
            driver,
            hung_up,
            pending,
            elicits,
            gate,
            ctx: ctx.clone(),
            cwd,
            rules: ctx.rules.clone(),
            terminals: ctx.terminals.clone(),
            agent_name: None,
            implementation: None,
            abilities: SessionAbilities::default(),
            resumed: false,
            auth_methods: Vec::new(),
            can_logout: false,
            prompts: PromptAbilities::default(),
            mcp_abilities: Default::default(),
        };
        match conn.handshake(resume, &init_line).await {
            Ok(()) => Ok(conn),
            Err(e) => {
                conn.close().await;
                Err(e)
            }
        }
    }

    async fn handshake(&mut self, resume: Option<Reopen>, init_line: &Mutex<Option<String>>) -> Result<(), AcpError> {
        let timeout = self.ctx.timeout;
        let init = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(
                ClientCapabilities::new()
                    .fs(FileSystemCapabilities::new().read_text_file(true).write_text_file(true))
                    .terminal(true)
                    // A terminal login runs in a Sidekicks terminal of the agent's workspace.
                    .auth(AuthCapabilities::new().terminal(true))
                    .elicitation(
                        agent_client_protocol::v1::schema::ElicitationCapabilities::new()
                            .form(agent_client_protocol::v1::schema::ElicitationFormCapabilities::new())
                            .url(agent_client_protocol::v1::schema::ElicitationUrlCapabilities::new()),
                    ),
            )
            .client_info(Implementation::new("sidekicks", env!("CARGO_PKG_VERSION")).title("Sidekicks"));
        let response = with_timeout("initialize", timeout, self.cx.send_request(init).block_task()).await?;
        if response.protocol_version != ProtocolVersion::V1 {
            let version = serde_json::to_string(&response.protocol_version).unwrap_or_else(|_| "?".into());
            return Err(AcpError::Version { version });
        }
        self.implementation = response.agent_info.as_ref().map(|i| {
            let name = i.title.clone().unwrap_or_else(|| i.name.clone());
            if i.version.is_empty() { name } else { format!("{name} {}", i.version) }
        });
        self.agent_name = response.agent_info.map(|i| i.title.unwrap_or(i.name));
        let caps = &response.agent_capabilities;
        self.abilities = SessionAbilities {
            load: caps.load_session,
            resume: caps.session_capabilities.resume.is_some(),
            list: caps.session_capabilities.list.is_some(),
            close: caps.session_capabilities.close.is_some(),
            delete: caps.session_capabilities.delete.is_some(),
        };
        self.can_logout = caps.auth.logout.is_some();
        self.mcp_abilities =
            super::mcp::McpAbilities { http: caps.mcp_capabilities.http, sse: caps.mcp_capabilities.sse };
        self.prompts = PromptAbilities {
            image: caps.prompt_capabilities.image,
            embedded: caps.prompt_capabilities.embedded_context,
        };
        // The raw answer keeps what the SDK's schema drops (`env_var` methods' variables).
        let raw = init_line.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.auth_methods = raw.as_deref().map(super::auth::auth_methods).unwrap_or_default();
        self.log_in(&self.ctx).await?;
        self.resumed = self.open_session(resume, &self.ctx.chosen.clone()).await?;
        Ok(())
    }

    /// Logs in before the session opens: with the way the person chose, or with an `env_var`
    /// way whose variables are all set.
    async fn log_in(&self, ctx: &ClientContext) -> Result<(), AcpError> {
        let chosen = ctx.login.method.clone().or_else(|| {
            self.auth_methods
                .iter()
                .find(|m| m.satisfied_by(&|name| ctx.login.env.contains(name)))
                .map(|m| m.id.clone())
        });
        let Some(id) = chosen else { return Ok(()) };
        if matches!(self.auth_methods.iter().find(|m| m.id == id).map(|m| &m.kind), Some(AuthKind::Terminal { .. })) {
            // Done in a terminal already; never passed to `authenticate`.
            return Ok(());
        }
        let request = AuthenticateRequest::new(id);
        match self.cx.send_request(request).block_task().with_limit(ctx.login.timeout).await {
            Err(Refused::Auth(message)) => {
                Err(AcpError::AuthRequired { step: "authenticate", message, methods: self.auth_methods.clone() })
            }
            other => other.into_result("authenticate", ctx.login.timeout).map(|_| ()),
        }
    }

    /// Sets option `id` of the session; the session's options as they are after it.
    pub fn set_option(
        &self,
        id: String,
        value: OptionValue,
    ) -> impl Future<Output = Result<Vec<ConfigOption>, String>> + Send + 'static {
        let value = match value {
            OptionValue::Choice(c) => SessionConfigOptionValue::value_id(c),
            OptionValue::Bool(b) => SessionConfigOptionValue::boolean(b),
        };
        let sent = self.cx.send_request(SetSessionConfigOptionRequest::new(self.sid(), id, value));
        async move {
            match tokio::time::timeout(Duration::from_secs(30), sent.block_task()).await {
                Ok(Ok(response)) => Ok(convert::config_options(response.config_options)),
                Ok(Err(e)) => Err(convert::error_text(&e)),
                Err(_) => Err("no answer within 30 s".into()),
            }
        }
    }

    /// Sets the session's mode (agents with modes and no config options).
    pub fn set_mode(&self, mode: String) -> impl Future<Output = Result<(), String>> + Send + 'static {
        let sent = self.cx.send_request(SetSessionModeRequest::new(self.sid(), mode));
        async move {
            match tokio::time::timeout(Duration::from_secs(30), sent.block_task()).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(convert::error_text(&e)),
                Err(_) => Err("no answer within 30 s".into()),
            }
        }
    }

    /// Logs out (where the agent can).
    pub async fn log_out(&self) -> Result<(), AcpError> {
        with_timeout("logout", Duration::from_secs(30), self.cx.send_request(LogoutRequest::new()).block_task())
            .await
            .map(|_| ())
    }

    /// The id of the session.
    pub fn session_id(&self) -> String {
        self.sid().0.to_string()
    }

    pub(super) fn sid(&self) -> SessionId {
        self.session.lock().unwrap_or_else(|e| e.into_inner()).id.clone()
    }

    /// The session's options as it opened (remembered choices applied).
    pub fn options(&self) -> Vec<ConfigOption> {
        self.session.lock().unwrap_or_else(|e| e.into_inner()).options.clone()
    }

    /// The MCP servers given to each session, and what happened to each of the config's.
    pub fn mcp(&self) -> (Vec<agent_client_protocol::v1::schema::McpServer>, Vec<crate::protocol::McpStatus>) {
        super::mcp::servers(&self.ctx.mcp, self.mcp_abilities)
    }

    /// The session's modes (older agents), as it opened.
    pub fn modes(&self) -> Option<Modes> {
        self.session.lock().unwrap_or_else(|e| e.into_inner()).modes.clone()
    }

    /// Sends a prompt; resolves when the turn ends. Updates arrive as events before it resolves.
    /// Images and files go after the text (files read from the workspace first, when the agent
    /// takes their text).
    pub fn prompt(&self, text: String, attachments: Vec<Attachment>) -> impl Future<Output = TurnEnd> + Send + 'static {
        let session = self.sid();
        self.gate.set_cancelling(false);
        let (cx, fs, prompts, gate) = (self.cx.clone(), self.ctx.fs.clone(), self.prompts, self.gate.clone());
        let agent = self.ctx.agent.clone();
        async move {
            let blocks = match super::content::prompt_blocks(&agent, text, attachments, &fs, prompts).await {
                Ok(blocks) => blocks,
                Err(message) => return TurnEnd::Failed { message },
            };
            // Stopped before it went out (while the workspace's checkpoint was being made).
            if gate.cancelling() {
                return TurnEnd::Cancelled;
            }
            match cx.send_request(PromptRequest::new(session, blocks)).block_task().await {
                Ok(response) => super::convert::stop_reason_end(response.stop_reason),
                // The agent went away mid-turn (its exit is reported on its own).
                Err(e)
                    if agent_client_protocol::is_incoming_transport_closed(&e)
                        || agent_client_protocol::is_connection_terminated(&e) =>
                {
                    TurnEnd::AgentExited
                }
                Err(e) if e.code == agent_client_protocol::ErrorCode::AUTH_REQUIRED => {
                    TurnEnd::AuthRequired { message: convert::error_text(&e) }
                }
                Err(e) => TurnEnd::Failed { message: convert::error_text(&e) },
            }
        }
    }

    /// Asks the agent to cancel the current turn and answers every waiting permission request
    /// "cancelled". Returns the ids of those requests.
    pub fn cancel(&self) -> Vec<u64> {
        self.gate.set_cancelling(true);
        let _ = self.cx.send_notification(CancelNotification::new(self.sid()));
        self.answer_waiting_cancelled()
    }

    /// Answers every permission request still waiting "cancelled" (its turn ended or is being
    /// stopped); their ids.
    pub fn answer_waiting_cancelled(&self) -> Vec<u64> {
        let drained: Vec<(u64, Pending)> = self.pending.lock().unwrap_or_else(|e| e.into_inner()).drain().collect();
        let mut ids = Vec::new();
        for (id, pending) in drained {
            pending.responder.answer(RequestPermissionOutcome::Cancelled);
            ids.push(id);
        }
        ids.sort_unstable();
        ids
    }

    /// Answers every waiting elicitation "cancel" (the turn is being stopped); their ids.
    pub fn cancel_elicitations(&self) -> Vec<u64> {
        let drained: Vec<_> = self.elicits.lock().unwrap_or_else(|e| e.into_inner()).drain().collect();
        let mut ids = Vec::new();
        for (id, responder) in drained {
            let _ = responder.respond(super::elicit::response(&ElicitAnswer::Cancel));
            ids.push(id);
        }
        ids.sort_unstable();
        ids
    }

    /// Answers elicitation `id`. False if no such request is waiting.
    pub fn answer_elicitation(&self, id: u64, answer: &ElicitAnswer) -> bool {
        let Some(responder) = self.elicits.lock().unwrap_or_else(|e| e.into_inner()).remove(&id) else {
            return false;
        };
        let _ = responder.respond(super::elicit::response(answer));
        true
    }

    /// Answers permission request `id`. Always/never answers are remembered. False if no such
    /// request is waiting (already answered or cancelled).
    pub fn answer(&self, id: u64, answer: &PermissionAnswer) -> bool {
        answer_pending(&self.pending, &*self.rules, id, answer)
    }

    /// Ends the connection; the agent's stdin is closed once the driver has ended.
    pub async fn close(mut self) {
        self.terminals.close_all().await;
        self.cancel_pending_quietly();
        if let Some(tx) = self.close_tx.take() {
            let _ = tx.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut self.driver).await;
        self.driver.abort();
    }

    fn cancel_pending_quietly(&self) {
        self.gate.set_cancelling(true);
        for (_, pending) in self.pending.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            pending.responder.answer(RequestPermissionOutcome::Cancelled);
        }
        self.cancel_elicitations();
    }
}
