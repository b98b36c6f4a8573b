//! The client side of one ACP connection over an agent's stdin/stdout: initialize (protocol v1,
//! capabilities fs read/write), one session, prompts, cancel; permission requests waiting for
//! the person (or answered by a remembered rule); fs requests served inside the workspace.
//! Session updates become `Event`s, sent in arrival order before the turn's end is reported.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::model::elicitation::ElicitAnswer;
use crate::protocol::attachments::{Attachment, PromptAbilities};
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AuthCapabilities, AuthenticateRequest, CancelNotification, ClientCapabilities, FileSystemCapabilities,
    Implementation, InitializeRequest, LogoutRequest, PromptRequest, ReadTextFileRequest, ReadTextFileResponse,
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse, SelectedPermissionOutcome,
    SessionConfigOptionValue, SessionId, SessionNotification, SetSessionConfigOptionRequest, SetSessionModeRequest,
    WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, CreateTerminalResponse, KillTerminalRequest, KillTerminalResponse, ReleaseTerminalRequest,
    ReleaseTerminalResponse, TerminalExitStatus, TerminalOutputRequest, TerminalOutputResponse,
    WaitForTerminalExitRequest, WaitForTerminalExitResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, UntypedMessage};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::acp_convert;
pub use super::acp_permissions::unattended_answer;
use super::acp_permissions::{
    Asker, NEXT_REQUEST, Pending, PendingMap, Served, answer_pending, denied, refused, served,
};
use super::acp_session::SessionGate;
pub use super::acp_sessions::Reopen;
use super::acp_transport::lines_transport;
use super::agent_fs::AgentFs;
use super::events::EventSink;
use super::permission_rules::PermissionRules;
use crate::model::conversation::{TurnEnd, Update};
use crate::model::permission::{PermissionAnswer, Unattended, rule_key};
use crate::model::session_config::{Chosen, ConfigOption, Modes, OptionValue};
use crate::protocol::AgentEvent;
use crate::protocol::auth::{AuthKind, AuthMethod};
use crate::protocol::threads::SessionAbilities;
use crate::protocol::{Event, HandshakeFailure, LogEntry};

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

/// How a connection logs in.
#[derive(Clone, Debug, Default)]
pub struct LoginPlan {
    /// A way to log in the person chose (`authenticate` with it before opening the session).
    pub method: Option<String>,
    /// The variables set in the agent's environment (an `env_var` method whose variables are all
    /// set is used at once).
    pub env: std::collections::HashSet<String>,
    /// How long `authenticate` may take (a browser login is slow).
    pub timeout: Duration,
}

/// What a connection needs besides the pipes.
#[derive(Clone)]
pub struct ClientContext {
    /// The agent's name (events carry it).
    pub agent: String,
    /// Where events go.
    pub events: EventSink,
    /// The agent's workspace, for its fs requests.
    pub fs: AgentFs,
    /// The commands the agent runs (ACP terminals).
    pub terminals: Arc<super::agent_terminals::AgentTerminals>,
    /// Remembered always/never answers for this agent and workspace.
    pub rules: Arc<dyn PermissionRules>,
    /// How long `initialize` and `session/new` may take.
    pub timeout: Duration,
    /// True while `session/load` replays a conversation Sidekicks already shows: its updates are
    /// not shown again.
    pub replaying: Arc<AtomicBool>,
    /// Hides the agent's `env` values in what goes to its log.
    pub redact: super::redact::Redactor,
    /// How to log in, if the agent asks.
    pub login: LoginPlan,
    /// The choices remembered for the agent (model, mode, …), given to each new session.
    pub chosen: Vec<Chosen>,
    /// The config's MCP servers for the agent, given to each session it opens.
    pub mcp: Vec<crate::model::config::McpConfig>,
    /// What Sidekicks lets the agent do through it (file writes, commands).
    pub policy: crate::model::config::Policy,
    /// How requests are answered when no person is at the door (`--allow`); `None`: the person.
    pub unattended: Option<Unattended>,
}

/// Elicitations waiting for the person, by id.
type ElicitMap = Arc<Mutex<HashMap<u64, Responder<agent_client_protocol::v1::schema::CreateElicitationResponse>>>>;

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

