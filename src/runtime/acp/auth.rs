//! Reading an agent's ways to log in from its raw `initialize` answer. The SDK's v1 schema knows
//! only `agent` and `terminal` methods and reads an `env_var` method (codex's API key) as `agent`,
//! dropping its `vars`; the raw line keeps them. (`authenticate` with the method's id, once its
//! variables are set, is what such an agent expects.)

use crate::protocol::auth::{AuthKind, AuthMethod, AuthVar};

/// The `authMethods` of an `initialize` answer (a JSON-RPC response line); empty if none.
pub fn auth_methods(line: &str) -> Vec<AuthMethod> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else { return Vec::new() };
    let Some(methods) = value.pointer("/result/authMethods").and_then(|m| m.as_array()) else { return Vec::new() };
    methods.iter().filter_map(method).collect()
}

fn method(value: &serde_json::Value) -> Option<AuthMethod> {
    let text = |key: &str| value.get(key).and_then(|v| v.as_str()).map(String::from);
    let id = text("id")?;
    let kind = match value.get("type").and_then(|t| t.as_str()) {
        Some("env_var") => AuthKind::EnvVar {
            vars: value
                .get("vars")
                .and_then(|v| v.as_array())
                .map(|vars| vars.iter().filter_map(var).collect())
                .unwrap_or_default(),
        },
        Some("terminal") => AuthKind::Terminal {
            args: value
                .get("args")
                .and_then(|a| a.as_array())
                .map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect())
                .unwrap_or_default(),
            env: value
                .get("env")
                .and_then(|e| e.as_object())
                .map(|e| e.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
                .unwrap_or_default(),
        },
        _ => AuthKind::Agent,
    };
    Some(AuthMethod { name: text("name").unwrap_or_else(|| id.clone()), description: text("description"), id, kind })
}

fn var(value: &serde_json::Value) -> Option<AuthVar> {
    Some(AuthVar {
        name: value.get("name")?.as_str()?.to_string(),
        label: value.get("label").and_then(|l| l.as_str()).map(String::from),
        secret: value.get("secret").and_then(|s| s.as_bool()).unwrap_or(true),
        optional: value.get("optional").and_then(|o| o.as_bool()).unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_like_methods_keep_their_variables() {
        let line = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"authMethods":[
            {"id":"chatgpt","name":"Login with ChatGPT","description":"Use your ChatGPT login"},
            {"type":"env_var","id":"openai-api-key","name":"Use OPENAI_API_KEY","vars":[{"name":"OPENAI_API_KEY"}]},
            {"type":"terminal","id":"tui","name":"Log in in a terminal","args":["--login"],"env":{"MODE":"tui"}}]}}"#;
        let methods = auth_methods(line);
        assert_eq!(methods.len(), 3);
        assert_eq!(methods[0].kind, AuthKind::Agent);
        assert_eq!(methods[0].description.as_deref(), Some("Use your ChatGPT login"));
        let AuthKind::EnvVar { vars } = &methods[1].kind else { panic!("{:?}", methods[1]) };
        assert_eq!(vars[0].name, "OPENAI_API_KEY");
        assert!(vars[0].secret && !vars[0].optional);
        assert!(methods[1].satisfied_by(&|n| n == "OPENAI_API_KEY"));
        assert!(!methods[1].satisfied_by(&|_| false));
        assert_eq!(
            methods[2].kind,
            AuthKind::Terminal { args: vec!["--login".into()], env: vec![("MODE".into(), "tui".into())] }
        );
        assert!(auth_methods(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#).is_empty());
    }
}
