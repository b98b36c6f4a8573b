//! The local executor: programs on this computer, each agent in its own process group.

use std::path::PathBuf;
use std::process::Stdio;

use futures::future::BoxFuture;
use tokio::process::Command;

use super::{ExecError, Executor, Launched, Output, ProcessSpec, SELF_COMMAND, spawn_error};

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
    fn preflight(&self) -> BoxFuture<'static, Result<(), ExecError>> {
        Box::pin(async { Ok(()) })
    }

    fn popen(&self, spec: &ProcessSpec) -> Result<Launched, ExecError> {
        let mut cmd = Self::command(spec)?;
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = cmd.spawn().map_err(|e| spawn_error(&spec.argv[0], e))?;
        Ok(Launched { child, teardown: None })
    }

    fn run(&self, spec: &ProcessSpec, input: Option<Vec<u8>>) -> BoxFuture<'static, Result<Output, ExecError>> {
        let cmd = Self::command(spec);
        let program = spec.argv.first().cloned().unwrap_or_default();
        Box::pin(async move { run_command(cmd?, &program, input).await })
    }
}

/// Runs `cmd` to completion, writing `input` to its stdin.
pub(super) async fn run_command(mut cmd: Command, program: &str, input: Option<Vec<u8>>) -> Result<Output, ExecError> {
    use tokio::io::AsyncWriteExt;
    cmd.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| spawn_error(program, e))?;
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        // A command that does not read all of it is not an error here.
        let _ = stdin.write_all(&input).await;
    }
    let out = child.wait_with_output().await.map_err(|e| spawn_error(program, e))?;
    Ok(Output { code: out.status.code(), stdout: out.stdout, stderr: out.stderr })
}

/// `sidekicks` means this binary, wherever it lives; anything else is looked up as usual.
pub fn resolve_program(program: &str) -> PathBuf {
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
