//! The sessions of one ACP connection: opening one (new, or an earlier one reopened with
//! `session/load` or `session/resume`), switching to another when the person changes threads
//! (`session/close` on the one left, where the agent can), listing and deleting the agent's own.

use std::sync::atomic::Ordering;
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    CloseSessionRequest, DeleteSessionRequest, ListSessionsRequest, LoadSessionRequest, NewSessionRequest,
    ResumeSessionRequest, SessionConfigOption, SessionId, SessionModeState,
};

use super::connection::{AcpConnection, AcpError, IntoResult, OpenSession, Refused, WithLimit, with_timeout};
use super::convert;
use crate::model::session_config::{Apply, Chosen, to_apply};
use crate::protocol::threads::AgentSession;

/// How long `session/close`, `session/list` and `session/delete` may take.
const QUICK: Duration = Duration::from_secs(30);
/// Pages of `session/list` followed, at most.
const LIST_PAGES: usize = 20;

/// An earlier session to reopen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reopen {
    /// The agent's id for it.
    pub session_id: String,
    /// Show what `session/load` replays (a session Sidekicks never saw); otherwise the replay is
    /// not shown again (the history has it).
    pub show_replay: bool,
}

impl AcpConnection {
    /// Opens a session: `reopen` with `session/load` or `session/resume` when the agent can
    /// (falling back to a new session when it refuses), otherwise a new one; then gives it the
    /// `chosen` choices. True when the earlier session was reopened.
    pub(super) async fn open_session(&self, reopen: Option<Reopen>, chosen: &[Chosen]) -> Result<bool, AcpError> {
        let (ctx, cwd, timeout) = (&self.ctx, self.cwd.clone(), self.ctx.timeout);
        if let Some(Reopen { session_id, show_replay }) = reopen.filter(|_| self.abilities.reopens()) {
            self.gate.open(&ctx.agent, &ctx.events, Some(session_id.clone())).await;
            let reopened = if self.abilities.load {
                ctx.replaying.store(!show_replay, Ordering::SeqCst);
                let request = LoadSessionRequest::new(session_id.clone(), cwd.clone()).mcp_servers(self.mcp().0);
                let loaded = with_timeout("session/load", timeout, self.cx.send_request(request).block_task()).await;
                ctx.replaying.store(false, Ordering::SeqCst);
                loaded.map(|r| (r.config_options, r.modes))
            } else {
                let request = ResumeSessionRequest::new(session_id.clone(), cwd.clone()).mcp_servers(self.mcp().0);
                let resumed = with_timeout("session/resume", timeout, self.cx.send_request(request).block_task()).await;
                resumed.map(|r| (r.config_options, r.modes))
            };
            match reopened {
                Ok((options, modes)) => {
                    self.keep(SessionId::new(session_id), options, modes);
                    self.apply_chosen(chosen).await;
                    return Ok(true);
                }
                Err(e) => tracing::info!(agent = ctx.agent, "reopening a session failed, opening a new one: {e}"),
            }
            self.gate.open(&ctx.agent, &ctx.events, None).await;
        }
        let session = match self
            .cx
            .send_request(NewSessionRequest::new(cwd).mcp_servers(self.mcp().0))
            .block_task()
            .with_limit(timeout)
            .await
        {
            Err(Refused::Auth(message)) => {
                return Err(AcpError::AuthRequired {
                    step: "session/new",
                    message,
                    methods: self.auth_methods.clone(),
                });
            }
            other => other.into_result("session/new", timeout)?,
        };
        self.gate.open(&ctx.agent, &ctx.events, Some(session.session_id.0.to_string())).await;
        self.keep(session.session_id, session.config_options, session.modes);
        self.apply_chosen(chosen).await;
        Ok(false)
    }

    /// Leaves the session in use (closing it where the agent can) for `reopen`, or a new one.
    /// True when the earlier session was reopened.
    pub async fn switch(&self, reopen: Option<Reopen>, chosen: Vec<Chosen>) -> Result<bool, AcpError> {
        let old = self.sid();
        if self.abilities.close && !old.0.is_empty() {
            let closed = self.cx.send_request(CloseSessionRequest::new(old)).block_task();
            if let Err(e) = with_timeout("session/close", QUICK, closed).await {
                tracing::info!(agent = self.ctx.agent, "{e}");
            }
        }
        self.gate.open(&self.ctx.agent, &self.ctx.events, None).await;
        self.open_session(reopen, &chosen).await
    }

    /// The agent's sessions in this workspace (`session/list`, every page).
    pub fn list_sessions(&self) -> impl Future<Output = Result<Vec<AgentSession>, String>> + Send + 'static {
        let (cx, cwd) = (self.cx.clone(), self.cwd.clone());
        async move {
            let mut out = Vec::new();
            let mut cursor = None;
            for _ in 0..LIST_PAGES {
                let request = ListSessionsRequest::new().cwd(cwd.clone()).cursor(cursor.take());
                let page = with_timeout("session/list", QUICK, cx.send_request(request).block_task())
                    .await
                    .map_err(|e| e.to_string())?;
                out.extend(page.sessions.into_iter().map(|s| AgentSession {
                    session_id: s.session_id.0.to_string(),
                    title: s.title,
                    updated_at: s.updated_at,
                    known: false,
                }));
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            Ok(out)
        }
    }

    /// Deletes one of the agent's sessions (`session/delete`).
    pub fn delete_session(&self, id: String) -> impl Future<Output = Result<(), String>> + Send + 'static {
        let cx = self.cx.clone();
        async move {
            let sent = cx.send_request(DeleteSessionRequest::new(id)).block_task();
            with_timeout("session/delete", QUICK, sent).await.map(|_| ()).map_err(|e| e.to_string())
        }
    }

    /// Keeps the session's id, options and modes as it opened.
    fn keep(&self, id: SessionId, options: Option<Vec<SessionConfigOption>>, modes: Option<SessionModeState>) {
        *self.session.lock().unwrap_or_else(|e| e.into_inner()) = OpenSession {
            id,
            options: options.map(convert::config_options).unwrap_or_default(),
            modes: modes.map(convert::modes),
        };
    }

    /// Gives a new session the choices remembered for the agent (`chosen`) (before any message is sent). A
    /// choice the agent refuses is logged and left.
    async fn apply_chosen(&self, chosen: &[Chosen]) {
        for apply in to_apply(chosen, &self.options(), self.modes().as_ref()) {
            let result = match apply {
                Apply::Option(id, value) => self.set_option(id, value).await.map(|options| {
                    self.session.lock().unwrap_or_else(|e| e.into_inner()).options = options;
                }),
                Apply::Mode(mode) => self.set_mode(mode.clone()).await.map(|()| {
                    if let Some(modes) = &mut self.session.lock().unwrap_or_else(|e| e.into_inner()).modes {
                        modes.current = mode;
                    }
                }),
            };
            if let Err(e) = result {
                tracing::warn!(agent = self.ctx.agent, "a remembered choice was not taken: {e}");
            }
        }
    }
}
