//! The remote executor: `docker|podman|sbx exec -i TARGET sh -c SCRIPT sidekicks ARGS…` and
//! `kubectl exec -i POD -- sh -c SCRIPT sidekicks ARGS…`. The script is fixed text: the folder, the
//! environment and the command arrive as positional parameters, so a name like `$(rm -rf ~)` or
//! `-rf` is only ever a name. The launch script records the agent's pid in a file inside the
//! container, so teardown can end it there (killing the local `… exec` client alone leaves it
//! running).

use std::process::Stdio;

use futures::future::BoxFuture;
use tokio::process::Command;

use super::local::run_command;
use super::teardown::{RemoteTeardown, TEARDOWN, alive, unique};
use super::{ExecError, Executor, Launched, Output, ProcessSpec, spawn_error};

/// Variables of this computer's environment that reach an agent in a container, sandbox or pod
/// (besides the config's `env`): locale, terminal type and time zone — never secrets.
pub const REMOTE_ENV_PASSTHROUGH: &[&str] = &["LANG", "LC_ALL", "TERM", "TZ"];

/// Sets up and runs a command inside the target: `$1` folder, `$2` pid file (may be empty),
/// `$3` count of `NAME=value` arguments that follow, then the command and its arguments.
const LAUNCH: &str = r#"cwd=$1; pidfile=$2; n=$3; shift 3
while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n - 1)); done
cd "$cwd" || { echo "sidekicks: the folder $cwd does not exist in this container" >&2; exit 127; }
if [ -n "$pidfile" ]; then (read -r l < /proc/$$/stat; r=${l##*) }; set -- $r; echo "$$ ${20}") > "$pidfile"; fi
exec "$@""#;

/// Ends, with `TEARDOWN` and KILL, the agents of the pid files given after the teardown script,
/// and removes the files.
pub(super) const REAP: &str = r#"t=$1; shift
for f; do sh -c "$t" sidekicks "$f" KILL; rm -f -- "$f"; done"#;

/// The Sidekicks process that started the agent of a pid file named `/tmp/sidekicks-PID-N.pid`.
fn owner(file: &str) -> Option<i32> {
    file.strip_prefix("/tmp/sidekicks-")?.split('-').next()?.parse().ok()
}

/// Kinds of remote runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteKind {
    /// `docker exec`.
    Docker,
    /// `podman exec`.
    Podman,
    /// `sbx exec` (Docker sandboxes).
    Sbx,
    /// `kubectl exec`.
    Kubectl,
}

impl RemoteKind {
    /// The tool's usual program name.
    pub fn program(self) -> &'static str {
        match self {
            RemoteKind::Docker => "docker",
            RemoteKind::Podman => "podman",
            RemoteKind::Sbx => "sbx",
            RemoteKind::Kubectl => "kubectl",
        }
    }

    fn runtime(self) -> &'static str {
        match self {
            RemoteKind::Docker => "container",
            RemoteKind::Podman => "podman",
            RemoteKind::Sbx => "sbx",
            RemoteKind::Kubectl => "kubectl",
        }
    }
}

/// Runs programs inside a container, sandbox or pod.
#[derive(Clone, Debug)]
pub struct RemoteExecutor {
    kind: RemoteKind,
    target: String,
    program: String,
}

impl RemoteExecutor {
    /// An executor for `target` (container, sandbox or pod name).
    pub fn new(kind: RemoteKind, target: impl Into<String>) -> Self {
        Self { kind, target: target.into(), program: kind.program().to_string() }
    }

    /// The same, with another program for the tool (tests use a recording stand-in).
    pub fn with_program(mut self, program: impl Into<String>) -> Self {
        self.program = program.into();
        self
    }

    /// `tool exec [-i] TARGET [--]`: the start of every command line.
    fn exec_prefix(&self, interactive: bool) -> Vec<String> {
        let mut argv = vec![self.program.clone(), "exec".to_string()];
        if interactive {
            argv.push("-i".to_string());
        }
        argv.push(self.target.clone());
        if self.kind == RemoteKind::Kubectl {
            argv.push("--".to_string());
        }
        argv
    }

    /// Whether the tool takes variables by name (`-e NAME`) from its own environment: then the
    /// config's `env` values are never on a command line, where `ps` would show them to anyone.
    fn takes_env_by_name(&self) -> bool {
        matches!(self.kind, RemoteKind::Docker | RemoteKind::Podman)
    }

