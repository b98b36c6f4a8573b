//! MCP servers from the config reach the agent's session: the demo agent starts the stdio one
//! (`sidekicks demo-mcp`, with its `env`) and lists its tools; an http server goes to an agent
//! that takes http; an sse one is left out (the demo takes no sse) and said so; a server for
//! another agent is not given. In a container, the stdio server runs in the agent's container.

use std::path::Path;

use sidekicks::app::AgentEvent;
use sidekicks::app::Event;
use sidekicks::model::conversation::TurnEnd;

use crate::common;
use common::docker::{Container, available};
use common::{BIN, Rig, fast_settings, load_config};

/// `sidekicks` as a command means the Sidekicks binary; from a test harness it is named by
/// `SIDEKICKS_BIN` (set in a process of the test's own, before any thread reads the environment).
fn servers() -> String {
    static SET: std::sync::Once = std::sync::Once::new();
    // SAFETY: each test that calls this runs alone in its own process (`common::alone`).
    SET.call_once(|| unsafe { std::env::set_var("SIDEKICKS_BIN", BIN) });
    format!(
        "\n[[mcp]]\nname = \"tools\"\ncommand = \"sidekicks\"\nargs = [\"demo-mcp\"]\nenv = {{ MCP_MARK = \"x\" }}\n\
         \n[[mcp]]\nname = \"web\"\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = {{ Authorization = \"Bearer t\" }}\n\
         \n[[mcp]]\nname = \"old\"\ntype = \"sse\"\nurl = \"http://127.0.0.1:9/sse\"\n\
         \n[[mcp]]\nname = \"for-b\"\ncommand = {BIN:?}\nargs = [\"demo-mcp\"]\nagents = [\"b\"]\n"
    )
}

fn agent(name: &str, dir: &Path, runtime: &str) -> String {
    format!(
        "[[agent]]\nname = {name:?}\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n{runtime}\n",
        dir.display().to_string()
    )
}

#[tokio::test]
async fn the_configs_mcp_servers_reach_the_session() {
    if !common::alone(concat!(module_path!(), "::the_configs_mcp_servers_reach_the_session")) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let servers = servers();
    let text = format!("{}{}{}", agent("a", dir.path(), ""), agent("b", dir.path(), ""), servers);
    let mut rig = Rig::new(fast_settings());
    load_config(&rig, dir.path(), &text).await;
    assert_eq!(rig.turn("a", "mcp").await, TurnEnd::EndTurn);
    let said = rig.agent_text("a");
    assert!(said.contains("I was given 2 MCP server(s)"), "{said}");
    assert!(said.contains("- tools (stdio, `"), "{said}");
    assert!(said.contains("tools echo, add"), "the stdio server ran and answered: {said}");
    assert!(said.contains("- web (http, http://127.0.0.1:9/mcp)"), "{said}");
    assert!(!said.contains("old") && !said.contains("for-b"), "{said}");
    let statuses = rig
        .seen
        .iter()
        .find_map(|e| match e {
            Event::Agent(agent, AgentEvent::Info { mcp, .. }) if agent == "a" => Some(mcp.clone()),
            _ => None,
        })
        .unwrap();
    let shown: Vec<(&str, bool)> = statuses.iter().map(|s| (s.name.as_str(), s.given)).collect();
    assert_eq!(shown, [("tools", true), ("web", true), ("old", false)]);

    assert_eq!(rig.turn("b", "mcp").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("b").contains("for-b (stdio"), "{}", rig.agent_text("b"));
}

#[tokio::test]
async fn a_container_agents_stdio_server_runs_in_its_container() {
    if !common::alone(concat!(module_path!(), "::a_container_agents_stdio_server_runs_in_its_container")) {
        return;
    }
    if !available() {
        return;
    }
    let servers = servers();
    let dir = tempfile::tempdir().unwrap();
    let container = Container::start(&[(dir.path(), "/project")]);
    let runtime = format!(
        "runtime = {{ type = \"container\", container = {:?}, workspace_path = \"/project\" }}",
        container.name
    );
    let text = format!("{}{}{}", agent("boxed", dir.path(), &runtime), agent("b", dir.path(), ""), servers);
    let mut rig = Rig::new(fast_settings());
    load_config(&rig, dir.path(), &text).await;
    assert_eq!(rig.turn("boxed", "mcp").await, TurnEnd::EndTurn);
    let said = rig.agent_text("boxed");
    let host = container.sh("cat /etc/hostname").trim().to_string();
    assert!(!host.is_empty());
    assert!(said.contains(&format!("tools echo, add (running on {host})")), "{said}");
}

/// What an agent is given for its MCP servers (a header's token, a stdio server's `env` value) is
/// hidden in what Sidekicks shows of the agent, as its own `env` values are: here the agent prints
/// them on its stderr, as agents do in their debug output.
#[tokio::test]
async fn what_mcp_servers_are_given_is_hidden_in_the_agents_log() {
    use sidekicks::app::LogEntry;
    let dir = tempfile::tempdir().unwrap();
    let leaky = format!(
        "[[agent]]\nname = \"leaky\"\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"echo 'sent Authorization: Bearer tok-abcdef123 and MCP_TOKEN=mcp-secret-987' >&2; exec {BIN} demo-agent\"]\nworkspace = {:?}\n\
         \n[[mcp]]\nname = \"web\"\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = {{ Authorization = \"Bearer tok-abcdef123\" }}\n\
         \n[[mcp]]\nname = \"tools\"\ncommand = {BIN:?}\nargs = [\"demo-mcp\"]\nenv = {{ MCP_TOKEN = \"mcp-secret-987\" }}\n",
        dir.path().display().to_string()
    );
    let mut rig = Rig::new(fast_settings());
    load_config(&rig, dir.path(), &leaky).await;
    assert_eq!(rig.turn("leaky", "hi").await, TurnEnd::EndTurn);
    let said = |e: &Event| match e {
        Event::Agent(_, AgentEvent::Log { entry: LogEntry::Stderr(line), .. })
            if line.contains("sent Authorization") =>
        {
            Some(line.clone())
        }
        _ => None,
    };
    let line = match rig.seen.iter().find_map(said) {
        Some(line) => line,
        None => {
            let e = rig.wait_for(std::time::Duration::from_secs(20), "the agent's stderr", |e| said(e).is_some()).await;
            said(&e).unwrap()
        }
    };
    // (The header's whole value is hidden, and its token wherever it shows alone.)
    assert_eq!(line, "sent Authorization: … and MCP_TOKEN=…");
}
