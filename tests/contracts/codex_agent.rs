//! Logging in to a published ACP agent: Zed's Codex adapter (`@zed-industries/codex-acp` 0.16.0,
//! pinned in tests/codex-agent/package-lock.json), offline. It answers `session/new` with
//! "Authentication required" and offers, in its raw `initialize` answer, `env_var` ways (with
//! their variables, which the SDK's schema drops) and a ChatGPT login. Typed in the login card, the
//! key goes to its environment and `authenticate` with that way's id opens the session; a key set
//! in the agent's `env` logs in at once; its models are a picker whose choice it takes. No model is
//! asked anything in those; in the last one its model is a stand-in Responses endpoint on loopback
//! (tests/common/fake_model.rs) that records what the adapter sends: an attached image, a file's
//! text and the tools of an `[[mcp]]` server reach it. npm installs it on first run;
//! without node/npm the test is skipped with a reason, except in CI (`CI` set).

use std::path::Path;
use std::process::Command as Process;
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::app::AgentState;
use sidekicks::model::session_config::OptionValue;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::config_text;
use common::window::{runtime, step_until, window};

const LONG: Duration = Duration::from_secs(60);

/// A window with the adapter as agent `codex`; `env` is added to its `env` table. Its Codex home
/// is empty (no saved login) and its model endpoint a closed port on loopback.
fn codex_window(
    dir: &Path,
    launcher: &Path,
    env: &str,
    rt: &tokio::runtime::Runtime,
) -> Harness<'static, SidekicksApp> {
    let home = dir.join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    let mut text = config_text("", &[("codex", &launcher.display().to_string(), &[])], dir);
    text.push_str(&format!(
        // RES_OPTIONS: the adapter also tries api.openai.com (a websocket); with no network a slow
        // resolver must not hold the session open for long.
        "env = {{ CODEX_HOME = {:?}, OPENAI_BASE_URL = \"http://127.0.0.1:9/v1\", RES_OPTIONS = \"timeout:1 attempts:1\"{env} }}\n",
        home.display().to_string()
    ));
    let mut h = window(&text, dir, rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("codex").is_some());
    h
}

fn state(h: &Harness<'static, SidekicksApp>) -> AgentState {
    h.state().state.agent("codex").unwrap().state.clone()
}

