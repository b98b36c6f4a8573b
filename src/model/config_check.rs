//! The config loader: parses `sidekicks.toml` with spans, checks every rule and reports *all*
//! problems with their positions, building the typed [`Config`] when there are none.
//! Pure: the one question about the world (does a folder exist?) is asked through a callback.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::config::{
    AgentConfig, ChannelConfig, CheckpointsConfig, Config, Defaults, Language, McpConfig, McpTransport, Notifications,
    RuntimeConfig, RuntimeKind, SendKey,
};
use super::problem::{Problem, ProblemKind, Severity, ValueType};

/// Keys of the top level.
pub const TOP_KEYS: &[&str] = &["defaults", "agent", "channel", "mcp", "notifications", "checkpoints", "registry"];
/// Keys of `[registry]`.
pub const REGISTRY_KEYS: &[&str] = &["url"];
/// Keys of an agent's `registry` mark.
pub const INSTALLED_KEYS: &[&str] = &["id", "version"];
/// Keys of `[defaults]`.
pub const DEFAULTS_KEYS: &[&str] = &["idle_stop", "max_running", "language", "send_with", "theme"];
/// Keys of `[notifications]`.
pub const NOTIFICATIONS_KEYS: &[&str] = &["enabled", "needs_you", "finished", "crashed", "conflict"];
/// Keys of `[checkpoints]`.
pub const CHECKPOINTS_KEYS: &[&str] = &["enabled", "keep", "max_age_days"];
/// Keys of an `[[agent]]`.
pub const AGENT_KEYS: &[&str] =
    &["name", "command", "args", "env", "workspace", "runtime", "channels", "policy", "registry"];
/// Keys of an agent's `policy` table.
pub const POLICY_KEYS: &[&str] = &["writes", "commands"];
/// Keys of an agent's `runtime`.
pub const RUNTIME_KEYS: &[&str] = &["type", "container", "sandbox", "pod", "host", "workspace_path"];
/// Keys of an `[[mcp]]`.
pub const MCP_KEYS: &[&str] = &["name", "type", "command", "args", "env", "url", "headers", "agents"];
/// Keys of a `[[channel]]`.
pub const CHANNEL_KEYS: &[&str] = &["name", "description"];

/// What loading a config text gives: the config when no problem is an error, and every problem.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadResult {
    /// The config, present only when no problem is an error (warnings do not block it).
    pub config: Option<Config>,
    /// Every problem, in file order.
    pub problems: Vec<Problem>,
    /// The text that was loaded (`None` when the file could not be read).
    pub text: Option<String>,
}

/// What the checker may ask about the world around the file (the loader itself does no I/O).
pub struct LoadContext<'a> {
    /// The config file's folder: relative workspace folders are taken from it.
    pub base_dir: &'a Path,
    /// The home folder, for `~/`.
    pub home: Option<&'a Path>,
    /// Whether a local folder exists.
    pub is_dir: &'a dyn Fn(&Path) -> bool,
    /// Whether a local agent's command can be found (on `PATH`, or as a path from its workspace).
    pub command_exists: &'a dyn Fn(&str, &Path) -> bool,
    /// Whether users other than its owner may read the file (an `env` value there is then no
    /// secret: a warning says so).
    pub readable_by_others: bool,
}

/// Checks `src` (see [`LoadContext`] for the questions it asks about the world).
pub fn load_str(src: &str, ctx: &LoadContext<'_>) -> LoadResult {
    let (root, errors) = DeTable::parse_recoverable(src);
    let mut checker = Checker { src, problems: Vec::new(), ctx };
    let mut syntax_lines = HashSet::new();
    for error in errors {
        let span = error.span().unwrap_or(0..0);
        // One error per line: the parser's follow-up errors on the same line are noise.
        if syntax_lines.insert(super::problem::line_column(src, span.start).0) {
            checker.problem(span, ProblemKind::Syntax { message: error.message().trim().to_string() });
        }
    }
    let syntax_ok = checker.problems.is_empty();
    let config = checker.config(root.get_ref(), root.span());
    let mut problems = checker.problems;
    problems.sort_by_key(|p| (p.span.start, p.span.end));
    let blocking = problems.iter().any(|p| p.severity() == Severity::Error);
    let config = (syntax_ok && !blocking).then_some(config);
    LoadResult { config, problems, text: Some(src.to_string()) }
}

