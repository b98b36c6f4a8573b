//! The executor: how a program is started for an agent. `popen` starts a long-lived process with
//! piped stdio (ACP agents always go through it); `run` runs a command to completion. On this
//! computer (`local`), or inside a container, sandbox or pod (`remote`: `docker|podman|sbx exec -i`,
//! `kubectl exec -i`), where a fixed POSIX sh script sets the folder and environment and receives
//! every argument as a positional parameter — never spliced into the script's text.

mod local;
mod remote;
mod ssh;
mod teardown;

pub use local::{LocalExecutor, resolve_program};
pub use remote::{REMOTE_ENV_PASSTHROUGH, RemoteExecutor, RemoteKind};
pub use ssh::{SshExecutor, classify as classify_ssh_failure, env_header, launch_fault};
pub use teardown::RemoteTeardown;
pub use teardown::{quote, remote_command};

use std::collections::BTreeMap;
use std::path::PathBuf;

use futures::future::BoxFuture;
use tokio::process::Child;

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
    NotFound {
        /// The program.
        program: String,
    },
    /// The working folder does not exist.
    #[error("folder not found: {path}")]
    MissingFolder {
        /// The path it is about.
        path: PathBuf,
    },
    /// This runtime cannot do this (yet).
    #[error("the {runtime} runtime cannot {what} yet")]
    NotSupported {
        /// The runtime (docker, podman, sbx, kubectl).
        runtime: &'static str,
        /// What it is about.
        what: &'static str,
    },
    /// The command line is empty.
    #[error("empty command")]
    EmptyCommand,
    /// Any other failure to start.
    #[error("could not start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Where it comes from.
        source: std::io::Error,
    },
    /// The tool a runtime needs (`docker`, `podman`, `sbx`, `kubectl`) is not installed.
    #[error("{tool} is not installed (needed for the {runtime} runtime)")]
    ToolMissing {
        /// The tool.
        tool: String,
        /// The runtime (docker, podman, sbx, kubectl).
        runtime: &'static str,
    },
    /// The container (or sandbox, pod) does not exist.
    #[error("no container named {name}")]
    ContainerMissing {
        /// The name.
        name: String,
    },
    /// The container exists but is not running.
    #[error("the container {name} is not running")]
    ContainerStopped {
        /// The name.
        name: String,
    },
    /// ssh could not reach or use the machine.
    #[error("{}", ssh::fault_words(host, fault))]
    Ssh {
        /// The host of the config.
        host: String,
        /// What went wrong.
        fault: crate::protocol::SshFault,
    },
    /// The runtime's tool failed (its own words).
    #[error("{tool}: {message}")]
    Remote {
        /// The tool.
        tool: String,
        /// The message, in the words of whoever gave it.
        message: String,
    },
}

impl ExecError {
    /// The failure as data the UI puts into words.
    pub fn failure(&self) -> crate::protocol::SpawnFailure {
        use crate::protocol::SpawnFailure as F;
        match self {
            ExecError::NotFound { program } => F::NotFound { program: program.clone() },
            ExecError::MissingFolder { path } => F::MissingFolder { path: path.display().to_string() },
            ExecError::NotSupported { runtime, .. } => F::NotSupported { runtime: runtime.to_string() },
            ExecError::EmptyCommand => F::NotFound { program: String::new() },
            ExecError::Spawn { program, source } => F::Other { program: program.clone(), message: source.to_string() },
            ExecError::ToolMissing { tool, runtime } => {
                F::ToolMissing { tool: tool.clone(), runtime: runtime.to_string() }
            }
            ExecError::ContainerMissing { name } => F::ContainerMissing { name: name.clone() },
            ExecError::ContainerStopped { name } => F::ContainerStopped { name: name.clone() },
            ExecError::Remote { tool, message } => F::Other { program: tool.clone(), message: message.clone() },
            ExecError::Ssh { host, fault } => F::Ssh { host: host.clone(), fault: fault.clone() },
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

/// A process started by `popen`.
pub struct Launched {
    /// The local process (the agent itself, or the `… exec` client talking to it).
    pub child: Child,
    /// How to end the agent inside its container (killing the client alone leaves it running).
    pub teardown: Option<RemoteTeardown>,
}

/// Starts processes for one runtime.
pub trait Executor: Send + Sync {
    /// Checks that the runtime can start anything now (tool installed, container running).
    fn preflight(&self) -> BoxFuture<'static, Result<(), ExecError>>;
    /// Starts a long-lived process with piped stdin, stdout and stderr, in its own process group.
    fn popen(&self, spec: &ProcessSpec) -> Result<Launched, ExecError>;
    /// Runs a command to completion, with `input` on its stdin.
    fn run(&self, spec: &ProcessSpec, input: Option<Vec<u8>>) -> BoxFuture<'static, Result<Output, ExecError>>;
    /// The command line (run on this computer) that runs `words` where this executor runs
    /// programs, with a terminal when `tty`; variables `env_names` are named for the tool to take
    /// from this process's environment where it can (`env_by_name`). `None` on this computer.
    fn remote_argv(&self, _words: Vec<String>, _tty: bool, _env_names: &[String]) -> Option<Vec<String>> {
        None
    }
    /// Whether `remote_argv` passes variables by name (docker, podman).
    fn env_by_name(&self) -> bool {
        true
    }
}

/// The executor for an agent's runtime.
pub fn executor_for(agent: &AgentConfig) -> Result<std::sync::Arc<dyn Executor>, ExecError> {
    executor_at(agent.runtime.kind, agent.runtime.target_name().unwrap_or_default())
}

/// The executor for runtime `kind` at `target` (its container, sandbox, pod or host).
pub fn executor_at(kind: RuntimeKind, target: &str) -> Result<std::sync::Arc<dyn Executor>, ExecError> {
    let name = || target.to_string();
    Ok(match kind {
        RuntimeKind::Local => std::sync::Arc::new(LocalExecutor),
        RuntimeKind::Container => std::sync::Arc::new(RemoteExecutor::new(RemoteKind::Docker, name())),
        RuntimeKind::Podman => std::sync::Arc::new(RemoteExecutor::new(RemoteKind::Podman, name())),
        RuntimeKind::Sbx => std::sync::Arc::new(RemoteExecutor::new(RemoteKind::Sbx, name())),
        RuntimeKind::Kubectl => std::sync::Arc::new(RemoteExecutor::new(RemoteKind::Kubectl, name())),
        RuntimeKind::Ssh => std::sync::Arc::new(SshExecutor::new(target)?),
    })
}

fn spawn_error(program: &str, source: std::io::Error) -> ExecError {
    if source.kind() == std::io::ErrorKind::NotFound {
        ExecError::NotFound { program: program.to_string() }
    } else {
        ExecError::Spawn { program: program.to_string(), source }
    }
}
