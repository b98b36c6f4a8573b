//! `sidekicks prompt`: one turn with one agent of a config, without a window. The answer streams
//! to stdout (JSON lines with `--json`); permission requests are answered by `--allow`; the
//! conversation is stored in the history like any other.

use crate::cli::out::errln;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use clap::ValueEnum;

pub(crate) use super::stream::Output;
use crate::app::AgentCommand;
use crate::app::AgentEvent;
use crate::app::ConfigEvent;
use crate::app::{AgentState, Command, Event};
use crate::i18n::{Key, problem_text, tr, trf};
use crate::model::config::Language;
use crate::model::conversation::TurnEnd;
use crate::model::permission::{PermissionAnswer, PermissionRequest};
use crate::runtime::agents::ManagerSettings;
use crate::runtime::config::file::AppDirs;
use crate::runtime::events::EventSink;
use crate::runtime::host::{Host, Startup};

/// How permission requests are answered without a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Allow {
    /// Allow each request once.
    Once,
    /// Allow, and remember it for this agent and workspace.
    Always,
    /// Refuse (the default: nothing runs without a yes).
    Reject,
}

/// What `sidekicks prompt` and `sidekicks team prompt` take besides whom they speak to.
#[derive(Debug, clap::Args)]
pub struct PromptArgs {
    /// How permission requests are answered (default: reject).
    #[arg(long, value_enum, default_value = "reject")]
    pub allow: Allow,
    /// JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
    /// The model to answer with (one the agent offers; remembered like a choice in the window).
    #[arg(long)]
    pub model: Option<String>,
    /// The session mode (one the agent offers).
    #[arg(long)]
    pub mode: Option<String>,
    /// The thread to speak in: `new`, a thread's number or its title (default: the agent's
    /// current thread, as the window last showed it).
    #[arg(long)]
    pub thread: Option<String>,
    /// A file to send with the message: an image (PNG, JPEG, GIF, WebP), or a file or folder of
    /// the agent's workspace (sent as a link, or with its text when the agent takes it).
    /// Repeatable.
    #[arg(long)]
    pub attach: Vec<PathBuf>,
    /// Say the thread's transcript first, for an agent that no longer remembers it (one that
    /// cannot reopen its session says so when asked in its thread).
    #[arg(long)]
    pub transcript: bool,
    /// The message.
    pub text: String,
}

impl PromptArgs {
    /// What is asked of `agent`.
    pub fn asked(self, agent: String) -> Asked {
        use crate::model::session_config::{Category, Chosen, OptionKey, OptionValue};
        let Self { allow, json, model, mode, thread, attach, transcript, text } = self;
        let choose = |category, value: Option<String>| {
            value.map(|v| Chosen { key: OptionKey::Category(category), value: OptionValue::Choice(v) })
        };
        let chosen = [choose(Category::Model, model), choose(Category::Mode, mode)].into_iter().flatten().collect();
        Asked { agent, allow, json, chosen, thread, attach, transcript, text }
    }
}

/// What `sidekicks prompt` is asked.
pub struct Asked {
    /// The agent's name.
    pub agent: String,
    /// How permission requests are answered.
    pub allow: Allow,
    /// JSON lines instead of text.
    pub json: bool,
    /// Choices (model, mode) for the session.
    pub chosen: Vec<crate::model::session_config::Chosen>,
    /// The thread: `new`, a number or a title; `None`: the current one.
    pub thread: Option<String>,
    /// Files sent with it (images; files or folders of the agent's workspace).
    pub attach: Vec<PathBuf>,
    /// Say the thread's transcript first.
    pub transcript: bool,
    /// The message.
    pub text: String,
}

/// The thread `wanted` names (`new`, a number, a title) among `agent`'s `threads`; `Err`: what
/// to say when there is none (the threads it has).
pub(crate) fn find_thread(
    threads: &[crate::protocol::threads::ThreadSummary],
    agent: &str,
    wanted: &str,
) -> Result<crate::protocol::threads::ThreadOp, String> {
    use crate::protocol::threads::ThreadOp;
    if wanted == "new" {
        return Ok(ThreadOp::New);
    }
    let found = threads
        .iter()
        .find(|t| t.id.to_string() == wanted)
        .or_else(|| threads.iter().find(|t| t.title.trim().eq_ignore_ascii_case(wanted.trim())));
    match found {
        Some(t) => Ok(ThreadOp::Open(t.id)),
        None => {
            let names: Vec<String> = threads.iter().map(|t| format!("{} “{}”", t.id, t.title)).collect();
            Err(format!("no thread {wanted:?} of {agent} (threads: {})", names.join(", ")))
        }
    }
}