/// A live connection with one session.
pub struct AcpConnection {
    pub(super) cx: ConnectionTo<Agent>,
    /// The session in use (another one when the person switches threads).
    pub(super) session: Mutex<OpenSession>,
    close_tx: Option<oneshot::Sender<()>>,
    driver: JoinHandle<()>,
    /// Becomes true when the agent closes its output (hangs up) before it is asked to.
    hung_up: tokio::sync::watch::Receiver<bool>,
    pending: PendingMap,
    elicits: ElicitMap,
    pub(super) gate: SessionGate,
    pub(super) ctx: ClientContext,
    pub(super) cwd: PathBuf,
    rules: Arc<dyn PermissionRules>,
    terminals: Arc<super::agent_terminals::AgentTerminals>,
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
    pub mcp_abilities: super::acp_mcp::McpAbilities,
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
            init_line.clone(),
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
            super::acp_mcp::McpAbilities { http: caps.mcp_capabilities.http, sse: caps.mcp_capabilities.sse };
        self.prompts = PromptAbilities {
            image: caps.prompt_capabilities.image,
            embedded: caps.prompt_capabilities.embedded_context,
        };
        // The raw answer keeps what the SDK's schema drops (`env_var` methods' variables).
        let raw = init_line.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.auth_methods = raw.as_deref().map(super::acp_auth::auth_methods).unwrap_or_default();
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
                Ok(Ok(response)) => Ok(acp_convert::config_options(response.config_options)),
                Ok(Err(e)) => Err(acp_convert::error_text(&e)),
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
                Ok(Err(e)) => Err(acp_convert::error_text(&e)),
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
        super::acp_mcp::servers(&self.ctx.mcp, self.mcp_abilities)
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
            let blocks = match super::acp_content::prompt_blocks(&agent, text, attachments, &fs, prompts).await {
                Ok(blocks) => blocks,
                Err(message) => return TurnEnd::Failed { message },
            };
            // Stopped before it went out (while the workspace's checkpoint was being made).
            if gate.cancelling() {
                return TurnEnd::Cancelled;
            }
            match cx.send_request(PromptRequest::new(session, blocks)).block_task().await {
                Ok(response) => super::acp_convert::stop_reason_end(response.stop_reason),
                // The agent went away mid-turn (its exit is reported on its own).
                Err(e)
                    if agent_client_protocol::is_incoming_transport_closed(&e)
                        || agent_client_protocol::is_connection_terminated(&e) =>
                {
                    TurnEnd::AgentExited
                }
                Err(e) if e.code == agent_client_protocol::ErrorCode::AUTH_REQUIRED => {
                    TurnEnd::AuthRequired { message: acp_convert::error_text(&e) }
                }
                Err(e) => TurnEnd::Failed { message: acp_convert::error_text(&e) },
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
            let _ = responder.respond(super::acp_elicit::response(&ElicitAnswer::Cancel));
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
        let _ = responder.respond(super::acp_elicit::response(answer));
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

/// The client's handlers: session updates (with a fallback for updates that do not parse),
/// permission requests, fs requests.
fn handlers(
    ctx: ClientContext,
    pending: PendingMap,
    elicits: ElicitMap,
    gate: SessionGate,
) -> agent_client_protocol::v1::Builder<Client, impl agent_client_protocol::HandleDispatchFrom<Agent>> {
    let next_id: &'static AtomicU64 = &NEXT_REQUEST;
    let (elicit_ids, elicitor, elicit_gate) = (next_id, ctx.clone(), gate.clone());
    let (updates, permissions, reads, writes) = (ctx.clone(), ctx.clone(), ctx.clone(), ctx.clone());
    let (update_gate, permission_gate, read_gate, write_gate, create_gate) =
        (gate.clone(), gate.clone(), gate.clone(), gate.clone(), gate);
    let creates = ctx.clone();
    let (w_pending, c_pending) = (pending.clone(), pending.clone());
    let terminals = ctx.terminals.clone();
    let (t_create, t_output, t_wait, t_kill, t_release) =
        (terminals.clone(), terminals.clone(), terminals.clone(), terminals.clone(), terminals);
    Client
        .v1()
        .name("sidekicks")
        .on_receive_notification(
            async move |n: UntypedMessage, _cx| {
                if n.method() == "elicitation/complete" {
                    let done = serde_json::from_value::<
                        agent_client_protocol::v1::schema::CompleteElicitationNotification,
                    >(n.params().clone());
                    if let Ok(done) = done {
                        let (agent, elicitation_id) = (updates.agent.clone(), done.elicitation_id.0.to_string());
                        updates
                            .events
                            .send(Event::Agent(agent, AgentEvent::ElicitationCompleted { elicitation_id }))
                            .await;
                    }
                    return Ok(());
                }
                if n.method() != "session/update" || updates.replaying.load(Ordering::SeqCst) {
                    return Ok(());
                }
                let agent = updates.agent.clone();
                match serde_json::from_value::<SessionNotification>(n.params().clone()) {
                    Ok(n) => {
                        if let Some(update) = acp_convert::update(n.update) {
                            update_gate.update(&agent, &updates.events, &n.session_id.0, update).await;
                        }
                    }
                    // Logged and skipped; nothing else is dropped.
                    Err(e) => {
                        tracing::warn!(agent, "skipped a session/update that does not parse: {e}");
                        let update = updates.redact.apply(n.params().to_string());
                        let entry = LogEntry::BadUpdate { error: updates.redact.apply(e.to_string()), update };
                        updates.events.send(Event::Agent(agent, AgentEvent::Log { entry })).await;
                    }
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: RequestPermissionRequest, responder, _cx| {
                let agent = permissions.agent.clone();
                let method = "session/request_permission";
                if !permission_gate.admits(&agent, &permissions.events, &req.session_id.0, method).await {
                    return responder.respond_with_error(unknown_session(&req.session_id));
                }
                if permission_gate.cancelling() {
                    // The person asked to stop: nothing is shown, nothing runs.
                    tracing::info!(agent, "answered a permission request cancelled: the turn is being cancelled");
                    return responder.respond(RequestPermissionResponse::new(RequestPermissionOutcome::Cancelled));
                }
                let id = next_id.fetch_add(1, Ordering::Relaxed);
                // A request may name its call by id alone: what was announced of it is merged in.
                let patch = acp_convert::tool_patch(req.tool_call.clone());
                let mut request = acp_convert::permission_request(id, req);
                request.tool = permission_gate.requested(patch).await;
                let key = rule_key(&request.tool);
                let remembered = key
                    .as_deref()
                    .and_then(|k| permissions.rules.decide(k))
                    .and_then(|decision| decision.option_kinds().iter().find_map(|k| request.option(*k)).cloned());
                if let Some(option) = remembered {
                    let outcome = RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option.id.clone()));
                    responder.respond(RequestPermissionResponse::new(outcome))?;
                    let answer = PermissionAnswer::Selected { option_id: option.id, kind: option.kind };
                    let events = &permissions.events;
                    events.send(Event::Agent(agent.clone(), AgentEvent::PermissionRequested { request })).await;
                    events.send(Event::Agent(agent, AgentEvent::PermissionResolved { id, answer })).await;
                    return Ok(());
                }
                let responder = Asker::Agent(Box::new(responder));
                let waiting = Pending::new(responder, key, &request);
                let unattended = permissions.unattended.and_then(|u| unattended_answer(&request, u));
                pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id, waiting);
                permissions.events.send(Event::Agent(agent.clone(), AgentEvent::PermissionRequested { request })).await;
                // No person at this door: its `--allow` answers, here, the same at every door.
                if let Some(answer) = unattended {
                    answer_pending(&pending, &*permissions.rules, id, &answer);
                    permissions.events.send(Event::Agent(agent, AgentEvent::PermissionResolved { id, answer })).await;
                }
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: agent_client_protocol::v1::schema::CreateElicitationRequest, responder, _cx| {
                use agent_client_protocol::v1::schema::ElicitationScope;
                let agent = elicitor.agent.clone();
                if let ElicitationScope::Session(scope) = req.scope()
                    && !elicit_gate.admits(&agent, &elicitor.events, &scope.session_id.0, "elicitation/create").await
                {
                    return responder.respond_with_error(unknown_session(&scope.session_id));
                }
                if elicit_gate.cancelling() {
                    return responder.respond(super::acp_elicit::response(&ElicitAnswer::Cancel));
                }
                let id = elicit_ids.fetch_add(1, Ordering::Relaxed);
                let Some(request) = super::acp_elicit::request(id, &req) else {
                    tracing::warn!(agent, "an elicitation of a mode Sidekicks does not know: declined");
                    return responder.respond(super::acp_elicit::response(&ElicitAnswer::Decline));
                };
                elicits.lock().unwrap_or_else(|e| e.into_inner()).insert(id, responder);
                elicitor.events.send(Event::Agent(agent, AgentEvent::ElicitationRequested { request })).await;
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: ReadTextFileRequest, responder, _cx| {
                if !read_gate.admits(&reads.agent, &reads.events, &req.session_id.0, "fs/read_text_file").await {
                    return responder.respond_with_error(unknown_session(&req.session_id));
                }
                match reads.fs.serve_read(&req.path, req.line, req.limit).await {
                    Ok(text) => responder.respond(ReadTextFileResponse::new(text)),
                    Err(e) => responder.respond_with_error(fs_error(e)),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: WriteTextFileRequest, responder, _cx| {
                if !write_gate.admits(&writes.agent, &writes.events, &req.session_id.0, "fs/write_text_file").await {
                    return responder.respond_with_error(unknown_session(&req.session_id));
                }
                let path = req.path.display().to_string();
                let size = crate::model::content::human_size(req.content.len());
                let shown = format!("{path} ({size})");
                match served(&writes, &w_pending, writes.policy.writes, true, &shown, &path).await {
                    Served::Yes => {}
                    Served::Denied => return responder.respond_with_error(denied(&writes, true, &path, false).await),
                    Served::RefusedUnattended => {
                        return responder.respond_with_error(denied(&writes, true, &path, true).await);
                    }
                    Served::Refused => return responder.respond_with_error(refused(true, &path)),
                }
                match writes.fs.serve_write(&req.path, &req.content).await {
                    Ok(before) => {
                        // What the agent wrote through Sidekicks shows in the conversation.
                        let update = Update::ToolCall(super::agent_fs::written(&req.path, before, &req.content));
                        writes.events.send(Event::Agent(writes.agent.clone(), AgentEvent::Update { update })).await;
                        responder.respond(WriteTextFileResponse::new())
                    }
                    Err(e) => responder.respond_with_error(fs_error(e)),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: CreateTerminalRequest, responder, _cx| {
                if !create_gate.admits(&creates.agent, &creates.events, &req.session_id.0, "terminal/create").await {
                    return responder.respond_with_error(unknown_session(&req.session_id));
                }
                // What is allowed is the whole command: its variables (which can make it run other
                // code: LD_PRELOAD…), its program and arguments, each quoted as a shell reads it.
                let quote = crate::runtime::exec::quote;
                let assignments = req.env.iter().map(|v| format!("{}={}", v.name, quote(&v.value)));
                let words = std::iter::once(&req.command).chain(req.args.iter()).map(|w| quote(w));
                let what = assignments.chain(words).collect::<Vec<_>>().join(" ");
                match served(&creates, &c_pending, creates.policy.commands, false, &what, &what).await {
                    Served::Yes => {}
                    Served::Denied => return responder.respond_with_error(denied(&creates, false, &what, false).await),
                    Served::RefusedUnattended => {
                        return responder.respond_with_error(denied(&creates, false, &what, true).await);
                    }
                    Served::Refused => return responder.respond_with_error(refused(false, &what)),
                }
                let env = req.env.into_iter().map(|v| (v.name, v.value)).collect();
                match t_create.create(&req.command, &req.args, env, req.cwd.as_deref(), req.output_byte_limit) {
                    Ok(id) => responder.respond(CreateTerminalResponse::new(id)),
                    Err(e) => responder.respond_with_error(terminal_error(e)),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: TerminalOutputRequest, responder, _cx| match t_output.output(&req.terminal_id.0) {
                Ok((output, truncated, exit)) => {
                    responder.respond(TerminalOutputResponse::new(output, truncated).exit_status(exit.map(exit_status)))
                }
                Err(e) => responder.respond_with_error(terminal_error(e)),
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: WaitForTerminalExitRequest, responder, cx| {
                // Waiting may take long: off the dispatch loop.
                let terminals = t_wait.clone();
                cx.spawn(async move {
                    match terminals.wait(&req.terminal_id.0).await {
                        Ok(exit) => responder.respond(WaitForTerminalExitResponse::new(exit_status(exit))),
                        Err(e) => responder.respond_with_error(terminal_error(e)),
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: KillTerminalRequest, responder, _cx| match t_kill.kill(&req.terminal_id.0).await {
                Ok(()) => responder.respond(KillTerminalResponse::new()),
                Err(e) => responder.respond_with_error(terminal_error(e)),
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: ReleaseTerminalRequest, responder, _cx| match t_release.release(&req.terminal_id.0).await {
                Ok(()) => responder.respond(ReleaseTerminalResponse::new()),
                Err(e) => responder.respond_with_error(terminal_error(e)),
            },
            agent_client_protocol::on_receive_request!(),
        )
}

/// The error for a request naming a session that is not the agent's.
fn unknown_session(session: &SessionId) -> agent_client_protocol::Error {
    let mut error = agent_client_protocol::Error::invalid_params();
    error.message = format!("unknown session {:?}: this connection's session is another", session.0);
    error
}

fn exit_status(exit: super::agent_terminals::Exit) -> TerminalExitStatus {
    let mut status = TerminalExitStatus::new();
    status.exit_code = exit.code;
    status.signal = exit.signal;
    status
}

fn terminal_error(e: super::agent_terminals::TerminalError) -> agent_client_protocol::Error {
    let mut error = agent_client_protocol::Error::invalid_params();
    error.message = e.to_string();
    error
}

fn fs_error(e: super::agent_fs::AgentFsError) -> agent_client_protocol::Error {
    agent_client_protocol::Error::new(e.code(), e.to_string())
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
                Err(Refused::Auth(acp_convert::error_text(&e)))
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
            Err(Refused::Other(e)) => Err(AcpError::Protocol { step, message: acp_convert::error_text(&e) }),
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
        Ok(Err(e)) => Err(AcpError::Protocol { step, message: acp_convert::error_text(&e) }),
        Ok(Ok(v)) => Ok(v),
    }
}
