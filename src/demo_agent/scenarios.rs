//! What the demo agent does for each prompt. A word in the prompt picks the scenario; each one
//! exercises a part of the client (docs/demo-agent.md lists them).

use std::time::Duration;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Diff, PermissionOption, PermissionOptionKind, Plan, PlanEntry, PlanEntryPriority,
    PlanEntryStatus, ReadTextFileRequest, RequestPermissionOutcome, RequestPermissionRequest, SessionUpdate,
    StopReason, ToolCall, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind, UsageUpdate,
    WriteTextFileRequest,
};

pub(super) use super::turn::{Outcome, Turn};
use super::turn::{chunk, chunk_words};

/// The scenarios, each chosen by a word of the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// The greeting, in Markdown (any prompt without a keyword).
    Hello,
    /// `code`: Markdown with a fenced code block.
    Code,
    /// `delegate to NAME…`: a lead hands the work to NAME (answers `@NAME please take this on: …`).
    Delegate,
    /// `terminal`: runs commands through the client's terminals (after asking).
    Terminal,
    /// `think`: reasoning, then an answer.
    Think,
    /// `diff` or `edit`: a tool call that edits a file, with its diff.
    Diff,
    /// `plan`: a plan whose items get done one by one.
    Plan,
    /// `permission` or `run`: asks to run `rm -rf build`, then acts on the answer.
    Permission,
    /// `fail` or `loop`: four tool calls that fail in a row.
    Failing,
    /// `error`: the turn fails with a JSON-RPC error that carries `data.error`.
    Error,
    /// `wait`: streams slowly for a minute, until cancelled.
    Wait,
    /// `slow`: a short answer streamed slowly.
    Slow,
    /// `crash`: the process exits in the middle of the answer.
    Crash,
    /// `garbage`: a line that is not JSON on stdout, then an answer.
    Garbage,
    /// `huge`: a 10 MB line on stdout, then an answer.
    Huge,
    /// `conflicts`: resolves the conflict markers of the files a merge's message lists, keeping
    /// both sides.
    Resolve,
    /// `files`: writes then reads `notes/demo.md` through the client (fs/write_text_file, fs/read_text_file).
    Files,
    /// `usage`: reports context use, once in a form that does not parse (`"used": null`).
    Usage,
    /// `ignore`: never answers and ignores `session/cancel` (a stuck agent).
    Ignore,
    /// `flood`: 10,000 small fragments as fast as possible (benchmarks).
    Flood,
    /// `picture`: an image it draws, and a link to a file of its folder.
    Picture,
    /// `form`: asks for deploy settings in a form (elicitation), says what it got.
    Form,
    /// `consent`: asks the person to open a page (URL elicitation), then says it is done.
    Consent,
    /// `help`: the words it answers to.
    Help,
}

impl Scenario {
    /// Every scenario with its keywords, in the order they are tried.
    pub const KEYWORDS: &[(Scenario, &[&str])] = &[
        (Scenario::Crash, &["crash"]),
        (Scenario::Wait, &["wait"]),
        (Scenario::Slow, &["slow"]),
        (Scenario::Error, &["error"]),
        (Scenario::Garbage, &["garbage"]),
        (Scenario::Huge, &["huge"]),
        (Scenario::Resolve, &["conflicts"]),
        (Scenario::Permission, &["permission", "run"]),
        (Scenario::Failing, &["fail", "loop"]),
        (Scenario::Diff, &["diff", "edit"]),
        (Scenario::Plan, &["plan"]),
        (Scenario::Think, &["think"]),
        (Scenario::Code, &["code"]),
        (Scenario::Files, &["files"]),
        (Scenario::Usage, &["usage"]),
        (Scenario::Ignore, &["ignore"]),
        (Scenario::Flood, &["flood"]),
        (Scenario::Delegate, &["delegate"]),
        (Scenario::Terminal, &["terminal"]),
        (Scenario::Picture, &["picture"]),
        (Scenario::Form, &["form"]),
        (Scenario::Consent, &["consent"]),
        (Scenario::Help, &["help"]),
    ];

