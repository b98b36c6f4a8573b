//! The typed configuration (`sidekicks.toml`): what the loader builds and what the JSON Schema
//! describes. Plain data only; reading and checking the file lives in [`super::config_check`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;

/// The whole configuration file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Settings shared by every agent.
    #[serde(default)]
    pub defaults: Defaults,
    /// The agents, in the order of the file.
    #[serde(default, rename = "agent")]
    pub agents: Vec<AgentConfig>,
    /// Channels the agents can belong to.
    #[serde(default, rename = "channel")]
    pub channels: Vec<ChannelConfig>,
    /// MCP servers given to agents' sessions.
    #[serde(default, rename = "mcp")]
    pub mcp: Vec<McpConfig>,
    /// Desktop notifications.
    #[serde(default)]
    pub notifications: Notifications,
    /// Checkpoints of agents' workspaces.
    #[serde(default)]
    pub checkpoints: CheckpointsConfig,
    /// The ACP Registry, where "Get agents" finds agents to add.
    #[serde(default)]
    pub registry: RegistryConfig,
}

/// `[registry]`: where the ACP Registry's index is read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegistryConfig {
    /// The index's address (HTTPS; plain HTTP only on 127.0.0.1), e.g. a company's mirror. Default:
    /// the official registry. `$SIDEKICKS_REGISTRY_URL` overrides it.
    #[serde(default)]
    pub url: Option<String>,
}

impl Config {
    /// The agent with this name.
    pub fn agent(&self, name: &str) -> Option<&AgentConfig> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// The MCP servers agent `name` gets, in the order of the file.
    pub fn mcp_for(&self, name: &str) -> Vec<McpConfig> {
        self.mcp.iter().filter(|m| m.agents.is_empty() || m.agents.iter().any(|a| a == name)).cloned().collect()
    }
}

/// One `[[mcp]]` entry: an MCP server the agents' sessions get (`session/new`, `load`, `resume`).
/// The agent starts and talks to it; a stdio server therefore runs where the agent runs (in its
/// container for a container agent).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    /// Unique name (the agent shows its tools under it).
    pub name: String,
    /// How the agent reaches it: `stdio` (a program it starts; the default with `command`),
    /// `http` (the default with `url`) or `sse`.
    #[serde(rename = "type", default)]
    pub transport: McpTransport,
    /// The program to start (stdio).
    #[serde(default)]
    pub command: Option<String>,
    /// Its arguments (stdio).
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to its environment (stdio).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Its address (http, sse).
    #[serde(default)]
    pub url: Option<String>,
    /// HTTP headers sent to it (http, sse).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The agents that get it (by name). Default: every agent.
    #[serde(default)]
    pub agents: Vec<String>,
}

/// How an agent reaches an MCP server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum McpTransport {
    /// A program the agent starts, spoken to on its stdin/stdout.
    #[default]
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Server-sent events (older MCP servers).
    Sse,
}

impl McpTransport {
    /// Every kind.
    pub const ALL: [McpTransport; 3] = [McpTransport::Stdio, McpTransport::Http, McpTransport::Sse];

    /// The name used in the config file.
    pub fn code(self) -> &'static str {
        match self {
            McpTransport::Stdio => "stdio",
            McpTransport::Http => "http",
            McpTransport::Sse => "sse",
        }
    }
}

/// One `[[channel]]` entry. Its members are the agents that list it in their `channels`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChannelConfig {
    /// Unique channel name.
    pub name: String,
    /// What the channel is for.
    #[serde(default)]
    pub description: Option<String>,
}

/// The `[defaults]` table.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Seconds an idle agent keeps running before it is stopped (0 = never).
    #[serde(default = "default_idle_stop")]
    #[schemars(range(max = 4_294_967_295u64))]
    pub idle_stop: u64,
    /// How many agents may run at once; starting one more stops the least recently used idle one.
    #[serde(default = "default_max_running")]
    #[schemars(range(min = 1, max = 1000))]
    pub max_running: u32,
    /// Language of the interface: `en` or `fr`. Without it, the system locale decides.
    #[serde(default)]
    pub language: Option<Language>,
    /// Which key sends a message: `enter` (Shift+Enter makes a new line; the default) or
    /// `ctrl+enter` (Enter makes a new line).
    #[serde(default)]
    pub send_with: SendKey,
    /// Light or dark: `system` (the desktop's choice; the default), `light` or `dark`.
    #[serde(default)]
    pub theme: Theme,
}

