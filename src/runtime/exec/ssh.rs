//! The SSH executor: programs on another machine through the system's OpenSSH client, so the
//! person's config, keys, agent, known_hosts and ProxyJump all apply. One connection per host is
//! shared by everything (ControlMaster in a private folder, ControlPersist): starting an agent,
//! reading a file or opening a terminal does not pay a handshake.
//!
//! ssh hands the remote side one command *string*, read by the login shell: every word of the
//! fixed `sh` scripts and their arguments is single-quoted (`quote`), so a name like `$(rm -rf ~)`
//! stays a name. The config's `env` values never travel on a command line (the server's `ps`
//! would show them to everyone there; `SendEnv` needs the server's `AcceptEnv`): they go first on
//! the script's stdin, read line by line before the program takes it over.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio::process::Command;

use super::local::run_command;
use super::teardown::{SWEEP, pending_add, pending_take, quote, remote_command};
use super::{ExecError, Executor, Launched, Output, ProcessSpec, REMOTE_ENV_PASSTHROUGH, RemoteTeardown};
use crate::model::ssh_host::{Destination, HostProblem, parse};
use crate::protocol::SshFault;

/// Sets up and runs a command there: `$1` folder, `$2` pid file (may be empty), `$3` count of
/// variables on stdin (each: its name, its count of lines, the lines), then the command and its
/// arguments. `read` takes stdin one byte at a time, so the program gets the rest untouched.
const LAUNCH: &str = r#"cwd=$1; pidfile=$2; n=$3; shift 3
while [ "$n" -gt 0 ]; do
  IFS= read -r name && IFS= read -r k || { echo "sidekicks: the environment did not arrive" >&2; exit 125; }
  v=; sep=
  while [ "$k" -gt 0 ]; do IFS= read -r l; v="$v$sep$l"; sep='
'; k=$((k - 1)); done
  export "$name=$v"; n=$((n - 1))