    /// The scenario for `prompt`.
    pub fn pick(prompt: &str) -> Scenario {
        let words: Vec<String> =
            prompt.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
        Self::KEYWORDS
            .iter()
            .find(|(_, keys)| keys.iter().any(|k| words.iter().any(|w| w == k)))
            .map_or(Scenario::Hello, |(s, _)| *s)
    }

    pub(super) async fn run(self, mut t: Turn, prompt: &str) -> Outcome {
        match self {
            Scenario::Hello => t.stream(&hello(prompt), Duration::from_millis(30)).await,
            Scenario::Help => t.stream(&help(), Duration::from_millis(5)).await,
            Scenario::Code => t.stream(CODE, Duration::from_millis(20)).await,
            Scenario::Delegate => t.stream(&delegate(prompt), Duration::from_millis(20)).await,
            Scenario::Terminal => super::terminal_scenario::terminal(&t).await,
            Scenario::Think => {
                for piece in ["The person wants to see ", "how I think. ", "I will show it, then answer."] {
                    t.send(SessionUpdate::AgentThoughtChunk(chunk(piece)))?;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                t.stream("Done thinking: the answer is **42**.", Duration::from_millis(20)).await
            }
            Scenario::Form => super::elicit::form(&t).await,
            Scenario::Consent => super::elicit::consent(&t).await,
            Scenario::Picture => {
                t.say("Here is a picture I drew:\n\n")?;
                let png = super::content::picture();
                let data = {
                    use base64::Engine;
                    base64::engine::general_purpose::STANDARD.encode(&png)
                };
                let image = agent_client_protocol::v1::schema::ImageContent::new(data, "image/png");
                t.send(SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::Image(image))))?;
                let file = t.cwd.join("README.md");
                let uri = crate::model::content::file_uri(&file);
                let link = agent_client_protocol::v1::schema::ResourceLink::new("README.md", uri);
                t.say("\n\nAnd the file I would read first: ")?;
                t.send(SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::ResourceLink(link))))?;
                Ok(agent_client_protocol::v1::schema::StopReason::EndTurn)
            }
            Scenario::Diff => diff(&t).await,
            Scenario::Plan => plan(&t).await,
            Scenario::Permission => permission(&t).await,
            Scenario::Failing => failing(&t).await,
            Scenario::Error => {
                t.say("Let me try… ")?;
                let mut error = Error::internal_error();
                error.message = "Internal error".into();
                error.data =
                    Some(serde_json::json!({ "error": "The demo model is overloaded; try again in a minute." }));
                Err(error)
            }
            Scenario::Wait => {
                let chunks: Vec<String> = (1..=600).map(|i| format!("{i}… ")).collect();
                t.stream_chunks(&chunks, Duration::from_millis(100)).await
            }
            Scenario::Slow => {
                t.stream("This answer arrives slowly, a few words at a time.", Duration::from_millis(250)).await
            }
            Scenario::Crash => {
                t.say("I am about to crash… ")?;
                tokio::time::sleep(Duration::from_millis(200)).await;
                eprintln!("demo agent: crashing on purpose (scenario `crash`)");
                std::process::exit(3);
            }
            Scenario::Garbage => {
                t.raw.line("Welcome! This line is not JSON-RPC.".into()).await;
                t.stream(
                    "I printed a line that is not ACP on stdout; it should be in my Log.",
                    Duration::from_millis(20),
                )
                .await
            }
            Scenario::Huge => {
                t.raw.line("x".repeat(10 * 1024 * 1024)).await;
                t.stream("I printed a 10 MB line on stdout, and I am still fine.", Duration::from_millis(20)).await
            }
            Scenario::Files => files(&t, prompt).await,
            Scenario::Resolve => super::resolve::resolve(&t, after_news(prompt)).await,
            Scenario::Ignore => {
                // Said first, so a client can tell the prompt arrived.
                t.say("I will not answer, nor stop.")?;
                tokio::time::sleep(Duration::from_secs(600)).await;
                Ok(StopReason::EndTurn)
            }
            Scenario::Flood => {
                for i in 0..FLOOD {
                    t.say(&format!("{i} "))?;
                }
                Ok(StopReason::EndTurn)
            }
            Scenario::Usage => {
                let bad = serde_json::json!({"sessionUpdate": "usage_update", "used": null, "size": 200000});
                t.raw
                    .line(
                        serde_json::json!({"jsonrpc": "2.0", "method": "session/update",
                            "params": {"sessionId": t.session.0.as_ref(), "update": bad}})
                        .to_string(),
                    )
                    .await;
                let cost = agent_client_protocol::v1::schema::Cost::new(0.0123, "USD");
                t.send(SessionUpdate::UsageUpdate(UsageUpdate::new(1234, 200000).cost(cost)))?;
                t.stream("I reported my context use twice; the first report was malformed.", Duration::from_millis(20))
                    .await
            }
        }
    }
}

