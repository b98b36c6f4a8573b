//! The config loader against real files: a valid file, one test per rule with its exact
//! line:column, French words, `sidekicks check` / `schema`, and the order of config sources.

use std::path::{Path, PathBuf};
use std::process::Command;

use sidekicks::model::config::{Language, McpTransport, RuntimeKind, SendKey};
use sidekicks::model::config_check::{
    AGENT_KEYS, DEFAULTS_KEYS, LoadContext, LoadResult, MCP_KEYS, RUNTIME_KEYS, load_str,
};
use sidekicks::model::problem::{ProblemKind, Severity, ValueType};
use sidekicks::runtime::config::file::{AppDirs, ConfigSource, Preferences, load_file, resolve_config_path};
use sidekicks::ui::i18n::problem_text;

use crate::common;

fn load(text: &str) -> LoadResult {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    let ctx = LoadContext {
        base_dir: dir.path(),
        home: None,
        is_dir: &|p: &Path| p.is_dir(),
        command_exists: &|c: &str, _: &Path| c != "missing-agent",
        readable_by_others: false,
    };
    load_str(text, &ctx)
}

/// The only problem of `text`, as (line, column, kind).
fn only_problem(text: &str) -> (usize, usize, ProblemKind) {
    let result = load(text);
    assert!(result.config.is_none(), "a config with problems must not be applied");
    assert_eq!(result.problems.len(), 1, "expected one problem, got {:#?}", result.problems);
    let p = &result.problems[0];
    (p.line, p.column, p.kind.clone())
}

const AGENT: &str = "[[agent]]\nname = \"a\"\ncommand = \"x\"\nworkspace = \"ws\"\n";

#[test]
fn a_valid_file_gives_the_typed_config() {
    let text = r#"
[defaults]
idle_stop = 30
max_running = 2
language = "fr"

[[channel]]
name = "team"

[[agent]]
name = "coder"
command = "claude-agent-acp"
args = ["--fast"]
env = { API_MODE = "x", _UNDER = "y" }
workspace = "ws"
channels = ["team"]

[[agent]]
name = "boxed"
command = "demo"
workspace = "/does/not/matter/in/a/container"
runtime = { type = "container", container = "web", workspace_path = "/src" }
"#;
    let result = load(text);
    assert_eq!(result.problems, vec![]);
    let config = result.config.unwrap();
    assert_eq!(config.defaults.idle_stop, 30);
    assert_eq!(config.defaults.max_running, 2);
    assert_eq!(config.defaults.language, Some(Language::Fr));
    assert_eq!(config.agents.len(), 2);
    let coder = &config.agents[0];
    assert_eq!(coder.args, vec!["--fast"]);
    assert_eq!(coder.env.get("API_MODE").map(String::as_str), Some("x"));
    assert!(coder.workspace.is_absolute() && coder.workspace.ends_with("ws"));
    assert_eq!(coder.workspace_path(), coder.workspace, "workspace_path defaults to the folder");
    let boxed = &config.agents[1];
    assert_eq!(boxed.runtime.kind, RuntimeKind::Container);
    assert_eq!(boxed.runtime.container.as_deref(), Some("web"));
    assert_eq!(boxed.workspace_path(), PathBuf::from("/src"));
}

#[test]
fn syntax_error_is_reported_with_its_position() {
    let (line, col, kind) = only_problem("[defaults]\nidle_stop = = 3\n");
    assert_eq!((line, col), (2, 13));
    assert!(matches!(kind, ProblemKind::Syntax { .. }));
}

#[test]
fn wrong_type() {
    let text = format!("{AGENT}args = \"not a list\"\n");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (5, 8));
    assert!(matches!(kind, ProblemKind::WrongType { ref key, .. } if key == "args"), "{kind:?}");
}

#[test]
fn unknown_key_with_a_suggestion() {
    let text = format!("{AGENT}comand = \"y\"\n");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (5, 1));
    assert_eq!(kind, ProblemKind::UnknownKey { key: "comand".into(), suggestion: Some("command".into()) });
}

