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