/// Fragments sent by the `flood` scenario.
pub const FLOOD: usize = 10_000;

const CODE: &str = "Here is a function in **Rust**:\n\n```rust\nfn greet(name: &str) -> String {\n    format!(\"Hello, {name}!\")\n}\n```\n\nAnd the same in Python:\n\n```python\ndef greet(name):\n    return f\"Hello, {name}!\"\n```\n";

/// The lead's hand-over: the names after "delegate to" (up to the first word that is not a name
/// list word), each @mentioned.
fn delegate(prompt: &str) -> String {
    let lower = after_news(prompt).to_lowercase();
    let after = lower.split_once("delegate to").map_or("", |(_, a)| a);
    let names: Vec<&str> = after
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty() && *w != "and")
        .take_while(|w| w.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_'))
        .take(4)
        .collect();
    if names.is_empty() {
        return "Whom should I delegate to? Say `delegate to NAME`.".into();
    }
    let mentions: Vec<String> = names.iter().map(|n| format!("@{n}")).collect();
    format!("{} please take this on: write a short note in `notes/` about the task.", mentions.join(" "))
}

fn hello(prompt: &str) -> String {
    let quoted: String = prompt.lines().map(|l| format!("> {l}\n")).collect();
    format!(
        "**Hello!** I am the Sidekicks demo agent. You said:\n\n{quoted}\n\
         I run inside Sidekicks, offline, with no key. Every answer of mine is:\n\n\
         - streamed in small pieces over ACP,\n\
         - written in *Markdown*.\n\n\
         Send `wait` to see a long answer you can stop, or `help` for the words I answer to."
    )
}

/// The words it answers to, each with what it shows (the `help` answer).
pub const WORDS: &[(&str, &str)] = &[
    ("wait", "a long answer you can stop (Esc or Stop)"),
    ("slow", "a short answer, a few words at a time"),
    ("plan", "a plan, ticked off step by step"),
    ("think", "its thoughts, folded, then an answer"),
    ("code", "Markdown with code blocks"),
    ("diff", "a tool call that edits a file, with its diff"),
    ("files", "writes and reads a note in the workspace, through Sidekicks"),
    ("conflicts", "resolves the conflict markers of the files named, keeping both sides"),
    ("permission", "asks before running a command; your answer decides"),
    ("run", "the same: asks before running a command"),
    ("fail", "four tool calls that fail in a row"),
    ("terminal", "runs commands through Sidekicks, their output live"),
    ("form", "asks you to fill in a form"),
    ("consent", "asks you to open a page"),
    ("picture", "an image and a link to a file"),
    ("error", "a turn that fails, with the error in words"),
    ("crash", "exits in the middle of an answer"),
    ("ignore", "never ends its turn (Sidekicks stops it)"),
    ("garbage", "prints a line that is not ACP, then answers"),
    ("huge", "prints a 10 MB line, then answers"),
    ("flood", "10,000 fragments as fast as it can"),
    ("usage", "a malformed usage update, then a good one"),
    ("mcp", "lists the tools of the session's MCP servers"),
    ("call SERVER TOOL {json}", "calls a tool of one of them (a line each)"),
    ("delegate to NAME", "hands a task over to @NAME (in a team's channel)"),
    ("settings", "says its session settings; `switch` changes its mode"),
];

