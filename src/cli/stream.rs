//! How an agent's turn streams to stdout: its words, thoughts, tool calls, plans and how the
//! turn ended, as text for a person or as JSON lines (`--json`).

use crate::cli::out::errln;
use std::io::Write;

use crate::app::CrashReport;
use crate::i18n::{Key, crash_text, trf};
use crate::model::conversation::{TurnEnd, Update};
use crate::model::permission::PermissionRequest;

fn status(status: crate::model::tool::ToolStatus) -> &'static str {
    use crate::model::tool::ToolStatus as S;
    match status {
        S::Pending => "pending",
        S::InProgress => "in_progress",
        S::Completed => "completed",
        S::Failed => "failed",
        S::Cancelled => "cancelled",
    }
}

pub(crate) struct Output {
    pub(crate) json: bool,
    pub(crate) stdout: std::io::Stdout,
    pub(crate) lang: crate::model::config::Language,
    pub(crate) agent: String,
    pub(crate) runtime: crate::model::config::RuntimeConfig,
    /// Streamed beside another agent's turn: each line of text starts with the agent's name, and
    /// each JSON line carries it (`"agent"`).
    named: bool,
    /// The last text written ended its line.
    at_line_start: bool,
    /// The agent's plan as it last stood, not printed yet (text mode: printed before the text
    /// that follows it, or at the turn's end — once, not at every step's change).
    plan: Option<Vec<crate::model::tool::PlanItem>>,
    /// The last text printed did not end its line.
    text_open: bool,
    /// The turn's tool calls (text mode: each told when it starts and when it ends).
    tools: super::tool_text::ToolCalls,
}

impl Output {
    /// What streams `agent`'s answers to stdout (JSON lines with `json`), in `lang`.
    pub(crate) fn new(
        json: bool,
        lang: crate::model::config::Language,
        agent: String,
        runtime: crate::model::config::RuntimeConfig,
    ) -> Self {
        Self {
            json,
            stdout: std::io::stdout(),
            lang,
            agent,
            runtime,
            named: false,
            at_line_start: true,
            plan: None,
            text_open: false,
            tools: Default::default(),
        }
    }

    /// What streams a member's answers beside its lead's (`sidekicks team lead`).
    pub(crate) fn for_member(
        json: bool,
        lang: crate::model::config::Language,
        agent: String,
        runtime: crate::model::config::RuntimeConfig,
    ) -> Self {
        Self { named: true, ..Self::new(json, lang, agent, runtime) }
    }

    /// `text` with each line begun by the agent's name (when named).
    fn named_text(&mut self, text: &str) -> String {
        if !self.named {
            return text.to_string();
        }
        let mut out = String::new();
        for piece in text.split_inclusive('\n') {
            if self.at_line_start {
                out.push_str(&format!("[{}] ", self.agent));
            }
            out.push_str(piece);
            self.at_line_start = piece.ends_with('\n');
        }
        out
    }

    pub(crate) fn line(&mut self, mut value: serde_json::Value) -> std::io::Result<()> {
        if self.named
            && let Some(object) = value.as_object_mut()
        {
            object.insert("agent".into(), serde_json::json!(self.agent));
        }
        let mut out = self.stdout.lock();
        writeln!(out, "{value}")?;
        out.flush()
    }

