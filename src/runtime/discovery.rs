//! Finding ACP agents already installed: known programs on `PATH`, and agent definitions in Zed's
//! settings (`agent_servers`) and JetBrains' `acp.json`. The settings view offers to add them.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::model::config_edit::NewAgent;
pub use crate::protocol::discovery::{FoundAgent, Source};

/// Known ACP programs: (program, arguments that start ACP mode, name).
const KNOWN: &[(&str, &[&str], &str)] = &[
    ("claude-agent-acp", &[], "Claude"),
    ("claude-code-acp", &[], "Claude"),
    ("codex-acp", &[], "Codex"),
    ("gemini", &["--acp"], "Gemini"),
    ("goose", &["acp"], "Goose"),
];

/// Every agent found, in the order: `PATH`, Zed, JetBrains.
pub fn discover(home: Option<&Path>, path_var: Option<&OsStr>) -> Vec<FoundAgent> {
    let mut found = Vec::new();
    if let Some(path_var) = path_var {
        let dirs: Vec<PathBuf> = std::env::split_paths(path_var).collect();
        for (program, args, name) in KNOWN {
            if let Some(full) = dirs.iter().map(|d| d.join(program)).find(|p| is_executable(p)) {
                let agent = NewAgent {
                    name: name.to_string(),
                    command: program.to_string(),
                    args: args.iter().map(|a| a.to_string()).collect(),
                    env: BTreeMap::new(),
                };
                // Two names for Claude's adapter: keep the first one found.
                if !found.iter().any(|f: &FoundAgent| f.agent.name == agent.name) {
                    found.push(FoundAgent { agent, source: Source::Path(full) });
                }
            }
        }
    }
    if let Some(home) = home {
        let zed = home.join(".config/zed/settings.json");
        for agent in agent_servers(&zed) {
            found.push(FoundAgent { agent, source: Source::Zed(zed.clone()) });
        }
        let jetbrains = home.join(".jetbrains/acp.json");
        for agent in agent_servers(&jetbrains) {
            found.push(FoundAgent { agent, source: Source::JetBrains(jetbrains.clone()) });
        }
    }
    found
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The `agent_servers` entries with a `command` in a JSON-with-comments file (Zed and JetBrains
/// share this shape). A missing or unreadable file has none.
fn agent_servers(path: &Path) -> Vec<NewAgent> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&strip_jsonc(&text)) else {
        tracing::info!("{} is not JSON that Sidekicks can read", path.display());
        return Vec::new();
    };
    let Some(servers) = json.get("agent_servers").and_then(|s| s.as_object()) else { return Vec::new() };
    servers
        .iter()
        .filter_map(|(name, def)| {
            let command = def.get("command")?.as_str()?.to_string();
            let strings = |v: Option<&serde_json::Value>| -> Vec<String> {
                v.and_then(|a| a.as_array())
                    .map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect())
                    .unwrap_or_default()
            };
            let env = def
                .get("env")
                .and_then(|e| e.as_object())
                .map(|e| e.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
                .unwrap_or_default();
            Some(NewAgent { name: name.clone(), command, args: strings(def.get("args")), env })
        })
        .collect()
}

/// JSON with `//` and `/* */` comments and trailing commas (as editors write it) → plain JSON.
pub fn strip_jsonc(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' && i + 1 < chars.len() {
                out.push(chars[i + 1]);
                i += 1;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
            continue;
        } else if c == ',' {
            // A comma followed only by blanks before `}` or `]` is a trailing comma.
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if !matches!(next, Some('}') | Some(']')) {
                out.push(c);
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn finds_programs_on_path_and_definitions_in_zed_and_jetbrains_settings() {
        let root = tempfile::tempdir().unwrap();
        let bin = root.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        for program in ["codex-acp", "gemini", "goose-not-it"] {
            let p = bin.join(program);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let home = root.path().join("home");
        std::fs::create_dir_all(home.join(".config/zed")).unwrap();
        std::fs::create_dir_all(home.join(".jetbrains")).unwrap();
        std::fs::write(
            home.join(".config/zed/settings.json"),
            r#"{
  // my Zed settings
  "theme": "One Dark", /* inline */
  "agent_servers": {
    "My Agent": { "command": "/opt/my-agent", "args": ["--acp", "http://x//y"], "env": { "TOKEN": "t" }, },
    "claude": { "default_mode": "plan" },
  },
}"#,
        )
        .unwrap();
        std::fs::write(home.join(".jetbrains/acp.json"), r#"{"agent_servers": {"Jet": {"command": "jet-acp"}}}"#)
            .unwrap();

        let found = discover(Some(&home), Some(bin.as_os_str()));
        let names: Vec<&str> = found.iter().map(|f| f.agent.name.as_str()).collect();
        assert_eq!(names, ["Codex", "Gemini", "My Agent", "Jet"]);
        assert_eq!(found[1].agent.args, ["--acp"]);
        assert_eq!(found[2].agent.args, ["--acp", "http://x//y"], "`//` inside a string is not a comment");
        assert_eq!(found[2].agent.env.get("TOKEN").map(String::as_str), Some("t"));
        assert!(matches!(found[3].source, Source::JetBrains(_)));
        assert!(discover(Some(root.path()), None).is_empty());
    }
}
