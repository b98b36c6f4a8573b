//! From the ACP schema to Sidekicks' own model types, and the agent's errors into its own words.

use agent_client_protocol::v1::schema::{
    ContentBlock, PermissionOptionKind, Plan, PlanEntryStatus, RequestPermissionRequest, SessionUpdate,
    ToolCall as AcpToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolKind as AcpToolKind,
};

use crate::model::conversation::Update;
use crate::model::permission::{OptionKind, PermissionOption, PermissionRequest};
use crate::model::tool::{FileDiff, PlanItem, PlanStatus, ToolCall, ToolCallPatch, ToolKind, ToolStatus};

/// The model update for a session update, or `None` for kinds not shown.
pub fn update(update: SessionUpdate) -> Option<Update> {
    match update {
        SessionUpdate::AgentMessageChunk(chunk) => super::content::incoming(chunk.content, false),
        SessionUpdate::AgentThoughtChunk(chunk) => super::content::incoming(chunk.content, true),
        SessionUpdate::ToolCall(call) => Some(Update::ToolCall(tool_call(call))),
        SessionUpdate::ToolCallUpdate(u) => Some(Update::ToolCallPatch(tool_patch(u))),
        SessionUpdate::Plan(plan) => Some(Update::Plan(plan_items(plan))),
        SessionUpdate::UsageUpdate(u) => Some(Update::Usage {
            used: u.used,
            size: u.size,
            cost: u.cost.map(|c| crate::model::conversation::Cost::new(c.amount, c.currency)),
        }),
        SessionUpdate::ConfigOptionUpdate(u) => Some(Update::Options(config_options(u.config_options))),
        SessionUpdate::CurrentModeUpdate(u) => Some(Update::Mode(u.current_mode_id.0.to_string())),
        SessionUpdate::SessionInfoUpdate(u) => match u.title {
            agent_client_protocol::schema::MaybeUndefined::Value(title) => Some(Update::Title(Some(title))),
            agent_client_protocol::schema::MaybeUndefined::Null => Some(Update::Title(None)),
            agent_client_protocol::schema::MaybeUndefined::Undefined => None,
        },
        // At most `MAX_COMMANDS` (ADR 0030): 100,000 of them froze the window when `/` was typed.
        SessionUpdate::AvailableCommandsUpdate(u) => Some(Update::Commands(
            u.available_commands
                .into_iter()
                .take(crate::model::session_config::MAX_COMMANDS)
                .map(|c| crate::model::session_config::SlashCommand {
                    name: c.name,
                    description: c.description,
                    hint: match c.input {
                        Some(agent_client_protocol::v1::schema::AvailableCommandInput::Unstructured(i)) => Some(i.hint),
                        _ => None,
                    },
                })
                .collect(),
        )),
        other => {
            tracing::debug!("session update not shown: {other:?}");
            None
        }
    }
}

fn text_of(block: ContentBlock) -> Option<String> {
    match block {
        ContentBlock::Text(t) => Some(t.text),
        ContentBlock::ResourceLink(link) => Some(format!("[{}]({})", link.name, link.uri)),
        _ => None,
    }
}

