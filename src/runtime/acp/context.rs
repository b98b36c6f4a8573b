//! What a connection needs besides the pipes: the agent's name and workspace, where events go, its
//! remembered answers, how to log in, its choices and MCP servers, what it may do.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::model::permission::Unattended;
use crate::model::session_config::Chosen;
use crate::runtime::agent_fs::AgentFs;
use crate::runtime::events::EventSink;
use crate::runtime::permission_rules::PermissionRules;

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
    pub terminals: Arc<crate::runtime::agent_terminals::AgentTerminals>,
    /// Remembered always/never answers for this agent and workspace.
    pub rules: Arc<dyn PermissionRules>,
    /// How long `initialize` and `session/new` may take.
    pub timeout: Duration,
    /// True while `session/load` replays a conversation Sidekicks already shows: its updates are
    /// not shown again.
    pub replaying: Arc<AtomicBool>,
    /// Hides the agent's `env` values in what goes to its log.
    pub redact: crate::runtime::redact::Redactor,
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
    /// Who says whether a write meets another team member's change (a member's writes only).
    pub leases: Option<super::leases::LeasesHandle>,
    /// The last lines of the agent's stdout that were not the protocol's (for a crash report).
    pub words: Arc<std::sync::Mutex<std::collections::VecDeque<String>>>,
}