/// The agent's name as the config file writes it, when `asked` differs only by case and names
/// one agent there (`--agent helper` for "Helper"); else `asked` as it is.
fn named_as_in_the_file(config: &std::path::Path, asked: String) -> String {
    let Some(loaded) = crate::runtime::config::file::load_file(config, None).config else { return asked };
    if loaded.agent(&asked).is_some() {
        return asked;
    }
    let mut alike = loaded.agents.iter().filter(|a| a.name.eq_ignore_ascii_case(&asked));
    match (alike.next(), alike.next()) {
        (Some(one), None) => one.name.clone(),
        _ => asked,
    }
}

/// Runs one turn; returns the process exit code (0 ended normally, 1 failed, 2 bad input).
pub fn run(config: PathBuf, dirs: Option<AppDirs>, asked: Asked) -> anyhow::Result<u8> {
    let Asked { agent, allow, json, chosen, thread, attach, transcript, text } = asked;
    let agent = named_as_in_the_file(&config, agent);
    let system = sys_locale::get_locale();
    let rt = crate::runtime::host::runtime()?;
    let store = match &dirs {
        Some(d) => {
            let (store, note) = crate::runtime::host::open_history(d)?;
            if let Some(note) = note {
                let lang = crate::model::config::Language::pick(None, system.as_deref());
                errln!("[{}]", crate::i18n::history_note_text(lang, &note));
            }
            Some(store)
        }
        None => None,
    };
    rt.block_on(async move {
        // `--allow` is carried out by the runtime (`ManagerSettings::unattended`): `reject`, the
        // default, means Sidekicks writes no file and runs no command for the agent (ADR 0030), the
        // same as at `sidekicks team prompt`.
        let settings = ManagerSettings { unattended: Some(allow.into()), ..ManagerSettings::default() };
        let startup = Startup { dirs, store, settings, ..Startup::new(config.clone()) };
        let Host { commands, mut events, history } = Host::start(startup, Arc::new(|| {}));
        let by_name = thread.as_deref().is_some_and(|t| t != "new");
        let Some(Ready { loaded, threads, opened, offered }) = ready(&mut events, &config, &agent, by_name).await?
        else {
            shut_down(&commands, &mut events).await;
            return Ok(2);
        };
        let (loaded, lang) = loaded.unwrap_or_default();
        let Some((runtime, workspace)) = loaded.agent(&agent).map(|a| (a.runtime.clone(), a.workspace.clone())) else {
            let names: Vec<&str> = loaded.agents.iter().map(|a| a.name.as_str()).collect();
            shut_down(&commands, &mut events).await;
            bail!("no agent named {agent:?} in {} (agents: {})", config.display(), names.join(", "));
        };
        let mut attachments = Vec::new();
        for path in &attach {
            match crate::runtime::attach::from_file(path, &workspace) {
                Ok(a) => attachments.push(a),
                Err(e) => {
                    errln!("{e}");
                    shut_down(&commands, &mut events).await;
                    return Ok(2);
                }
            }
        }
        // `--thread new` while the agent has only an unused thread (an empty history): that one
        // (another would leave an empty thread 1 behind).
        let unused = |t: &crate::protocol::threads::ThreadSummary| t.title.is_empty() && t.session_id.is_none();
        let only_unused = threads.as_deref().filter(|t| t.iter().all(unused)).and_then(|t| t.first());
        let mut kept = only_unused.filter(|_| thread.as_deref() == Some("new")).map(|t| t.id);
        if let Some(wanted) = thread.as_ref().filter(|_| kept.is_none()) {
            match find_thread(threads.as_deref().unwrap_or_default(), &agent, wanted) {
                // The thread named is the one open: nothing to switch, and it is said all the same.
                Ok(crate::protocol::threads::ThreadOp::Open(id)) if Some(id) == opened => kept = Some(id),
                Ok(op) => commands.send(Command::Agent(agent.clone().into(), AgentCommand::Thread { op })).await?,
                Err(why) => {
                    errln!("{why}");
                    shut_down(&commands, &mut events).await;
                    return Ok(2);
                }
            }
        }
        // An agent that cannot reopen the thread's session does not remember it (the window
        // offers the transcript at this point).
        if offered && !transcript && thread.is_none() {
            errln!("[{agent} does not remember this thread: `--transcript` says it first]");
        }
        // Choices first: the session opens with them, before the message is sent.
        for c in chosen.clone() {
            commands
                .send(Command::Agent(agent.clone().into(), AgentCommand::SetOption { key: c.key, value: c.value }))
                .await?;
        }
        commands
            .send(Command::Agent(
                agent.clone().into(),
                AgentCommand::Prompt { text, context: None, with_transcript: transcript, id: None, attachments },
            ))
            .await?;
        let mut out = Output::new(json, lang, agent.clone(), runtime);
        if let Some(id) = kept {
            out.thread(id)?;
        }
        // The thread opened with the config, unless another is asked (it says so when it opens).
        if let (None, Some(opened)) = (&thread, opened) {
            out.thread(opened)?;
        }
        let (code, shut) = follow_turn(&commands, &mut events, out, allow, &chosen, &mut Default::default()).await?;
        if !shut {
            shut_down(&commands, &mut events).await;
        }
        finish(&history, lang, code).await
    })
}

