//! Permission requests in plain terms: what the agent wants to do, whether a command may destroy
//! data, the options it offers, and the key under which "always"/"never" answers are remembered.

pub use super::command_dangers::dangers;
// (The kinds of option and how a call's request was answered are the tool call's: `tool.rs`
// keeps them with the call, and needs nothing of this file.)
pub use super::tool::{Answered, OptionKind};
use super::tool::{ToolCall, ToolKind};

impl OptionKind {
    /// The order the card shows them in.
    pub const ORDER: [OptionKind; 4] =
        [OptionKind::AllowOnce, OptionKind::AllowAlways, OptionKind::RejectAlways, OptionKind::RejectOnce];

    /// The remembered decision this option makes, if any.
    pub fn remembered(self) -> Option<Decision> {
        match self {
            OptionKind::AllowAlways => Some(Decision::Allow),
            OptionKind::RejectAlways => Some(Decision::Reject),
            _ => None,
        }
    }
}

/// One option the agent offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionOption {
    /// The agent's id for it (sent back as the answer).
    pub id: String,
    /// Its kind (the card uses our own label for it).
    pub kind: OptionKind,
    /// The agent's own label.
    pub agent_label: String,
}

/// A request of the agent waiting for the person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionRequest {
    /// Sidekicks' id for it (unique per agent process).
    pub id: u64,
    /// The tool call it is about.
    pub tool: ToolCall,
    /// The options offered.
    pub options: Vec<PermissionOption>,
}

impl PermissionRequest {
    /// The first option of `kind`.
    pub fn option(&self, kind: OptionKind) -> Option<&PermissionOption> {
        self.options.iter().find(|o| o.kind == kind)
    }
}

/// The answer to a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// One of the agent's options.
    Selected {
        /// The option chosen.
        option_id: String,
        /// What kind it is.
        kind: OptionKind,
    },
    /// No answer: the turn was cancelled (or the agent stopped).
    Cancelled,
}

impl Answered {
    /// The answer `answer` to `request`, as kept.
    pub fn of(request: &PermissionRequest, answer: &PermissionAnswer) -> Self {
        match answer {
            PermissionAnswer::Selected { option_id, kind } => {
                let label = request.options.iter().find(|o| &o.id == option_id).map_or(option_id, |o| &o.agent_label);
                Answered::Selected { kind: *kind, label: label.clone() }
            }
            PermissionAnswer::Cancelled => Answered::Cancelled,
        }
    }
}

/// How a door with no person at it (`sidekicks prompt`, `sidekicks team prompt`, a merge's
/// conflict turn: `--allow`) has permission requests answered. The runtime answers them, so the
/// same words mean the same thing at every door (ADR 0030, issue 45).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unattended {
    /// Allow each request once.
    Once,
    /// Allow, and remember it (only where the request names its exact target).
    Always,
    /// Refuse: nothing is written or run without a yes (the default).
    Reject,
}

impl Unattended {
    /// The option kinds that carry out this answer, best first.
    pub fn option_kinds(self) -> &'static [OptionKind] {
        match self {
            Unattended::Once => &[OptionKind::AllowOnce, OptionKind::AllowAlways],
            Unattended::Always => &[OptionKind::AllowAlways, OptionKind::AllowOnce],
            Unattended::Reject => &[OptionKind::RejectOnce, OptionKind::RejectAlways],
        }
    }
}

/// A remembered decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decision {
    /// Approve without asking.
    Allow,
    /// Refuse without asking.
    Reject,
}

impl Decision {
    /// The option kinds that carry out this decision, best first.
    pub fn option_kinds(self) -> [OptionKind; 2] {
        match self {
            Decision::Allow => [OptionKind::AllowAlways, OptionKind::AllowOnce],
            Decision::Reject => [OptionKind::RejectAlways, OptionKind::RejectOnce],
        }
    }
}

/// What the agent wants, in terms the card puts into words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Run a command; `dangers` lists what in it may destroy data.
    RunCommand {
        /// The command.
        command: String,
        /// What makes it dangerous.
        dangers: Vec<String>,
    },
    /// Change a file.
    EditFile {
        /// The path it is about.
        path: String,
        /// How many lines the write puts in it, when its input says.
        lines: Option<usize>,
    },
    /// Delete a file.
    DeleteFile {
        /// The path it is about.
        path: String,
    },
    /// Move a file.
    MoveFile {
        /// The path it is about.
        path: String,
    },
    /// Read a file.
    ReadFile {
        /// The path it is about.
        path: String,
    },
    /// Fetch something from the network.
    Fetch {
        /// What it is about.
        what: String,
    },
    /// Anything else (the agent's title).
    Other {
        /// The title.
        title: String,
    },
}

