//! The config's sections, each checked into its part of the config: `[[agent]]` (its runtime,
//! environment and policy), `[[mcp]]`, `[defaults]`, `[notifications]`, `[checkpoints]`.

use super::*;

impl Checker<'_> {
    /// One MCP server and the span of its name. `None` when it has no usable name.
    pub(super) fn mcp(&mut self, mut t: Table<'_, '_>, agents: &[AgentConfig]) -> Option<(McpConfig, Range<usize>)> {
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
    pub(super) fn string_table(&mut self, t: &mut Table<'_, '_>, key: &str) -> Vec<((String, String), Range<usize>)> {
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

    pub(super) fn defaults(&mut self, mut t: Table<'_, '_>) -> Defaults {
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
            match crate::model::config::Theme::ALL.into_iter().find(|k| k.code() == code) {
                Some(theme) => d.theme = theme,
                None => self.problem(span, ProblemKind::UnknownTheme { found: code }),
            }
        }
        self.finish(t, DEFAULTS_KEYS);
        d
    }

    pub(super) fn notifications(&mut self, mut t: Table<'_, '_>) -> Notifications {
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

    pub(super) fn checkpoints(&mut self, mut t: Table<'_, '_>) -> CheckpointsConfig {
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
    pub(super) fn agent(
        &mut self,
        mut t: Table<'_, '_>,
        channels: &[ChannelConfig],
    ) -> Option<(AgentConfig, Range<usize>)> {
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

    pub(super) fn env(&mut self, t: &mut Table<'_, '_>) -> BTreeMap<String, String> {
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

    pub(super) fn policy(&mut self, mut t: Table<'_, '_>) -> crate::model::config::Policy {
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

    pub(super) fn runtime(&mut self, mut t: Table<'_, '_>) -> RuntimeConfig {
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

    pub(super) fn finish_runtime_unknown(&mut self, mut t: Table<'_, '_>) {
        for key in RUNTIME_KEYS {
            t.get(key);
        }
        self.finish(t, RUNTIME_KEYS);
    }
}
