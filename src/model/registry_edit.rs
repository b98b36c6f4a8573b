//! Config edits for agents from the ACP Registry, keeping the person's comments and layout
//! (`toml_edit`): add one marked `registry = { id, version }`, point one at a newer version, remove one.

use std::collections::BTreeMap;
use std::path::Path;

use toml_edit::{DocumentMut, InlineTable, Item, Table, Value, value};

use super::config_edit::{EditError, NewAgent, add_agent};
use super::registry::Installed;

/// `text` with `agent` added (as `add_agent` does: a unique name, `workspace`) and marked as
/// `installed`; and the name it got.
pub fn add_installed(
    text: &str,
    agent: &NewAgent,
    workspace: &Path,
    installed: &Installed,
) -> Result<(String, String), EditError> {
    let added = add_agent(text, agent, workspace)?;
    let mut doc: DocumentMut = added.parse()?;
    let table = doc
        .get_mut("agent")
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|a| a.iter_mut().last())
        .ok_or(EditError::NotAgents)?;
    let name = table.get("name").and_then(Item::as_str).unwrap_or(&agent.name).to_string();
    table.insert("registry", value(marker(installed)));
    Ok((doc.to_string(), name))
}

/// `text` with agent `name` running `command args` of `installed` (a newer version): its command
/// and arguments replaced, the registry's environment variables set (the person's others kept),
/// its mark updated; its name, workspace and every other setting kept.
pub fn update_installed(
    text: &str,
    name: &str,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    installed: &Installed,
) -> Result<String, EditError> {
    let mut doc: DocumentMut = text.parse()?;
    let table = agent_table(&mut doc, name)?;
    table.insert("command", value(command));
    if args.is_empty() {
        table.remove("args");
    } else {
        table.insert("args", value(args.iter().collect::<toml_edit::Array>()));
    }
    if !env.is_empty() {
        let item = table.entry("env").or_insert_with(|| value(InlineTable::new()));
        match item {
            Item::Value(Value::InlineTable(t)) => {
                for (k, v) in env {
                    t.insert(k, v.into());
                }
            }
            Item::Table(t) => {
                for (k, v) in env {
                    t.insert(k, value(v));
                }
            }
            _ => return Err(EditError::Missing("env table")),
        }
    }
    table.insert("registry", value(marker(installed)));
    Ok(doc.to_string())
}

/// `text` without agent `name`.
pub fn remove_agent(text: &str, name: &str) -> Result<String, EditError> {
    let mut doc: DocumentMut = text.parse()?;
    let agents = doc.get_mut("agent").and_then(Item::as_array_of_tables_mut).ok_or(EditError::NotAgents)?;
    let at = agents
        .iter()
        .position(|t| t.get("name").and_then(Item::as_str) == Some(name))
        .ok_or_else(|| EditError::NoAgent(name.to_string()))?;
    agents.remove(at);
    if agents.is_empty() {
        doc.remove("agent");
    }
    Ok(doc.to_string())
}

fn agent_table<'d>(doc: &'d mut DocumentMut, name: &str) -> Result<&'d mut Table, EditError> {
    doc.get_mut("agent")
        .and_then(Item::as_array_of_tables_mut)
        .ok_or(EditError::NotAgents)?
        .iter_mut()
        .find(|t| t.get("name").and_then(Item::as_str) == Some(name))
        .ok_or_else(|| EditError::NoAgent(name.to_string()))
}

fn marker(installed: &Installed) -> InlineTable {
    let mut t = InlineTable::new();
    t.insert("id", installed.id.as_str().into());
    t.insert("version", installed.version.as_str().into());
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installed(version: &str) -> Installed {
        Installed { id: "gemini".into(), version: version.into() }
    }

    /// Added with its mark, updated in place (name, workspace, the person's env and comments kept),
    /// removed without touching the others.
    #[test]
    fn an_installed_agent_is_added_updated_and_removed_keeping_the_rest() {
        let text = "# mine\n[[agent]]\nname = \"Gemini CLI\" # the first\ncommand = \"x\"\nworkspace = \"/w\"\n";
        let agent = NewAgent {
            name: "Gemini CLI".into(),
            command: "npx".into(),
            args: vec!["--yes".into(), "@google/gemini-cli@0.27.3".into(), "--experimental-acp".into()],
            env: BTreeMap::new(),
        };
        let (added, name) = add_installed(text, &agent, Path::new("/ws"), &installed("0.27.3")).unwrap();
        assert_eq!(name, "Gemini CLI 2");
        assert!(added.starts_with(text), "{added}");
        let parsed: toml::Table = toml::from_str(&added).unwrap();
        assert_eq!(parsed["agent"][1]["registry"]["version"].as_str(), Some("0.27.3"));

        let with_env = added.replace("workspace = \"/ws\"", "workspace = \"/ws\"\nenv = { MINE = \"1\" } # keep");
        let new_args = vec!["--yes".to_string(), "@google/gemini-cli@0.28.0".to_string()];
        let env: BTreeMap<String, String> = [("FROM_REGISTRY".to_string(), "y".to_string())].into();
        let updated = update_installed(&with_env, &name, "npx", &new_args, &env, &installed("0.28.0")).unwrap();
        assert!(updated.contains("# keep") && updated.contains("# the first"), "{updated}");
        let parsed: toml::Table = toml::from_str(&updated).unwrap();
        let a = &parsed["agent"][1];
        assert_eq!(a["name"].as_str(), Some("Gemini CLI 2"));
        assert_eq!(a["workspace"].as_str(), Some("/ws"));
        assert_eq!(a["args"][1].as_str(), Some("@google/gemini-cli@0.28.0"));
        assert_eq!(a["args"].as_array().unwrap().len(), 2);
        assert_eq!((a["env"]["MINE"].as_str(), a["env"]["FROM_REGISTRY"].as_str()), (Some("1"), Some("y")));
        assert_eq!(a["registry"]["version"].as_str(), Some("0.28.0"));

        let removed = remove_agent(&updated, &name).unwrap();
        assert!(removed.starts_with(text.trim_end()), "{removed}");
        let parsed: toml::Table = toml::from_str(&removed).unwrap();
        assert_eq!(parsed["agent"].as_array().unwrap().len(), 1);
        assert!(matches!(remove_agent(&removed, "nobody"), Err(EditError::NoAgent(_))));
        assert!(matches!(
            update_installed(&removed, "nobody", "x", &[], &env, &installed("1")),
            Err(EditError::NoAgent(_))
        ));
    }
}
