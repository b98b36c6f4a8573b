//! The settings form of one agent (add or edit an `[[agent]]` without typing TOML): what the form
//! holds, and the config text with it written in, keeping everything else of the person's file —
//! comments, layout, keys the form does not show — as it was (`toml_edit`).

use std::collections::BTreeMap;

use toml_edit::{DocumentMut, Item, Table, Value, value};

use super::config::{AgentConfig, RuntimeKind};
use super::config_edit::EditError;

/// What the form holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentForm {
    /// Its name.
    pub name: String,
    /// Its program.
    pub command: String,
    /// Its arguments, one per line.
    pub args: String,
    /// Its workspace folder.
    pub workspace: String,
    /// Where it runs.
    pub runtime: RuntimeKind,
    /// The container, sandbox, pod or host it runs in or on (not for `local`).
    pub target: String,
    /// Its folder there (`workspace_path`; empty: the workspace).
    pub remote_path: String,
    /// Its environment, in order (values are shown hidden).
    pub env: Vec<(String, String)>,
    /// Its channels, separated by commas.
    pub channels: String,
}

impl AgentForm {
    /// The form of an agent of the config.
    pub fn of(agent: &AgentConfig) -> Self {
        Self {
            name: agent.name.clone(),
            command: agent.command.clone(),
            args: agent.args.join("\n"),
            workspace: agent.workspace.display().to_string(),
            runtime: agent.runtime.kind,
            target: agent.runtime.target_name().unwrap_or_default().to_string(),
            remote_path: agent.runtime.workspace_path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            env: agent.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            channels: agent.channels.join(", "),
        }
    }

    /// The arguments: one per line, blank lines left out.
    pub fn args(&self) -> Vec<String> {
        self.args.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
    }

    /// The channels: separated by commas, blanks left out.
    pub fn channels(&self) -> Vec<String> {
        self.channels.split(',').map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()
    }

    /// The environment: rows with a name, the last of a name winning.
    pub fn env(&self) -> BTreeMap<String, String> {
        self.env.iter().filter(|(k, _)| !k.trim().is_empty()).map(|(k, v)| (k.trim().to_string(), v.clone())).collect()
    }
}

/// Sets `key` of `table` to `v`, keeping the key where it was and the comment beside its value.
fn set(table: &mut Table, key: &str, v: Value) {
    match table.get_mut(key) {
        Some(Item::Value(old)) => {
            let decor = old.decor().clone();
            *old = v;
            *old.decor_mut() = decor;
        }
        _ => {
            table.insert(key, Item::Value(v));
        }
    }
}