/// `lang` for `language` got no suggestion (too far by edits): a shortened name is near too.
#[test]
fn a_shortened_key_is_suggested_in_full() {
    let (_, _, kind) = only_problem("[defaults]\nlang = \"fr\"\n");
    assert_eq!(kind, ProblemKind::UnknownKey { key: "lang".into(), suggestion: Some("language".into()) });
}

#[test]
fn unknown_top_level_table() {
    let (line, col, kind) = only_problem("[agents]\nx = 1\n");
    assert_eq!((line, col), (1, 2));
    assert_eq!(kind, ProblemKind::UnknownKey { key: "agents".into(), suggestion: Some("agent".into()) });
}

#[test]
fn missing_key_points_at_the_agent() {
    let (line, col, kind) = only_problem("\n[[agent]]\nname = \"a\"\nworkspace = \"ws\"\n");
    assert_eq!(line, 2, "col {col}");
    assert_eq!(kind, ProblemKind::MissingKey { key: "command".into() });
}

#[test]
fn duplicate_names() {
    let text = format!("{AGENT}{AGENT}");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (6, 8));
    assert_eq!(kind, ProblemKind::DuplicateAgent { name: "a".into() });
}

#[test]
fn local_workspace_must_exist() {
    let (line, col, kind) = only_problem("[[agent]]\nname = \"a\"\ncommand = \"x\"\nworkspace = \"missing\"\n");
    assert_eq!((line, col), (4, 13));
    assert!(matches!(kind, ProblemKind::MissingFolder { ref path } if path.ends_with("missing")), "{kind:?}");
}

#[test]
fn container_workspace_need_not_exist_here() {
    let text = "[[agent]]\nname = \"a\"\ncommand = \"x\"\nworkspace = \"/nowhere\"\nruntime = { type = \"sbx\", sandbox = \"s\" }\n";
    assert_eq!(load(text).problems, vec![]);
}

#[test]
fn each_runtime_needs_its_target() {
    for (kind, key) in
        [("container", "container"), ("podman", "container"), ("sbx", "sandbox"), ("kubectl", "pod"), ("ssh", "host")]
    {
        let text = format!("{AGENT}runtime = {{ type = \"{kind}\" }}\n");
        let (line, col, problem) = only_problem(&text);
        assert_eq!((line, col), (5, 11), "{kind}");
        assert!(matches!(problem, ProblemKind::RuntimeNeeds { key: ref k, .. } if k == key), "{kind}: {problem:?}");
    }
}

#[test]
fn an_ssh_host_ssh_would_misread_is_a_problem_at_its_value() {
    use sidekicks::model::ssh_host::HostProblem;
    let text = format!("{AGENT}runtime = {{ type = \"ssh\", host = \"-oProxyCommand=sh\" }}\n");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (5, 34));
    assert_eq!(kind, ProblemKind::BadHost { host: "-oProxyCommand=sh".into(), why: HostProblem::Dash });
    let text =
        format!("{AGENT}runtime = {{ type = \"ssh\", host = \"me@box:2222\", workspace_path = \"/srv/app\" }}\n");
    let config = load(&text).config.unwrap();
    assert_eq!(config.agents[0].runtime.host.as_deref(), Some("me@box:2222"));
    assert_eq!(config.agents[0].workspace_path(), std::path::PathBuf::from("/srv/app"));
    // A workspace on the other machine need not exist here.
    let text = "[[agent]]\nname = \"a\"\ncommand = \"x\"\nworkspace = \"/nowhere\"\nruntime = { type = \"ssh\", host = \"gpu\" }\n";
    assert_eq!(load(text).problems, vec![]);
}

#[test]
fn unknown_runtime_type() {
    let text = format!("{AGENT}runtime = {{ type = \"dockr\" }}\n");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (5, 20));
    assert_eq!(kind, ProblemKind::UnknownRuntime { found: "dockr".into() });
}