done
cd "$cwd" 2>/dev/null || { echo "sidekicks: the folder $cwd does not exist on $(uname -n)" >&2; exit 127; }
[ -n "$pidfile" ] && export SIDEKICKS_AGENT="$pidfile"
if [ -n "$pidfile" ]; then (read -r l < /proc/$$/stat; r=${l##*) }; set -- $r; echo "$$ ${20}") > "$pidfile" 2>/dev/null; fi
command -v "$1" >/dev/null 2>&1 || { echo "sidekicks: $1 is not installed on $(uname -n) (PATH=$PATH)" >&2; exit 127; }
exec "$@""#;

/// Sweeps (`SWEEP`, given as `$1`) the agents of the pid files that follow.
const SWEEP_ALL: &str = r#"s=$1; shift
for f; do sh -c "$s" sidekicks "$f"; done"#;

/// Says it works, then lists the pid files of agents this computer started there (`$1`: their
/// common start).
const CHECK: &str = r#"echo sidekicks-ok; for f in "$1"*.pid; do [ -e "$f" ] && echo "$f"; done; true"#;

/// How long an idle shared connection stays open after its last user.
const PERSIST_SECONDS: u32 = 60;

/// Runs programs on another machine over SSH.
#[derive(Clone, Debug)]
pub struct SshExecutor {
    /// The host as the config names it (for messages).
    host: String,
    dest: Destination,
    program: String,
    /// An SSH config file to read instead of `~/.ssh/config` (`SIDEKICKS_SSH_CONFIG`).
    config: Option<PathBuf>,
    control: PathBuf,
}

impl SshExecutor {
    /// An executor for `host` (a name of the SSH config, or `user@host[:port]`).
    pub fn new(host: &str) -> Result<Self, ExecError> {
        let dest = parse(host).map_err(|why| ExecError::Ssh {
            host: host.to_string(),
            fault: SshFault::Other {
                message: match why {
                    HostProblem::Dash => "the host starts with -".into(),
                    HostProblem::Blank => "the host holds a space, a quote or a shell sign".into(),
                    HostProblem::Port => "the port is not a number from 1 to 65535".into(),
                },
            },
        })?;
        Ok(Self {
            host: host.to_string(),
            dest,
            program: "ssh".into(),
            config: std::env::var_os("SIDEKICKS_SSH_CONFIG").map(PathBuf::from),
            control: control_dir(),
        })
    }

    /// The same, with another program for ssh.
    pub fn with_program(mut self, program: impl Into<String>) -> Self {
        self.program = program.into();
        self
    }

    /// The host as the config names it.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Closes the shared connection to the host (`ssh -O exit`), if one is open: the next
    /// command connects anew.
    pub async fn disconnect(&self) {
        let mut argv = self.options();
        argv.extend(["-O".into(), "exit".into(), "--".into(), self.dest.dest.clone()]);
        let _ = run_command(self.command(&argv), &self.program, None).await;
    }

    /// `ssh [-F config] -o … [-p port]`: how every command starts.
    fn options(&self) -> Vec<String> {
        self.options_as(true)
    }

    /// The same; with `master`, the command may become the host's shared connection when there is
    /// none yet. A terminal's never does: it runs under the terminal host, which ends everything
    /// below it on close — the shared connection with it, and every agent on that host.
    fn options_as(&self, master: bool) -> Vec<String> {
        let mut argv = vec![self.program.clone()];
        if let Some(config) = &self.config {
            argv.extend(["-F".into(), config.display().to_string()]);
        }
        for option in [
            format!("ControlMaster={}", if master { "auto" } else { "no" }),
            format!("ControlPath={}/%C", self.control.display()),
            format!("ControlPersist={PERSIST_SECONDS}"),
            // Nobody can type a password or answer a question here: a missing key fails in words.
            "BatchMode=yes".into(),
            "ConnectTimeout=10".into(),
            // A machine that vanished is noticed within a minute, not at the next TCP timeout.
            "ServerAliveInterval=15".into(),
            "ServerAliveCountMax=4".into(),
        ] {
            argv.extend(["-o".into(), option]);
        }
        if let Some(port) = self.dest.port {
            argv.extend(["-p".into(), port.to_string()]);
        }
        argv
    }

    /// The command line that runs `words` there, with a terminal when `tty`.
    pub fn argv(&self, words: &[String], tty: bool) -> Vec<String> {
        let mut argv = self.options_as(!tty);
        argv.push(if tty { "-tt" } else { "-T" }.into());
        argv.push("--".into());
        argv.push(self.dest.dest.clone());
        argv.push(remote_command(words));
        argv
    }

    /// What the person runs in a terminal to connect once (and accept the host key there).
    fn interactive_command(&self) -> String {
        let mut words = vec!["ssh".to_string()];
        if let Some(config) = &self.config {
            words.extend(["-F".into(), config.display().to_string()]);
        }
        if let Some(port) = self.dest.port {
            words.extend(["-p".into(), port.to_string()]);
        }
        words.push(self.dest.dest.clone());
        words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
    }

    /// The launch script's words for `spec`, recording its pid in `pidfile`; the variables go on
    /// stdin (`env_header`).
    fn launch_words(&self, spec: &ProcessSpec, pidfile: &str, vars: usize) -> Vec<String> {
        let mut words = vec!["sh".to_string(), "-c".into(), LAUNCH.into(), "sidekicks".into()];
        words.push(spec.cwd.display().to_string());
        words.push(pidfile.to_string());
        words.push(vars.to_string());
        words.extend(spec.argv.iter().cloned());
        words
    }

    fn command(&self, argv: &[String]) -> Command {
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]).process_group(0).kill_on_drop(false);
        cmd
    }

    fn tool_missing(&self, e: ExecError) -> ExecError {
        match e {
            ExecError::NotFound { .. } => ExecError::ToolMissing { tool: self.program.clone(), runtime: "ssh" },
            other => other,
        }
    }

    /// Runs `words` there and waits; no terminal, `input` on stdin.
    async fn exec(&self, words: &[String], input: Option<Vec<u8>>) -> Result<Output, ExecError> {
        let argv = self.argv(words, false);
        run_command(self.command(&argv), &self.program, input).await.map_err(|e| self.tool_missing(e))
    }

    /// The fault ssh's own words (exit 255) tell, with the host keys' fingerprints when the key
    /// is unknown.
    async fn fault(&self, stderr: &str) -> SshFault {
        match classify(stderr) {
            SshFault::HostKeyUnknown { .. } => SshFault::HostKeyUnknown {
                fingerprints: self.fingerprints().await,
                command: self.interactive_command(),
            },
            SshFault::HostKeyChanged { command } if command.is_empty() => {
                SshFault::HostKeyChanged { command: format!("ssh-keygen -R {}", quote(&self.dest.dest)) }
            }
            other => other,
        }
    }

    /// The keys the host offers, as `TYPE SHA256:…` (ssh-keyscan, then ssh-keygen -l).
    async fn fingerprints(&self) -> Vec<String> {
        let mut resolve = self.options();
        resolve.extend(["-G".into(), self.dest.dest.clone()]);
        let Ok(out) = run_command(self.command(&resolve), &self.program, None).await else { return Vec::new() };
        let config = String::from_utf8_lossy(&out.stdout);
        let value = |key: &str| config.lines().find_map(|l| l.strip_prefix(key)).map(|v| v.trim().to_string());
        let (Some(name), Some(port)) = (value("hostname "), value("port ")) else { return Vec::new() };
        let mut scan = Command::new("ssh-keyscan");
        scan.args(["-T", "5", "-p", &port, "--", &name]);
        let Ok(keys) = run_command(scan, "ssh-keyscan", None).await else { return Vec::new() };
        let mut fingerprint = Command::new("ssh-keygen");
        fingerprint.args(["-l", "-f", "-"]);
        let Ok(lines) = run_command(fingerprint, "ssh-keygen", Some(keys.stdout)).await else { return Vec::new() };
        String::from_utf8_lossy(&lines.stdout)
            .lines()
            .filter_map(|line| {
                // "256 SHA256:… [127.0.0.1]:2222 (ED25519)"
                let mut fields = line.split_whitespace();
                let hash = fields.nth(1)?;
                let kind = line.rsplit_once('(')?.1.trim_end_matches(')');
                Some(format!("{kind} {hash}"))
            })
            .collect()
    }

    /// Ends the agents this computer started there and left running: those of a Sidekicks that
    /// is gone, and those whose teardown could not reach the machine. Best effort.
    async fn end_leftovers(&self, listed: Vec<String>) {
        let prefix = pidfile_prefix();
        let mut dead: Vec<String> = pending_take(&self.host);
        dead.extend(listed.into_iter().filter(|f| owner(f, &prefix).is_some_and(|pid| !super::teardown::alive(pid))));
        dead.sort();
        dead.dedup();
        if dead.is_empty() {
            return;
        }
        tracing::info!(host = self.host, "ending {} agent(s) left running there", dead.len());
        let mut reap = ["sh", "-c", SWEEP_ALL, "sidekicks", SWEEP].map(String::from).to_vec();
        reap.extend(dead.iter().cloned());
        match self.exec(&reap, None).await {
            Ok(out) if out.code == Some(0) => {}
            _ => dead.into_iter().for_each(|f| pending_add(&self.host, f)),
        }
    }
}

