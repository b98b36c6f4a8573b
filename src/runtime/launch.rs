//! Starting one agent: the executor's preflight and `popen`, the process with its stderr, the ACP
//! handshake, and the crash report when any of it fails.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use super::process::StopTimeouts;

use super::acp::client::{AcpConnection, AcpError, ClientContext};
use super::agent_fs::AgentFs;
use super::events::EventSink;
use super::exec::{ProcessSpec, executor_for};
use super::permission_rules::PermissionRules;
use super::process::AgentProcess;
use crate::model::config::{AgentConfig, RuntimeKind};
use crate::protocol::AgentEvent;
use crate::protocol::{CrashReason, CrashReport, Event, LogEntry};

/// Timings of the manager (tests shorten them).
#[derive(Clone, Copy, Debug)]
pub struct ManagerSettings {
    /// The stop sequence.
    pub stop: StopTimeouts,
    /// How long `initialize` and `session/new` may take.
    pub handshake_timeout: Duration,
    /// How often idle agents are checked.
    pub tick: Duration,
    /// How long a turn may go on after a cancel before the agent is stopped as unresponsive.
    pub cancel_grace: Duration,
    /// How long an agent that closed its output may take to exit before it is stopped.
    pub hangup_grace: Duration,
    /// This binary: it hosts the commands agents run on this computer (`terminal-host`).
    pub host_exe: &'static std::path::Path,
    /// Where snapshots of workspaces outside git are kept (`<data>/checkpoints`); `None`: beside
    /// the config file (tests).
    pub checkpoints_root: Option<&'static std::path::Path>,
    /// How a door with no person at it has permission requests answered (`--allow`); `None`:
    /// the person answers (the window).
    pub unattended: Option<crate::model::permission::Unattended>,
    /// Whether a door watches the agents (the window): each agent's branch is then read as the
    /// config is applied (`Startup::watching`).
    pub watching: bool,
}

impl Default for ManagerSettings {
    fn default() -> Self {
        Self {
            stop: StopTimeouts::default(),
            handshake_timeout: Duration::from_secs(30),
            tick: Duration::from_secs(1),
            cancel_grace: Duration::from_secs(10),
            hangup_grace: Duration::from_secs(2),
            host_exe: Box::leak(std::env::current_exe().unwrap_or_else(|_| "sidekicks".into()).into_boxed_path()),
            checkpoints_root: None,
            unattended: None,
            watching: true,
        }
    }
}

/// A started agent: its ACP connection and its process.
pub(super) struct Running {
    pub(super) conn: Arc<AcpConnection>,
    pub(super) process: AgentProcess,
}

/// Stderr lines kept in a crash report.
pub(super) const CRASH_TAIL: usize = 12;

/// Starts the process and completes the ACP handshake.
pub(super) async fn launch(
    config: &AgentConfig,
    events: EventSink,
    rules: Arc<dyn PermissionRules>,
    settings: ManagerSettings,
    plan: SessionPlan,
) -> Result<Box<Running>, CrashReport> {
    let SessionPlan { resume, login, chosen, mcp, leases } = plan;
    let spawn_failed = |e: super::exec::ExecError| CrashReport {
        reason: CrashReason::Spawn(e.failure()),
        stderr_tail: Vec::new(),
        stdout_tail: Vec::new(),
    };
    let executor = executor_for(config).map_err(spawn_failed)?;
    executor.preflight().await.map_err(spawn_failed)?;
    let spec = hosted(ProcessSpec::for_agent(config), config, settings.host_exe).map_err(spawn_failed)?;
    let launched = executor.popen(&spec).map_err(spawn_failed)?;
    let agent = config.name.clone();
    let log_events = events.clone();
    // The agent's own `env` and what its MCP servers are given (their `env`, their headers).
    let given = mcp.iter().flat_map(|server| server.env.values().chain(server.headers.values()).cloned());
    let redact = super::redact::Redactor::new(&config.env).also(given.collect::<Vec<_>>());
    let mut process = AgentProcess::new(launched.child, redact.clone(), move |line| {
        let events = log_events.clone();
        let agent = agent.clone();
        async move { events.send(Event::Agent(agent.into(), AgentEvent::Log { entry: LogEntry::Stderr(line) })).await }
    })
    .with_teardown(launched.teardown);
    let (stdin, stdout) = process.take_stdio().ok_or_else(|| {
        spawn_failed(super::exec::ExecError::Spawn {
            program: config.command.clone(),
            source: std::io::Error::other("no pipes to the agent"),
        })
    })?;
    let terminal_events = events.clone();
    let ctx = ClientContext {
        agent: config.name.clone(),
        events,
        fs: AgentFs::new(super::workspace::for_agent(config), config.workspace_path()),
        terminals: Arc::new(super::agent_terminals::AgentTerminals::new(
            config.name.clone(),
            terminal_events,
            executor.clone(),
            config.workspace.clone(),
            config.workspace_path(),
            (config.runtime.kind == crate::model::config::RuntimeKind::Local).then(|| settings.host_exe.to_path_buf()),
        )),
        rules,
        timeout: settings.handshake_timeout,
        replaying: Arc::default(),
        redact,
        login: super::acp::client::LoginPlan { method: login, env: env_names(config), timeout: LOGIN_TIMEOUT },
        chosen,
        mcp,
        policy: config.policy,
        unattended: settings.unattended,
        leases,
        words: Arc::default(),
    };
    let ctx_words = ctx.words.clone();
    let connected = AcpConnection::connect(ctx, stdin, stdout, config.workspace_path(), resume).await;
    match connected {
        Ok(conn) => Ok(Box::new(Running { conn: Arc::new(conn), process })),
        Err(e) => {
            // Give a process that is exiting a moment, so the report says how it ended. A
            // timeout or a request to log in is the cause whatever follows: the agent exits
            // because its stdin closed.
            let exited = match e {
                AcpError::Timeout { .. } | AcpError::AuthRequired { .. } => None,
                _ => tokio::time::timeout(Duration::from_millis(300), process.wait()).await.ok().flatten(),
            };
            let stderr_tail = process.stderr().tail(CRASH_TAIL);
            let reason = handshake_reason(config, &e, exited, &stderr_tail);
            process.stop(settings.stop).await;
            let stdout_tail = ctx_words.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect();
            Err(CrashReport { reason, stderr_tail, stdout_tail })
        }
    }
}