#[test]
fn a_policy_is_allow_or_deny() {
    let text = format!("{AGENT}policy = {{ writes = \"maybe\" }}\n");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (5, 21));
    assert_eq!(kind, ProblemKind::UnknownPolicy { key: "writes".into(), found: "maybe".into() });
    let text = format!("{AGENT}[agent.policy]\nwrites = \"deny\"\ncommands = \"allow\"\n");
    let config = load(&text).config.unwrap();
    let policy = config.agents[0].policy;
    use sidekicks::model::config::Serve;
    assert_eq!((policy.writes, policy.commands), (Serve::Deny, Serve::Allow));
}

#[test]
fn runtime_key_of_another_kind() {
    let text = format!("{AGENT}runtime = {{ type = \"container\", container = \"c\", pod = \"p\" }}\n");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (5, 56));
    assert!(matches!(kind, ProblemKind::RuntimeIgnores { ref key, .. } if key == "pod"), "{kind:?}");
}

#[test]
fn channels_must_exist() {
    let text = format!("[[channel]]\nname = \"team\"\n{AGENT}channels = [\"team\", \"nope\"]\n");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (7, 21));
    assert_eq!(kind, ProblemKind::UnknownChannel { name: "nope".into() });
}

#[test]
fn env_names_must_be_valid() {
    let text = format!("{AGENT}[agent.env]\nGOOD = \"1\"\n\"BAD-NAME\" = \"2\"\n");
    let (line, col, kind) = only_problem(&text);
    assert_eq!((line, col), (7, 1));
    assert_eq!(kind, ProblemKind::InvalidEnvName { name: "BAD-NAME".into() });
}

#[test]
fn defaults_are_checked() {
    let (line, col, kind) = only_problem("[defaults]\nmax_running = 0\n");
    assert_eq!((line, col), (2, 15));
    assert!(matches!(kind, ProblemKind::OutOfRange { .. }));
    let (line, col, kind) = only_problem("[defaults]\nlanguage = \"de\"\n");
    assert_eq!((line, col), (2, 12));
    assert_eq!(kind, ProblemKind::UnknownLanguage { found: "de".into() });
    let (line, col, kind) = only_problem("[defaults]\nsend_with = \"shift\"\n");
    assert_eq!((line, col), (2, 13));
    assert_eq!(kind, ProblemKind::UnknownSendKey { found: "shift".into() });
    let config = load("[defaults]\nsend_with = \"ctrl+enter\"\n").config.unwrap();
    assert_eq!(config.defaults.send_with, SendKey::CtrlEnter);
}

#[test]
fn notification_switches_are_checked_and_default_to_on() {
    let config = load("").config.unwrap();
    assert!(config.notifications.enabled && config.notifications.needs_you && config.notifications.crashed);
    let config = load("[notifications]\nfinished = false\n").config.unwrap();
    assert!(!config.notifications.finished);
    assert!(config.notifications.conflict);
    let (line, col, kind) = only_problem("[notifications]\ncrashed = \"no\"\n");
    assert_eq!((line, col), (2, 11));
    assert!(matches!(kind, ProblemKind::WrongType { expected: ValueType::Boolean, .. }), "{kind:?}");
    let (_, _, kind) = only_problem("[notifications]\nfinish = true\n");
    assert!(matches!(&kind, ProblemKind::UnknownKey { suggestion: Some(s), .. } if s == "finished"), "{kind:?}");
}

#[test]
fn a_missing_command_is_a_warning_that_does_not_block_the_config() {
    let text = "[[agent]]\nname = \"a\"\ncommand = \"missing-agent\"\nworkspace = \"ws\"\n";
    let result = load(text);
    assert!(result.config.is_some(), "a warning must not block the config");
    assert_eq!(result.problems.len(), 1);
    let p = &result.problems[0];
    assert_eq!((p.line, p.column), (3, 11));
    assert_eq!(p.kind, ProblemKind::CommandNotFound { command: "missing-agent".into() });
    assert_eq!(p.severity(), Severity::Warning);
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let text = "[defaults]\nmax_running = -1\n[[agent]]\nname = \"a\"\ncommand = 3\nworkspace = \"nope\"\nextra = 1\n";
    let result = load(text);
    let positions: Vec<(usize, usize)> = result.problems.iter().map(|p| (p.line, p.column)).collect();
    assert_eq!(positions, vec![(2, 15), (5, 11), (6, 13), (7, 1)], "{:#?}", result.problems);
}