#[test]
fn the_codex_adapter_asks_to_log_in_and_a_key_typed_in_the_card_opens_its_session() {
    let Some(launcher) = common::codex::launcher() else { return };
    if std::env::var_os("OPENAI_API_KEY").is_some() || std::env::var_os("CODEX_API_KEY").is_some() {
        println!("skipped: an API key in this environment would log the adapter in at once");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = codex_window(dir.path(), &launcher, "", &rt);
    h.get_by_label("Start agent").click();
    step_until(&mut h, LONG, "the login card", |h| h.query_by_label("Log in to codex").is_some());
    assert_eq!(state(&h), AgentState::Stopped);
    assert!(h.query_by_label("Login with ChatGPT").is_some(), "its own login");
    // Its two `env_var` ways, each with its variable (which the SDK's schema alone would drop).
    let methods = h.state().state.agent("codex").unwrap().login.clone().unwrap().1;
    let vars: Vec<String> = methods
        .iter()
        .filter_map(|m| match &m.kind {
            sidekicks::protocol::auth::AuthKind::EnvVar { vars } => Some(vars[0].name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(vars, ["CODEX_API_KEY", "OPENAI_API_KEY"]);

    let role = egui::accesskit::Role::PasswordInput;
    h.get_all_by_role(role).nth(1).unwrap().click();
    h.step();
    h.get_all_by_role(role).nth(1).unwrap().type_text("sk-test-not-a-real-key");
    h.step();
    h.get_by_label("Log in: Use OPENAI_API_KEY").click();
    step_until(&mut h, LONG, "its session open", |h| state(h) == AgentState::Idle);
    assert!(h.query_by_label("Log in to codex").is_none());
    let log = format!("{:?}", h.state().state.agent("codex").unwrap().log);
    assert!(!log.contains("sk-test-not-a-real-key"), "the key is in the Log: {log}");
    h.state_mut().shutdown();
}

#[test]
fn a_key_in_the_agents_env_logs_the_codex_adapter_in_at_once() {
    let Some(launcher) = common::codex::launcher() else { return };
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = codex_window(dir.path(), &launcher, ", OPENAI_API_KEY = \"sk-from-the-config\"", &rt);
    h.get_by_label("Start agent").click();
    step_until(&mut h, LONG, "its session open", |h| state(h) == AgentState::Idle);
    assert!(h.query_by_label("Log in to codex").is_none());
    // Its models as a picker; one chosen there is taken by the adapter (no model is asked).
    let model = |h: &Harness<'static, SidekicksApp>| {
        h.state().state.agent("codex").unwrap().options.iter().find(|o| o.id == "model").map(|o| o.value())
    };
    assert_eq!(model(&h), Some(OptionValue::Choice("gpt-5.5".into())));
    h.get_all_by_role(egui::accesskit::Role::ComboBox)
        .find(|n| n.accesskit_node().value().as_deref() == Some("GPT-5.5"))
        .expect("the model picker")
        .click();
    h.step();
    h.step();
    h.get_by_label("GPT-5.4-Mini").click();
    step_until(&mut h, LONG, "the model taken", |h| model(h) == Some(OptionValue::Choice("gpt-5.4-mini".into())));
    h.state_mut().shutdown();
}

/// Images, files and MCP servers reach a published agent and through it the model: Codex's
/// adapter, pointed at a stand-in Responses endpoint on loopback, gets the README's screenshot
/// (the model request carries it as `input_image`), a workspace file with its text, and the demo
/// MCP server from `[[mcp]]`, which it starts and whose tools it offers the model.
#[test]
fn images_files_and_mcp_servers_reach_the_codex_adapter_and_its_model() {
    let Some(launcher) = common::codex::launcher() else { return };
    let model = common::fake_model::FakeModel::start();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    // Its model provider: the stand-in (Responses API over HTTP).
    std::fs::write(
        home.join("config.toml"),
        format!(
            "model_provider = \"fake\"\n[model_providers.fake]\nname = \"fake\"\nbase_url = {:?}\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n",
            model.base_url
        ),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\nthe secret word is pumpkin\n").unwrap();
    let mut text = config_text("", &[("codex", &launcher.display().to_string(), &[])], dir.path());
    text.push_str(&format!(
        "env = {{ CODEX_HOME = {:?}, OPENAI_API_KEY = \"sk-test\" }}\n\n[[mcp]]\nname = \"demo-tools\"\ncommand = {:?}\nargs = [\"demo-mcp\"]\n",
        home.display().to_string(),
        common::BIN
    ));
    let config = dir.path().join("sidekicks.toml");
    std::fs::write(&config, text).unwrap();
    let screenshot = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/screenshot.png");
    let out = Process::new(common::BIN)
        .args(["prompt", "--agent", "codex", "what do these show?", "--config"])
        .arg(&config)
        .args(["--attach", screenshot, "--attach"])
        .arg(dir.path().join("notes.md"))
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains(common::fake_model::ANSWER), "{stdout}");

    let bodies = model.bodies();
    let request = bodies.last().expect("the model was asked");
    let body: serde_json::Value = serde_json::from_str(request).unwrap();
    let text = body.to_string();
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD.encode(std::fs::read(screenshot).unwrap());
    assert!(text.contains(&format!("data:image/png;base64,{png}")), "the whole image reached the model");
    assert!(text.contains("what do these show?"));
    assert!(text.contains("the secret word is pumpkin"), "the file's text went along");
    let tools = body["tools"].as_array().unwrap();
    let mcp = tools.iter().find(|t| t["name"] == "mcp__demo_tools").expect("the MCP server's tools");
    let names: Vec<&str> = mcp["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["add", "echo"]);
}
