//! What the JSON Schema of the config (derived from the config types) says about a place in the
//! file: the keys a table accepts and the values an enumerated key takes. Used by the settings
//! editor for completion and hover, so the format is described once, by the types.

use std::sync::OnceLock;

use serde_json::Value;

use super::config::Config;

/// A key a table accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyDoc {
    /// The key.
    pub key: String,
    /// The schema's description (English; the UI may show its own words).
    pub description: String,
    /// The values it takes, when it is an enumeration.
    pub values: Vec<String>,
}

/// The schema of the config file.
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::to_value(schemars::schema_for!(Config)).expect("schema serializes"))
}

/// Follows `$ref`, a nullable `anyOf` and array `items` to the schema that describes values.
fn resolve(node: &Value) -> &Value {
    let root = schema();
    let mut node = node;
    for _ in 0..8 {
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let name = r.trim_start_matches("#/$defs/");
            node = &root["$defs"][name];
        } else if let Some(any) = node.get("anyOf").and_then(Value::as_array) {
            match any.iter().find(|n| n.get("type") != Some(&Value::from("null"))) {
                Some(n) => node = n,
                None => break,
            }
        } else if let Some(items) = node.get("items") {
            node = items;
        } else {
            break;
        }
    }
    node
}

/// The schema of the table at `path` (`[]` is the top, `["agent", "runtime"]` an agent's runtime).
fn table(path: &[&str]) -> Option<&'static Value> {
    let mut node = resolve(schema());
    for key in path {
        node = resolve(node.get("properties")?.get(*key)?);
    }
    node.get("properties").map(|_| node)
}

/// The keys of the table at `path`, with their description and values.
pub fn keys_at(path: &[&str]) -> Vec<KeyDoc> {
    let Some(props) = table(path).and_then(|t| t["properties"].as_object()) else { return Vec::new() };
    props
        .iter()
        .map(|(key, prop)| KeyDoc {
            key: key.clone(),
            description: prop.get("description").and_then(Value::as_str).unwrap_or_default().to_string(),
            values: enum_values(resolve(prop)),
        })
        .collect()
}

fn enum_values(node: &Value) -> Vec<String> {
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        return values.iter().filter_map(|v| v.as_str().map(String::from)).collect();
    }
    node.get("oneOf")
        .and_then(Value::as_array)
        .map(|variants| variants.iter().filter_map(|v| v.get("const")?.as_str().map(String::from)).collect())
        .unwrap_or_default()
}

/// The key documented at `path` + `key`, if the schema knows it.
pub fn key_doc(path: &[&str], key: &str) -> Option<KeyDoc> {
    keys_at(path).into_iter().find(|k| k.key == key)
}

/// Where the cursor at byte `offset` of `text` stands: the table path (from the last `[x]`,
/// `[[x]]` or `[x.y]` header above, and an inline `runtime = {` or `env = {` opened on the same
/// line before the cursor) and, if the cursor is in a value, the key it belongs to.
pub fn context_at(text: &str, offset: usize) -> (Vec<String>, Option<String>) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let mut path: Vec<String> = Vec::new();
    for line in before.lines() {
        let t = line.trim();
        if let Some(header) = t.strip_prefix("[[").and_then(|h| h.split("]]").next()) {
            path = header.split('.').map(|p| p.trim().to_string()).collect();
        } else if let Some(header) = t.strip_prefix('[').and_then(|h| h.split(']').next()) {
            path = header.split('.').map(|p| p.trim().to_string()).collect();
        }
    }
    let line = before.rsplit('\n').next().unwrap_or_default();
    // An inline table opened on this line: `runtime = { type = "…`.
    let value_key = match line.rsplit_once('{') {
        Some((head, rest)) if !rest.contains('}') => {
            if let Some(key) = head.trim_end().strip_suffix('=').map(str::trim) {
                path.push(key.to_string());
            }
            value_key_of(rest)
        }
        _ => value_key_of(line),
    };
    (path, value_key)
}

/// In `segment` (a line, or the inside of an inline table), the key whose value the cursor is in.
fn value_key_of(segment: &str) -> Option<String> {
    let last = segment.rsplit(',').next().unwrap_or(segment);
    let (key, _) = last.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty()).then(|| key.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values_come_from_the_schema() {
        let top: Vec<String> = keys_at(&[]).into_iter().map(|k| k.key).collect();
        assert_eq!(top, ["defaults", "agent", "channel", "mcp", "notifications", "checkpoints", "registry"]);
        assert_eq!(keys_at(&["agent", "registry"]).len(), 2);
        assert_eq!(key_doc(&["defaults"], "send_with").unwrap().values, ["enter", "ctrl+enter"]);
        assert_eq!(key_doc(&["defaults"], "theme").unwrap().values, ["system", "light", "dark"]);
        assert_eq!(keys_at(&["notifications"]).len(), 5);
        assert_eq!(keys_at(&["checkpoints"]).len(), 3);
        let runtime = keys_at(&["agent", "runtime"]);
        let kind = runtime.iter().find(|k| k.key == "type").unwrap();
        assert_eq!(kind.values, ["local", "container", "sbx", "podman", "kubectl", "ssh"]);
        assert_eq!(key_doc(&["defaults"], "language").unwrap().values, ["en", "fr"]);
        assert!(key_doc(&["agent"], "workspace").unwrap().description.contains("workspace folder"));
        assert!(key_doc(&["agent"], "nope").is_none());
    }

    #[test]
    fn the_context_follows_headers_and_inline_tables() {
        let text = "[defaults]\nidle_stop = 3\n\n[[agent]]\nname = \"a\"\nruntime = { type = \"co";
        assert_eq!(context_at(text, 24), (vec!["defaults".to_string()], Some("idle_stop".to_string())));
        assert_eq!(context_at(text, 14), (vec!["defaults".to_string()], None));
        let (path, key) = context_at(text, text.len());
        assert_eq!(path, ["agent", "runtime"]);
        assert_eq!(key.as_deref(), Some("type"));
        let (path, key) = context_at("[[agent]]\nna", 12);
        assert_eq!((path, key), (vec!["agent".to_string()], None));
        assert_eq!(context_at("[agent.runtime]\n", 16).0, ["agent", "runtime"]);
    }
}