impl Executor for SshExecutor {
    fn preflight(&self) -> BoxFuture<'static, Result<(), ExecError>> {
        let this = self.clone();
        Box::pin(async move {
            // One handshake per host: the others wait for it, then share its connection.
            let gate = host_gate(&this.host);
            let _first = gate.lock().await;
            // One session: the check, and this computer's pid files there (for `end_leftovers`).
            let words = ["sh", "-c", CHECK, "sidekicks", &pidfile_prefix()].map(String::from);
            let out = this.exec(&words, None).await?;
            let stderr = String::from_utf8_lossy(&out.stderr).to_string();
            match out.code {
                Some(0) if String::from_utf8_lossy(&out.stdout).starts_with("sidekicks-ok") => {
                    let listed = String::from_utf8_lossy(&out.stdout).lines().skip(1).map(String::from).collect();
                    this.end_leftovers(listed).await;
                    Ok(())
                }
                Some(255) | None => Err(ExecError::Ssh { host: this.host.clone(), fault: this.fault(&stderr).await }),
                Some(127) => Err(ExecError::Ssh { host: this.host.clone(), fault: SshFault::NoShell }),
                _ => Err(ExecError::Ssh {
                    host: this.host.clone(),
                    fault: SshFault::Other { message: last_line(&stderr) },
                }),
            }
        })
    }

    fn popen(&self, spec: &ProcessSpec) -> Result<Launched, ExecError> {
        if spec.argv.is_empty() {
            return Err(ExecError::EmptyCommand);
        }
        let env = remote_env(spec);
        let header = env_header(&env);
        // Written at once into the pipe, before the agent gets it: it must fit there.
        if header.len() > 60_000 {
            return Err(ExecError::Ssh {
                host: self.host.clone(),
                fault: SshFault::Other { message: "the agent's env is over 60 kB".into() },
            });
        }
        let pidfile = format!("{}{}-{}.pid", pidfile_prefix(), std::process::id(), super::teardown::unique());
        let argv = self.argv(&self.launch_words(spec, &pidfile, env.len()), false);
        let mut cmd = self.command(&argv);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = cmd.spawn().map_err(|e| self.tool_missing(super::spawn_error(&self.program, e)))?;
        if !header.is_empty() {
            write_now(&child, &header).map_err(|source| ExecError::Spawn { program: self.program.clone(), source })?;
        }
        let mut prefix = self.options();
        prefix.extend(["-T".into(), "--".into(), self.dest.dest.clone()]);
        let teardown = RemoteTeardown::over_ssh(prefix, pidfile, self.host.clone());
        Ok(Launched { child, teardown: Some(teardown) })
    }

    fn run(&self, spec: &ProcessSpec, input: Option<Vec<u8>>) -> BoxFuture<'static, Result<Output, ExecError>> {
        let env = remote_env(spec);
        let words = self.launch_words(spec, "", env.len());
        let mut stdin = env_header(&env);
        let input = match input {
            Some(bytes) => {
                stdin.extend(bytes);
                Some(stdin)
            }
            None if stdin.is_empty() => None,
            None => Some(stdin),
        };
        let this = self.clone();
        Box::pin(async move {
            let out = this.exec(&words, input).await?;
            if out.code == Some(255) {
                let stderr = String::from_utf8_lossy(&out.stderr).to_string();
                // The program's own 255 has no ssh words: it is its answer.
                if is_ssh_failure(&stderr) {
                    return Err(ExecError::Ssh { host: this.host.clone(), fault: this.fault(&stderr).await });
                }
            }
            Ok(out)
        })
    }

    fn remote_argv(&self, words: Vec<String>, tty: bool, _env_names: &[String]) -> Option<Vec<String>> {
        Some(self.argv(&words, tty))
    }

    fn env_by_name(&self) -> bool {
        false
    }
}

