//! Changes to the config text that keep the person's comments and layout (`toml_edit`).

use std::collections::BTreeMap;
use std::path::Path;

use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, value};

/// An agent to add to the config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewAgent {
    /// Its name (made unique if taken).
    pub name: String,
    /// Its program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its environment.
    pub env: BTreeMap<String, String>,
}

/// Why an edit could not be made.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The current text does not parse as TOML.
    #[error("the config file is not valid TOML: {0}")]
    Parse(#[from] toml_edit::TomlError),
    /// `agent` is not a list of tables.
    #[error("`agent` in the config file is not a list of [[agent]] tables")]
    NotAgents,
    /// `defaults` is not a table.
    #[error("`defaults` in the config file is not a [defaults] table")]
    NotDefaults,
    /// Another agent has that name.
    #[error("an agent named \"{0}\" is already in the config file")]
    NameTaken(String),
    /// The agent edited is no longer in the text.
    #[error("no agent named \"{0}\" in the config file (changed meanwhile?)")]
    NoAgent(String),
    /// A field the agent needs is empty.
    #[error("the agent's {0} is empty")]
    Missing(&'static str),
}

/// `text` with `agent` appended as a new `[[agent]]` working in `workspace`. The name is made
/// unique ("codex", "codex 2", …); everything else in the text stays as it was.
pub fn add_agent(text: &str, agent: &NewAgent, workspace: &Path) -> Result<String, EditError> {
    let mut doc: DocumentMut = text.parse()?;
    let name = unique(&doc, &agent.name);
    let mut table = Table::new();
    table.insert("name", value(name));
    table.insert("command", value(agent.command.clone()));
    if !agent.args.is_empty() {
        table.insert("args", value(agent.args.iter().collect::<Array>()));
    }
    table.insert("workspace", value(workspace.display().to_string()));
    if !agent.env.is_empty() {
        let mut env = toml_edit::InlineTable::new();
        for (k, v) in &agent.env {
            env.insert(k, v.into());
        }
        table.insert("env", value(env));
    }
    match doc.entry("agent").or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new())) {
        Item::ArrayOfTables(agents) => agents.push(table),
        _ => return Err(EditError::NotAgents),
    }
    Ok(doc.to_string())
}

/// `text` with `[defaults] key = value` (the table made when missing; an empty value takes the
/// key out); everything else stays.
pub fn set_default(text: &str, key: &str, v: &str) -> Result<String, EditError> {
    let mut doc: DocumentMut = text.parse()?;
    let defaults = doc.entry("defaults").or_insert_with(|| Item::Table(Table::new()));
    let Some(table) = defaults.as_table_like_mut() else { return Err(EditError::NotDefaults) };
    if v.is_empty() {
        table.remove(key);
        return Ok(doc.to_string());
    }
    match table.get_mut(key) {
        Some(Item::Value(old)) => {
            let decor = old.decor().clone();
            *old = v.into();
            *old.decor_mut() = decor;
        }
        _ => {
            table.insert(key, value(v));
        }
    }
    Ok(doc.to_string())
}

/// The name `add_agent` gives an agent called `wanted` in `text`: `wanted`, or "wanted 2", … when
/// taken (its default workspace is named after it).
pub fn unique_name(text: &str, wanted: &str) -> Result<String, EditError> {
    Ok(unique(&text.parse()?, wanted))
}

fn unique(doc: &DocumentMut, wanted: &str) -> String {
    let taken: Vec<&str> = doc
        .get("agent")
        .and_then(Item::as_array_of_tables)
        .map(|a| a.iter().filter_map(|t| t.get("name")?.as_str()).collect())
        .unwrap_or_default();
    let mut name = wanted.to_string();
    let mut n = 2;
    while taken.contains(&name.as_str()) {
        name = format!("{wanted} {n}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unique_name_is_the_one_the_agent_gets() {
        let text = "[[agent]]\nname = \"codex\"\ncommand = \"codex\"\nworkspace = \".\"\n";
        assert_eq!(unique_name(text, "codex").unwrap(), "codex 2");
        assert_eq!(unique_name(text, "gemini").unwrap(), "gemini");
        let agent = NewAgent { name: "codex".into(), command: "c".into(), args: vec![], env: Default::default() };
        let added = add_agent(text, &agent, Path::new("w")).unwrap();
        assert!(added.contains("name = \"codex 2\""), "{added}");
        assert!(unique_name("not = [toml", "x").is_err());
    }

    #[test]
    fn an_agent_is_appended_keeping_comments_and_layout() {
        let text = "# my settings\n[defaults]\nidle_stop = 60   # one minute\n\n[[agent]]\nname = \"codex\" # first\ncommand = \"x\"\nworkspace = \"/w\"\n";
        let agent = NewAgent { name: "codex".into(), command: "codex-acp".into(), args: vec![], env: BTreeMap::new() };
        let out = add_agent(text, &agent, Path::new("/home/me")).unwrap();
        assert!(out.starts_with(text), "the existing text is kept as it was:\n{out}");
        assert!(out.contains("name = \"codex 2\""), "{out}");
        let parsed: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(parsed["agent"].as_array().unwrap().len(), 2);
        let gemini = NewAgent {
            name: "gemini".into(),
            command: "gemini".into(),
            args: vec!["--acp".into()],
            env: [("GEMINI_KEY".to_string(), "x".to_string())].into(),
        };
        let out = add_agent("", &gemini, Path::new("/w")).unwrap();
        let parsed: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(parsed["agent"][0]["args"][0].as_str(), Some("--acp"));
        assert_eq!(parsed["agent"][0]["env"]["GEMINI_KEY"].as_str(), Some("x"));
        assert!(add_agent("agent = 3", &gemini, Path::new("/w")).is_err());
        assert!(add_agent("= =", &gemini, Path::new("/w")).is_err());
    }
}
