//! The demo agent's answers to each ACP request, over the state its sessions share: their folders,
//! settings, MCP servers, the turns in flight (to cancel), the sessions it keeps and its login.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    AgentAuthCapabilities, AgentCapabilities, AuthMethod, AuthMethodAgent, AuthenticateRequest, AuthenticateResponse,
    CancelNotification, CloseSessionRequest, CloseSessionResponse, ConfigOptionUpdate, ContentBlock, ContentChunk,
    CurrentModeUpdate, DeleteSessionRequest, DeleteSessionResponse, Implementation, InitializeRequest,
    InitializeResponse, ListSessionsRequest, ListSessionsResponse, LoadSessionRequest, LoadSessionResponse,
    LogoutCapabilities, LogoutRequest, LogoutResponse, NewSessionRequest, NewSessionResponse, PromptRequest,
    PromptResponse, ResumeSessionRequest, ResumeSessionResponse, SessionConfigOptionValue, SessionId,
    SessionNotification, SessionUpdate, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse,
    SetSessionModeRequest, SetSessionModeResponse, StopReason, TextContent,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Error};

use super::{DemoOptions, RawOut, Scenario, auth, content, mcp, prompt_text, scenarios, sessions, settings};

type Shared<T> = Arc<Mutex<T>>;
type Result = std::result::Result<(), Error>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The demo agent's state, shared by its handlers.
#[derive(Clone)]
pub(super) struct Demo {
    options: DemoOptions,
    /// The folder it started in (its login and kept sessions live there).
    folder: PathBuf,
    raw: RawOut,
    /// Cancel flags of the turns in flight, by session.
    turns: Shared<HashMap<SessionId, Arc<AtomicBool>>>,
    /// The folder of each session.
    folders: Shared<HashMap<SessionId, PathBuf>>,
    mcp: mcp::Servers,
    sessions: Arc<AtomicU64>,
    kept: Arc<sessions::Sessions>,
    /// Sessions loaded or resumed: their next prompt says so.
    reopened: Shared<HashSet<SessionId>>,
    login: Arc<auth::Login>,
    settings: Shared<HashMap<SessionId, settings::Settings>>,
}

impl Demo {
    pub(super) fn new(options: DemoOptions, folder: PathBuf, raw: RawOut) -> Self {
        Self {
            options,
            raw,
            turns: Arc::default(),
            folders: Arc::default(),
            mcp: Arc::default(),
            sessions: Arc::new(AtomicU64::new(0)),
            kept: Arc::new(sessions::Sessions::starting_in(folder.clone())),
            reopened: Arc::default(),
            login: Arc::new(auth::Login::from_folder(&folder)),
            settings: Arc::default(),
            folder,
        }
    }