/// The variables the program gets there: the config's, and this computer's locale, terminal
/// type and time zone unless the config sets them.
fn remote_env(spec: &ProcessSpec) -> BTreeMap<String, String> {
    let mut env = spec.env.clone();
    for key in REMOTE_ENV_PASSTHROUGH {
        if !env.contains_key(*key)
            && let Ok(value) = std::env::var(key)
        {
            env.insert(key.to_string(), value);
        }
    }
    env
}

/// The variables as the launch script reads them: per variable its name, its count of lines,
/// then the lines.
pub fn env_header(env: &BTreeMap<String, String>) -> Vec<u8> {
    let mut out = String::new();
    for (name, value) in env {
        let lines: Vec<&str> = value.split('\n').collect();
        out.push_str(&format!("{name}\n{}\n", lines.len()));
        for line in lines {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.into_bytes()
}

/// Writes `bytes` into the child's stdin pipe now (it is empty, and they fit).
fn write_now(child: &tokio::process::Child, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::fd::AsFd;
    let stdin = child.stdin.as_ref().ok_or_else(|| std::io::Error::other("no stdin"))?;
    let mut pipe = std::fs::File::from(stdin.as_fd().try_clone_to_owned()?);
    pipe.write_all(bytes)
}

/// Whether ssh's stderr tells a failure of ssh itself (rather than the program's own exit 255).
fn is_ssh_failure(stderr: &str) -> bool {
    !matches!(classify(stderr), SshFault::Other { .. })
        || stderr.lines().any(|l| l.starts_with("ssh:") || l.contains("mux_client") || l.contains("Connection to "))
}

/// What the launch script said on stderr when it could not start the program there (exit 127).
pub fn launch_fault(stderr: &[String]) -> Option<SshFault> {
    stderr.iter().find_map(|line| {
        let said = line.strip_prefix("sidekicks: ")?;
        if let Some(rest) = said.strip_prefix("the folder ") {
            let (path, _) = rest.rsplit_once(" does not exist on ")?;
            return Some(SshFault::FolderMissing { path: path.to_string() });
        }
        let (program, _) = said.split_once(" is not installed on ")?;
        Some(SshFault::CommandMissing { program: program.to_string() })
    })
}

/// What ssh's stderr says went wrong (fingerprints and commands are filled in by the executor).
pub fn classify(stderr: &str) -> SshFault {
    if stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") || stderr.contains("Host key for") {
        // ssh names the command that forgets the old key: "ssh-keygen -f '…' -R '[host]:port'".
        let command = stderr.lines().map(str::trim).find(|l| l.starts_with("ssh-keygen")).unwrap_or("").to_string();
        return SshFault::HostKeyChanged { command };
    }
    if stderr.contains("Host key verification failed") {
        return SshFault::HostKeyUnknown { fingerprints: Vec::new(), command: String::new() };
    }
    if let Some(line) = stderr.lines().find(|l| l.contains("Permission denied")) {
        let methods = line.rsplit_once('(').map_or("", |(_, m)| m.trim_end_matches(").").trim_end_matches(')'));
        return SshFault::AuthRefused { methods: methods.to_string() };
    }
    const UNREACHABLE: &[&str] = &[
        "Could not resolve hostname",
        "Connection refused",
        "Connection timed out",
        "Operation timed out",
        "No route to host",
        "Network is unreachable",
        "kex_exchange_identification",
        "Connection closed by",
        "Connection reset by",
    ];
    if let Some(line) = stderr.lines().find(|l| UNREACHABLE.iter().any(|u| l.contains(u))) {
        return SshFault::Unreachable { detail: line.trim().trim_start_matches("ssh: ").to_string() };
    }
    SshFault::Other { message: last_line(stderr) }
}

/// The fault in plain English, for logs and the places that show an error's own text (the Files
/// tab's error line, `sidekicks prompt`); the window's crash report says it in the person's language.
pub(super) fn fault_words(host: &str, fault: &SshFault) -> String {
    match fault {
        SshFault::HostKeyUnknown { fingerprints, command } => format!(
            "{host} is not a known host (its key: {}); check it, then run `{command}` once in a terminal to accept it",
            fingerprints.join("; ")
        ),
        SshFault::HostKeyChanged { command } => {
            format!("the key of {host} changed since it was last seen; if that is expected, run `{command}`")
        }
        SshFault::AuthRefused { methods } => {
            format!("{host} refused the login ({methods}): add your key there or load it into ssh-agent")
        }
        SshFault::Unreachable { detail } => format!("cannot reach {host}: {detail}"),
        SshFault::NoShell => format!("{host} has no `sh`"),
        SshFault::CommandMissing { program } => format!("{program} is not installed on {host}"),
        SshFault::FolderMissing { path } => format!("the folder {path} does not exist on {host}"),
        SshFault::Other { message } => format!("ssh to {host}: {message}"),
    }
}

fn last_line(text: &str) -> String {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string()
}

/// The private folder of the shared connections' sockets (short: a socket path has ~100 bytes).
fn control_dir() -> PathBuf {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .map_or_else(|| PathBuf::from(format!("/tmp/sidekicks-ssh-{uid}")), |d| d.join("sidekicks-ssh"));
    if let Err(e) = private_dir(&base) {
        tracing::warn!("ssh connections folder {}: {e}", base.display());
    }
    base
}

/// Makes `dir` with mode 700 and checks it is this user's alone (ssh refuses others' sockets,
/// and another user must not be able to put one there).
fn private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    // SAFETY: getuid has no preconditions.
    if !meta.is_dir() || meta.uid() != unsafe { libc::getuid() } {
        return Err(std::io::Error::other("not a folder of this user"));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The start of this computer's pid files there: `/tmp/sidekicks-ssh-MACHINE-` (then the
/// Sidekicks process and a counter), so another computer's agents on the same machine are never
/// taken for leftovers.
fn pidfile_prefix() -> String {
    let id = std::fs::read_to_string("/etc/machine-id").unwrap_or_default();
    let mut id: String = id.trim().chars().filter(char::is_ascii_alphanumeric).take(12).collect();
    if id.is_empty() {
        let mut name = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname writes at most that much.
        unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) };
        let end = name.iter().position(|b| *b == 0).unwrap_or(0);
        id = String::from_utf8_lossy(&name[..end]).chars().filter(char::is_ascii_alphanumeric).take(24).collect();
    }
    format!("/tmp/sidekicks-ssh-{id}-")
}