/// What `prompt` waits for before it sends: the config in force and its language, the agent's
/// threads (when one is asked by name), the thread opened and whether a transcript is offered.
struct Ready {
    loaded: Option<(crate::model::config::Config, Language)>,
    threads: Option<Vec<crate::protocol::threads::ThreadSummary>>,
    opened: Option<crate::protocol::threads::ThreadId>,
    offered: bool,
}

/// Waits for what `prompt` needs to know of the runtime; `None` when the config has problems
/// (said on stderr).
async fn ready(
    events: &mut tokio::sync::mpsc::Receiver<Event>,
    config: &std::path::Path,
    agent: &str,
    by_name: bool,
) -> anyhow::Result<Option<Ready>> {
    // The config as the front door read it, and the agent's threads once it lists them.
    let (mut loaded, mut threads, mut opened, mut offered) = (None, None, None, false);
    loop {
        let ready =
            |(c, _): &(crate::model::config::Config, _)| !by_name || threads.is_some() || c.agent(agent).is_none();
        if loaded.as_ref().is_some_and(ready) {
            break;
        }
        match events.recv().await.context("the runtime ended")? {
            Event::Config(ConfigEvent::Loaded { result, language: lang, .. }) if result.config.is_none() => {
                for p in &result.problems {
                    errln!("{}:{}:{}: {}", config.display(), p.line, p.column, problem_text(lang, &p.kind));
                }
                return Ok(None);
            }
            Event::Config(ConfigEvent::Applied { config, language }) => loaded = Some((config, language)),
            Event::Agent(a, AgentEvent::Threads { threads: listed }) if a == agent => threads = Some(listed),
            Event::Agent(a, AgentEvent::ThreadOpened { thread, .. }) if a == agent => opened = Some(thread),
            Event::Agent(a, AgentEvent::TranscriptOffer { offered: o }) if a == agent => offered = o,
            _ => {}
        }
    }
    Ok(Some(Ready { loaded, threads, opened, offered }))
}

/// Everything shown is stored before the process ends: a history that cannot be saved (a full
/// disk) is said, and fails the command. One another program holds is waited for with a word,
/// for at most a minute, and Ctrl+C leaves at once.
async fn finish(history: &EventSink, lang: Language, code: u8) -> anyhow::Result<u8> {
    if !flush_with_word(history, lang).await? {
        return Ok(code.max(HISTORY_NOT_SAVED));
    }
    if let Some(error) = history.history_failing() {
        let note = crate::protocol::HistoryNote::SaveFailed { error };
        errln!("[{}]", crate::i18n::history_note_text(lang, &note));
        return Ok(code.max(HISTORY_NOT_SAVED));
    }
    Ok(code)
}

/// How long `prompt` waits for a history another program holds before it gives up saving.
const HISTORY_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Waits until what was shown is stored; after a second without it, says that the history is held
/// elsewhere and that Ctrl+C leaves; gives up after [`HISTORY_WAIT`] or at Ctrl+C, saying what
/// was not stored. False when it gave up.
pub(crate) async fn flush_with_word(history: &EventSink, lang: crate::model::config::Language) -> anyhow::Result<bool> {
    let flush = history.flush_history();
    tokio::pin!(flush);
    let mut interrupts = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    let started = tokio::time::Instant::now();
    let mut told = false;
    loop {
        tokio::select! {
            () = &mut flush => return Ok(true),
            Some(()) = interrupts.recv() => {
                errln!("[{}]", tr(lang, Key::HistoryLeftUnsaved));
                return Ok(false);
            }
            () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {
                if started.elapsed() >= HISTORY_WAIT {
                    errln!("[{}]", tr(lang, Key::HistoryGaveUp));
                    return Ok(false);
                }
                if !told {
                    told = true;
                    errln!("[{}]", tr(lang, Key::HistoryHeld));
                }
            }
        }
    }
}

