//! A stand-in for the OpenAI Responses endpoint on loopback, for published agents run offline:
//! every `POST …/responses` is recorded (its JSON body) and answered with a short SSE stream
//! ("Hello from the fake model."), or, when the person's last message holds a rule's words and
//! no tool has answered since, with a call of Codex's `apply_patch` tool carrying the rule's
//! patch (so the agent edits files as a real model would have it do); other requests get an
//! empty JSON list. Served by `common::http`.

use std::sync::{Arc, Mutex};

use super::http::{self, Reply, Request};

/// The text every answer says.
pub const ANSWER: &str = "Hello from the fake model.";

/// A running stand-in; it stops with the test process.
pub struct FakeModel {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    bodies: Arc<Mutex<Vec<String>>>,
}

/// Words to find in the person's last message, and the patch the model then asks to apply.
pub type Rule = (String, String);

impl FakeModel {
    /// Starts it on a free port.
    pub fn start() -> Self {
        Self::with_rules(Vec::new())
    }

    /// Starts it on a free port, asking for the patch of the first rule whose words the
    /// person's last message holds.
    pub fn with_rules(rules: Vec<Rule>) -> Self {
        let bodies: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = bodies.clone();
        let base_url = format!("{}/v1", http::serve(move |request| answer(request, &seen, &rules)));
        Self { base_url, bodies }
    }

    /// The bodies of the requests for responses so far.
    pub fn bodies(&self) -> Vec<String> {
        self.bodies.lock().unwrap().clone()
    }
}

fn answer(request: Request, seen: &Mutex<Vec<String>>, rules: &[Rule]) -> Reply {
    if request.method == "POST" && request.path.contains("/responses") {
        seen.lock().unwrap().push(String::from_utf8_lossy(&request.body).into_owned());
        let request: serde_json::Value = serde_json::from_slice(&request.body).unwrap_or_default();
        Reply::ok("text/event-stream", sse(patch_for(&request, rules)))
    } else {
        Reply::ok("application/json", r#"{"data":[],"models":[]}"#)
    }
}

/// The patch to ask for: the first rule whose words the last message of the person holds, when
/// no tool has answered since it.
fn patch_for<'a>(request: &serde_json::Value, rules: &'a [Rule]) -> Option<&'a str> {
    let input = request["input"].as_array()?;
    let last = input.iter().rposition(|i| i["type"] == "message" && i["role"] == "user")?;
    if input[last..].iter().any(|i| i["type"].as_str().is_some_and(|t| t.ends_with("_output"))) {
        return None;
    }
    let said = input[last]["content"].to_string();
    rules.iter().find(|(words, _)| said.contains(words.as_str())).map(|(_, patch)| patch.as_str())
}

fn sse(patch: Option<&str>) -> String {
    let message = serde_json::json!({"type": "message", "role": "assistant", "id": "msg_1",
        "content": [{"type": "output_text", "text": ANSWER}]});
    let said = match patch {
        Some(patch) => vec![serde_json::json!({"type": "response.output_item.done", "output_index": 0,
            "item": {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "apply_patch",
                "input": patch}})],
        None => vec![
            serde_json::json!({"type": "response.output_item.added", "output_index": 0,
                "item": {"type": "message", "role": "assistant", "id": "msg_1", "content": []}}),
            serde_json::json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
                "content_index": 0, "delta": ANSWER}),
            serde_json::json!({"type": "response.output_item.done", "output_index": 0, "item": message}),
        ],
    };
    let events = std::iter::once(serde_json::json!({"type": "response.created", "response": {"id": "resp_1"}}))
        .chain(said)
        .chain(std::iter::once(serde_json::json!({"type": "response.completed", "response": {"id": "resp_1",
            "usage": {"input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
            "output_tokens_details": null, "total_tokens": 15}}})));
    events.map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect()
}
