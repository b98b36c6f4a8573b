//! The agent header names the MCP servers its session got (egui_kittest, demo agent): a server it
//! does not take (sse) is shown struck out, and the demo agent lists the tools of the stdio one.

use std::time::Duration;

use egui_kittest::kittest::Queryable;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

#[test]
fn the_header_names_the_sessions_mcp_servers() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = config_text("", &[("demo", BIN, &["demo-agent"])], dir.path());
    text.push_str(&format!(
        "\n[[mcp]]\nname = \"demo-tools\"\ncommand = {BIN:?}\nargs = [\"demo-mcp\"]\n\
         \n[[mcp]]\nname = \"old-sse\"\ntype = \"sse\"\nurl = \"http://127.0.0.1:9/sse\"\n"
    ));
    let rt = runtime();
    let mut h = window(&text, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    assert!(h.query_by_label("demo-tools").is_none(), "nothing before the session opens");
    send(&mut h, "mcp");
    let answered = |h: &egui_kittest::Harness<'static, sidekicks::ui::SidekicksApp>| {
        h.state().state.agent("demo").is_some_and(|a| a.conversation.messages.iter().any(|m| m.end.is_some()))
    };
    step_until(&mut h, LONG, "the answer", answered);
    assert!(h.query_by_label("MCP").is_some());
    assert!(h.query_by_label("demo-tools").is_some(), "the stdio server is named");
    assert!(h.query_by_label("old-sse").is_some(), "the server it does not take is named too (struck out)");
    let agent = h.state().state.agent("demo").unwrap();
    assert_eq!(agent.mcp.iter().map(|s| s.given).collect::<Vec<_>>(), [true, false]);
    let said = agent.conversation.messages.last().unwrap().text();
    assert!(said.contains("demo-tools (stdio") && said.contains("tools echo, add"), "{said}");
    h.state_mut().shutdown();
}
