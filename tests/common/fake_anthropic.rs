//! A stand-in for Anthropic's Messages API on loopback, for Claude Code's ACP adapter run
//! offline: every `POST …/messages` is recorded and answered with a streamed message (SSE). A
//! request with tools whose person's last words hold a rule's words is answered, step by step,
//! with the rule's tool calls — one per answer, each after the result of the one before — then
//! with text; any other request (a title, a summary) with text. `{cwd}` in a call's input
//! is the working directory the request names. Served by `common::http`.

use std::sync::{Arc, Mutex};

use super::http::{self, Reply, Request};

/// The text every answer says.
pub const ANSWER: &str = "Hello from the fake Claude.";

/// Words to find in the person's last message, and the tool calls (name, input) to make in turn.
pub type Rule = (String, Vec<(String, serde_json::Value)>);

/// A running stand-in; it stops with the test process.
pub struct FakeAnthropic {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    bodies: Arc<Mutex<Vec<String>>>,
}

/// How the stand-in names its tool calls.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ids {
    /// `toolu_N` for the Nth call (steps counted by the ids of the results).
    Counted,
    /// `toolu_01` every time, as a careless model or stand-in does (steps counted as the results
    /// after the person's last words).
    Same,
}

impl FakeAnthropic {
    /// Starts it on a free port.
    pub fn with_rules(rules: Vec<Rule>) -> Self {
        Self::start(rules, Ids::Counted)
    }

    /// Starts it on a free port, naming its calls as `ids` says.
    pub fn start(rules: Vec<Rule>, ids: Ids) -> Self {
        let bodies: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = bodies.clone();
        // The calls made so far by this stand-in, by id (`toolu_N`: the Nth): the rule each was made for.
        let calls: Mutex<Vec<usize>> = Mutex::default();
        let base_url = http::serve(move |request| answer(request, &seen, &rules, &calls, ids));
        Self { base_url, bodies }
    }

    /// The bodies of the requests for messages so far.
    pub fn bodies(&self) -> Vec<String> {
        self.bodies.lock().unwrap().clone()
    }

    /// The `env = { … }` line of an agent entry running Claude Code's adapter against this
    /// stand-in, its settings in `claude_home` (made, with permissions asked through ACP rather
    /// than judged by a second model request as its "auto" mode does).
    pub fn agent_env(&self, claude_home: &std::path::Path) -> String {
        std::fs::create_dir_all(claude_home).unwrap();
        std::fs::write(claude_home.join("settings.json"), r#"{"permissions": {"defaultMode": "default"}}"#).unwrap();
        // IS_SANDBOX: Claude Code refuses to skip its prompts as root otherwise (CI runs as root).
        format!(
            "env = {{ ANTHROPIC_BASE_URL = {:?}, ANTHROPIC_API_KEY = \"sk-ant-test\", CLAUDE_CONFIG_DIR = {:?}, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = \"1\", DISABLE_AUTOUPDATER = \"1\", IS_SANDBOX = \"1\" }}\n",
            self.base_url,
            claude_home.display().to_string()
        )
    }
}

fn answer(request: Request, seen: &Mutex<Vec<String>>, rules: &[Rule], calls: &Mutex<Vec<usize>>, ids: Ids) -> Reply {
    if request.method == "POST" && request.path.contains("/count_tokens") {
        Reply::ok("application/json", r#"{"input_tokens":10}"#)
    } else if request.method == "POST" && request.path.contains("/messages") {
        seen.lock().unwrap().push(String::from_utf8_lossy(&request.body).into_owned());
        let request: serde_json::Value = serde_json::from_slice(&request.body).unwrap_or_default();
        Reply::ok("text/event-stream", sse(&request, next_call(&request, rules, calls, ids)))
    } else {
        Reply::ok("application/json", r#"{"data":[]}"#)
    }
}

/// The next tool call to make, with its id: the rule whose words the person's last words hold (in
/// a request offering tools), at the step after the results of the calls made for it. Claude Code
/// sends consecutive calls, their results and the person's next words as one message, results
/// first: steps are counted by the ids of the results, not by where they stand.
fn next_call(
    request: &serde_json::Value,
    rules: &[Rule],
    calls: &Mutex<Vec<usize>>,
    ids: Ids,
) -> Option<(String, String, serde_json::Value)> {
    if request["tools"].as_array().is_none_or(|t| t.is_empty()) {
        return None;
    }
    let blocks: Vec<(&serde_json::Value, &serde_json::Value)> = request["messages"]
        .as_array()?
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten().map(move |b| (&m["role"], b)))
        .collect();
    let rule_of = |text: &str| rules.iter().position(|(words, _)| text.contains(words.as_str()));
    let (at, rule) = blocks
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, (role, b))| *role == "user" && b["type"] == "text")
        .find_map(|(at, (_, b))| Some((at, rule_of(b["text"].as_str().unwrap_or_default())?)))?;
    let mut calls = calls.lock().unwrap();
    let results = blocks.iter().enumerate().filter(|(_, (_, b))| b["type"] == "tool_result");
    let step = match ids {
        Ids::Counted => results
            .filter_map(|(_, (_, b))| b["tool_use_id"].as_str()?.strip_prefix("toolu_")?.parse::<usize>().ok())
            .filter(|n| calls.get(*n) == Some(&rule))
            .count(),
        Ids::Same => results.filter(|(k, _)| *k > at).count(),
    };
    let (name, input) = rules[rule].1.get(step)?;
    let cwd = working_directory(request).unwrap_or_default();
    let input: serde_json::Value = serde_json::from_str(&input.to_string().replace("{cwd}", &cwd)).ok()?;
    let id = match ids {
        Ids::Counted => format!("toolu_{}", calls.len()),
        Ids::Same => "toolu_01".to_string(),
    };
    calls.push(rule);
    Some((id, name.clone(), input))
}

/// The working directory the request's environment names.
fn working_directory(request: &serde_json::Value) -> Option<String> {
    let text = request.to_string();
    let at = text.find("Primary working directory: ")? + "Primary working directory: ".len();
    let rest = &text[at..];
    let end = rest.find("\\n").unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

fn sse(request: &serde_json::Value, call: Option<(String, String, serde_json::Value)>) -> String {
    use serde_json::json;
    let model = request["model"].clone();
    let mut events = vec![json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})];
    let stop = match call {
        Some((id, name, input)) => {
            events.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use",
                "id": id, "name": name, "input": {}}}));
            events.push(json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}));
            "tool_use"
        }
        None => {
            events.push(
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            events.push(
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": ANSWER}}),
            );
            "end_turn"
        }
    };
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
        "usage": {"output_tokens": 5}}));
    events.push(json!({"type": "message_stop"}));
    events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect()
}