#[test]
fn problems_read_in_english_and_french() {
    let (_, _, kind) = only_problem(&format!("{AGENT}{AGENT}"));
    assert_eq!(problem_text(Language::En, &kind), "Another agent is already named \"a\".");
    assert_eq!(problem_text(Language::Fr, &kind), "Un autre agent s’appelle déjà « a ».");
    let (_, _, kind) = only_problem(&format!("{AGENT}args = 1\n"));
    assert_eq!(problem_text(Language::Fr, &kind), "« args » doit être une liste de chaînes, pas un nombre entier.");
}

#[test]
fn the_schema_knows_the_keys_the_loader_knows() {
    let schema = serde_json::to_value(schemars::schema_for!(sidekicks::model::config::Config)).unwrap();
    let keys = |def: &str| -> Vec<String> {
        let mut k: Vec<String> = schema["$defs"][def]["properties"].as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let sorted = |s: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = s.iter().map(|x| x.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(keys("AgentConfig"), sorted(AGENT_KEYS));
    assert_eq!(keys("Defaults"), sorted(DEFAULTS_KEYS));
    assert_eq!(keys("RuntimeConfig"), sorted(RUNTIME_KEYS));
    assert_eq!(keys("McpConfig"), sorted(MCP_KEYS));
}

#[test]
fn mcp_servers_are_checked() {
    let ok = load(&format!(
        "{AGENT}[[mcp]]\nname = \"files\"\ncommand = \"mcp-files\"\nargs = [\"/w\"]\n\
         [[mcp]]\nname = \"web\"\nurl = \"https://example.com/mcp\"\nheaders = {{ Authorization = \"t\" }}\nagents = [\"a\"]\n"
    ));
    assert!(ok.problems.is_empty(), "{:?}", ok.problems);
    let config = ok.config.unwrap();
    assert_eq!(config.mcp.len(), 2);
    assert_eq!(config.mcp[1].transport, McpTransport::Http, "a url means http");
    assert_eq!(config.mcp_for("a").len(), 2);
    assert_eq!(config.mcp_for("z").len(), 1, "a server for some agents only");

    let kind = |text: &str| only_problem(&format!("{AGENT}{text}")).2;
    assert_eq!(
        kind("[[mcp]]\nname = \"m\"\n"),
        ProblemKind::McpNeeds { transport: "stdio".into(), key: "command".into() }
    );
    assert_eq!(
        kind("[[mcp]]\nname = \"m\"\ntype = \"sse\"\n"),
        ProblemKind::McpNeeds { transport: "sse".into(), key: "url".into() }
    );
    assert_eq!(
        kind("[[mcp]]\nname = \"m\"\ncommand = \"c\"\nurl = \"http://x\"\n"),
        ProblemKind::McpIgnores { transport: "stdio".into(), key: "url".into() }
    );
    assert_eq!(kind("[[mcp]]\nname = \"m\"\ntype = \"ws\"\n"), ProblemKind::UnknownMcpType { found: "ws".into() });
    assert_eq!(
        kind("[[mcp]]\nname = \"m\"\ncommand = \"c\"\nagents = [\"bob\"]\n"),
        ProblemKind::UnknownAgent { name: "bob".into() }
    );
    assert_eq!(
        kind("[[mcp]]\nname = \"m\"\ncommand = \"c\"\n[[mcp]]\nname = \"m\"\ncommand = \"d\"\n"),
        ProblemKind::DuplicateMcp { name: "m".into() }
    );
    let (line, column, _) = only_problem(&format!("{AGENT}[[mcp]]\nname = \"m\"\ncommand = \"c\"\ncomand = 1\n"));
    assert_eq!((line, column), (8, 1), "a typo in an [[mcp]] key is pointed at");
    assert!(
        problem_text(Language::En, &ProblemKind::McpNeeds { transport: "stdio".into(), key: "command".into() })
            .contains("needs `command`")
    );
}

#[test]
fn check_command_prints_problems_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        "[defaults]\nlanguage = \"fr\"\n[[agent]]\nname = \"a\"\ncommand = \"x\"\nworkspace = \"nope\"\n",
    )
    .unwrap();
    let out = Command::new(common::BIN).arg("check").arg("--config").arg(&path).output().unwrap();
    assert!(!out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("bad.toml:6:13: Le dossier de travail"), "{stdout}");

    std::fs::create_dir(dir.path().join("nope")).unwrap();
    let out = Command::new(common::BIN).arg("check").arg("--config").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));

    // A command that is not installed: printed as a warning, the check still passes.
    std::fs::write(&path, "[[agent]]\nname = \"a\"\ncommand = \"no-such-agent-xyz\"\nworkspace = \"nope\"\n").unwrap();
    let out = Command::new(common::BIN).arg("check").arg("--config").arg(&path).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("bad.toml:3:11: warning: The command \"no-such-agent-xyz\" was not found"), "{stdout}");

    let missing = Command::new(common::BIN).args(["check", "--config", "/no/such/file.toml"]).output().unwrap();
    assert!(!missing.status.success());
}