/// What the session to open should be.
#[derive(Default)]
pub(super) struct SessionPlan {
    /// An earlier session to reopen (`session/load`).
    pub resume: Option<super::acp::client::Reopen>,
    /// A way to log in the person chose.
    pub login: Option<String>,
    /// The choices remembered for the agent.
    pub chosen: Vec<crate::model::session_config::Chosen>,
    /// The config's MCP servers for the agent.
    pub mcp: Vec<crate::model::config::McpConfig>,
    /// Who says whether its writes meet another team member's changes.
    pub leases: Option<super::acp::leases::LeasesHandle>,
}

/// How long a login the person asked for may take (a browser login waits for the person).
const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// The variables set in the agent's environment: its config's, and on this computer the ones it
/// inherits from Sidekicks (in a container it gets only its config's).
fn env_names(config: &AgentConfig) -> std::collections::HashSet<String> {
    let mut names: std::collections::HashSet<String> = config.env.keys().cloned().collect();
    if config.runtime.kind == crate::model::config::RuntimeKind::Local {
        names.extend(std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()));
    }
    names
}

/// An agent on this computer runs under the host (`sidekicks terminal-host`), which ends it and
/// all it started if Sidekicks dies. The program is looked up first, so a missing one is still
/// told as such. Other runtimes, and a `host` that is not a Sidekicks binary (a test harness's),
/// run the agent directly.
fn hosted(
    mut spec: ProcessSpec,
    config: &AgentConfig,
    host: &std::path::Path,
) -> Result<ProcessSpec, super::exec::ExecError> {
    let is_sidekicks = host.file_name().is_some_and(|n| n.to_string_lossy().starts_with("sidekicks"));
    let local = config.runtime.kind == crate::model::config::RuntimeKind::Local;
    // A missing folder is told by the executor.
    if !local || !is_sidekicks || spec.argv.is_empty() || !spec.cwd.is_dir() {
        return Ok(spec);
    }
    let program = super::exec::resolve_program(&spec.argv[0]);
    if !super::config::file::command_exists(&program.to_string_lossy(), &spec.cwd) {
        return Err(super::exec::ExecError::NotFound { program: spec.argv[0].clone() });
    }
    spec.argv[0] = program.display().to_string();
    let mut argv = vec![host.display().to_string(), "terminal-host".into(), "--".into()];
    argv.append(&mut spec.argv);
    spec.argv = argv;
    Ok(spec)
}

/// Why an agent whose handshake failed (`e`) ended: the words of the launch script over SSH, a
/// lost connection, its exit, or the handshake's own failure.
fn handshake_reason(
    config: &AgentConfig,
    e: &AcpError,
    exited: Option<ExitStatus>,
    stderr_tail: &[String],
) -> CrashReason {
    // An agent that refused the handshake in words (another protocol version, an error
    // answer) and then exits cleanly because its stdin closed: its words are the cause.
    let clean = exited.is_some_and(|s| s.success());
    // Over SSH, the launch script says when the command or the folder is missing there.
    let missing = config
        .runtime
        .host
        .clone()
        .filter(|_| config.runtime.kind == RuntimeKind::Ssh && exited.is_some_and(|s| s.code() == Some(127)))
        .and_then(|host| super::exec::launch_fault(stderr_tail).map(|fault| (host, fault)));
    // ssh ends with 255 when its connection is lost: said as a lost connection, as it is
    // once the agent runs (it was "exited with code 255" when lost during the handshake).
    let lost = config.runtime.kind == RuntimeKind::Ssh && exited.is_some_and(|s| s.code() == Some(255));
    match (missing, exited) {
        (Some((host, fault)), _) => CrashReason::Spawn(crate::protocol::SpawnFailure::Ssh { host, fault }),
        (None, Some(_)) if lost => CrashReason::Disconnected { host: config.runtime.host.clone().unwrap_or_default() },
        (None, Some(status)) if !(clean && matches!(e, AcpError::Version { .. } | AcpError::Protocol { .. })) => {
            exit_reason(Some(status))
        }
        _ => CrashReason::Handshake(e.failure()),
    }
}

pub(super) fn exit_reason(status: Option<ExitStatus>) -> CrashReason {
    match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(code), _) => CrashReason::Exited { code },
            (None, Some(signal)) => CrashReason::Signaled { signal },
            _ => CrashReason::Exited { code: -1 },
        },
        None => CrashReason::Exited { code: -1 },
    }
}