/// `text` with the agent of the form written in: the `[[agent]]` named `editing` changed, or a
/// new one appended when `editing` is `None`. Keys the form does not show (policy, a runtime's
/// own settings…) and every comment stay.
pub fn set_agent(text: &str, editing: Option<&str>, form: &AgentForm) -> Result<String, EditError> {
    let name = form.name.trim();
    if name.is_empty() {
        return Err(EditError::Missing("name"));
    }
    if form.command.trim().is_empty() {
        return Err(EditError::Missing("command"));
    }
    if form.workspace.trim().is_empty() {
        return Err(EditError::Missing("workspace"));
    }
    let mut doc: DocumentMut = text.parse()?;
    let agents = doc.entry("agent").or_insert_with(|| Item::ArrayOfTables(toml_edit::ArrayOfTables::new()));
    let Item::ArrayOfTables(agents) = agents else { return Err(EditError::NotAgents) };
    let named = |t: &Table, n: &str| t.get("name").and_then(Item::as_str) == Some(n);
    if agents.iter().any(|t| named(t, name)) && editing != Some(name) {
        return Err(EditError::NameTaken(name.to_string()));
    }
    let table = match editing {
        Some(old) => agents.iter_mut().find(|t| named(t, old)).ok_or_else(|| EditError::NoAgent(old.to_string()))?,
        None => {
            agents.push(Table::new());
            agents.iter_mut().last().expect("just pushed")
        }
    };
    set(table, "name", name.into());
    set(table, "command", form.command.trim().into());
    let args = form.args();
    if args.is_empty() {
        table.remove("args");
    } else {
        set(table, "args", Value::Array(args.iter().collect()));
    }
    set(table, "workspace", form.workspace.trim().into());
    let env = form.env();
    if env.is_empty() {
        table.remove("env");
    } else {
        let mut inline = toml_edit::InlineTable::new();
        for (k, v) in &env {
            inline.insert(k, v.into());
        }
        set(table, "env", Value::InlineTable(inline));
    }
    let channels = form.channels();
    if channels.is_empty() {
        table.remove("channels");
    } else {
        set(table, "channels", Value::Array(channels.iter().collect()));
    }
    if form.runtime == RuntimeKind::Local {
        table.remove("runtime");
        return Ok(doc.to_string());
    }
    // The runtime's own settings (image, mounts…) stay; its type, its target and its folder are
    // the form's, and a target key of another kind goes (it would be a problem).
    if !table.get("runtime").is_some_and(Item::is_table_like) {
        set(table, "runtime", Value::InlineTable(toml_edit::InlineTable::new()));
    }
    let runtime = table.get_mut("runtime").and_then(Item::as_table_like_mut).expect("a table, just made");
    let kind = form.runtime;
    runtime.insert("type", value(kind.code()));
    for key in ["container", "sandbox", "pod", "host"] {
        if Some(key) != kind.target_key() {
            runtime.remove(key);
        }
    }
    let mut put = |key: &str, text: &str| {
        if text.trim().is_empty() {
            runtime.remove(key);
        } else {
            runtime.insert(key, value(text.trim()));
        }
    };
    if let Some(key) = kind.target_key() {
        put(key, &form.target);
    }
    put("workspace_path", &form.remote_path);
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# my agents\n[defaults]\nidle_stop = 60 # a minute\n\n[[agent]]\nname = \"codex\" # the first\ncommand = \"codex-acp\"\nworkspace = \"/w\"\npolicy = { writes = \"ask\" }\n\n# the second\n[[agent]]\nname = \"demo\"\ncommand = \"sidekicks\"\nargs = [\"demo-agent\"]\nworkspace = \"/d\"\n";

    fn form() -> AgentForm {
        AgentForm {
            name: "gemini".into(),
            command: "gemini".into(),
            args: "--experimental-acp\n\n".into(),
            workspace: "/g".into(),
            runtime: RuntimeKind::Local,
            target: String::new(),
            remote_path: String::new(),
            env: vec![("GEMINI_API_KEY".into(), "secret".into()), (" ".into(), "ignored".into())],
            channels: "design, ".into(),
        }
    }

    #[test]
    fn an_agent_is_added_keeping_the_file_as_it_was() {
        let out = set_agent(TEXT, None, &form()).unwrap();
        assert!(out.starts_with(TEXT), "{out}");
        let parsed: toml::Table = toml::from_str(&out).unwrap();
        let g = &parsed["agent"][2];
        assert_eq!(g["args"][0].as_str(), Some("--experimental-acp"));
        assert_eq!(g["args"].as_array().unwrap().len(), 1);
        assert_eq!(g["env"]["GEMINI_API_KEY"].as_str(), Some("secret"));
        assert_eq!(g["env"].as_table().unwrap().len(), 1);
        assert_eq!(g["channels"][0].as_str(), Some("design"));
        assert!(g.get("runtime").is_none());
    }

    #[test]
    fn an_agent_is_edited_in_place_keeping_comments_and_keys_the_form_does_not_show() {
        let mut codex = form();
        codex.name = "codex".into();
        codex.command = "codex-acp-2".into();
        codex.args = String::new();
        codex.env.clear();
        codex.channels = String::new();
        codex.runtime = RuntimeKind::Container;
        let out = set_agent(TEXT, Some("codex"), &codex).unwrap();
        assert!(out.contains("name = \"codex\" # the first"), "{out}");
        assert!(
            out.contains("# my agents") && out.contains("# the second") && out.contains("idle_stop = 60 # a minute")
        );
        let parsed: toml::Table = toml::from_str(&out).unwrap();
        let c = &parsed["agent"][0];
        assert_eq!(c["command"].as_str(), Some("codex-acp-2"));
        assert_eq!(c["policy"]["writes"].as_str(), Some("ask"), "a key the form does not show stays");
        assert_eq!(c["runtime"]["type"].as_str(), Some("container"));
        assert_eq!(parsed["agent"].as_array().unwrap().len(), 2);
        // Renamed, and back to this computer: the runtime goes.
        let mut renamed = codex.clone();
        renamed.name = "codex two".into();
        renamed.runtime = RuntimeKind::Local;
        let out = set_agent(&out, Some("codex"), &renamed).unwrap();
        let parsed: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(parsed["agent"][0]["name"].as_str(), Some("codex two"));
        assert!(parsed["agent"][0].get("runtime").is_none());
    }

    #[test]
    fn the_place_and_folder_there_are_written_and_a_target_of_another_kind_goes() {
        let text = "[[agent]]\nname = \"far\"\ncommand = \"a\"\nworkspace = \"/w\"\n[agent.runtime] # where\ntype = \"container\"\ncontainer = \"web\" # the web one\n";
        let mut far = form();
        far.name = "far".into();
        far.runtime = RuntimeKind::Ssh;
        far.target = " me@gpu:2222 ".into();
        far.remote_path = "/srv/app".into();
        far.channels = String::new();
        let out = set_agent(text, Some("far"), &far).unwrap();
        let parsed: toml::Table = toml::from_str(&out).unwrap();
        let runtime = &parsed["agent"][0]["runtime"];
        assert_eq!(runtime["type"].as_str(), Some("ssh"));
        assert_eq!(runtime["host"].as_str(), Some("me@gpu:2222"));
        assert_eq!(runtime["workspace_path"].as_str(), Some("/srv/app"));
        assert!(runtime.get("container").is_none(), "the container's name does not apply over ssh: {out}");
        assert!(out.contains("[agent.runtime] # where"), "the comment stays: {out}");
        // Read back, the form is the same.
        let yes = |_: &std::path::Path| true;
        let ctx = crate::model::config_check::LoadContext {
            base_dir: std::path::Path::new("/"),
            home: None,
            is_dir: &yes,
            command_exists: &|_, _| true,
            readable_by_others: false,
        };
        let loaded = crate::model::config_check::load_str(&out, &ctx);
        let agent = &loaded.config.unwrap_or_else(|| panic!("{:?}", loaded.problems)).agents[0];
        assert_eq!(
            (AgentForm::of(agent).target, AgentForm::of(agent).remote_path),
            ("me@gpu:2222".into(), "/srv/app".into())
        );
    }

    #[test]
    fn a_form_that_cannot_be_written_says_why() {
        let mut taken = form();
        taken.name = "demo".into();
        assert!(matches!(set_agent(TEXT, None, &taken), Err(EditError::NameTaken(n)) if n == "demo"));
        assert!(matches!(set_agent(TEXT, Some("codex"), &taken), Err(EditError::NameTaken(_))));
        assert!(matches!(set_agent(TEXT, Some("nobody"), &form()), Err(EditError::NoAgent(_))));
        let mut empty = form();
        empty.command = " ".into();
        assert!(matches!(set_agent(TEXT, None, &empty), Err(EditError::Missing("command"))));
        assert!(matches!(set_agent("= =", None, &form()), Err(EditError::Parse(_))));
    }
}