    pub(crate) fn update(&mut self, update: &Update) -> std::io::Result<()> {
        use serde_json::json;
        if !self.json {
            if let Update::Plan(items) = update {
                self.plan = Some(items.clone());
            }
            let told = match update {
                Update::ToolCall(call) => self.tools.started(call),
                Update::ToolCallPatch(patch) => self.tools.patched(patch),
                _ => String::new(),
            };
            if !told.is_empty() {
                self.print_plan()?;
                let open = std::mem::take(&mut self.text_open);
                let text = self.named_text(&format!("{}{told}", if open { "\n" } else { "" }));
                let mut out = self.stdout.lock();
                write!(out, "{text}")?;
                out.flush()?;
            }
            if let Update::Text(text) = update {
                self.print_plan()?;
                self.text_open = !text.is_empty() && !text.ends_with('\n') || self.text_open && text.is_empty();
                let text = self.named_text(&crate::model::ansi::for_terminal(text));
                let mut out = self.stdout.lock();
                write!(out, "{text}")?;
                out.flush()?;
            }
            return Ok(());
        }
        let value = match update {
            Update::Text(text) => json!({"type": "text", "text": text}),
            Update::Thought(text) => json!({"type": "thought", "text": text}),
            Update::ToolCall(call) => json!({"type": "tool_call", "id": call.id, "title": call.title,
                "kind": call.kind.code(), "status": status(call.status)}),
            Update::ToolCallPatch(patch) => json!({"type": "tool_update", "id": patch.id,
                "status": patch.status.map(status)}),
            Update::Plan(items) => json!({"type": "plan", "entries": items.iter().map(|i| json!({
                "content": i.content, "status": format!("{:?}", i.status).to_lowercase()})).collect::<Vec<_>>()}),
            Update::Usage { used, size, cost } => json!({"type": "usage", "used": used, "size": size,
                "cost": cost.as_ref().map(|c| json!({"amount": c.millionths as f64 / 1e6, "currency": c.currency}))}),
            Update::Options(options) => json!({"type": "options", "options": options.iter().map(|o| {
                let value = match o.value() {
                    crate::model::session_config::OptionValue::Choice(c) => json!(c),
                    crate::model::session_config::OptionValue::Bool(b) => json!(b),
                };
                json!({"id": o.id, "name": o.name, "value": value})
            }).collect::<Vec<_>>()}),
            Update::Mode(mode) => json!({"type": "mode", "mode": mode}),
            Update::Image(image) => json!({"type": "image", "mime": image.mime, "bytes": image.data.len()}),
            Update::Resource(r) => json!({"type": "resource", "uri": r.uri, "name": r.name, "mime": r.mime,
                "text": r.text}),
            Update::Title(title) => json!({"type": "title", "title": title}),
            Update::Commands(commands) => json!({"type": "commands", "commands": commands.iter().map(|c| json!({
                "name": c.name, "description": c.description, "hint": c.hint})).collect::<Vec<_>>()}),
        };
        self.line(value)
    }

    pub(crate) fn permission(&mut self, request: &PermissionRequest) -> std::io::Result<()> {
        let what = crate::model::permission::ask(&request.tool);
        if self.json {
            let (command, dangers) = match &what {
                crate::model::permission::Ask::RunCommand { command, dangers } => (Some(command), dangers.clone()),
                _ => (None, Vec::new()),
            };
            return self.line(serde_json::json!({"type": "permission", "title": request.tool.title,
                "kind": request.tool.kind.code(), "command": command, "dangers": dangers}));
        }
        let words = crate::i18n::ask_text(self.lang, &self.agent, &self.runtime, &what);
        errln!("\n[{words}]");
        // What will run, with what in it may destroy data.
        if let crate::model::permission::Ask::RunCommand { command, dangers } = &what {
            errln!("  {command}");
            if !dangers.is_empty() {
                errln!("  {}", trf(self.lang, Key::Danger, &[("what", &dangers.join(", "))]));
            }
        }
        Ok(())
    }

    /// The agent's crash: why, and the last lines it wrote to stderr.
    pub(crate) fn not_taken(
        &mut self,
        chosen: &crate::model::session_config::Chosen,
        offered: &[String],
    ) -> std::io::Result<()> {
        let crate::model::session_config::OptionValue::Choice(value) = &chosen.value else { return Ok(()) };
        if self.json {
            self.line(serde_json::json!({"type": "setting_not_offered", "value": value, "offered": offered}))?;
        }
        errln!("{}", trf(self.lang, Key::SettingNotOffered, &[("value", value), ("offered", &offered.join(", "))]));
        Ok(())
    }