/// Follows `out.agent`'s turn (its message is sent) until it ends: streams it, answers
/// permission requests with `allow`, cancels on Ctrl+C (a second one kills the agent and shuts
/// the runtime down); returns the exit code (0 ended normally, 1 failed, 3 login needed, 130
/// interrupted) and whether the runtime has shut down already.
pub(crate) async fn follow_turn(
    commands: &tokio::sync::mpsc::Sender<Command>,
    events: &mut tokio::sync::mpsc::Receiver<Event>,
    mut out: Output,
    allow: Allow,
    chosen: &[crate::model::session_config::Chosen],
    others: &mut std::collections::HashMap<String, Output>,
) -> anyhow::Result<(u8, bool)> {
    let (agent, json) = (out.agent.clone(), out.json);
    let mut shut = false;
    let mut code = None;
    // A stream of signals, not `ctrl_c()`: that future ends after the first one.
    let mut interrupts = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    let mut interrupted = false;
    loop {
        let event = tokio::select! {
            e = events.recv() => match e { Some(e) => e, None => break },
            Some(()) = interrupts.recv() => {
                if interrupted {
                    code.get_or_insert(INTERRUPTED);
                }
                interrupt(commands, &agent, out.lang, &mut interrupted).await?;
                continue;
            }
        };
        // Others streamed beside it (a lead's members), each line named.
        let Some(event) = beside(commands, others, event, allow, interrupted).await? else { continue };
        match event {
            Event::Agent(a, AgentEvent::Update { update }) if a == agent => out.update(&update)?,
            Event::Agent(a, AgentEvent::ThreadOpened { thread, .. }) if a == agent => out.thread(thread)?,
            Event::Agent(a, AgentEvent::PermissionRequested { request }) if a == agent => {
                out.permission(&request)?;
                let answer = if interrupted { PermissionAnswer::Cancelled } else { answer(&request, allow) };
                said_refused(out.lang, allow, interrupted);
                commands.send(Command::Agent(a, AgentCommand::AnswerPermission { id: request.id, answer })).await?;
            }
            // A form or a page cannot be answered from here: cancelled, and said.
            Event::Agent(a, AgentEvent::ElicitationRequested { request }) if a == agent => {
                cancel_question(commands, &mut out, request).await?;
            }
            // The agent went away: its crash report follows.
            Event::Agent(a, AgentEvent::TurnEnded { end: TurnEnd::AgentExited }) if a == agent => {}
            Event::Agent(a, AgentEvent::TurnEnded { end }) if a == agent && code.is_none() => {
                out.end(&end)?;
                code = Some(match end {
                    _ if interrupted => INTERRUPTED,
                    TurnEnd::Failed { .. } | TurnEnd::AuthRequired { .. } => 1,
                    _ => 0,
                });
                break;
            }
            Event::Agent(a, AgentEvent::State { state: AgentState::Crashed(report) })
                if a == agent && code.is_none() =>
            {
                out.crash(&report)?;
                code = Some(if interrupted { INTERRUPTED } else { 1 });
                break;
            }
            // A login is for the window (or an `env_var` way with its variables set before).
            Event::Agent(a, AgentEvent::LoginNeeded { message, methods }) if a == agent && code.is_none() => {
                out.login_needed(&message, &methods)?;
                code = Some(LOGIN_NEEDED);
                break;
            }
            // A choice the agent does not offer is said, with what it offers.
            Event::Agent(a, AgentEvent::SessionSettings { options, modes }) if a == agent => {
                for c in chosen {
                    if let Some(offered) = crate::model::session_config::not_taken(c, &options, modes.as_ref()) {
                        out.not_taken(c, &offered)?;
                    }
                }
            }
            // Another process answers in this thread: the message waits for it (said once).
            Event::Agent(a, AgentEvent::ThreadWait { holder: Some(holder), .. }) if a == agent => {
                if json {
                    out.line(serde_json::json!({"type": "waiting", "holder": holder}))?;
                }
                errln!("[{}]", trf(out.lang, Key::ThreadHeldElsewhere, &[("holder", &holder)]));
            }
            // Given back while it waited (Ctrl+C): never sent.
            Event::Agent(a, AgentEvent::ThreadWait { returned, .. })
                if a == agent && !returned.is_empty() && interrupted =>
            {
                code = Some(INTERRUPTED);
                break;
            }
            Event::ShutdownComplete => {
                shut = true;
                break;
            }
            _ => {}
        }
    }
    Ok((code.unwrap_or(1), shut))
}