    /// The variables to set on the tool's own process (see `takes_env_by_name`).
    fn client_env<'a>(&self, spec: &'a ProcessSpec) -> impl Iterator<Item = (&'a String, &'a String)> {
        let by_name = self.takes_env_by_name();
        spec.env.iter().filter(move |_| by_name)
    }

    /// The full command line that runs `spec` in the target, recording its pid in `pidfile`. With
    /// docker and podman the config's variables are named here and their values are set on the
    /// tool's process (`client_env`); the others get `NAME=value` arguments.
    pub fn command_line(&self, spec: &ProcessSpec, pidfile: &str, interactive: bool) -> Vec<String> {
        let mut argv = self.exec_prefix(interactive);
        if self.takes_env_by_name() {
            let target = argv.pop().unwrap_or_default();
            for name in spec.env.keys() {
                argv.extend(["-e".to_string(), name.clone()]);
            }
            argv.push(target);
        }
        argv.extend(["sh".to_string(), "-c".to_string(), LAUNCH.to_string(), "sidekicks".to_string()]);
        argv.push(spec.cwd.display().to_string());
        argv.push(pidfile.to_string());
        let mut env: Vec<String> = REMOTE_ENV_PASSTHROUGH
            .iter()
            .filter(|k| !spec.env.contains_key(**k))
            .filter_map(|k| std::env::var(k).ok().map(|v| format!("{k}={v}")))
            .collect();
        if !self.takes_env_by_name() {
            env.extend(spec.env.iter().map(|(k, v)| format!("{k}={v}")));
        }
        argv.push(env.len().to_string());
        argv.extend(env);
        argv.extend(spec.argv.iter().cloned());
        argv
    }

    fn command(&self, argv: &[String]) -> Command {
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]).process_group(0).kill_on_drop(false);
        cmd
    }

    fn spawn_failure(&self, e: std::io::Error) -> ExecError {
        match spawn_error(&self.program, e) {
            ExecError::NotFound { .. } => {
                ExecError::ToolMissing { tool: self.program.clone(), runtime: self.kind.runtime() }
            }
            other => other,
        }
    }
}

impl Executor for RemoteExecutor {
    fn preflight(&self) -> BoxFuture<'static, Result<(), ExecError>> {
        let this = self.clone();
        Box::pin(async move {
            let argv: Vec<String> = match this.kind {
                RemoteKind::Docker | RemoteKind::Podman => vec![
                    this.program.clone(),
                    "inspect".into(),
                    "--format".into(),
                    "{{.State.Running}}".into(),
                    this.target.clone(),
                ],
                // Only whether the tool is there: their own errors name the sandbox or pod.
                RemoteKind::Sbx | RemoteKind::Kubectl => vec![this.program.clone(), "version".into()],
            };
            let out = run_command(this.command(&argv), &this.program, None).await.map_err(|e| match e {
                ExecError::NotFound { .. } => {
                    ExecError::ToolMissing { tool: this.program.clone(), runtime: this.kind.runtime() }
                }
                other => other,
            })?;
            if matches!(this.kind, RemoteKind::Sbx | RemoteKind::Kubectl) {
                this.end_leftovers().await;
                return Ok(());
            }
            let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
            match (out.code, stdout.as_str()) {
                (Some(0), "true") => {
                    this.end_leftovers().await;
                    Ok(())
                }
                (Some(0), _) => Err(ExecError::ContainerStopped { name: this.target.clone() }),
                _ if stderr.to_lowercase().contains("no such") => {
                    Err(ExecError::ContainerMissing { name: this.target.clone() })
                }
                _ => Err(ExecError::Remote { tool: this.program.clone(), message: stderr }),
            }
        })
    }

    fn popen(&self, spec: &ProcessSpec) -> Result<Launched, ExecError> {
        if spec.argv.is_empty() {
            return Err(ExecError::EmptyCommand);
        }
        let pidfile = format!("/tmp/sidekicks-{}-{}.pid", std::process::id(), unique());
        let argv = self.command_line(spec, &pidfile, true);
        let mut cmd = self.command(&argv);
        cmd.envs(self.client_env(spec));
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = cmd.spawn().map_err(|e| self.spawn_failure(e))?;
        let teardown = RemoteTeardown::in_target(self.exec_prefix(false), pidfile);
        Ok(Launched { child, teardown: Some(teardown) })
    }

    fn remote_argv(&self, words: Vec<String>, tty: bool, env_names: &[String]) -> Option<Vec<String>> {
        let mut argv = vec![self.program.clone(), "exec".into(), if tty { "-it" } else { "-i" }.into()];
        if self.takes_env_by_name() {
            for name in env_names {
                argv.extend(["-e".into(), name.clone()]);
            }
        }
        argv.push(self.target.clone());
        if self.kind == RemoteKind::Kubectl {
            argv.push("--".into());
        }
        argv.extend(words);
        Some(argv)
    }

    fn env_by_name(&self) -> bool {
        self.takes_env_by_name()
    }

    fn run(&self, spec: &ProcessSpec, input: Option<Vec<u8>>) -> BoxFuture<'static, Result<Output, ExecError>> {
        let argv = self.command_line(spec, "", input.is_some());
        let mut cmd = self.command(&argv);
        cmd.envs(self.client_env(spec));
        let this = self.clone();
        Box::pin(async move {
            run_command(cmd, &this.program, input).await.map_err(|e| match e {
                ExecError::NotFound { .. } => {
                    ExecError::ToolMissing { tool: this.program.clone(), runtime: this.kind.runtime() }
                }
                other => other,
            })
        })
    }
}