    /// Its handlers of the client's requests (connected to a transport by the caller).
    pub(super) fn handlers(
        self,
    ) -> agent_client_protocol::v1::Builder<Agent, impl agent_client_protocol::HandleDispatchFrom<Client>> {
        let d = self;
        macro_rules! on {
            ($method:ident, $req:ty) => {{
                let d = d.clone();
                async move |req: $req, responder, cx| d.$method(req, responder, cx)
            }};
        }
        let cancel = d.clone();
        Agent
            .v1()
            .name("sidekicks-demo-agent")
            .on_receive_request(on!(initialize, InitializeRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(new_session, NewSessionRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(load_session, LoadSessionRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(list_sessions, ListSessionsRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(resume_session, ResumeSessionRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(close_session, CloseSessionRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(delete_session, DeleteSessionRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(authenticate, AuthenticateRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(
                on!(set_option, SetSessionConfigOptionRequest),
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(on!(set_mode, SetSessionModeRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(logout, LogoutRequest), agent_client_protocol::on_receive_request!())
            .on_receive_request(on!(prompt, PromptRequest), agent_client_protocol::on_receive_request!())
            .on_receive_notification(
                async move |n: CancelNotification, _cx| {
                    if let Some(flag) = lock(&cancel.turns).get(&n.session_id) {
                        flag.store(true, Ordering::Relaxed);
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
    }

    fn initialize(
        &self,
        _: InitializeRequest,
        responder: Responder<InitializeResponse>,
        _: ConnectionTo<Client>,
    ) -> Result {
        let o = self.options;
        let mut capabilities = AgentCapabilities::new()
            .load_session(o.load_session)
            .mcp_capabilities(agent_client_protocol::v1::schema::McpCapabilities::new().http(true));
        if !o.text_only {
            capabilities = capabilities.prompt_capabilities(
                agent_client_protocol::v1::schema::PromptCapabilities::new().image(true).embedded_context(true),
            );
        }
        if o.sessions {
            capabilities = capabilities.session_capabilities(sessions::capabilities());
        }
        let mut methods = Vec::new();
        if o.require_login {
            capabilities = capabilities.auth(AgentAuthCapabilities::new().logout(LogoutCapabilities::new()));
            // Rewritten with the raw methods on the way out (the schema has no `env_var`).
            methods.push(AuthMethod::Agent(AuthMethodAgent::new("demo-browser", "Log in with the demo service")));
        }
        responder.respond(
            InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
                .auth_methods(methods)
                .agent_capabilities(capabilities)
                .agent_info(Implementation::new("sidekicks-demo-agent", env!("CARGO_PKG_VERSION")).title("Demo agent")),
        )
    }

    fn new_session(
        &self,
        req: NewSessionRequest,
        responder: Responder<NewSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result {
        if self.options.require_login && !self.login.is_logged_in() {
            return responder.respond_with_error(Error::auth_required());
        }
        let n = self.sessions.fetch_add(1, Ordering::Relaxed) + 1;
        let id = SessionId::new(format!("demo-{n}"));
        if self.options.sessions {
            self.kept.opened(id.clone(), req.cwd.clone());
        }
        lock(&self.folders).insert(id.clone(), req.cwd);
        lock(&self.mcp).insert(id.clone(), req.mcp_servers);
        let s = settings::Settings::default();
        let response = match self.options.modes_only {
            true => NewSessionResponse::new(id.clone()).modes(s.modes()),
            false => NewSessionResponse::new(id.clone()).config_options(s.options()),
        };
        lock(&self.settings).insert(id.clone(), s);
        responder.respond(response)?;
        // Its commands, as agents send them once the session is open.
        cx.send_notification(SessionNotification::new(id, settings::commands_update()))
    }

    fn load_session(
        &self,
        req: LoadSessionRequest,
        responder: Responder<LoadSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result {
        if !self.options.load_session {
            return responder.respond_with_error(Error::method_not_found());
        }
        // A real agent replays the conversation; the client must not show it twice.
        for (update, text) in [
            (SessionUpdate::UserMessageChunk as fn(ContentChunk) -> SessionUpdate, "(replayed) hello"),
            (SessionUpdate::AgentMessageChunk, "(replayed) an earlier answer"),
        ] {
            let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
            cx.send_notification(SessionNotification::new(req.session_id.clone(), update(chunk)))?;
        }
        lock(&self.folders).insert(req.session_id.clone(), req.cwd);
        lock(&self.mcp).insert(req.session_id.clone(), req.mcp_servers);
        lock(&self.reopened).insert(req.session_id);
        responder.respond(LoadSessionResponse::new())
    }

    fn list_sessions(
        &self,
        req: ListSessionsRequest,
        responder: Responder<ListSessionsResponse>,
        _: ConnectionTo<Client>,
    ) -> Result {
        if !self.options.sessions {
            return responder.respond_with_error(Error::method_not_found());
        }
        responder.respond(ListSessionsResponse::new(self.kept.list(req.cwd.as_ref())))
    }

    fn resume_session(
        &self,
        req: ResumeSessionRequest,
        responder: Responder<ResumeSessionResponse>,
        _: ConnectionTo<Client>,
    ) -> Result {
        if !self.options.sessions || !self.kept.knows(&req.session_id) {
            let unknown = format!("no session {} here", req.session_id.0);
            return responder.respond_with_error(Error::invalid_params().data(unknown));
        }
        let mut all = lock(&self.settings);
        let s = all.entry(req.session_id.clone()).or_default();
        let response = match self.options.modes_only {
            true => ResumeSessionResponse::new().modes(s.modes()),
            false => ResumeSessionResponse::new().config_options(s.options()),
        };
        lock(&self.folders).insert(req.session_id.clone(), req.cwd);
        lock(&self.mcp).insert(req.session_id.clone(), req.mcp_servers);
        lock(&self.reopened).insert(req.session_id);
        responder.respond(response)
    }

    fn close_session(
        &self,
        req: CloseSessionRequest,
        responder: Responder<CloseSessionResponse>,
        _: ConnectionTo<Client>,
    ) -> Result {
        // Its turn, if one runs, ends.
        if let Some(flag) = lock(&self.turns).remove(&req.session_id) {
            flag.store(true, Ordering::Relaxed);
        }
        responder.respond(CloseSessionResponse::new())
    }

    fn delete_session(
        &self,
        req: DeleteSessionRequest,
        responder: Responder<DeleteSessionResponse>,
        _: ConnectionTo<Client>,
    ) -> Result {
        match self.kept.delete(&req.session_id) {
            true => responder.respond(DeleteSessionResponse::new()),
            false => responder.respond_with_error(Error::invalid_params()),
        }
    }

    fn authenticate(
        &self,
        req: AuthenticateRequest,
        responder: Responder<AuthenticateResponse>,
        _: ConnectionTo<Client>,
    ) -> Result {
        match self.login.authenticate(&req.method_id.0) {
            true => responder.respond(AuthenticateResponse::new()),
            false => responder.respond_with_error(Error::auth_required().data(format!("{} is not set", auth::KEY_VAR))),
        }
    }

    fn set_option(
        &self,
        req: SetSessionConfigOptionRequest,
        responder: Responder<SetSessionConfigOptionResponse>,
        _: ConnectionTo<Client>,
    ) -> Result {
        let mut all = lock(&self.settings);
        let set = all.get_mut(&req.session_id).filter(|_| !self.options.modes_only).and_then(|s| {
            let taken = s.set(&req.config_id.0, &req.value);
            taken.then(|| s.options())
        });
        match set {
            Some(options) => responder.respond(SetSessionConfigOptionResponse::new(options)),
            None => {
                responder.respond_with_error(Error::invalid_params().data(format!("no option {}", req.config_id.0)))
            }
        }
    }

    fn set_mode(
        &self,
        req: SetSessionModeRequest,
        responder: Responder<SetSessionModeResponse>,
        _: ConnectionTo<Client>,
    ) -> Result {
        let mut all = lock(&self.settings);
        let value = SessionConfigOptionValue::value_id(req.mode_id.0.to_string());
        match all.get_mut(&req.session_id).is_some_and(|s| s.set("mode", &value)) {
            true => responder.respond(SetSessionModeResponse::new()),
            false => responder.respond_with_error(Error::invalid_params()),
        }
    }

    fn logout(&self, _: LogoutRequest, responder: Responder<LogoutResponse>, _: ConnectionTo<Client>) -> Result {
        self.login.log_out(&self.folder);
        responder.respond(LogoutResponse::new())
    }

    /// A turn: a few words answered at once (`/help`, `mcp`, `settings`, `switch`), any other
    /// prompt runs its scenario from a task, so the dispatch loop stays free to receive
    /// `session/cancel`.
    fn prompt(&self, req: PromptRequest, responder: Responder<PromptResponse>, cx: ConnectionTo<Client>) -> Result {
        let session = req.session_id.clone();
        if self.options.require_login && prompt_text(&req.prompt).ends_with("expire") {
            // Logged out meanwhile (a token that expired).
            self.login.log_out(&self.folder);
            return responder.respond_with_error(Error::auth_required());
        }
        let cancel = Arc::new(AtomicBool::new(false));
        lock(&self.turns).insert(session.clone(), cancel.clone());
        let cwd = lock(&self.folders).get(&session).cloned();
        let turn = scenarios::Turn {
            cx: cx.clone(),
            session: session.clone(),
            cwd: cwd.unwrap_or_else(|| PathBuf::from(".")),
            cancel,
            raw: self.raw.clone(),
        };
        if let Some(words) = content::received(&req.prompt) {
            say(&cx, &session, words)?;
        }
        let mut text = prompt_text(&req.prompt);
        let asked_now = text.rsplit("[End of transcript]").next().unwrap_or(&text).trim().to_string();
        if let Some(named) = self.kept.spoken(&session, &asked_now) {
            cx.send_notification(SessionNotification::new(session.clone(), named))?;
        }
        if asked_now == "/help" {
            say(&cx, &session, scenarios::help())?;
            return responder.respond(PromptResponse::new(StopReason::EndTurn));
        }
        let asked_now = asked_now.strip_prefix('/').unwrap_or(&asked_now).to_string();
        if asked_now == "mcp" {
            let servers = lock(&self.mcp).get(&session).cloned().unwrap_or_default();
            return cx.spawn(async move {
                say(&turn.cx, &session, mcp::describe(servers).await)?;
                responder.respond(PromptResponse::new(StopReason::EndTurn))
            });
        }
        // `call SERVER TOOL {json}` lines: the demo drives MCP tools (a team's lead, in tests).
        if asked_now.starts_with("call ") {
            let servers = lock(&self.mcp).get(&session).cloned().unwrap_or_default();
            return cx.spawn(async move {
                say(&turn.cx, &session, mcp::call(servers, &asked_now).await)?;
                responder.respond(PromptResponse::new(StopReason::EndTurn))
            });
        }
        if asked_now == "settings" || asked_now == "switch" {
            self.settings_said(&cx, &session, asked_now == "switch")?;
            return responder.respond(PromptResponse::new(StopReason::EndTurn));
        }
        if lock(&self.reopened).remove(&session) {
            text = format!("(reopened session {}) {text}", session.0);
        }
        cx.spawn(async move {
            // Words in a transcript or a channel's news Sidekicks sent along do not choose the
            // scenario.
            let asked = text.rsplit("[End of transcript]").next().unwrap_or(&text);
            let asked = asked.rsplit(crate::model::channel::CATCH_UP_END).next().unwrap_or(asked).to_string();
            match Scenario::pick(&asked).run(turn, &text).await {
                Ok(stop) => responder.respond(PromptResponse::new(stop)),
                Err(error) => responder.respond_with_error(error),
            }
        })
    }

    /// Its settings, said (or, for `switch`, changed by itself to "ask" and told).
    fn settings_said(&self, cx: &ConnectionTo<Client>, session: &SessionId, switch: bool) -> Result {
        let mut all = lock(&self.settings);
        let s = all.entry(session.clone()).or_default();
        if switch {
            s.mode = "ask".into();
            let update = match self.options.modes_only {
                true => SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new("ask")),
                false => SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(s.options())),
            };
            cx.send_notification(SessionNotification::new(session.clone(), update))?;
        }
        say(cx, session, s.describe())
    }
}

/// Says `words` in `session` (a chunk of its answer).
fn say(cx: &ConnectionTo<Client>, session: &SessionId, words: impl Into<String>) -> Result {
    let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(words.into())));
    cx.send_notification(SessionNotification::new(session.clone(), SessionUpdate::AgentMessageChunk(chunk)))
}