/// A person with only the binary reads the config's reference from it (the default config's
/// header sent them to the sources' docs/CONFIG.md; issue 48, item 10).
#[test]
fn the_config_reference_comes_with_the_binary() {
    let reference = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/CONFIG.md")).unwrap();
    for args in [&["config"][..], &["help", "config"][..]] {
        let out = Command::new(common::BIN).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("| `max_running` | integer 1–1000 |"), "{args:?}: {}", &text[..text.len().min(400)]);
    }
    let out = Command::new(common::BIN).arg("config").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), reference);
    let header = sidekicks::runtime::config::file::default_config_text(Path::new("/w"));
    assert!(header.contains("sidekicks help config") && !header.contains("docs/CONFIG.md"), "{header}");
}

#[test]
fn schema_command_prints_json_schema() {
    let out = Command::new(common::BIN).arg("schema").output().unwrap();
    assert!(out.status.success());
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema["properties"]["agent"].is_object(), "{schema}");
    // The schema's bounds are the checker's (it said `max_running` may be 0; the checker, 1–1000).
    for (table, key, min, max) in [
        ("Defaults", "max_running", Some(1), Some(1000)),
        ("Defaults", "idle_stop", Some(0), Some(4_294_967_295u64)),
        ("CheckpointsConfig", "keep", Some(1), Some(100_000)),
        ("CheckpointsConfig", "max_age_days", Some(1), Some(36_500)),
    ] {
        let property = &schema["$defs"][table]["properties"][key];
        assert_eq!(property["minimum"].as_u64(), min, "{table}.{key}: {property}");
        assert_eq!(property["maximum"].as_u64(), max, "{table}.{key}: {property}");
        // The checker says the same: one past each end is refused.
        let section = if table == "Defaults" { "defaults" } else { "checkpoints" };
        for outside in [min.map(|m| m as i64 - 1), max.map(|m| m as i64 + 1)].into_iter().flatten().filter(|v| *v >= 0)
        {
            let result = load(&format!("[{section}]\n{key} = {outside}\n"));
            assert!(result.config.is_none(), "{key} = {outside} is refused by the checker");
        }
    }
}

fn dirs(root: &Path) -> AppDirs {
    AppDirs { config_dir: root.join("cfg"), data_dir: root.join("data"), state_dir: root.join("state"), home: None }
}