/// The window's colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
pub enum Theme {
    /// As the desktop says.
    #[default]
    #[serde(rename = "system")]
    System,
    /// Light.
    #[serde(rename = "light")]
    Light,
    /// Dark.
    #[serde(rename = "dark")]
    Dark,
}

impl Theme {
    /// Every choice.
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    /// The name used in the config file.
    pub fn code(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// Which key sends what is typed in a composer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
pub enum SendKey {
    /// Enter sends, Shift+Enter makes a new line.
    #[default]
    #[serde(rename = "enter")]
    Enter,
    /// Ctrl+Enter (Cmd+Enter on macOS) sends, Enter makes a new line.
    #[serde(rename = "ctrl+enter")]
    CtrlEnter,
}

impl SendKey {
    /// Every choice.
    pub const ALL: [SendKey; 2] = [SendKey::Enter, SendKey::CtrlEnter];

    /// The name used in the config file.
    pub fn code(self) -> &'static str {
        match self {
            SendKey::Enter => "enter",
            SendKey::CtrlEnter => "ctrl+enter",
        }
    }
}

/// The `[notifications]` table: desktop notifications shown while the window is not focused.
/// Every kind is on by default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Notifications {
    /// All of them (`false` turns every kind off).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// A permission, a question or a login waits for you.
    #[serde(default = "yes")]
    pub needs_you: bool,
    /// An agent finished its turn.
    #[serde(default = "yes")]
    pub finished: bool,
    /// An agent crashed.
    #[serde(default = "yes")]
    pub crashed: bool,
    /// A merge into a team's project conflicted.
    #[serde(default = "yes")]
    pub conflict: bool,
}

fn yes() -> bool {
    true
}

/// The `[checkpoints]` table: before each turn of an agent on this computer its workspace's state
/// is recorded, to restore it ("Restore to before this turn"); older ones are pruned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointsConfig {
    /// Record them (`false`: no checkpoint, no restore).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The most kept per workspace (the oldest go first).
    #[serde(default = "default_keep")]
    #[schemars(range(min = 1, max = 100_000))]
    pub keep: u32,
    /// Days one is kept.
    #[serde(default = "default_max_age_days")]
    #[schemars(range(min = 1, max = 36_500))]
    pub max_age_days: u32,
}

fn default_keep() -> u32 {
    100
}

fn default_max_age_days() -> u32 {
    14
}

impl Default for CheckpointsConfig {
    fn default() -> Self {
        Self { enabled: true, keep: default_keep(), max_age_days: default_max_age_days() }
    }
}

impl Default for Notifications {
    fn default() -> Self {
        Self { enabled: true, needs_you: true, finished: true, crashed: true, conflict: true }
    }
}

fn default_idle_stop() -> u64 {
    600
}

fn default_max_running() -> u32 {
    4
}

impl Default for Defaults {
    fn default() -> Self {
        Self {
            idle_stop: default_idle_stop(),
            max_running: default_max_running(),
            language: None,
            send_with: SendKey::default(),
            theme: Theme::default(),
        }
    }
}

/// A language of the interface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// English.
    #[default]
    En,
    /// French.
    Fr,
}

impl Language {
    /// Every language, in the order shown to the user.
    pub const ALL: [Language; 2] = [Language::En, Language::Fr];

    /// The code used in the config file.
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Fr => "fr",
        }
    }

    /// The language to use: the configured one, else the system locale's, else English.
    pub fn pick(configured: Option<Language>, system_locale: Option<&str>) -> Language {
        configured.or_else(|| system_locale.and_then(Language::from_code)).unwrap_or_default()
    }

    /// Parses a config code or a locale such as `fr_FR.UTF-8` / `fr-CA`.
    pub fn from_code(code: &str) -> Option<Language> {
        let lower = code.to_ascii_lowercase();
        let main = lower.split(['_', '-', '.']).next().unwrap_or_default();
        match main {
            "en" => Some(Language::En),
            "fr" => Some(Language::Fr),
            _ => None,
        }
    }
}

/// One `[[agent]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// Unique name shown in the sidebar.
    pub name: String,
    /// Program to start. `sidekicks` means this very binary (so `args = ["demo-agent"]` runs the
    /// built-in demo agent wherever Sidekicks is installed).
    pub command: String,
    /// Arguments passed to the command.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment variables for the agent.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The agent's workspace folder on this computer.
    pub workspace: PathBuf,
    /// Where the agent runs. Defaults to this computer.
    #[serde(default)]
    pub runtime: RuntimeConfig,
    /// Channels this agent belongs to (each must be defined in `[[channel]]`).
    #[serde(default)]
    pub channels: Vec<String>,
    /// What Sidekicks lets the agent do through it, whatever mode the agent is in.
    #[serde(default)]
    pub policy: Policy,
    /// The ACP Registry entry it was added from and its version (written by "Get agents" and
    /// `sidekicks registry`; updating and removing use it).
    #[serde(default)]
    pub registry: Option<crate::model::registry::Installed>,
}

