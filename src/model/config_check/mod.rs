//! The config loader: parses `sidekicks.toml` with spans, checks every rule and reports *all*
//! problems with their positions, building the typed [`Config`] when there are none.
//! Pure: the one question about the world (does a folder exist?) is asked through a callback.

mod sections;
mod unclosed;

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
    // A bracket never closed is the cause of every error after it: said once, at its place.
    let unclosed = if errors.is_empty() { None } else { unclosed::find(src) };
    let cut = unclosed.map_or(usize::MAX, |u| src[..u.at].rfind('\n').map_or(0, |n| n + 1));
    if let Some(u) = unclosed {
        let line = super::problem::line_column(src, u.at).0;
        checker.problem(u.at..u.at + 1, ProblemKind::Unclosed { open: u.open, line });
    }
    // The lines under a table header the parser could not read (`[defaults` never closed): the
    // parser's guess puts their keys elsewhere ("Unknown key"); only the header's error is said.
    let mut unread = Vec::new();
    for error in errors {
        let span = error.span().unwrap_or(0..0);
        if span.start >= cut {
            continue;
        }
        if let Some(under) = unclosed::under_broken_header(src, span.start) {
            unread.push(under);
        }
        // One error per line: the parser's follow-up errors on the same line are noise.
        if syntax_lines.insert(super::problem::line_column(src, span.start).0) {
            checker.problem(span, ProblemKind::Syntax { message: error.message().trim().to_string() });
        }
    }
    let syntax_ok = checker.problems.is_empty();
    let config = checker.config(root.get_ref(), root.span());
    let mut problems = checker.problems;
    // What the checker read after it is the parser's guess, not the person's text.
    problems.retain(|p| p.span.start < cut || matches!(p.kind, ProblemKind::Unclosed { .. }));
    problems.retain(|p| {
        matches!(p.kind, ProblemKind::Syntax { .. })
            || !unread.iter().any(|r: &std::ops::Range<usize>| r.contains(&p.span.start))
    });
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