/// Expands `~/` and makes a relative path absolute against `base_dir`.
pub fn resolve_path(raw: &str, base_dir: &Path, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(home)) = (raw.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    if raw == "~"
        && let Some(home) = home
    {
        return home.to_path_buf();
    }
    let path = Path::new(raw);
    if path.is_absolute() { path.to_path_buf() } else { base_dir.join(path) }
}

/// True for `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

type Item<'i> = Spanned<DeValue<'i>>;

struct Checker<'a> {
    src: &'a str,
    problems: Vec<Problem>,
    ctx: &'a LoadContext<'a>,
}

/// A table being read: remembers which keys were taken so the rest can be reported as unknown.
struct Table<'t, 'i> {
    table: &'t DeTable<'i>,
    span: Range<usize>,
    used: HashSet<String>,
}

impl<'t, 'i> Table<'t, 'i> {
    fn new(table: &'t DeTable<'i>, span: Range<usize>) -> Self {
        Self { table, span, used: HashSet::new() }
    }

    fn get(&mut self, key: &str) -> Option<(Range<usize>, &'t Item<'i>)> {
        let (k, v) = self.table.iter().find(|(k, _)| k.get_ref().as_ref() == key)?;
        self.used.insert(key.to_string());
        Some((k.span(), v))
    }
}