/// An event of an agent streamed beside the one followed (`others`): printed, its permission
/// requests answered with `allow`; gives back every other event.
pub(crate) async fn beside(
    commands: &tokio::sync::mpsc::Sender<Command>,
    others: &mut std::collections::HashMap<String, Output>,
    event: Event,
    allow: Allow,
    interrupted: bool,
) -> anyhow::Result<Option<Event>> {
    let Event::Agent(a, agent_event) = event else { return Ok(Some(event)) };
    let Some(o) = others.get_mut(a.as_str()) else { return Ok(Some(Event::Agent(a, agent_event))) };
    match agent_event {
        AgentEvent::Update { update } => o.update(&update)?,
        AgentEvent::TurnEnded { end } => o.end(&end)?,
        AgentEvent::PermissionRequested { request } => {
            o.permission(&request)?;
            let answer = if interrupted { PermissionAnswer::Cancelled } else { answer(&request, allow) };
            said_refused(o.lang, allow, interrupted);
            commands.send(Command::Agent(a, AgentCommand::AnswerPermission { id: request.id, answer })).await?;
        }
        other => return Ok(Some(Event::Agent(a, other))),
    }
    Ok(None)
}

/// Ctrl+C during a turn: the first cancels the turn; a second kills the agent and shuts the
/// runtime down (no more waiting for the agent).
async fn interrupt(
    commands: &tokio::sync::mpsc::Sender<Command>,
    agent: &str,
    lang: Language,
    interrupted: &mut bool,
) -> anyhow::Result<()> {
    if *interrupted {
        commands.send(Command::Agent(agent.into(), AgentCommand::Kill)).await?;
        commands.send(Command::Shutdown).await?;
    } else {
        *interrupted = true;
        errln!("\n[{}]", tr(lang, Key::PromptCancelling));
        commands.send(Command::Agent(agent.into(), AgentCommand::Cancel)).await?;
    }
    Ok(())
}

/// A form or a page cannot be answered from the command line: cancelled, and said.
async fn cancel_question(
    commands: &tokio::sync::mpsc::Sender<Command>,
    out: &mut Output,
    request: crate::model::elicitation::Elicitation,
) -> anyhow::Result<()> {
    let a = out.agent.clone();
    if out.json {
        out.line(serde_json::json!({"type": "elicitation", "message": request.message, "answer": "cancel"}))?;
    }
    errln!("\n[{a} asks: {} — `sidekicks prompt` cannot answer it: cancelled]", request.message);
    let answer = crate::model::elicitation::ElicitAnswer::Cancel;
    commands.send(Command::Agent(a.into(), AgentCommand::AnswerElicitation { id: request.id, answer })).await?;
    Ok(())
}

/// Stops every agent and waits until they have stopped (or the runtime has ended).
pub(crate) async fn shut_down(
    commands: &tokio::sync::mpsc::Sender<Command>,
    events: &mut tokio::sync::mpsc::Receiver<Event>,
) {
    if commands.send(Command::Shutdown).await.is_err() {
        return;
    }
    while let Some(event) = events.recv().await {
        if matches!(event, Event::ShutdownComplete) {
            return;
        }
    }
}

/// The exit code when the answer could not be saved in the history (a full disk).
const HISTORY_NOT_SAVED: u8 = 4;

/// The exit code when the agent asks to log in.
const LOGIN_NEEDED: u8 = 3;

/// The exit code after Ctrl+C (as a shell reports a process ended by SIGINT).
const INTERRUPTED: u8 = 130;

/// The answer `allow` gives to `request`: the first offered option of the wanted kinds.
/// (The runtime answers first, with the same words: `ManagerSettings::unattended`; this answers a
/// request that offered none of the wanted kinds, so that nothing waits.)
/// A request refused by the default `--allow reject` is said to be refused automatically, with
/// how to allow it.
fn said_refused(lang: Language, allow: Allow, interrupted: bool) {
    if allow == Allow::Reject && !interrupted {
        errln!("[{}]", tr(lang, Key::RefusedByDefault));
    }
}

pub(crate) fn answer(request: &PermissionRequest, allow: Allow) -> PermissionAnswer {
    crate::runtime::acp::client::unattended_answer(request, allow.into()).unwrap_or(PermissionAnswer::Cancelled)
}

impl From<Allow> for crate::model::permission::Unattended {
    fn from(allow: Allow) -> Self {
        match allow {
            Allow::Once => Self::Once,
            Allow::Always => Self::Always,
            Allow::Reject => Self::Reject,
        }
    }
}
