//! The built-in demo agent (`sidekicks demo-agent`): a real ACP agent over stdin/stdout, built on
//! the official SDK's agent side. Offline, no key. Words in the prompt choose a scenario (see
//! `scenarios.rs` and docs/demo-agent.md); it honours `session/cancel`.

pub mod auth;
mod content;
mod elicit;
pub mod mcp;
pub mod misbehaving;
mod scenarios;
mod sessions;
pub mod settings;
mod terminal_scenario;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    AgentAuthCapabilities, AuthMethod, AuthMethodAgent, AuthenticateRequest, AuthenticateResponse, ConfigOptionUpdate,
    CurrentModeUpdate, LogoutCapabilities, LogoutRequest, LogoutResponse, SessionConfigOptionValue,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ContentBlock, ContentChunk, Implementation, InitializeRequest,
    InitializeResponse, LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse, PromptRequest,
    PromptResponse, SessionId, SessionNotification, SessionUpdate, TextContent,
};
use agent_client_protocol::v1::schema::{
    CloseSessionRequest, CloseSessionResponse, DeleteSessionRequest, DeleteSessionResponse, ListSessionsRequest,
    ListSessionsResponse, ResumeSessionRequest, ResumeSessionResponse,
};
use agent_client_protocol::{Agent, Lines};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

pub use scenarios::{FLOOD, Scenario, reply_chunks};