    pub(crate) fn login_needed(
        &mut self,
        message: &str,
        methods: &[crate::protocol::auth::AuthMethod],
    ) -> std::io::Result<()> {
        use crate::protocol::auth::AuthKind;
        let words = trf(self.lang, Key::LoginNeeded, &[("message", message)]);
        if self.json {
            let ways: Vec<_> = methods
                .iter()
                .map(|m| {
                    let vars: Vec<&str> = match &m.kind {
                        AuthKind::EnvVar { vars } => vars.iter().map(|v| v.name.as_str()).collect(),
                        _ => Vec::new(),
                    };
                    serde_json::json!({"id": m.id, "name": m.name, "description": m.description, "vars": vars})
                })
                .collect();
            self.line(serde_json::json!({"type": "login_needed", "message": words, "methods": ways}))?;
        }
        errln!("\n{words}");
        for m in methods {
            match &m.kind {
                AuthKind::EnvVar { vars } => {
                    let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
                    errln!("  {} — {}", m.name, names.join(", "));
                }
                _ => errln!("  {}", m.name),
            }
            // The agent's own instructions ("Run `copilot login`"), not only the way's name.
            if let Some(description) = m.description.as_deref().filter(|d| !d.trim().is_empty() && *d != m.name) {
                errln!("    {}", crate::model::ansi::for_terminal(description));
            }
        }
        Ok(())
    }

    pub(crate) fn crash(&mut self, report: &CrashReport) -> std::io::Result<()> {
        let reason = crash_text(self.lang, &report.reason);
        if self.json {
            self.line(serde_json::json!({"type": "crash", "reason": reason, "stderr": report.stderr_tail,
                "stdout": report.stdout_tail}))?;
        }
        errln!("\n{reason}");
        if !report.stdout_tail.is_empty() {
            errln!("{}", crate::i18n::tr(self.lang, crate::i18n::Key::LastStdout));
            for line in &report.stdout_tail {
                errln!("  {line}");
            }
        }
        for line in &report.stderr_tail {
            errln!("  {line}");
        }
        Ok(())
    }

    /// The thread the message goes to (JSON only: `{"type":"thread","thread":N}`).
    pub(crate) fn thread(&mut self, thread: i64) -> std::io::Result<()> {
        if self.json {
            writeln!(self.stdout, "{}", serde_json::json!({"type": "thread", "thread": thread}))?;
        }
        Ok(())
    }

    /// The plan, if it changed since last printed: a line per step, `[x]` done, `[>]` under way.
    fn print_plan(&mut self) -> std::io::Result<()> {
        use crate::model::tool::PlanStatus;
        let Some(items) = self.plan.take() else { return Ok(()) };
        let mut text = String::new();
        if self.text_open {
            text.push('\n');
        }
        text.push_str(crate::i18n::tr(self.lang, crate::i18n::Key::PlanHeading));
        text.push('\n');
        for item in &items {
            let mark = match item.status {
                PlanStatus::Completed => "[x]",
                PlanStatus::InProgress => "[>]",
                PlanStatus::Pending => "[ ]",
            };
            text.push_str(&format!("  {mark} {}\n", crate::model::ansi::for_terminal(&item.content)));
        }
        self.text_open = false;
        let text = self.named_text(&text);
        let mut out = self.stdout.lock();
        write!(out, "{text}")?;
        out.flush()
    }

    pub(crate) fn end(&mut self, end: &TurnEnd) -> std::io::Result<()> {
        if !self.json {
            self.print_plan()?;
        }
        let stop = match end {
            TurnEnd::EndTurn => "end_turn",
            TurnEnd::MaxTokens => "max_tokens",
            TurnEnd::MaxTurnRequests => "max_turn_requests",
            TurnEnd::Refusal => "refusal",
            TurnEnd::Cancelled => "cancelled",
            TurnEnd::Failed { .. } => "failed",
            TurnEnd::AgentExited => "agent_exited",
            TurnEnd::AuthRequired { .. } => "auth_required",
        };
        if self.json {
            let error = match end {
                TurnEnd::Failed { message } | TurnEnd::AuthRequired { message } => Some(message.as_str()),
                _ => None,
            };
            return self.line(serde_json::json!({"type": "end", "stop_reason": stop, "error": error}));
        }
        if !self.named || !self.at_line_start {
            writeln!(self.stdout.lock())?;
            self.at_line_start = true;
        }
        let words = crate::i18n::turn_end_text(self.lang, end);
        if !words.is_empty() {
            errln!("{words}");
        }
        Ok(())
    }
}