/// What `help` and `/help` answer: its words, as a Markdown list.
pub fn help() -> String {
    let mut text =
        String::from("I answer these words (anywhere in a message), and any other message with a greeting:\n\n");
    for (word, what) in WORDS {
        text.push_str(&format!("- `{word}`: {what}\n"));
    }
    text
}

/// The reply chunks of the greeting (used by tests and benchmarks).
pub fn reply_chunks(prompt: &str) -> Vec<String> {
    chunk_words(&hello(prompt), 3)
}

async fn diff(t: &Turn) -> Outcome {
    let path = t.cwd.join("src/greeting.rs");
    let old = "fn greet() {\n    println!(\"Hello\");\n}\n";
    let new = "fn greet(name: &str) {\n    println!(\"Hello, {name}!\");\n}\n";
    let content = vec![Diff::new(path.clone(), new).old_text(old.to_string()).into()];
    t.tool(
        ToolCall::new("edit-1", "Edit src/greeting.rs")
            .kind(ToolKind::Edit)
            .status(ToolCallStatus::InProgress)
            .content(content)
            .raw_input(serde_json::json!({"path": path.display().to_string()})),
    )?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    t.tool_update("edit-1", ToolCallUpdateFields::new().status(ToolCallStatus::Completed))?;
    t.stream("I changed `greet` to take a name (nothing was written: this is a demo).", Duration::from_millis(20)).await
}

async fn plan(t: &Turn) -> Outcome {
    let items = ["Read the code", "Write the change", "Run the tests"];
    for done in 0..=items.len() {
        let entries = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let status = match i.cmp(&done) {
                    std::cmp::Ordering::Less => PlanEntryStatus::Completed,
                    std::cmp::Ordering::Equal => PlanEntryStatus::InProgress,
                    std::cmp::Ordering::Greater => PlanEntryStatus::Pending,
                };
                PlanEntry::new(*item, PlanEntryPriority::Medium, status)
            })
            .collect();
        t.send(SessionUpdate::Plan(Plan::new(entries)))?;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    t.stream("Every step of my plan is done.", Duration::from_millis(20)).await
}

async fn permission(t: &Turn) -> Outcome {
    let command = "rm -rf build";
    t.tool(
        ToolCall::new("run-1", format!("Run `{command}`"))
            .kind(ToolKind::Execute)
            .status(ToolCallStatus::Pending)
            .raw_input(serde_json::json!({ "command": command })),
    )?;
    let options = vec![
        PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
        PermissionOption::new("allow-always", "Always allow", PermissionOptionKind::AllowAlways),
        PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        PermissionOption::new("reject-always", "Always reject", PermissionOptionKind::RejectAlways),
    ];
    let fields = ToolCallUpdateFields::new()
        .title(format!("Run `{command}`"))
        .kind(ToolKind::Execute)
        .raw_input(serde_json::json!({ "command": command }));
    let request = RequestPermissionRequest::new(t.session.clone(), ToolCallUpdate::new("run-1", fields), options);
    let response = t.cx.send_request(request).block_task().await?;
    match response.outcome {
        RequestPermissionOutcome::Selected(selected) if selected.option_id.0.starts_with("allow") => {
            t.tool_update("run-1", ToolCallUpdateFields::new().status(ToolCallStatus::InProgress))?;
            tokio::time::sleep(Duration::from_millis(50)).await;
            t.tool_update(
                "run-1",
                ToolCallUpdateFields::new()
                    .status(ToolCallStatus::Completed)
                    .raw_output(serde_json::json!("(pretended to remove build/)")),
            )?;
            t.stream("Allowed: I ran it (pretending; nothing was removed).", Duration::from_millis(20)).await
        }
        RequestPermissionOutcome::Selected(_) => {
            t.tool_update("run-1", ToolCallUpdateFields::new().status(ToolCallStatus::Failed))?;
            t.stream("Rejected: I did not run it.", Duration::from_millis(20)).await
        }
        _ => Ok(StopReason::Cancelled),
    }
}