/// Cancel flags of the turns in flight, by session.
type Turns = Arc<Mutex<HashMap<SessionId, Arc<AtomicBool>>>>;
/// The folder of each session.
type Folders = Arc<Mutex<HashMap<SessionId, PathBuf>>>;

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
    let DemoOptions { load_session, require_login, modes_only, sessions: keeps_sessions, text_only } = options;
    let (out_tx, mut out_rx) = futures::channel::mpsc::channel::<String>(64);
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

    let turns: Turns = Arc::default();
    let cancel_turns = turns.clone();
    let folders: Folders = Arc::default();
    let mcp_servers: mcp::Servers = Arc::default();
    let (mcp_new, mcp_load, mcp_resume, mcp_turn) =
        (mcp_servers.clone(), mcp_servers.clone(), mcp_servers.clone(), mcp_servers);
    let session_folders = folders.clone();
    let sessions = Arc::new(AtomicU64::new(0));
    let folder = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let kept = Arc::new(sessions::Sessions::starting_in(folder.clone()));
    let (kept_new, kept_list, kept_resume, kept_delete, kept_turn) =
        (kept.clone(), kept.clone(), kept.clone(), kept.clone(), kept);
    let loaded_folders = folders.clone();
    let reopened: Arc<Mutex<std::collections::HashSet<SessionId>>> = Arc::default();
    let reopened_by_load = reopened.clone();
    let login = Arc::new(auth::Login::from_folder(&folder));
    let (login_new, login_auth, login_out, login_turn) = (login.clone(), login.clone(), login.clone(), login.clone());
    let (logout_folder, expire_folder) = (folder.clone(), folder.clone());
    let settings: Arc<Mutex<HashMap<SessionId, settings::Settings>>> = Arc::default();
    let (new_settings, set_settings, mode_settings, turn_settings, resume_settings) =
        (settings.clone(), settings.clone(), settings.clone(), settings.clone(), settings.clone());
    let (resume_reopened, resume_folders, close_turns) = (reopened.clone(), folders.clone(), turns.clone());
    Agent
        .v1()
        .name("sidekicks-demo-agent")
        .on_receive_request(
            async move |_init: InitializeRequest, responder, _cx| {
                let mut capabilities = AgentCapabilities::new()
                    .load_session(load_session)
                    .mcp_capabilities(agent_client_protocol::v1::schema::McpCapabilities::new().http(true));
                if !text_only {
                    capabilities = capabilities.prompt_capabilities(
                        agent_client_protocol::v1::schema::PromptCapabilities::new().image(true).embedded_context(true),
                    );
                }
                if keeps_sessions {
                    capabilities = capabilities.session_capabilities(sessions::capabilities());
                }
                let mut methods = Vec::new();
                if require_login {
                    capabilities = capabilities.auth(AgentAuthCapabilities::new().logout(LogoutCapabilities::new()));
                    // Rewritten with the raw methods on the way out (the schema has no `env_var`).
                    methods
                        .push(AuthMethod::Agent(AuthMethodAgent::new("demo-browser", "Log in with the demo service")));
                }
                responder.respond(
                    InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
                        .auth_methods(methods)
                        .agent_capabilities(capabilities)
                        .agent_info(
                            Implementation::new("sidekicks-demo-agent", env!("CARGO_PKG_VERSION")).title("Demo agent"),
                        ),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: NewSessionRequest, responder, cx| {
                if require_login && !login_new.is_logged_in() {
                    return responder.respond_with_error(agent_client_protocol::Error::auth_required());
                }
                let n = sessions.fetch_add(1, Ordering::Relaxed) + 1;
                let id = SessionId::new(format!("demo-{n}"));
                if keeps_sessions {
                    kept_new.opened(id.clone(), req.cwd.clone());
                }
                session_folders.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), req.cwd);
                mcp_new.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), req.mcp_servers);
                let s = settings::Settings::default();
                let response = match modes_only {
                    true => NewSessionResponse::new(id.clone()).modes(s.modes()),
                    false => NewSessionResponse::new(id.clone()).config_options(s.options()),
                };
                new_settings.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), s);
                responder.respond(response)?;
                // Its commands, as agents send them once the session is open.
                cx.send_notification(SessionNotification::new(id, settings::commands_update()))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: LoadSessionRequest, responder, cx| {
                if !load_session {
                    return responder.respond_with_error(agent_client_protocol::Error::method_not_found());
                }
                // A real agent replays the conversation; the client must not show it twice.
                for (update, text) in [
                    (SessionUpdate::UserMessageChunk as fn(ContentChunk) -> SessionUpdate, "(replayed) hello"),
                    (SessionUpdate::AgentMessageChunk, "(replayed) an earlier answer"),
                ] {
                    let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
                    cx.send_notification(SessionNotification::new(req.session_id.clone(), update(chunk)))?;
                }
                loaded_folders.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id.clone(), req.cwd);
                mcp_load.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id.clone(), req.mcp_servers);
                reopened_by_load.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id);
                responder.respond(LoadSessionResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: ListSessionsRequest, responder, _cx| {
                if !keeps_sessions {
                    return responder.respond_with_error(agent_client_protocol::Error::method_not_found());
                }
                responder.respond(ListSessionsResponse::new(kept_list.list(req.cwd.as_ref())))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: ResumeSessionRequest, responder, _cx| {
                if !keeps_sessions || !kept_resume.knows(&req.session_id) {
                    let unknown = format!("no session {} here", req.session_id.0);
                    return responder.respond_with_error(agent_client_protocol::Error::invalid_params().data(unknown));
                }
                let mut all = resume_settings.lock().unwrap_or_else(|e| e.into_inner());
                let s = all.entry(req.session_id.clone()).or_default();
                let response = match modes_only {
                    true => ResumeSessionResponse::new().modes(s.modes()),
                    false => ResumeSessionResponse::new().config_options(s.options()),
                };
                resume_folders.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id.clone(), req.cwd);
                mcp_resume.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id.clone(), req.mcp_servers);
                resume_reopened.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id);
                responder.respond(response)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: CloseSessionRequest, responder, _cx| {
                // Its turn, if one runs, ends.
                if let Some(flag) = close_turns.lock().unwrap_or_else(|e| e.into_inner()).remove(&req.session_id) {
                    flag.store(true, Ordering::Relaxed);
                }
                responder.respond(CloseSessionResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: DeleteSessionRequest, responder, _cx| match kept_delete.delete(&req.session_id) {
                true => responder.respond(DeleteSessionResponse::new()),
                false => responder.respond_with_error(agent_client_protocol::Error::invalid_params()),
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: AuthenticateRequest, responder, _cx| {
                if login_auth.authenticate(&req.method_id.0) {
                    responder.respond(AuthenticateResponse::new())
                } else {
                    responder.respond_with_error(
                        agent_client_protocol::Error::auth_required().data(format!("{} is not set", auth::KEY_VAR)),
                    )
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionConfigOptionRequest, responder, _cx| {
                let mut all = set_settings.lock().unwrap_or_else(|e| e.into_inner());
                let set = all.get_mut(&req.session_id).filter(|_| !modes_only).and_then(|s| {
                    let taken = s.set(&req.config_id.0, &req.value);
                    taken.then(|| s.options())
                });
                match set {
                    Some(options) => responder.respond(SetSessionConfigOptionResponse::new(options)),
                    None => responder.respond_with_error(
                        agent_client_protocol::Error::invalid_params().data(format!("no option {}", req.config_id.0)),
                    ),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionModeRequest, responder, _cx| {
                let mut all = mode_settings.lock().unwrap_or_else(|e| e.into_inner());
                let value = SessionConfigOptionValue::value_id(req.mode_id.0.to_string());
                match all.get_mut(&req.session_id).is_some_and(|s| s.set("mode", &value)) {
                    true => responder.respond(SetSessionModeResponse::new()),
                    false => responder.respond_with_error(agent_client_protocol::Error::invalid_params()),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |_req: LogoutRequest, responder, _cx| {
                login_out.log_out(&logout_folder);
                responder.respond(LogoutResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest, responder, cx| {
                if require_login && prompt_text(&req.prompt).ends_with("expire") {
                    // Logged out meanwhile (a token that expired).
                    login_turn.log_out(&expire_folder);
                    return responder.respond_with_error(agent_client_protocol::Error::auth_required());
                }
                let cancel = Arc::new(AtomicBool::new(false));
                turns.lock().unwrap_or_else(|e| e.into_inner()).insert(req.session_id.clone(), cancel.clone());
                let cwd = folders.lock().unwrap_or_else(|e| e.into_inner()).get(&req.session_id).cloned();
                let turn = scenarios::Turn {
                    cx: cx.clone(),
                    session: req.session_id.clone(),
                    cwd: cwd.unwrap_or_else(|| PathBuf::from(".")),
                    cancel,
                    raw: raw.clone(),
                };
                if let Some(words) = content::received(&req.prompt) {
                    let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(words)));
                    cx.send_notification(SessionNotification::new(
                        req.session_id.clone(),
                        SessionUpdate::AgentMessageChunk(chunk),
                    ))?;
                }
                let mut text = prompt_text(&req.prompt);
                let asked_now = text.rsplit("[End of transcript]").next().unwrap_or(&text).trim().to_string();
                if let Some(named) = kept_turn.spoken(&req.session_id, &asked_now) {
                    cx.send_notification(SessionNotification::new(req.session_id.clone(), named))?;
                }
                if asked_now == "/help" {
                    let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(scenarios::help())));
                    cx.send_notification(SessionNotification::new(
                        req.session_id.clone(),
                        SessionUpdate::AgentMessageChunk(chunk),
                    ))?;
                    return responder
                        .respond(PromptResponse::new(agent_client_protocol::v1::schema::StopReason::EndTurn));
                }
                let asked_now = asked_now.strip_prefix('/').unwrap_or(&asked_now).to_string();
                if asked_now == "mcp" {
                    let servers = mcp_turn
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get(&req.session_id)
                        .cloned()
                        .unwrap_or_default();
                    let session = req.session_id.clone();
                    return cx.spawn(async move {
                        let words = mcp::describe(servers).await;
                        let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(words)));
                        turn.cx.send_notification(SessionNotification::new(
                            session,
                            SessionUpdate::AgentMessageChunk(chunk),
                        ))?;
                        responder.respond(PromptResponse::new(agent_client_protocol::v1::schema::StopReason::EndTurn))
                    });
                }
                if asked_now == "settings" || asked_now == "switch" {
                    // Its settings, said (or, for `switch`, changed by itself to "ask" and told).
                    let mut all = turn_settings.lock().unwrap_or_else(|e| e.into_inner());
                    let s = all.entry(req.session_id.clone()).or_default();
                    if asked_now == "switch" {
                        s.mode = "ask".into();
                        let update = match modes_only {
                            true => SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new("ask")),
                            false => SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(s.options())),
                        };
                        cx.send_notification(SessionNotification::new(req.session_id.clone(), update))?;
                    }
                    let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(s.describe())));
                    let update = SessionUpdate::AgentMessageChunk(chunk);
                    cx.send_notification(SessionNotification::new(req.session_id.clone(), update))?;
                    return responder
                        .respond(PromptResponse::new(agent_client_protocol::v1::schema::StopReason::EndTurn));
                }
                if reopened.lock().unwrap_or_else(|e| e.into_inner()).remove(&req.session_id) {
                    text = format!("(reopened session {}) {text}", req.session_id.0);
                }
                // Run from a task, so the dispatch loop stays free to receive session/cancel.
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
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CancelNotification, _cx| {
                if let Some(flag) = cancel_turns.lock().unwrap_or_else(|e| e.into_inner()).get(&n.session_id) {
                    flag.store(true, Ordering::Relaxed);
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(transport)
        .await?;
    Ok(())
}

fn prompt_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
