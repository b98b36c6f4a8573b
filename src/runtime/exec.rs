//! The executor: how a program is started for an agent. `popen` starts a long-lived process with
//! piped stdio (ACP agents always go through it); `run` runs a command to completion.
//! Only the local executor exists yet; container, sandbox, podman and kubectl runtimes answer
//! `NotSupported` at once (the executor issue adds them).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;

use futures::future::BoxFuture;
use tokio::process::{Child, Command};

use crate::model::config::{AgentConfig, RuntimeKind};

/// The command name that always means this very binary.
pub const SELF_COMMAND: &str = "sidekicks";

/// What to start, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessSpec {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Working folder.
    pub cwd: PathBuf,
    /// Variables added to the environment.
    pub env: BTreeMap<String, String>,
}

impl ProcessSpec {
    /// The spec that starts `agent` in its workspace.
    pub fn for_agent(agent: &AgentConfig) -> Self {
        let mut argv = vec![agent.command.clone()];
        argv.extend(agent.args.iter().cloned());
        Self { argv, cwd: agent.workspace_path(), env: agent.env.clone() }
    }
}

/// Errors of an executor, each precise enough for the UI to say what to do.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The program was not found.
    #[error("program not found: {program}")]
    NotFound { program: String },
    /// The working folder does not exist.
    #[error("folder not found: {path}")]
    MissingFolder { path: PathBuf },
    /// This runtime cannot do this (yet).
    #[error("the {runtime} runtime cannot {what} yet")]
    NotSupported { runtime: &'static str, what: &'static str },
    /// The command line is empty.
    #[error("empty command")]
    EmptyCommand,
    /// Any other failure to start.
    #[error("could not start {program}: {source}")]
    Spawn { program: String, source: std::io::Error },
}

impl ExecError {
    /// The failure as data the UI puts into words.
    pub fn failure(&self) -> crate::app::SpawnFailure {
        use crate::app::SpawnFailure as F;
        match self {
            ExecError::NotFound { program } => F::NotFound { program: program.clone() },
            ExecError::MissingFolder { path } => F::MissingFolder { path: path.display().to_string() },
            ExecError::NotSupported { runtime, .. } => F::NotSupported { runtime: runtime.to_string() },
            ExecError::EmptyCommand => F::NotFound { program: String::new() },
            ExecError::Spawn { program, source } => F::Other { program: program.clone(), message: source.to_string() },
        }
    }
}

/// The output of a finished command.
#[derive(Clone, Debug)]
pub struct Output {
    /// Exit code, if it exited normally.
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

/// Starts processes for one runtime.
pub trait Executor: Send + Sync {
    /// Starts a long-lived process with piped stdin, stdout and stderr, in its own process group.
    fn popen(&self, spec: &ProcessSpec) -> Result<Child, ExecError>;
    /// Runs a command to completion.
    fn run(&self, spec: &ProcessSpec) -> BoxFuture<'static, Result<Output, ExecError>>;
}

/// The executor for an agent's runtime.
pub fn executor_for(agent: &AgentConfig) -> Result<Box<dyn Executor>, ExecError> {
    match agent.runtime.kind {
        RuntimeKind::Local => Ok(Box::new(LocalExecutor)),
        kind => Err(ExecError::NotSupported { runtime: kind.code(), what: "start agents" }),
    }
}

/// Runs programs on this computer.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalExecutor;

impl LocalExecutor {
    fn command(spec: &ProcessSpec) -> Result<Command, ExecError> {
        let (program, args) = spec.argv.split_first().ok_or(ExecError::EmptyCommand)?;
        if !spec.cwd.is_dir() {
            return Err(ExecError::MissingFolder { path: spec.cwd.clone() });
        }
        let program = resolve_program(program);
        let mut cmd = Command::new(&program);
        cmd.args(args)
            .current_dir(&spec.cwd)
            .envs(&spec.env)
            // Its own process group, so stopping reaches everything it started.
            .process_group(0)
            .kill_on_drop(false);
        Ok(cmd)
    }
}

impl Executor for LocalExecutor {
    fn popen(&self, spec: &ProcessSpec) -> Result<Child, ExecError> {
        let mut cmd = Self::command(spec)?;
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        cmd.spawn().map_err(|e| spawn_error(&spec.argv[0], e))
    }

    fn run(&self, spec: &ProcessSpec) -> BoxFuture<'static, Result<Output, ExecError>> {
        let cmd = Self::command(spec);
        let program = spec.argv.first().cloned().unwrap_or_default();
        Box::pin(async move {
            let mut cmd = cmd?;
            cmd.stdin(Stdio::null());
            let out = cmd.output().await.map_err(|e| spawn_error(&program, e))?;
            Ok(Output { code: out.status.code(), stdout: out.stdout, stderr: out.stderr })
        })
    }
}

fn spawn_error(program: &str, source: std::io::Error) -> ExecError {
    if source.kind() == std::io::ErrorKind::NotFound {
        ExecError::NotFound { program: program.to_string() }
    } else {
        ExecError::Spawn { program: program.to_string(), source }
    }
}

/// `sidekicks` means this binary, wherever it lives; anything else is looked up as usual.
fn resolve_program(program: &str) -> PathBuf {
    if program == SELF_COMMAND
        && let Some(exe) = self_exe()
    {
        return exe;
    }
    PathBuf::from(program)
}

/// The Sidekicks binary. Tests run from a test harness binary, so `SIDEKICKS_BIN` may point at
/// the real one (cargo sets `CARGO_BIN_EXE_sidekicks` for integration tests).
fn self_exe() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("SIDEKICKS_BIN") {
        return Some(PathBuf::from(bin));
    }
    std::env::current_exe().ok()
}