#[test]
fn config_sources_in_order_flag_env_last_opened_default() {
    let root = tempfile::tempdir().unwrap();
    let dirs = dirs(root.path());
    let flag = root.path().join("flag.toml");
    let env = root.path().join("env.toml");
    let last = root.path().join("last.toml");
    std::fs::write(&last, "").unwrap();
    let mut prefs = Preferences::default();
    prefs.record_opened(&last);

    let pick = |f: Option<&PathBuf>, e: Option<&PathBuf>, p: &Preferences| {
        resolve_config_path(f.cloned(), e.cloned(), p, &dirs).unwrap()
    };
    assert_eq!(pick(Some(&flag), Some(&env), &prefs), (flag.clone(), ConfigSource::Flag));
    assert_eq!(pick(None, Some(&env), &prefs), (env.clone(), ConfigSource::Env));
    assert_eq!(pick(None, None, &prefs), (last.clone(), ConfigSource::LastOpened));

    // A last opened file that is gone falls back to the default, created with the demo agent.
    std::fs::remove_file(&last).unwrap();
    let (path, source) = pick(None, None, &prefs);
    assert_eq!((path.clone(), source), (dirs.default_config(), ConfigSource::Default));
    let result = load_file(&path, None);
    assert_eq!(result.problems, vec![]);
    let config = result.config.unwrap();
    assert_eq!(config.agents[0].command, "sidekicks");
    assert_eq!(config.agents[0].args, vec!["demo-agent", "--sessions"]);
    assert!(config.agents[0].workspace.starts_with(&dirs.data_dir));
    assert!(config.agents[0].workspace.is_dir());
}

#[test]
fn preferences_keep_eight_recent_files() {
    let root = tempfile::tempdir().unwrap();
    let dirs = dirs(root.path());
    let mut prefs = Preferences::default();
    for i in 0..10 {
        prefs.record_opened(Path::new(&format!("/f{i}.toml")));
    }
    prefs.record_opened(Path::new("/f5.toml"));
    prefs.save(&dirs).unwrap();
    let loaded = Preferences::load(&dirs);
    assert_eq!(loaded.recent.len(), 8);
    assert_eq!(loaded.recent[0], PathBuf::from("/f5.toml"));
    assert_eq!(loaded.last_opened, Some(PathBuf::from("/f5.toml")));
    assert_eq!(loaded.recent.iter().filter(|p| p.ends_with("f5.toml")).count(), 1);
}

/// One typo, one problem (issue 48, item 5): an unclosed `[` is told once, at its place, by the
/// loader and by `sidekicks check` — not "missing comma" on every later line, nor a wrong type.
#[test]
fn an_unclosed_bracket_is_told_once_at_its_place() {
    let text = format!("[defaults]\nidle_stop = 30\nmax_running = [4\n\n{AGENT}args = [\"--x\"]\n\n{AGENT}");
    let result = load(&text);
    assert_eq!(result.problems.len(), 1, "{:?}", result.problems);
    let problem = &result.problems[0];
    assert_eq!((problem.line, problem.column), (3, 15));
    assert_eq!(problem.kind, ProblemKind::Unclosed { open: '[', line: 3 });
    assert_eq!(problem_text(Language::En, &problem.kind), "`[` opened on line 3 is never closed.");
    assert!(result.config.is_none());

    // An inline table left open on its line; problems before it are still told.
    let text = format!("[defaults]\nidle_stop = \"x\"\n{AGENT}env = {{ A = \"1\"\nruntime = {{ type = \"local\" }}\n");
    let kinds: Vec<ProblemKind> = load(&text).problems.into_iter().map(|p| p.kind).collect();
    assert!(matches!(kinds[0], ProblemKind::WrongType { ref key, .. } if key == "idle_stop"), "{kinds:?}");
    assert_eq!(kinds[1..], [ProblemKind::Unclosed { open: '{', line: 7 }]);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.toml");
    std::fs::write(&path, "[defaults]\nmax_running = [4\n[[agent]]\nname = \"a\"\ncommand = \"x\"\n").unwrap();
    let out = Command::new(common::BIN).arg("check").arg("--config").arg(&path).output().unwrap();
    assert!(!out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().filter(|l| l.contains("typo.toml:")).count(), 1, "{stdout}");
    assert!(stdout.contains("typo.toml:2:15: `[` opened on line 2 is never closed."), "{stdout}");
    assert!(!stdout.contains("comma") && !stdout.contains("whole number"), "{stdout}");

    // A table header left open: its own error, not "Unknown key" for each key under it.
    let text = format!(
        "[defaults
idle_stop = 5
max_running = 2

{AGENT}"
    );
    let problems = load(&text).problems;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].line, 1);
    assert!(matches!(problems[0].kind, ProblemKind::Syntax { .. }), "{problems:?}");
}