fn kind(kind: AcpToolKind) -> ToolKind {
    match kind {
        AcpToolKind::Read => ToolKind::Read,
        AcpToolKind::Edit => ToolKind::Edit,
        AcpToolKind::Delete => ToolKind::Delete,
        AcpToolKind::Move => ToolKind::Move,
        AcpToolKind::Search => ToolKind::Search,
        AcpToolKind::Execute => ToolKind::Execute,
        AcpToolKind::Think => ToolKind::Think,
        AcpToolKind::Fetch => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

fn status(status: ToolCallStatus) -> ToolStatus {
    match status {
        ToolCallStatus::Pending => ToolStatus::Pending,
        ToolCallStatus::InProgress => ToolStatus::InProgress,
        ToolCallStatus::Completed => ToolStatus::Completed,
        ToolCallStatus::Failed => ToolStatus::Failed,
        _ => ToolStatus::Pending,
    }
}

fn json(value: serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s,
        other => serde_json::to_string_pretty(&other).unwrap_or_default(),
    }
}

/// Text content, diffs and embedded terminals of a tool call's content list.
fn contents(items: Vec<ToolCallContent>) -> (Vec<String>, Vec<FileDiff>, Vec<String>) {
    let mut texts = Vec::new();
    let mut diffs = Vec::new();
    let mut terminals = Vec::new();
    for item in items {
        match item {
            ToolCallContent::Content(c) => texts.extend(text_of(c.content)),
            ToolCallContent::Diff(d) => {
                diffs.push(FileDiff { path: d.path.display().to_string(), old_text: d.old_text, new_text: d.new_text })
            }
            ToolCallContent::Terminal(t) => terminals.push(t.terminal_id.0.to_string()),
            _ => {}
        }
    }
    (texts, diffs, terminals)
}

/// A new tool call.
pub fn tool_call(call: AcpToolCall) -> ToolCall {
    let (content, diffs, terminals) = contents(call.content);
    ToolCall {
        id: call.tool_call_id.0.to_string(),
        title: call.title,
        kind: kind(call.kind),
        status: status(call.status),
        input: call.raw_input.map(json),
        output: call.raw_output.map(json),
        content,
        diffs,
        locations: call.locations.into_iter().map(|l| l.path.display().to_string()).collect(),
        terminals,
        answered: None,
        ran: Vec::new(),
    }
}

/// Changes to a tool call.
pub fn tool_patch(update: ToolCallUpdate) -> ToolCallPatch {
    let f = update.fields;
    let (content, diffs, terminals) = match f.content {
        Some(items) => {
            let (c, d, t) = contents(items);
            (Some(c), Some(d), Some(t))
        }
        None => (None, None, None),
    };
    ToolCallPatch {
        id: update.tool_call_id.0.to_string(),
        title: f.title,
        kind: f.kind.map(kind),
        status: f.status.map(status),
        input: f.raw_input.map(json),
        output: f.raw_output.map(json),
        content,
        diffs,
        locations: f.locations.map(|ls| ls.into_iter().map(|l| l.path.display().to_string()).collect()),
        terminals,
    }
}

fn plan_items(plan: Plan) -> Vec<PlanItem> {
    plan.entries
        .into_iter()
        .map(|e| PlanItem {
            content: e.content,
            status: match e.status {
                PlanEntryStatus::InProgress => PlanStatus::InProgress,
                PlanEntryStatus::Completed => PlanStatus::Completed,
                _ => PlanStatus::Pending,
            },
        })
        .collect()
}

/// A permission request with Sidekicks' id `id`.
pub fn permission_request(id: u64, request: RequestPermissionRequest) -> PermissionRequest {
    let options = request
        .options
        .into_iter()
        .map(|o| {
            let unknown = o.meta.as_ref().is_some_and(|m| m.contains_key(UNKNOWN_KIND));
            let kind = match o.kind {
                _ if unknown => OptionKind::Other,
                PermissionOptionKind::AllowOnce => OptionKind::AllowOnce,
                PermissionOptionKind::AllowAlways => OptionKind::AllowAlways,
                PermissionOptionKind::RejectOnce => OptionKind::RejectOnce,
                PermissionOptionKind::RejectAlways => OptionKind::RejectAlways,
                _ => OptionKind::Other,
            };
            PermissionOption { id: o.option_id.0.to_string(), kind, agent_label: o.name }
        })
        .collect();
    PermissionRequest { id, tool: ToolCall::from_patch(tool_patch(request.tool_call)), options }
}

/// Where the transport keeps the kind of a permission option it did not know (see
/// `known_option_kinds`): the option is shown by its name.
pub const UNKNOWN_KIND: &str = "sidekicks/unknownKind";

/// The option kinds this client knows.
const KNOWN_KINDS: [&str; 4] = ["allow_once", "allow_always", "reject_once", "reject_always"];

/// A permission request whose options include kinds this client does not know, rewritten so it
/// parses: each such option gets a known kind and the real one in its `_meta`. `None` when
/// `line` needs no change. (The SDK would otherwise refuse the whole request.)
pub fn known_option_kinds(line: &str) -> Option<String> {
    let mut message: serde_json::Value = serde_json::from_str(line).ok()?;
    if message.get("method")?.as_str()? != "session/request_permission" {
        return None;
    }
    let mut changed = false;
    for option in message.pointer_mut("/params/options")?.as_array_mut()? {
        let Some(kind) = option.get("kind").and_then(|k| k.as_str()).map(str::to_string) else { continue };
        if KNOWN_KINDS.contains(&kind.as_str()) {
            continue;
        }
        option["kind"] = "reject_once".into();
        let Some(object) = option.as_object_mut() else { continue };
        let meta = object.entry("_meta").or_insert_with(|| serde_json::json!({}));
        if !meta.is_object() {
            *meta = serde_json::json!({});
        }
        meta[UNKNOWN_KIND] = kind.into();
        changed = true;
    }
    changed.then(|| message.to_string())
}

/// The agent's own explanation of an error: `data.error`, `data.message` (or `data` itself when
/// it is a string), then the JSON-RPC `message`.
pub fn error_text(error: &agent_client_protocol::Error) -> String {
    let from_data = error.data.as_ref().and_then(|d| match d {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        serde_json::Value::Object(o) => ["error", "message", "details"].iter().find_map(|k| match o.get(*k) {
            Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            Some(serde_json::Value::Object(inner)) => inner.get("message").and_then(|m| m.as_str()).map(String::from),
            _ => None,
        }),
        _ => None,
    });
    from_data.unwrap_or_else(|| error.message.clone())
}

/// A session's options, as the window shows them.
pub fn config_options(
    options: Vec<agent_client_protocol::v1::schema::SessionConfigOption>,
) -> Vec<crate::model::session_config::ConfigOption> {
    use crate::model::session_config::{Category, Choice, ConfigOption, OptionKind};
    use agent_client_protocol::v1::schema::{
        SessionConfigKind, SessionConfigOptionCategory, SessionConfigSelectOptions,
    };
    let choice = |o: agent_client_protocol::v1::schema::SessionConfigSelectOption, group: Option<String>| Choice {
        value: o.value.0.to_string(),
        name: o.name,
        description: o.description,
        group,
    };
    options
        .into_iter()
        .filter_map(|o| {
            let kind = match o.kind {
                SessionConfigKind::Select(select) => OptionKind::Select {
                    current: select.current_value.0.to_string(),
                    choices: match select.options {
                        SessionConfigSelectOptions::Ungrouped(list) => {
                            list.into_iter().map(|c| choice(c, None)).collect()
                        }
                        SessionConfigSelectOptions::Grouped(groups) => groups
                            .into_iter()
                            .flat_map(|g| {
                                let name = g.name;
                                g.options.into_iter().map(move |c| choice(c, Some(name.clone())))
                            })
                            .collect(),
                        _ => Vec::new(),
                    },
                },
                SessionConfigKind::Boolean(b) => OptionKind::Boolean { current: b.current_value },
                _ => return None,
            };
            let category = o.category.map(|c| match c {
                SessionConfigOptionCategory::Mode => Category::Mode,
                SessionConfigOptionCategory::Model => Category::Model,
                SessionConfigOptionCategory::ModelConfig => Category::ModelConfig,
                SessionConfigOptionCategory::ThoughtLevel => Category::ThoughtLevel,
                SessionConfigOptionCategory::Other(name) => Category::Other(name),
                _ => Category::Other(String::new()),
            });
            Some(ConfigOption { id: o.id.0.to_string(), name: o.name, description: o.description, category, kind })
        })
        .collect()
}

/// A session's modes (older agents), as the window shows them.
pub fn modes(state: agent_client_protocol::v1::schema::SessionModeState) -> crate::model::session_config::Modes {
    crate::model::session_config::Modes {
        current: state.current_mode_id.0.to_string(),
        available: state
            .available_modes
            .into_iter()
            .map(|m| crate::model::session_config::Choice {
                value: m.id.0.to_string(),
                name: m.name,
                description: m.description,
                group: None,
            })
            .collect(),
    }
}

/// How a turn ended, from the agent's stop reason.
pub(super) fn stop_reason_end(
    reason: agent_client_protocol::v1::schema::StopReason,
) -> crate::model::conversation::TurnEnd {
    use crate::model::conversation::TurnEnd;
    use agent_client_protocol::v1::schema::StopReason;
    match reason {
        StopReason::EndTurn => TurnEnd::EndTurn,
        StopReason::MaxTokens => TurnEnd::MaxTokens,
        StopReason::MaxTurnRequests => TurnEnd::MaxTurnRequests,
        StopReason::Refusal => TurnEnd::Refusal,
        StopReason::Cancelled => TurnEnd::Cancelled,
        _ => TurnEnd::EndTurn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(message: &str, data: Option<serde_json::Value>) -> agent_client_protocol::Error {
        let mut e = agent_client_protocol::Error::internal_error();
        e.message = message.into();
        e.data = data;
        e
    }

    #[test]
    fn errors_read_as_the_agents_own_explanation() {
        let e = error("Internal error", Some(serde_json::json!({"error": "Rate limit reached, retry in 20 s"})));
        assert_eq!(error_text(&e), "Rate limit reached, retry in 20 s");
        let e = error("Internal error", Some(serde_json::json!({"message": "No API key"})));
        assert_eq!(error_text(&e), "No API key");
        let e = error("Internal error", Some(serde_json::json!("plain words")));
        assert_eq!(error_text(&e), "plain words");
        let e = error("Authentication required", Some(serde_json::json!({"code": 7})));
        assert_eq!(error_text(&e), "Authentication required");
        let e = error("Model overloaded", None);
        assert_eq!(error_text(&e), "Model overloaded");
    }
}
