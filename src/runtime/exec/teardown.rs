//! Ending an agent where it runs — in a container, a sandbox, a pod or over SSH — and what the
//! remote executors and the SSH one share for it: the scripts that signal or sweep an agent's
//! processes there, the pid files' liveness and names, the words ssh sends, and the teardowns
//! that could not reach their machine (done at its next connection).

use std::sync::Mutex;

use tokio::process::Command;

use super::ExecError;
use super::local::run_command;

/// Sends signal `$2` to the process whose pid is in file `$1` and to all its descendants (found
/// through /proc, busybox-compatible).
pub(super) const TEARDOWN: &str = r#"pidfile=$1; sig=$2
[ -r "$pidfile" ] || exit 0
read -r root start < "$pidfile"
# The pid must still be the process that was started (same start time), not a reused one.
if [ -n "$start" ]; then
  read -r l < /proc/$root/stat 2>/dev/null || { rm -f "$pidfile"; exit 0; }
  r=${l##*) }; set -- $r
  [ "${20}" = "$start" ] || { rm -f "$pidfile"; exit 0; }
fi
all=$root; level=$root
while [ -n "$level" ]; do
  next=
  for stat in /proc/[0-9]*/stat; do
    read -r line < "$stat" 2>/dev/null || continue
    rest=${line##*) }
    set -- $rest
    for p in $level; do
      if [ "$2" = "$p" ]; then c=${stat#/proc/}; c=${c%/stat}; next="$next $c"; all="$all $c"; fi
    done
  done
  level=$next
done
kill -s "$sig" $all 2>/dev/null
[ "$sig" = KILL ] && rm -f "$pidfile"
exit 0"#;

/// Ends everything an agent started there (`$1` its pid file): every process whose environment
/// carries its mark, even one its agent left behind when it ended (busybox-compatible). TERM
/// first, then KILL to what is left.
pub(super) const SWEEP: &str = r#"mark="SIDEKICKS_AGENT=$1"
marked() { grep -ls "$mark" /proc/[0-9]*/environ 2>/dev/null | sed 's|/proc/||; s|/environ||'; }
pids=$(marked); [ -n "$pids" ] && kill -TERM $pids 2>/dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do
  pids=$(marked); [ -z "$pids" ] && break
  sleep 0.1 2>/dev/null || sleep 1; kill -KILL $pids 2>/dev/null
done
rm -f "$1"
exit 0"#;

/// Ends an agent inside its target: signals the pid recorded by the launch script and its
/// descendants, through /proc in the target.
#[derive(Clone, Debug)]
pub struct RemoteTeardown {
    prefix: Vec<String>,
    pidfile: String,
    /// Over SSH, the host: the script's words travel as one quoted string, and a teardown that
    /// cannot reach the machine is done at the next connection.
    ssh: Option<String>,
}

impl RemoteTeardown {
    /// A teardown through `prefix` (`docker exec …`) inside a container, sandbox or pod.
    pub(super) fn in_target(prefix: Vec<String>, pidfile: String) -> Self {
        Self { prefix, pidfile, ssh: None }
    }

    /// A teardown through `prefix` (`ssh … -- dest`) on `host`.
    pub(super) fn over_ssh(prefix: Vec<String>, pidfile: String, host: String) -> Self {
        Self { prefix, pidfile, ssh: Some(host) }
    }

    /// After the agent ended (stopped, or its connection lost): over SSH, ends whatever it left
    /// running there (a machine out of reach is swept at its next connection). Nothing for
    /// containers, whose engine keeps their processes.
    pub async fn sweep(&self) {
        if self.ssh.is_some() {
            self.signal("KILL").await;
        }
    }

    /// Sends `signal` (`TERM`, `KILL`) inside the target.
    pub async fn signal(&self, signal: &str) {
        // Over SSH, KILL ends everything the agent started (its mark), not only its tree.
        let words: Vec<String> = if self.ssh.is_some() && signal == "KILL" {
            ["sh", "-c", SWEEP, "sidekicks", &self.pidfile].into_iter().map(String::from).collect()
        } else {
            ["sh", "-c", TEARDOWN, "sidekicks", &self.pidfile, signal].into_iter().map(String::from).collect()
        };
        let mut argv = self.prefix.clone();
        match &self.ssh {
            Some(_) => argv.push(remote_command(&words)),
            None => argv.extend(words),
        }
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]);
        let run = run_command(cmd, &argv[0], None);
        let result = tokio::time::timeout(std::time::Duration::from_secs(10), run)
            .await
            .map_err(|_| ExecError::Remote { tool: argv[0].clone(), message: "teardown timed out".into() });
        let reached = matches!(&result, Ok(Ok(out)) if out.code == Some(0));
        if let Ok(Err(e)) | Err(e) = result {
            tracing::warn!("teardown in {}: {e}", argv.get(2).or(argv.get(3)).cloned().unwrap_or_default());
        }
        if let Some(host) = &self.ssh
            && !reached
        {
            // The machine is out of reach: its agent is ended at the next connection.
            pending_add(host, self.pidfile.clone());
        }
    }
}

/// Whether process `pid` exists on this computer.
pub(super) fn alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks; no memory-safety preconditions.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

pub(super) fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// `word` as the remote shell reads it back: itself when it has only safe characters, else in
/// single quotes (a quote inside as `'\''`).
pub fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=:@%+,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The one string ssh sends: `exec` and every word quoted.
pub fn remote_command(words: &[String]) -> String {
    let mut line = String::from("exec");
    for word in words {
        line.push(' ');
        line.push_str(&quote(word));
    }
    line
}

/// Pid files whose teardown could not reach their machine (the connection was lost): ended at
/// the next connection.
static PENDING: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// Remembers that the agent of `pidfile` on `host` may still run.
pub(super) fn pending_add(host: &str, pidfile: String) {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    if !pending.iter().any(|(h, f)| h == host && *f == pidfile) {
        pending.push((host.to_string(), pidfile));
    }
}

pub(super) fn pending_take(host: &str) -> Vec<String> {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let (mine, rest): (Vec<_>, Vec<_>) = pending.drain(..).partition(|(h, _)| h == host);
    *pending = rest;
    mine.into_iter().map(|(_, f)| f).collect()
}