/// The keys of a tool's raw input that name the file it is about, by agents seen (ACP's own
/// `fs/*` use `path`; Claude Code `file_path`; others `filePath`, `filename`, `target_file`).
const PATH_KEYS: &[&str] = &["path", "file_path", "filePath", "filename", "file", "target_file", "abs_path"];
/// The keys of a raw input that hold the text a write puts in the file.
const CONTENT_KEYS: &[&str] = &["content", "text", "new_content", "contents"];

/// The raw input of `tool` as JSON, when it is an object.
fn input_object(tool: &ToolCall) -> Option<serde_json::Map<String, serde_json::Value>> {
    match serde_json::from_str(tool.input.as_deref()?).ok()? {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The file `tool` is about, from what the agent said exactly: its diffs, its locations, or a
/// path in its raw input — never its title.
fn known_path(tool: &ToolCall) -> Option<String> {
    let from_input = || {
        let input = input_object(tool)?;
        PATH_KEYS.iter().find_map(|k| input.get(*k)?.as_str().map(str::to_string))
    };
    tool.diffs
        .first()
        .map(|d| d.path.clone())
        .or_else(|| tool.locations.first().cloned())
        .or_else(from_input)
        .filter(|p| !p.trim().is_empty())
}

/// The number of lines a write puts in its file, when its raw input holds the text.
fn written_lines(tool: &ToolCall) -> Option<usize> {
    let input = input_object(tool)?;
    let text = CONTENT_KEYS.iter().find_map(|k| input.get(*k)?.as_str().map(str::to_string))?;
    Some(text.lines().count())
}

/// The command `tool` runs, from its raw input (never its title).
fn known_command(tool: &ToolCall) -> Option<String> {
    tool.command().filter(|c| !c.trim().is_empty())
}

/// What `tool` asks for. A command or a file is named only as the agent gave it (raw input,
/// diffs, locations); when it gave neither, the card shows the agent's own title.
pub fn ask(tool: &ToolCall) -> Ask {
    let other = || Ask::Other {
        title: if tool.title.trim().is_empty() { tool.kind.code().to_string() } else { tool.title.clone() },
    };
    if let Some(command) = known_command(tool).filter(|_| matches!(tool.kind, ToolKind::Execute | ToolKind::Other)) {
        let dangers = dangers(&command);
        return Ask::RunCommand { command, dangers };
    }
    let path = known_path(tool);
    match (tool.kind, path) {
        (ToolKind::Execute, _) => match tool.title.trim() {
            // An execute call whose input names no command: its title is all there is.
            "" => other(),
            title => Ask::RunCommand { command: title.to_string(), dangers: dangers(title) },
        },
        (ToolKind::Edit, Some(path)) => Ask::EditFile { path, lines: written_lines(tool) },
        (ToolKind::Delete, Some(path)) => Ask::DeleteFile { path },
        (ToolKind::Move, Some(path)) => Ask::MoveFile { path },
        (ToolKind::Read, Some(path)) => Ask::ReadFile { path },
        (ToolKind::Fetch, _) => Ask::Fetch { what: fetched(tool).unwrap_or_else(|| tool.title.clone()) },
        (_, Some(path)) if !tool.diffs.is_empty() => Ask::EditFile { path, lines: written_lines(tool) },
        _ => other(),
    }
}

/// What a fetch is about, from its raw input (`url`, `query`).
fn fetched(tool: &ToolCall) -> Option<String> {
    let input = input_object(tool)?;
    ["url", "uri", "query"].iter().find_map(|k| input.get(*k)?.as_str().map(str::to_string)).filter(|s| !s.is_empty())
}

/// The key under which an always/never answer to `tool` is remembered: its kind and its exact
/// target — the command line, the file, the address — as the agent gave them. `None` when the
/// target is not known exactly (a bare title, an empty request): such a request is never
/// remembered (an "always" is taken as "once"), since a key without its target would approve
/// whatever else the agent asks under the same title.
pub fn rule_key(tool: &ToolCall) -> Option<String> {
    let (kind, target) = match tool.kind {
        ToolKind::Execute | ToolKind::Other if known_command(tool).is_some() => ("execute", known_command(tool)?),
        ToolKind::Execute => return None,
        ToolKind::Edit | ToolKind::Delete | ToolKind::Move | ToolKind::Read => (tool.kind.code(), known_path(tool)?),
        ToolKind::Fetch => ("fetch", fetched(tool)?),
        _ if !tool.diffs.is_empty() => ("edit", known_path(tool)?),
        _ => return None,
    };
    let target = target.trim();
    (!target.is_empty()).then(|| format!("{kind}:{target}"))
}

/// False for a remembered key that an earlier Sidekicks made from a bare title or nothing (kind
/// `other`, an empty target, or a file kind whose target is a single word with no `/` or `.`,
/// such as `edit:write_text_file`): it could approve actions nobody saw, and is dropped.
pub fn rule_key_is_exact(key: &str) -> bool {
    let Some((kind, target)) = key.split_once(':') else { return false };
    let target = target.trim();
    match kind {
        _ if target.is_empty() => false,
        "execute" => true,
        "fetch" => target.contains("://") || !target.contains(' '),
        "edit" | "delete" | "move" | "read" => target.contains('/') || target.contains('.'),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ask_and_rule_key_from_a_tool_call() {
        let tool = ToolCall {
            id: "1".into(),
            title: "Run rm".into(),
            kind: ToolKind::Execute,
            input: Some(r#"{"command": "rm -rf target"}"#.into()),
            ..Default::default()
        };
        assert_eq!(ask(&tool), Ask::RunCommand { command: "rm -rf target".into(), dangers: vec!["rm".into()] });
        assert_eq!(rule_key(&tool).as_deref(), Some("execute:rm -rf target"));
        let edit = ToolCall {
            kind: ToolKind::Edit,
            diffs: vec![super::super::tool::FileDiff { path: "src/a.rs".into(), old_text: None, new_text: "x".into() }],
            ..Default::default()
        };
        assert_eq!(ask(&edit), Ask::EditFile { path: "src/a.rs".into(), lines: None });
    }

    #[test]
    fn a_request_that_names_no_target_is_never_remembered() {
        // mistral-vibe's request by id alone, before the call it names is merged in.
        let bare = ToolCall { id: "call-1".into(), ..Default::default() };
        assert_eq!(rule_key(&bare), None);
        assert_eq!(ask(&bare), Ask::Other { title: "other".into() });
        // fast-agent's write: kind edit, the tool's name as title, the path only in raw input.
        let write = ToolCall {
            title: "write_text_file".into(),
            kind: ToolKind::Edit,
            input: Some(r#"{"path": "notes/b.txt", "content": "1\n2\n3\n"}"#.into()),
            ..Default::default()
        };
        assert_eq!(rule_key(&write).as_deref(), Some("edit:notes/b.txt"));
        assert_eq!(ask(&write), Ask::EditFile { path: "notes/b.txt".into(), lines: Some(3) });
        let other_file = ToolCall { input: Some(r#"{"path": "notes/c.txt"}"#.into()), ..write.clone() };
        assert_ne!(rule_key(&write), rule_key(&other_file), "always for one file never covers another");
        // An edit with no path at all: its title is shown, no key.
        let titled = ToolCall { title: "Save written.txt".into(), kind: ToolKind::Edit, ..Default::default() };
        assert_eq!(rule_key(&titled), None);
        assert_eq!(ask(&titled), Ask::Other { title: "Save written.txt".into() });
        // Kind other with a command in its raw input: a command, with its dangers.
        let command = ToolCall { input: Some(r#"{"command": "rm -rf /tmp/x"}"#.into()), ..Default::default() };
        assert_eq!(ask(&command), Ask::RunCommand { command: "rm -rf /tmp/x".into(), dangers: vec!["rm".into()] });
        assert_eq!(rule_key(&command).as_deref(), Some("execute:rm -rf /tmp/x"));
        // An execute call whose input names no command is shown by its title but never kept.
        let titled_run = ToolCall { title: "Run tests".into(), kind: ToolKind::Execute, ..Default::default() };
        assert_eq!(rule_key(&titled_run), None);
    }

    #[test]
    fn keys_made_from_titles_are_told_apart() {
        assert!(rule_key_is_exact("execute:touch first.txt"));
        assert!(rule_key_is_exact("edit:notes/b.txt"));
        assert!(rule_key_is_exact("edit:README.md"));
        assert!(!rule_key_is_exact("other:"));
        assert!(!rule_key_is_exact("other:Run something"));
        assert!(!rule_key_is_exact("edit:write_text_file"));
        assert!(!rule_key_is_exact("execute:"));
        assert!(!rule_key_is_exact("nonsense"));
    }
}