/// The Sidekicks process of this computer that started the agent of pid file `file`.
fn owner(file: &str, prefix: &str) -> Option<i32> {
    file.strip_prefix(prefix)?.split('-').next()?.parse().ok()
}

/// Per host: the first connection is made once.
fn host_gate(host: &str) -> Arc<tokio::sync::Mutex<()>> {
    static GATES: Mutex<Option<HashMap<String, Arc<tokio::sync::Mutex<()>>>>> = Mutex::new(None);
    let mut gates = GATES.lock().unwrap_or_else(|e| e.into_inner());
    gates.get_or_insert_with(HashMap::new).entry(host.to_string()).or_default().clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_for_the_remote_shell() {
        assert_eq!(quote("plain/path-1.txt"), "plain/path-1.txt");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("$(touch pwned)"), "'$(touch pwned)'");
        assert_eq!(quote("two\nlines"), "'two\nlines'");
        // The quoted line, read back by a real sh, gives the same words.
        let words: Vec<String> =
            ["printf", "%s|", "it's \"q\"", "$(x)", "a b;c", "-rf", "two\nlines", "\\n", ""].map(String::from).to_vec();
        let out = std::process::Command::new("sh").args(["-c", &remote_command(&words)]).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "it's \"q\"|$(x)|a b;c|-rf|two\nlines|\\n||");
    }

    #[test]
    fn the_launch_script_reads_the_environment_from_stdin_and_leaves_the_rest() {
        let env: BTreeMap<String, String> = [("ONE", "1"), ("MULTI", "a\nb\n"), ("EMPTY", ""), ("Q", "it's $HOME")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into();
        let mut input = env_header(&env);
        input.extend_from_slice(b"the program's own input\n");
        let script = "printf '%s|' \"$ONE\" \"$MULTI\" \"$EMPTY\" \"$Q\"; cat";
        let words: Vec<String> =
            ["sh", "-c", LAUNCH, "sidekicks", "/", "", "4", "sh", "-c", script].map(String::from).to_vec();
        let mut child = std::process::Command::new("sh")
            .args(["-c", &remote_command(&words)])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "1|a\nb\n||it's $HOME|the program's own input\n");
    }

    #[test]
    fn ssh_words_are_told_apart() {
        assert!(matches!(classify("Host key verification failed.\r\n"), SshFault::HostKeyUnknown { .. }));
        assert_eq!(
            classify("root@127.0.0.1: Permission denied (publickey).\r\n"),
            SshFault::AuthRefused { methods: "publickey".into() }
        );
        assert_eq!(
            classify("ssh: connect to host 127.0.0.1 port 42023: Connection refused\r\n"),
            SshFault::Unreachable { detail: "connect to host 127.0.0.1 port 42023: Connection refused".into() }
        );
        assert!(matches!(
            classify("ssh: Could not resolve hostname nowhere.invalid: Name or service not known\r\n"),
            SshFault::Unreachable { .. }
        ));
        let changed = "@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nremove with:\n  ssh-keygen -f '/root/.ssh/known_hosts' -R '[127.0.0.1]:42022'\nHost key verification failed.\n";
        assert_eq!(
            classify(changed),
            SshFault::HostKeyChanged {
                command: "ssh-keygen -f '/root/.ssh/known_hosts' -R '[127.0.0.1]:42022'".into()
            }
        );
        assert!(is_ssh_failure("Connection to 127.0.0.1 closed by remote host.\r\n"));
        assert!(!is_ssh_failure("my own error\n"));
    }

    #[test]
    fn pid_files_name_this_computer_and_process() {
        let prefix = pidfile_prefix();
        assert!(prefix.starts_with("/tmp/sidekicks-ssh-") && prefix.len() > "/tmp/sidekicks-ssh-".len() + 1);
        assert_eq!(owner(&format!("{prefix}1234-7.pid"), &prefix), Some(1234));
        assert_eq!(owner("/tmp/sidekicks-ssh-othermachine-1234-7.pid", &prefix), None);
    }
}