async fn failing(t: &Turn) -> Outcome {
    for i in 1..=4 {
        if t.cancelled() {
            return Ok(StopReason::Cancelled);
        }
        let id = format!("fail-{i}");
        t.tool(
            ToolCall::new(id.clone(), format!("Run the tests (attempt {i})"))
                .kind(ToolKind::Execute)
                .status(ToolCallStatus::InProgress)
                .raw_input(serde_json::json!({ "command": "cargo test" })),
        )?;
        tokio::time::sleep(Duration::from_millis(60)).await;
        t.tool_update(
            &id,
            ToolCallUpdateFields::new()
                .status(ToolCallStatus::Failed)
                .raw_output(serde_json::json!("error: could not compile `demo`")),
        )?;
    }
    t.stream("The tests keep failing; I will try again the same way.", Duration::from_millis(20)).await
}

/// The words asked, after the channel's news sent along (if any).
fn after_news(prompt: &str) -> &str {
    prompt.rsplit(crate::model::channel::CATCH_UP_END).next().unwrap_or(prompt)
}

/// Writes `notes/demo.md` (`files into NAME`: `notes/NAME.md`; its sentence: the words after
/// `files:` or after `NAME:`, if any) and reads it back.
async fn files(t: &Turn, prompt: &str) -> Outcome {
    let asked = after_news(prompt);
    let name = asked
        .split_once("files into ")
        .and_then(|(_, rest)| rest.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')).next())
        .filter(|n| !n.is_empty());
    let file = format!("notes/{}.md", name.unwrap_or("demo"));
    let path = t.cwd.join(&file);
    let marker = name.map_or_else(|| "files:".to_string(), |n| format!("{n}:"));
    let said = asked.rsplit_once(marker.as_str()).map(|(_, s)| s.trim()).filter(|s| !s.is_empty());
    let sentence = said.and_then(|s| s.lines().next()).unwrap_or("Written by the demo agent through the client.");
    let text = format!("# Notes\n\n{sentence}\n");
    t.cx.send_request(WriteTextFileRequest::new(t.session.clone(), path.clone(), text)).block_task().await?;
    let read = t.cx.send_request(ReadTextFileRequest::new(t.session.clone(), path.clone())).block_task().await?;
    let outside = t.cwd.join("../outside.md");
    let refused = t.cx.send_request(ReadTextFileRequest::new(t.session.clone(), outside)).block_task().await.is_err();
    let summary = format!(
        "I wrote `{file}` and read back {} bytes. Reading outside the workspace was {}.",
        read.content.len(),
        if refused { "refused" } else { "allowed (that is wrong)" }
    );
    t.stream(&summary, Duration::from_millis(20)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_pick_scenarios() {
        assert_eq!(Scenario::pick("hello"), Scenario::Hello);
        assert_eq!(Scenario::pick("please run it"), Scenario::Permission);
        assert_eq!(Scenario::pick("Show me a DIFF"), Scenario::Diff);
        assert_eq!(Scenario::pick("wait, then crash"), Scenario::Crash);
        assert_eq!(Scenario::pick("running"), Scenario::Hello, "whole words only");
    }

    #[test]
    fn chunks_rejoin_into_the_reply() {
        let chunks = reply_chunks("hello");
        assert!(chunks.len() > 5);
        let joined: String = chunks.concat();
        assert!(joined.contains("> hello\n"));
        assert!(joined.starts_with("**Hello!**"));
    }
}

#[cfg(test)]
mod help_tests {
    use super::*;

    #[test]
    fn every_word_of_help_picks_a_scenario_of_its_own() {
        for (word, _) in WORDS {
            let first = word.split_whitespace().next().unwrap();
            // Answered outside the scenarios (by the session) or by a scenario other than the greeting.
            let elsewhere = ["mcp", "call", "settings"].contains(&first);
            assert!(elsewhere || Scenario::pick(first) != Scenario::Hello, "{word} is not answered");
        }
        assert_eq!(Scenario::pick("help"), Scenario::Help);
        assert_eq!(Scenario::pick("please help me plan"), Scenario::Plan, "help only when nothing else matches");
    }
}