impl Checker<'_> {
    fn problem(&mut self, span: Range<usize>, kind: ProblemKind) {
        self.problems.push(Problem::at(self.src, span, kind));
    }

    fn wrong_type(&mut self, item: &Item<'_>, key: &str, expected: ValueType) {
        let found = item.get_ref().type_str().to_string();
        self.problem(item.span(), ProblemKind::WrongType { key: key.to_string(), expected, found });
    }

    fn finish(&mut self, table: Table<'_, '_>, known: &[&str]) {
        for (k, _) in table.table.iter() {
            let key = k.get_ref().as_ref();
            if !table.used.contains(key) {
                let suggestion = closest(key, known);
                self.problem(k.span(), ProblemKind::UnknownKey { key: key.to_string(), suggestion });
            }
        }
    }

    fn string(&mut self, t: &mut Table<'_, '_>, key: &str, required: bool) -> Option<(String, Range<usize>)> {
        match t.get(key) {
            None => {
                if required {
                    self.problem(t.span.start..t.span.start, ProblemKind::MissingKey { key: key.to_string() });
                }
                None
            }
            Some((_, item)) => match item.get_ref() {
                DeValue::String(s) if s.trim().is_empty() && required => {
                    self.problem(item.span(), ProblemKind::Empty { key: key.to_string() });
                    None
                }
                DeValue::String(s) => Some((s.to_string(), item.span())),
                _ => {
                    self.wrong_type(item, key, ValueType::String);
                    None
                }
            },
        }
    }

    fn string_list(&mut self, t: &mut Table<'_, '_>, key: &str) -> Vec<(String, Range<usize>)> {
        let Some((_, item)) = t.get(key) else {
            return Vec::new();
        };
        let DeValue::Array(array) = item.get_ref() else {
            self.wrong_type(item, key, ValueType::StringArray);
            return Vec::new();
        };
        let mut out = Vec::new();
        for element in array.iter() {
            match element.get_ref() {
                DeValue::String(s) => out.push((s.to_string(), element.span())),
                _ => self.wrong_type(element, key, ValueType::String),
            }
        }
        out
    }

    fn integer(&mut self, t: &mut Table<'_, '_>, key: &str, min: i64, max: i64) -> Option<i64> {
        let (_, item) = t.get(key)?;
        let DeValue::Integer(i) = item.get_ref() else {
            self.wrong_type(item, key, ValueType::Integer);
            return None;
        };
        match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(v) if (min..=max).contains(&v) => Some(v),
            _ => {
                self.problem(item.span(), ProblemKind::OutOfRange { key: key.to_string(), min, max });
                None
            }
        }
    }

    fn boolean(&mut self, t: &mut Table<'_, '_>, key: &str) -> Option<bool> {
        let (_, item) = t.get(key)?;
        match item.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            _ => {
                self.wrong_type(item, key, ValueType::Boolean);
                None
            }
        }
    }

    fn sub_table<'t, 'i>(&mut self, t: &mut Table<'t, 'i>, key: &str) -> Option<Table<'t, 'i>> {
        let (_, item) = t.get(key)?;
        match item.get_ref() {
            DeValue::Table(table) => Some(Table::new(table, item.span())),
            _ => {
                self.wrong_type(item, key, ValueType::Table);
                None
            }
        }
    }

    fn table_array<'t, 'i>(&mut self, t: &mut Table<'t, 'i>, key: &str) -> Vec<Table<'t, 'i>> {
        let Some((_, item)) = t.get(key) else {
            return Vec::new();
        };
        let DeValue::Array(array) = item.get_ref() else {
            self.wrong_type(item, key, ValueType::TableArray);
            return Vec::new();
        };
        let mut out = Vec::new();
        for element in array.iter() {
            match element.get_ref() {
                DeValue::Table(table) => out.push(Table::new(table, element.span())),
                _ => self.wrong_type(element, key, ValueType::TableArray),
            }
        }
        out
    }

    fn config(&mut self, root: &DeTable<'_>, span: Range<usize>) -> Config {
        let mut top = Table::new(root, span);
        let defaults = match self.sub_table(&mut top, "defaults") {
            Some(t) => self.defaults(t),
            None => Defaults::default(),
        };
        let channel_tables = self.table_array(&mut top, "channel");
        let agent_tables = self.table_array(&mut top, "agent");
        let mcp_tables = self.table_array(&mut top, "mcp");
        let notifications = match self.sub_table(&mut top, "notifications") {
            Some(t) => self.notifications(t),
            None => Notifications::default(),
        };
        let checkpoints = match self.sub_table(&mut top, "checkpoints") {
            Some(t) => self.checkpoints(t),
            None => CheckpointsConfig::default(),
        };
        let registry = match self.sub_table(&mut top, "registry") {
            Some(mut t) => {
                let url = self.string(&mut t, "url", false).map(|(u, _)| u);
                self.finish(t, REGISTRY_KEYS);
                crate::model::config::RegistryConfig { url }
            }
            None => crate::model::config::RegistryConfig::default(),
        };
        self.finish(top, TOP_KEYS);

        let mut channels: Vec<ChannelConfig> = Vec::new();
        for mut t in channel_tables {
            let name = self.string(&mut t, "name", true);
            let description = self.string(&mut t, "description", false).map(|(s, _)| s);
            self.finish(t, CHANNEL_KEYS);
            let Some((name, span)) = name else { continue };
            if channels.iter().any(|c| c.name == name) {
                self.problem(span, ProblemKind::DuplicateChannel { name: name.clone() });
            }
            channels.push(ChannelConfig { name, description });
        }

        let mut agents: Vec<AgentConfig> = Vec::new();
        for t in agent_tables {
            if let Some(agent) = self.agent(t, &channels) {
                if agents.iter().any(|a| a.name == agent.0.name) {
                    self.problem(agent.1, ProblemKind::DuplicateAgent { name: agent.0.name.clone() });
                }
                agents.push(agent.0);
            }
        }
        let mut mcp: Vec<McpConfig> = Vec::new();
        for t in mcp_tables {
            let Some((server, span)) = self.mcp(t, &agents) else { continue };
            if mcp.iter().any(|m| m.name == server.name) {
                self.problem(span, ProblemKind::DuplicateMcp { name: server.name.clone() });
            }
            mcp.push(server);
        }
        Config { defaults, agents, channels, mcp, notifications, checkpoints, registry }
    }

    /// One MCP server and the span of its name. `None` when it has no usable name.
    fn mcp(&mut self, mut t: Table<'_, '_>, agents: &[AgentConfig]) -> Option<(McpConfig, Range<usize>)> {
        let start = t.span.start..t.span.start;
        let name = self.string(&mut t, "name", true);
        let kind = self.string(&mut t, "type", false);
        let command = self.string(&mut t, "command", false);
        let args = self.string_list(&mut t, "args");
        let env = self.env(&mut t);
        let url = self.string(&mut t, "url", false);
        let headers = self.string_table(&mut t, "headers");
        let for_agents = self.string_list(&mut t, "agents");
        for (agent, span) in &for_agents {
            if !agents.iter().any(|a| &a.name == agent) {
                self.problem(span.clone(), ProblemKind::UnknownAgent { name: agent.clone() });
            }
        }
        self.finish(t, MCP_KEYS);
        let transport = match &kind {
            Some((found, span)) => match McpTransport::ALL.into_iter().find(|k| k.code() == found) {
                Some(k) => k,
                None => {
                    self.problem(span.clone(), ProblemKind::UnknownMcpType { found: found.clone() });
                    return None;
                }
            },
            None if url.is_some() && command.is_none() => McpTransport::Http,
            None => McpTransport::Stdio,
        };
        let code = transport.code().to_string();
        let needs = |key: &str| ProblemKind::McpNeeds { transport: code.clone(), key: key.into() };
        let ignores = |key: &str| ProblemKind::McpIgnores { transport: code.clone(), key: key.into() };
        if transport == McpTransport::Stdio {
            if command.is_none() {
                self.problem(name.as_ref().map_or(start.clone(), |n| n.1.clone()), needs("command"));
            }
            if let Some((_, span)) = &url {
                self.problem(span.clone(), ignores("url"));
            }
            if let Some((_, span)) = headers.first() {
                self.problem(span.clone(), ignores("headers"));
            }
        } else {
            if url.is_none() {
                self.problem(name.as_ref().map_or(start.clone(), |n| n.1.clone()), needs("url"));
            }
            if let Some((_, span)) = &command {
                self.problem(span.clone(), ignores("command"));
            }
            if let Some((_, span)) = args.first() {
                self.problem(span.clone(), ignores("args"));
            }
        }
        let (name, name_span) = name?;
        Some((
            McpConfig {
                name,
                transport,
                command: command.map(|(c, _)| c),
                args: args.into_iter().map(|(a, _)| a).collect(),
                env,
                url: url.map(|(u, _)| u),
                headers: headers.into_iter().map(|((k, v), _)| (k, v)).collect(),
                agents: for_agents.into_iter().map(|(a, _)| a).collect(),
            },
            name_span,
        ))
    }

    /// A table of strings (`headers`): each entry with its key's span.
    fn string_table(&mut self, t: &mut Table<'_, '_>, key: &str) -> Vec<((String, String), Range<usize>)> {
        let Some(mut table) = self.sub_table(t, key) else {
            return Vec::new();
        };
        let keys: Vec<(String, Range<usize>)> =
            table.table.iter().map(|(k, _)| (k.get_ref().to_string(), k.span())).collect();
        let mut out = Vec::new();
        for (k, span) in keys {
            if let Some((value, _)) = self.string(&mut table, &k, false) {
                out.push(((k, value), span));
            }
        }
        out
    }

    fn defaults(&mut self, mut t: Table<'_, '_>) -> Defaults {
        let mut d = Defaults::default();
        if let Some(v) = self.integer(&mut t, "idle_stop", 0, i64::from(u32::MAX)) {
            d.idle_stop = v as u64;
        }
        if let Some(v) = self.integer(&mut t, "max_running", 1, 1000) {
            d.max_running = v as u32;
        }
        if let Some((code, span)) = self.string(&mut t, "language", false) {
            match Language::from_code(&code).filter(|_| code.len() == 2) {
                Some(lang) => d.language = Some(lang),
                None => self.problem(span, ProblemKind::UnknownLanguage { found: code }),
            }
        }
        if let Some((code, span)) = self.string(&mut t, "send_with", false) {
            match SendKey::ALL.into_iter().find(|k| k.code() == code) {
                Some(key) => d.send_with = key,
                None => self.problem(span, ProblemKind::UnknownSendKey { found: code }),
            }
        }
        if let Some((code, span)) = self.string(&mut t, "theme", false) {
            match super::config::Theme::ALL.into_iter().find(|k| k.code() == code) {
                Some(theme) => d.theme = theme,
                None => self.problem(span, ProblemKind::UnknownTheme { found: code }),
            }
        }
        self.finish(t, DEFAULTS_KEYS);
        d
    }

    fn notifications(&mut self, mut t: Table<'_, '_>) -> Notifications {
        let mut n = Notifications::default();
        for (key, value) in [
            ("enabled", &mut n.enabled),
            ("needs_you", &mut n.needs_you),
            ("finished", &mut n.finished),
            ("crashed", &mut n.crashed),
            ("conflict", &mut n.conflict),
        ] {
            if let Some(v) = self.boolean(&mut t, key) {
                *value = v;
            }
        }
        self.finish(t, NOTIFICATIONS_KEYS);
        n
    }

    fn checkpoints(&mut self, mut t: Table<'_, '_>) -> CheckpointsConfig {
        let mut c = CheckpointsConfig::default();
        if let Some(v) = self.boolean(&mut t, "enabled") {
            c.enabled = v;
        }
        if let Some(v) = self.integer(&mut t, "keep", 1, 100_000) {
            c.keep = v as u32;
        }
        if let Some(v) = self.integer(&mut t, "max_age_days", 1, 36_500) {
            c.max_age_days = v as u32;
        }
        self.finish(t, CHECKPOINTS_KEYS);
        c
    }

    /// One agent and the span of its name (for duplicate reports). `None` when it has no usable name.
    fn agent(&mut self, mut t: Table<'_, '_>, channels: &[ChannelConfig]) -> Option<(AgentConfig, Range<usize>)> {
        let name = self.string(&mut t, "name", true);
        let command = self.string(&mut t, "command", true);
        let args = self.string_list(&mut t, "args").into_iter().map(|(s, _)| s).collect();
        let env = self.env(&mut t);
        let workspace = self.string(&mut t, "workspace", true);
        let runtime = match self.sub_table(&mut t, "runtime") {
            Some(rt) => self.runtime(rt),
            None => RuntimeConfig::default(),
        };
        let policy = match self.sub_table(&mut t, "policy") {
            Some(table) => self.policy(table),
            None => crate::model::config::Policy::default(),
        };
        let registry = match self.sub_table(&mut t, "registry") {
            Some(mut mark) => {
                let id = self.string(&mut mark, "id", true);
                let version = self.string(&mut mark, "version", true);
                self.finish(mark, INSTALLED_KEYS);
                id.zip(version).map(|((id, _), (version, _))| crate::model::registry::Installed { id, version })
            }
            None => None,
        };
        let agent_channels = self.string_list(&mut t, "channels");
        for (channel, span) in &agent_channels {
            if !channels.iter().any(|c| &c.name == channel) {
                self.problem(span.clone(), ProblemKind::UnknownChannel { name: channel.clone() });
            }
        }
        self.finish(t, AGENT_KEYS);

        let workspace = workspace.map(|(raw, span)| {
            let path = resolve_path(&raw, self.ctx.base_dir, self.ctx.home);
            if runtime.kind == RuntimeKind::Local && !(self.ctx.is_dir)(&path) {
                self.problem(span, ProblemKind::MissingFolder { path: path.display().to_string() });
            }
            path
        });
        if let (Some((command, span)), Some(workspace)) = (&command, &workspace)
            && runtime.kind == RuntimeKind::Local
            && !(self.ctx.command_exists)(command, workspace)
        {
            self.problem(span.clone(), ProblemKind::CommandNotFound { command: command.clone() });
        }
        let (name, name_span) = name?;
        Some((
            AgentConfig {
                name,
                command: command.map(|(c, _)| c).unwrap_or_default(),
                args,
                env,
                workspace: workspace.unwrap_or_default(),
                runtime,
                channels: agent_channels.into_iter().map(|(c, _)| c).collect(),
                policy,
                registry,
            },
            name_span,
        ))
    }

    fn env(&mut self, t: &mut Table<'_, '_>) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        let Some(mut table) = self.sub_table(t, "env") else {
            return env;
        };
        let keys: Vec<(String, Range<usize>)> =
            table.table.iter().map(|(k, _)| (k.get_ref().to_string(), k.span())).collect();
        for (key, span) in keys {
            if !is_valid_env_name(&key) {
                self.problem(span.clone(), ProblemKind::InvalidEnvName { name: key.clone() });
            }
            if let Some((value, _)) = self.string(&mut table, &key, false) {
                if env.is_empty() && self.ctx.readable_by_others && !value.is_empty() {
                    self.problem(span.clone(), ProblemKind::EnvReadableByOthers { name: key.clone() });
                }
                env.insert(key, value);
            }
        }
        env
    }

    fn policy(&mut self, mut t: Table<'_, '_>) -> crate::model::config::Policy {
        use crate::model::config::Serve;
        let mut policy = crate::model::config::Policy::default();
        for key in POLICY_KEYS {
            let Some((found, span)) = self.string(&mut t, key, false) else { continue };
            let serve = match found.as_str() {
                "allow" => Serve::Allow,
                "deny" => Serve::Deny,
                "ask" => Serve::Ask,
                _ => {
                    self.problem(span, ProblemKind::UnknownPolicy { key: key.to_string(), found });
                    continue;
                }
            };
            match *key {
                "writes" => policy.writes = serve,
                _ => policy.commands = serve,
            }
        }
        self.finish(t, POLICY_KEYS);
        policy
    }

    fn runtime(&mut self, mut t: Table<'_, '_>) -> RuntimeConfig {
        let mut rt = RuntimeConfig::default();
        if let Some((found, span)) = self.string(&mut t, "type", false) {
            match RuntimeKind::ALL.into_iter().find(|k| k.code() == found) {
                Some(kind) => rt.kind = kind,
                None => {
                    self.problem(span, ProblemKind::UnknownRuntime { found });
                    // The kind is unknown: its target keys cannot be judged.
                    self.finish_runtime_unknown(t);
                    return rt;
                }
            }
        }
        let mut targets = Vec::new();
        for key in ["container", "sandbox", "pod", "host"] {
            if let Some((value, span)) = self.string(&mut t, key, false) {
                targets.push((key, value, span));
            }
        }
        rt.workspace_path = self.string(&mut t, "workspace_path", false).map(|(s, _)| PathBuf::from(s));
        for (key, value, span) in targets {
            if Some(key) == rt.kind.target_key() {
                match key {
                    "container" => rt.container = Some(value),
                    "sandbox" => rt.sandbox = Some(value),
                    "host" => {
                        if let Some(why) = crate::model::ssh_host::problem(&value) {
                            self.problem(span.clone(), ProblemKind::BadHost { host: value.clone(), why });
                        }
                        rt.host = Some(value)
                    }
                    _ => rt.pod = Some(value),
                }
            } else {
                self.problem(span, ProblemKind::RuntimeIgnores { kind: rt.kind, key: key.to_string() });
            }
        }
        if let Some(key) = rt.kind.target_key()
            && rt.target_name().is_none_or(|n| n.trim().is_empty())
        {
            self.problem(t.span.start..t.span.start, ProblemKind::RuntimeNeeds { kind: rt.kind, key: key.to_string() });
        }
        self.finish(t, RUNTIME_KEYS);
        rt
    }

    fn finish_runtime_unknown(&mut self, mut t: Table<'_, '_>) {
        for key in RUNTIME_KEYS {
            t.get(key);
        }
        self.finish(t, RUNTIME_KEYS);
    }
}

/// The known key closest to `key` (at most two edits away), to suggest a fix for a typo.
fn closest(key: &str, known: &[&str]) -> Option<String> {
    let near = known
        .iter()
        .map(|k| (edit_distance(key, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.to_string());
    // A shortened name (`lang` for `language`, `env_var` for `env_vars`) is near too.
    let lower = key.to_lowercase();
    near.or_else(|| {
        (lower.len() >= 3).then(|| known.iter().find(|k| k.starts_with(&lower)).map(|k| k.to_string())).flatten()
    })
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(row[j]).min(cur) };
            prev = cur;
        }
    }
    row[b.len()]
}
