//! Tool calls and plans as Sidekicks keeps them: the protocol's fields the UI shows, in plain
//! types (the runtime converts from the ACP schema).

/// What kind of work a tool call does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ToolKind {
    /// Reads files or data.
    Read,
    /// Changes files.
    Edit,
    /// Deletes files.
    Delete,
    /// Moves or renames files.
    Move,
    /// Searches.
    Search,
    /// Runs a command.
    Execute,
    /// Thinks (no side effect).
    Think,
    /// Fetches from the network.
    Fetch,
    /// Anything else.
    #[default]
    Other,
}

impl ToolKind {
    /// A stable name (for storage and rules).
    pub fn code(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Delete => "delete",
            ToolKind::Move => "move",
            ToolKind::Search => "search",
            ToolKind::Execute => "execute",
            ToolKind::Think => "think",
            ToolKind::Fetch => "fetch",
            ToolKind::Other => "other",
        }
    }

    /// The kind named `code` (unknown names are `Other`).
    pub fn from_code(code: &str) -> Self {
        [
            ToolKind::Read,
            ToolKind::Edit,
            ToolKind::Delete,
            ToolKind::Move,
            ToolKind::Search,
            ToolKind::Execute,
            ToolKind::Think,
            ToolKind::Fetch,
        ]
        .into_iter()
        .find(|k| k.code() == code)
        .unwrap_or_default()
    }
}

/// Where a tool call stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ToolStatus {
    /// Not started (input streaming or waiting for permission).
    #[default]
    Pending,
    /// Running.
    InProgress,
    /// Done.
    Completed,
    /// Failed.
    Failed,
    /// Ended by Stop or a cancelled turn before it finished (Sidekicks' own status).
    Cancelled,
}

/// A change to one file proposed or made by a tool call.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileDiff {
    /// The file.
    pub path: String,
    /// Its text before (`None` for a new file).
    pub old_text: Option<String>,
    /// Its text after.
    pub new_text: String,
}

/// A tool call of the agent.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolCall {
    /// The agent's id for it.
    pub id: String,
    /// What it does, in the agent's words.
    pub title: String,
    /// Its kind.
    pub kind: ToolKind,
    /// Where it stands.
    pub status: ToolStatus,
    /// Its input (JSON, pretty-printed), when the agent gives it.
    pub input: Option<String>,
    /// Its output (JSON or text), when the agent gives it.
    pub output: Option<String>,
    /// Text content the agent attached.
    pub content: Vec<String>,
    /// File changes.
    pub diffs: Vec<FileDiff>,
    /// Files it touches.
    pub locations: Vec<String>,
    /// Commands it runs through the client (ACP terminal ids): their output shows in the card.
    #[serde(default)]
    pub terminals: Vec<String>,
    /// How the person answered the agent's request to run it, once answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<Answered>,
    /// The commands of `terminals` that ended: their output and exit status, kept so the card
    /// shows them after a restart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ran: Vec<Ran>,
}

/// A command a tool call ran through the client, as it ended.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ran {
    /// The ACP terminal id.
    pub terminal: String,
    /// The end of its output (at most [`Ran::KEPT`] bytes, cut at a character), escapes included.
    pub output: String,
    /// Its exit code, if it exited.
    pub exit_code: Option<u32>,
    /// The signal that ended it, if one did.
    pub signal: Option<String>,
}

impl Ran {
    /// Output bytes kept with the conversation.
    pub const KEPT: usize = 64 * 1024;

    /// `terminal`'s run: the last [`Ran::KEPT`] bytes of `bytes` and how it ended.
    pub fn new(terminal: &str, bytes: &[u8], exit_code: Option<u32>, signal: Option<String>) -> Self {
        let mut start = bytes.len().saturating_sub(Self::KEPT);
        // Not inside a UTF-8 sequence.
        while start < bytes.len() && (bytes[start] & 0xC0) == 0x80 {
            start += 1;
        }
        let output = String::from_utf8_lossy(&bytes[start..]).into_owned();
        Self { terminal: terminal.to_string(), output, exit_code, signal }
    }
}

/// Changes to a tool call: each field present replaces the old one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolCallPatch {
    /// Which call.
    pub id: String,
    /// New title.
    pub title: Option<String>,
    /// New kind.
    pub kind: Option<ToolKind>,
    /// New status.
    pub status: Option<ToolStatus>,
    /// New input.
    pub input: Option<String>,
    /// New output.
    pub output: Option<String>,
    /// New text content.
    pub content: Option<Vec<String>>,
    /// New diffs.
    pub diffs: Option<Vec<FileDiff>>,
    /// New locations.
    pub locations: Option<Vec<String>>,
    /// New embedded terminals.
    pub terminals: Option<Vec<String>>,
}