/// What Sidekicks does with a request it serves for an agent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Serve {
    /// Serve it.
    #[default]
    Allow,
    /// Refuse it, in words, to the agent.
    Deny,
    /// Ask the person first (a card of Sidekicks' own; always/never are remembered).
    Ask,
}

impl Serve {
    /// The word in the config file.
    pub fn code(self) -> &'static str {
        match self {
            Serve::Allow => "allow",
            Serve::Deny => "deny",
            Serve::Ask => "ask",
        }
    }
}

/// The `policy` table of an agent: what Sidekicks enforces on what it serves, whatever the
/// agent's own mode (an agent in its own "auto" mode never asks). It cannot stop an agent that
/// writes files or runs commands itself, outside Sidekicks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// File writes through Sidekicks (`fs/write_text_file`).
    #[serde(default)]
    pub writes: Serve,
    /// Commands run through Sidekicks (`terminal/create`).
    #[serde(default)]
    pub commands: Serve,
}

impl AgentConfig {
    /// The folder the agent works in, as seen from inside its runtime.
    pub fn workspace_path(&self) -> PathBuf {
        self.runtime.workspace_path.clone().unwrap_or_else(|| self.workspace.clone())
    }
}

/// The `runtime` table of an agent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimeConfig {
    /// Kind of runtime.
    #[serde(rename = "type", default)]
    pub kind: RuntimeKind,
    /// Container name (`container`, `podman`).
    #[serde(default)]
    pub container: Option<String>,
    /// Sandbox name (`sbx`).
    #[serde(default)]
    pub sandbox: Option<String>,
    /// Pod name (`kubectl`).
    #[serde(default)]
    pub pod: Option<String>,
    /// The machine (`ssh`): a host of the person's SSH config, or `user@host[:port]`.
    #[serde(default)]
    pub host: Option<String>,
    /// The workspace folder inside the container, sandbox or pod, or on the other machine.
    /// Defaults to `workspace`.
    #[serde(default)]
    pub workspace_path: Option<PathBuf>,
}

impl RuntimeConfig {
    /// The name of the container, sandbox or pod, if the runtime has one.
    pub fn target_name(&self) -> Option<&str> {
        match self.kind {
            RuntimeKind::Local => None,
            RuntimeKind::Container | RuntimeKind::Podman => self.container.as_deref(),
            RuntimeKind::Sbx => self.sandbox.as_deref(),
            RuntimeKind::Kubectl => self.pod.as_deref(),
            RuntimeKind::Ssh => self.host.as_deref(),
        }
    }
}

/// Kinds of runtime.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeKind {
    /// On this computer.
    #[default]
    Local,
    /// In a Docker container (`docker exec`).
    Container,
    /// In a Docker sandbox (`sbx exec`).
    Sbx,
    /// In a Podman container (`podman exec`).
    Podman,
    /// In a Kubernetes pod (`kubectl exec`).
    Kubectl,
    /// On another machine, through the system's OpenSSH client.
    Ssh,
}

impl RuntimeKind {
    /// Every kind, in the order of the documentation.
    pub const ALL: [RuntimeKind; 6] = [
        RuntimeKind::Local,
        RuntimeKind::Container,
        RuntimeKind::Sbx,
        RuntimeKind::Podman,
        RuntimeKind::Kubectl,
        RuntimeKind::Ssh,
    ];

    /// The name used in the config file.
    pub fn code(self) -> &'static str {
        match self {
            RuntimeKind::Local => "local",
            RuntimeKind::Container => "container",
            RuntimeKind::Sbx => "sbx",
            RuntimeKind::Podman => "podman",
            RuntimeKind::Kubectl => "kubectl",
            RuntimeKind::Ssh => "ssh",
        }
    }

    /// The key naming the target this kind needs (`container`, `sandbox`, `pod`).
    pub fn target_key(self) -> Option<&'static str> {
        match self {
            RuntimeKind::Local => None,
            RuntimeKind::Container | RuntimeKind::Podman => Some("container"),
            RuntimeKind::Sbx => Some("sandbox"),
            RuntimeKind::Kubectl => Some("pod"),
            RuntimeKind::Ssh => Some("host"),
        }
    }
}