impl RemoteExecutor {
    /// Ends the agents an earlier Sidekicks started in the target and left running when it was
    /// killed: their pid files name a Sidekicks process that no longer exists. Best effort.
    async fn end_leftovers(&self) {
        let mut list = self.exec_prefix(false);
        list.extend(["sh", "-c", "ls -d /tmp/sidekicks-*.pid 2>/dev/null; true"].map(String::from));
        let Ok(out) = run_command(self.command(&list), &self.program, None).await else { return };
        let dead: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|f| owner(f).is_some_and(|pid| !alive(pid)))
            .map(String::from)
            .collect();
        if dead.is_empty() {
            return;
        }
        tracing::info!(target = self.target, "ending {} agent(s) left by an earlier run", dead.len());
        let mut reap = self.exec_prefix(false);
        reap.extend(["sh", "-c", REAP, "sidekicks", TEARDOWN].map(String::from));
        reap.extend(dead);
        if let Err(e) = run_command(self.command(&reap), &self.program, None).await {
            tracing::warn!("ending leftovers in {}: {e}", self.target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec whose env names every passthrough variable, so this machine's values do not leak in.
    fn spec() -> ProcessSpec {
        let mut env: std::collections::BTreeMap<String, String> =
            REMOTE_ENV_PASSTHROUGH.iter().map(|k| (k.to_string(), "x".to_string())).collect();
        env.insert("KEY".into(), "v".into());
        ProcessSpec { argv: vec!["agent".into(), "--flag".into()], cwd: "/work".into(), env }
    }

    fn expected(prefix: &[&str]) -> Vec<String> {
        let mut argv: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
        argv.extend(["sh", "-c", LAUNCH, "sidekicks", "/work", "/tmp/p", "5"].map(String::from));
        argv.extend(["KEY=v", "LANG=x", "LC_ALL=x", "TERM=x", "TZ=x", "agent", "--flag"].map(String::from));
        argv
    }

    /// Docker and podman: the variables by name, no values on the command line.
    fn expected_by_name(prefix: &[&str]) -> Vec<String> {
        let mut argv: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
        for name in ["KEY", "LANG", "LC_ALL", "TERM", "TZ"] {
            argv.extend(["-e", name].map(String::from));
        }
        argv.push("box".into());
        argv.extend(["sh", "-c", LAUNCH, "sidekicks", "/work", "/tmp/p", "0", "agent", "--flag"].map(String::from));
        argv
    }

    #[test]
    fn command_lines_per_tool() {
        let line = |kind, interactive| RemoteExecutor::new(kind, "box").command_line(&spec(), "/tmp/p", interactive);
        assert_eq!(line(RemoteKind::Docker, true), expected_by_name(&["docker", "exec", "-i"]));
        assert_eq!(line(RemoteKind::Podman, true), expected_by_name(&["podman", "exec", "-i"]));
        assert_eq!(line(RemoteKind::Sbx, true), expected(&["sbx", "exec", "-i", "box"]));
        assert_eq!(line(RemoteKind::Kubectl, true), expected(&["kubectl", "exec", "-i", "box", "--"]));
        assert_eq!(line(RemoteKind::Docker, false), expected_by_name(&["docker", "exec"]));
    }
}