impl ToolCall {
    /// Replaces the fields the patch carries.
    pub fn patch(&mut self, patch: ToolCallPatch) {
        if let Some(v) = patch.title {
            self.title = v;
        }
        if let Some(v) = patch.kind {
            self.kind = v;
        }
        if let Some(v) = patch.status {
            self.status = v;
        }
        if let Some(v) = patch.input {
            self.input = Some(v);
        }
        if let Some(v) = patch.output {
            self.output = Some(v);
        }
        if let Some(v) = patch.content {
            self.content = v;
        }
        if let Some(v) = patch.diffs {
            self.diffs = v;
        }
        if let Some(v) = patch.terminals {
            self.terminals = v;
        }
        if let Some(v) = patch.locations {
            self.locations = v;
        }
    }

    /// A call known only from a patch (its creation was never seen).
    pub fn from_patch(patch: ToolCallPatch) -> Self {
        let mut call = ToolCall { id: patch.id.clone(), ..Default::default() };
        call.patch(patch);
        call
    }

    /// The command line of an `execute` call, if its input names one (`command`, `cmd`, `argv`).
    pub fn command(&self) -> Option<String> {
        let input: serde_json::Value = serde_json::from_str(self.input.as_deref()?).ok()?;
        for key in ["command", "cmd"] {
            match input.get(key) {
                Some(serde_json::Value::String(s)) => return Some(s.clone()),
                Some(serde_json::Value::Array(a)) => return Some(join_argv(a)),
                _ => {}
            }
        }
        input.get("argv").and_then(|v| v.as_array()).map(|a| join_argv(a))
    }
}

/// A tool call's input as a person reads it: for an object, each field as `name` and value
/// (text as it is, a list of words joined, anything else as compact JSON); otherwise the whole
/// input as one value with no name.
pub fn readable_input(input: &str) -> Vec<(String, String)> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(input) else {
        return vec![(String::new(), input.to_string())];
    };
    let shown = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) if items.iter().all(serde_json::Value::is_string) => join_argv(items),
        other => other.to_string(),
    };
    match &value {
        serde_json::Value::Object(fields) => fields.iter().map(|(k, v)| (k.clone(), shown(v))).collect(),
        other => vec![(String::new(), shown(other))],
    }
}

/// `path` relative to `workspace` when it is inside it (as the person thinks of their files),
/// else as it is.
pub fn relative_to(path: &str, workspace: &std::path::Path) -> String {
    match std::path::Path::new(path).strip_prefix(workspace) {
        Ok(rest) if !rest.as_os_str().is_empty() => rest.display().to_string(),
        _ => path.to_string(),
    }
}

/// The title of `call` for a person: the agent's, with the workspace's folder left out of any
/// path it names (`Edit /home/me/project/src/a.rs` reads `Edit src/a.rs`).
pub fn human_title(call: &ToolCall, workspace: &std::path::Path) -> String {
    let prefix = format!("{}/", workspace.display());
    if workspace.as_os_str().is_empty() || prefix == "/" { call.title.clone() } else { call.title.replace(&prefix, "") }
}

fn join_argv(items: &[serde_json::Value]) -> String {
    items.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>().join(" ")
}

/// Where a plan item stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PlanStatus {
    /// Not started.
    #[default]
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// One item of the agent's plan.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlanItem {
    /// What it is.
    pub content: String,
    /// Where it stands.
    pub status: PlanStatus,
}

/// The kinds of answer an agent can offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OptionKind {
    /// Allow this time.
    AllowOnce,
    /// Allow this and the same request from now on.
    AllowAlways,
    /// Refuse this time.
    RejectOnce,
    /// Refuse this and the same request from now on.
    RejectAlways,
    /// A kind this client does not know: shown by the agent's label, never chosen for the person.
    Other,
}

/// How a request about a tool call was answered, kept with the call in the conversation (so the
/// line saying it stays after a restart).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Answered {
    /// One of the agent's options.
    Selected {
        /// Its kind.
        kind: OptionKind,
        /// The agent's label for it.
        label: String,
    },
    /// No answer: the turn was cancelled (or the agent stopped).
    Cancelled,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_titles_and_paths_read_as_a_person_reads_them() {
        let input = r#"{"command": ["cargo", "test"], "cwd": "/w/p", "timeout": 30, "env": {"A": "1"}}"#;
        let fields: Vec<(String, String)> = readable_input(input);
        let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        assert_eq!(fields.len(), 4);
        assert_eq!(field("command"), Some("cargo test"));
        assert_eq!(field("cwd"), Some("/w/p"));
        assert_eq!(field("timeout"), Some("30"));
        assert_eq!(field("env"), Some(r#"{"A":"1"}"#));
        assert_eq!(readable_input("not json"), [(String::new(), "not json".to_string())]);
        let ws = std::path::Path::new("/home/me/project");
        assert_eq!(relative_to("/home/me/project/src/a.rs", ws), "src/a.rs");
        assert_eq!(relative_to("/etc/hosts", ws), "/etc/hosts");
        assert_eq!(relative_to("/home/me/project", ws), "/home/me/project");
        let call = ToolCall { title: "Edit /home/me/project/src/a.rs".into(), ..Default::default() };
        assert_eq!(human_title(&call, ws), "Edit src/a.rs");
    }
}
