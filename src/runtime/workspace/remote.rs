//! A workspace inside a container, sandbox or pod, through the executor's `run`: constant POSIX sh
//! scripts (busybox-compatible: `realpath`, `stat -c`, `find`, `sha256sum`, `mv`) receive the root and
//! the paths as positional parameters, so any name is only a name. Every path is resolved with
//! `realpath` and must stay below the root. Exit codes carry the outcome: 3 outside, 4 changed (the
//! current version on stdout), 5 not found, 6 exists, 7 removed since read, 8 a folder.

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;

use super::{Entry, EntryKind, FNV_START, Location, Version, Workspace, WorkspaceError, WsResult, fnv1a, sort_entries};
use crate::model::rel_path::RelPath;
use crate::runtime::exec::{Executor, ProcessSpec, env_header, quote};

/// Lists a folder with one `stat` for all entries: the stat lines (no names, so no newline can
/// confuse them), a `\n\0` separator, then the names separated by NUL.
const LIST: &str = r#"root=$(realpath "$1") || exit 2
d=$(realpath "$1/$2") || exit 5
case "$d/" in "$root"/*) ;; *) exit 3;; esac
[ -d "$d" ] || exit 5
cd "$d" || exit 2
set --
for f in * .[!.]* ..?*; do
  [ -e "$f" ] || [ -L "$f" ] || continue
  set -- "$@" "./$f"
done
[ $# -eq 0 ] && exit 0
stat -c '%F|%s|%Y' "$@" || exit 2
printf '\n\0'
printf '%s\0' "$@""#;

const READ: &str = r#"root=$(realpath "$1") || exit 2
f=$(realpath "$1/$2") || exit 5
case "$f" in "$root"/*) ;; *) exit 3;; esac
[ -f "$f" ] || exit 5
exec cat "$f""#;

/// Prints lines `$3`.. (at most `$4` of them, at most `$5` bytes) of the file `$2`.
const READ_LINES: &str = r#"root=$(realpath "$1") || exit 2
f=$(realpath "$1/$2") || exit 5
case "$f" in "$root"/*) ;; *) exit 3;; esac
[ -d "$f" ] && exit 8
[ -f "$f" ] || exit 5
tail -n "+$3" "$f" | head -n "$4" | head -c "$5""#;

/// Writes stdin to `$2` when it has version `$3` (`-`: must not exist; `*`: whatever is there),
/// making the missing folders above it (the nearest existing one must be inside).
const WRITE: &str = r#"root=$(realpath "$1") || exit 2
dir=$(dirname "$1/$2"); name=$(basename "$1/$2")
check=$dir; while [ ! -e "$check" ] && [ ! -L "$check" ]; do check=$(dirname "$check"); done
c=$(realpath "$check") || exit 3
case "$c/" in "$root"/*) ;; *) exit 3;; esac
mkdir -p "$dir" || exit 2
d=$(realpath "$dir") || exit 5
case "$d/" in "$root"/*) ;; *) exit 3;; esac
target="$d/$name"
[ -L "$target" ] && exit 3
[ -d "$target" ] && exit 8
if [ "$3" = "-" ]; then
  [ -e "$target" ] && exit 6
elif [ "$3" != "*" ]; then
  [ -e "$target" ] || exit 7
  cur=$(sha256sum < "$target") || exit 2
  cur=${cur%% *}
  [ "$cur" = "$3" ] || { printf '%s' "$cur"; exit 4; }
fi
tmp="$d/.sidekicks-$$.tmp"
cat > "$tmp" || { rm -f "$tmp"; exit 2; }
if [ -e "$target" ]; then chmod "$(stat -c %a "$target")" "$tmp"; fi
mv -f "$tmp" "$target""#;

const REMOVE: &str = r#"root=$(realpath "$1") || exit 2
d=$(realpath "$(dirname "$1/$2")") || exit 5
case "$d/" in "$root"/*) ;; *) exit 3;; esac
target="$d/$(basename "$1/$2")"
[ "$target" = "$root" ] && exit 3
[ -e "$target" ] || [ -L "$target" ] || exit 5
rm -rf "$target""#;

const MKDIR: &str = r#"root=$(realpath "$1") || exit 2
check="$1/$2"; while [ ! -e "$check" ]; do check=$(dirname "$check"); done
c=$(realpath "$check") || exit 2
case "$c/" in "$root"/*) ;; *) exit 3;; esac
mkdir -p "$1/$2""#;

const RENAME: &str = r#"root=$(realpath "$1") || exit 2
a=$(realpath "$(dirname "$1/$2")") || exit 5
b=$(realpath "$(dirname "$1/$3")") || exit 5
case "$a/" in "$root"/*) ;; *) exit 3;; esac
case "$b/" in "$root"/*) ;; *) exit 3;; esac
from="$a/$(basename "$1/$2")"; to="$b/$(basename "$1/$3")"
[ -e "$from" ] || [ -L "$from" ] || exit 5
[ -e "$to" ] || [ -L "$to" ] && exit 6
mv "$from" "$to""#;

const FINGERPRINT: &str = r#"cd "$1" || exit 5
find . \( -path ./.git -o -path ./node_modules \) -prune -o -exec stat -c '%s %Y %n' {} +"#;

/// Every file and folder below `$1` (hidden ones, `node_modules` skipped), at most `$2`: a type
/// letter (`d` folder, else file) and the path, one per line; folders first. (busybox's `find`
/// has no `-printf`.)
const PATHS: &str = r#"cd "$1" || exit 5
only() { find . -mindepth 1 \( -name '.*' -o -name node_modules \) -prune -o -type "$1" -print; }
{ only d | sed 's/^/d /'; only f | sed 's/^/f /'; } | head -n "$2""#;

/// Opens the shell of a terminal: `$1` folder, `$2` session mark. Every process the shell starts
/// inherits `SIDEKICKS_TERMINAL`, even one started with `setsid` or `nohup`; the pid is recorded too.
const SHELL: &str = r#"cd "$1" || exit 1
export TERM=xterm-256color SIDEKICKS_TERMINAL="$2"
echo $$ > "/tmp/sidekicks-terminal-$2.pid" 2>/dev/null
for s in /bin/bash /bin/ash /bin/sh; do [ -x "$s" ] && exec "$s" -l; done
exec sh"#;

/// Runs a program with variables from a file only this user can read (`$1`, removed once read:
/// its count, then each as the SSH launch reads them), in folder `$2`; the rest is the program.
const ENV_FILE_RUN: &str = r#"f=$1; root=$2; shift 2
exec 3<&0 < "$f"; rm -f "$f"
IFS= read -r n
while [ "$n" -gt 0 ]; do
  IFS= read -r name; IFS= read -r k; v=; sep=
  while [ "$k" -gt 0 ]; do IFS= read -r l; v="$v$sep$l"; sep='
'; k=$((k - 1)); done
  export "$name=$v"; n=$((n - 1))
done
exec 0<&3 3<&-
cd "$root" || exit 1
exec "$@""#;

/// Ends a terminal session (`$1` its mark): every process whose environment carries the mark, and
/// every descendant of the recorded pid (a program may clear its environment), found through /proc
/// (busybox-compatible). SIGHUP first, then SIGKILL to what is left.
const SHELL_END: &str = r#"mark="SIDEKICKS_TERMINAL=$1"; pidfile="/tmp/sidekicks-terminal-$1.pid"
marked() {
  found=$(grep -ls "$mark" /proc/[0-9]*/environ | sed 's|/proc/||; s|/environ||')
  level=$(cat "$pidfile" 2>/dev/null); found="$found $level"
  if command -v awk >/dev/null 2>&1; then
    # One pass over the processes (the loop below reads them all again for each generation):
    # the marked ones, the recorded one and all their descendants.
    seeds=$(echo $found)
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v seeds="$seeds" '
      { pid = $1; sub(/.*\) /, ""); parent[pid] = $2 }
      END {
        n = split(seeds, s, " "); for (i = 1; i <= n; i++) found[s[i]] = 1
        do { grew = 0; for (p in parent) if (!(p in found) && (parent[p] in found)) { found[p] = 1; grew = 1 } } while (grew)
        for (p in found) printf "%s ", p
      }'
    return
  fi
  while [ -n "$level" ]; do
    next=
    for stat in /proc/[0-9]*/stat; do
      read -r line < "$stat" 2>/dev/null || continue
      set -- ${line##*) }
      for q in $level; do
        if [ "$2" = "$q" ]; then c=${stat#/proc/}; c=${c%/stat}; next="$next $c"; found="$found $c"; fi
      done
    done
    level=$next
  done
  echo $found
}
pids=$(marked); [ -n "$pids" ] && kill -HUP $pids 2>/dev/null
sleep 0.2 2>/dev/null || sleep 1
for i in 1 2 3 4 5; do
  pids=$(marked); [ -z "$pids" ] && break
  kill -KILL $pids 2>/dev/null; sleep 0.1 2>/dev/null || sleep 1
done
rm -f "$pidfile"
exit 0"#;

/// A mark unique to one terminal session: this app's pid, a counter and the time, ended by `t` so no
/// mark is the beginning of another (the teardown matches it as a substring of the environment).
fn session_mark() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("{}-{}-{nanos}t", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The script that reads a file (`$1` root, `$2` path): tests run it on many paths in one go.
pub fn read_script() -> &'static str {
    READ
}

/// A folder inside a container, sandbox or pod.
#[derive(Clone)]
pub struct RemoteWorkspace {
    executor: Arc<dyn Executor>,
    root: PathBuf,
    tool: String,
    target: String,
}

impl RemoteWorkspace {
    /// The folder `root` (as the container sees it), reached through `executor`.
    pub fn new(executor: Arc<dyn Executor>, root: impl Into<PathBuf>, tool: &str, target: &str) -> Self {
        Self { executor, root: root.into(), tool: tool.into(), target: target.into() }
    }

    /// Writes `bytes` to `path` when it has version `expected` (`-`: absent, `*`: anything).
    fn write_as(&self, path: &RelPath, bytes: Vec<u8>, expected: String) -> BoxFuture<'static, WsResult<Version>> {
        if path.is_root() {
            return Box::pin(async { Err(WorkspaceError::IsRoot) });
        }
        let version = Version::of(&bytes);
        let run = self.script(WRITE, vec![path.as_str().into(), expected], Some(bytes));
        let path = path.clone();
        Box::pin(async move {
            match run.await? {
                (0, _, _) => Ok(version),
                (code, out, err) => Err(failure(code, &path, &out, err)),
            }
        })
    }

    /// Runs `script` with the root and `args`; (exit code, stdout, stderr).
    fn script(
        &self,
        script: &'static str,
        args: Vec<String>,
        input: Option<Vec<u8>>,
    ) -> BoxFuture<'static, WsResult<(i32, Vec<u8>, String)>> {
        let mut argv: Vec<String> = vec!["sh".into(), "-c".into(), script.into(), "sidekicks".into()];
        argv.push(self.root.display().to_string());
        argv.extend(args);
        let spec = ProcessSpec { argv, cwd: "/".into(), env: Default::default() };
        let run = self.executor.run(&spec, input);
        Box::pin(async move {
            let out = run.await.map_err(|e| match e {
                crate::runtime::exec::ExecError::Ssh { host, fault } => WorkspaceError::Unreachable { host, fault },
                e => WorkspaceError::Io { path: ".".into(), message: e.to_string() },
            })?;
            Ok((out.code.unwrap_or(-1), out.stdout, String::from_utf8_lossy(&out.stderr).trim().to_string()))
        })
    }
}

/// The error for exit `code` of a script about `path`.
fn failure(code: i32, path: &RelPath, stdout: &[u8], stderr: String) -> WorkspaceError {
    let path = path.as_str().to_string();
    match code {
        3 => WorkspaceError::Outside { path },
        4 => WorkspaceError::Conflict { path, current: Some(Version(String::from_utf8_lossy(stdout).into_owned())) },
        5 => WorkspaceError::NotFound { path },
        6 => WorkspaceError::Exists { path },
        7 => WorkspaceError::Conflict { path, current: None },
        8 => WorkspaceError::IsFolder { path },
        _ => WorkspaceError::Io { path, message: stderr },
    }
}

/// The result of a script that only succeeds or fails.
fn done(run: BoxFuture<'static, WsResult<(i32, Vec<u8>, String)>>, path: RelPath) -> BoxFuture<'static, WsResult<()>> {
    Box::pin(async move {
        match run.await? {
            (0, _, _) => Ok(()),
            (code, out, err) => Err(failure(code, &path, &out, err)),
        }
    })
}

fn parse_list(out: &[u8]) -> Vec<Entry> {
    let Some(split) = out.windows(2).position(|w| w == b"\n\0") else { return Vec::new() };
    let stats = String::from_utf8_lossy(&out[..split]);
    let names = out[split + 2..].split(|b| *b == 0).filter(|n| !n.is_empty());
    let mut entries: Vec<Entry> = stats
        .lines()
        .zip(names)
        .map(|(stat, name)| {
            let mut fields = stat.split('|');
            let kind = match fields.next().unwrap_or_default() {
                "directory" => EntryKind::Dir,
                "regular file" | "regular empty file" => EntryKind::File,
                "symbolic link" => EntryKind::Symlink,
                _ => EntryKind::Other,
            };
            let size = fields.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            let modified = fields.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            let name = String::from_utf8_lossy(name.strip_prefix(b"./").unwrap_or(name)).into_owned();
            Entry { name, kind, size, modified }
        })
        .collect();
    sort_entries(&mut entries);
    entries
}

impl Workspace for RemoteWorkspace {
    fn location(&self) -> Location {
        Location::Remote { tool: self.tool.clone(), target: self.target.clone(), path: self.root.clone() }
    }

    fn removal_is_final(&self) -> bool {
        true
    }

    fn list(&self, dir: &RelPath) -> BoxFuture<'static, WsResult<Vec<Entry>>> {
        let run = self.script(LIST, vec![dir.as_str().into()], None);
        let dir = dir.clone();
        Box::pin(async move {
            match run.await? {
                (0, out, _) => Ok(parse_list(&out)),
                (code, out, err) => Err(failure(code, &dir, &out, err)),
            }
        })
    }

    fn read(&self, path: &RelPath) -> BoxFuture<'static, WsResult<(Vec<u8>, Version)>> {
        let run = self.script(READ, vec![path.as_str().into()], None);
        let path = path.clone();
        Box::pin(async move {
            match run.await? {
                (0, out, _) => {
                    let version = Version::of(&out);
                    Ok((out, version))
                }
                (code, out, err) => Err(failure(code, &path, &out, err)),
            }
        })
    }

    fn write(
        &self,
        path: &RelPath,
        bytes: Vec<u8>,
        expected: Option<Version>,
    ) -> BoxFuture<'static, WsResult<Version>> {
        self.write_as(path, bytes, expected.map_or_else(|| "-".to_string(), |v| v.0))
    }

    fn overwrite(&self, path: &RelPath, bytes: Vec<u8>) -> BoxFuture<'static, WsResult<Version>> {
        self.write_as(path, bytes, "*".into())
    }

    fn read_lines(
        &self,
        path: &RelPath,
        line: u32,
        limit: Option<u32>,
        max: usize,
    ) -> BoxFuture<'static, WsResult<Vec<u8>>> {
        let args = vec![
            path.as_str().into(),
            line.max(1).to_string(),
            limit.map_or(u64::MAX, u64::from).to_string(),
            max.to_string(),
        ];
        let run = self.script(READ_LINES, args, None);
        let path = path.clone();
        Box::pin(async move {
            match run.await? {
                (0, out, _) => Ok(out),
                (code, out, err) => Err(failure(code, &path, &out, err)),
            }
        })
    }

    fn remove(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>> {
        if path.is_root() {
            return Box::pin(async { Err(WorkspaceError::IsRoot) });
        }
        let run = self.script(REMOVE, vec![path.as_str().into()], None);
        done(run, path.clone())
    }

    fn create_dir(&self, path: &RelPath) -> BoxFuture<'static, WsResult<()>> {
        let run = self.script(MKDIR, vec![path.as_str().into()], None);
        done(run, path.clone())
    }

    fn rename(&self, from: &RelPath, to: &RelPath) -> BoxFuture<'static, WsResult<()>> {
        if from.is_root() || to.is_root() {
            return Box::pin(async { Err(WorkspaceError::IsRoot) });
        }
        let run = self.script(RENAME, vec![from.as_str().into(), to.as_str().into()], None);
        done(run, from.clone())
    }

    fn program_command(&self, argv: Vec<String>, env: Vec<(String, String)>) -> super::ShellCommand {
        let mut words =
            vec!["sh".into(), "-c".into(), r#"cd "$1" || exit 1; shift; exec "$@""#.into(), "sidekicks".into()];
        words.push(self.root.display().to_string());
        words.extend(argv.iter().cloned());
        let mut vars = vec![("TERM".to_string(), "xterm-256color".to_string())];
        if env.is_empty() || self.executor.env_by_name() {
            // `tool exec -it -e NAME… target [--] sh -c 'cd ROOT; exec "$@"' sidekicks ROOT ARGV…`:
            // the values travel in this process's environment, not on the command line.
            let names: Vec<String> = env.iter().map(|(name, _)| name.clone()).collect();
            let command = self.executor.remote_argv(words, true, &names).unwrap_or_default();
            vars.extend(env);
            return super::ShellCommand { argv: command, cwd: PathBuf::from("/"), env: vars, teardown: Vec::new() };
        }
        // Over SSH the values cannot go by name: a first connection writes them to a file only
        // this user can read there (from this process's environment, never a command line), and
        // the session reads and removes it before it runs the program.
        let file = format!("/tmp/sidekicks-env-{}", session_mark());
        let write = ["sh", "-c", "umask 077; cat > \"$1\"", "sidekicks", &file].map(String::from).to_vec();
        let mut run = vec!["sh".into(), "-c".into(), ENV_FILE_RUN.into(), "sidekicks".into(), file];
        run.push(self.root.display().to_string());
        run.extend(argv);
        let quoted = |argv: Vec<String>| argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
        let (Some(write), Some(run)) =
            (self.executor.remote_argv(write, false, &[]), self.executor.remote_argv(run, true, &[]))
        else {
            return super::ShellCommand { argv: Vec::new(), cwd: PathBuf::from("/"), env: vars, teardown: Vec::new() };
        };
        let script = format!(
            "printf '%s' \"$SIDEKICKS_ENV_HEADER\" | {} || exit 1; unset SIDEKICKS_ENV_HEADER; exec {}",
            quoted(write),
            quoted(run)
        );
        let header: std::collections::BTreeMap<String, String> = env.into_iter().collect();
        let mut text = format!("{}\n", header.len()).into_bytes();
        text.extend(env_header(&header));
        vars.push(("SIDEKICKS_ENV_HEADER".into(), String::from_utf8_lossy(&text).into_owned()));
        super::ShellCommand {
            argv: vec!["sh".into(), "-c".into(), script],
            cwd: PathBuf::from("/"),
            env: vars,
            teardown: Vec::new(),
        }
    }

    fn shell_command(&self, tty: bool) -> super::ShellCommand {
        // `tool exec -i[t] target [--] sh -c SHELL sidekicks ROOT MARK` (or `ssh -tt … -- host
        // 'exec sh -c …'`): marks the session, enters the folder and becomes the shell (the login
        // shell the machine has, else sh).
        let mark = session_mark();
        let words =
            ["sh", "-c", SHELL, "sidekicks", &self.root.display().to_string(), &mark].map(String::from).to_vec();
        let argv = self.executor.remote_argv(words, tty, &[]).unwrap_or_default();
        let end = ["sh", "-c", SHELL_END, "sidekicks", &mark].map(String::from).to_vec();
        let teardown = self.executor.remote_argv(end, false, &[]).unwrap_or_default();
        super::ShellCommand {
            argv,
            cwd: PathBuf::from("/"),
            env: vec![("TERM".into(), "xterm-256color".into())],
            teardown,
        }
    }

    fn paths(&self, limit: usize) -> BoxFuture<'static, WsResult<Vec<(String, bool)>>> {
        let run = self.script(PATHS, vec![limit.to_string()], None);
        Box::pin(async move {
            match run.await? {
                (0, out, _) => Ok(String::from_utf8_lossy(&out)
                    .lines()
                    .filter_map(|l| {
                        let (kind, path) = l.split_once(' ')?;
                        Some((path.strip_prefix("./").unwrap_or(path).to_string(), kind == "d"))
                    })
                    .collect()),
                (code, out, err) => Err(failure(code, &RelPath::root(), &out, err)),
            }
        })
    }

    fn fingerprint(&self) -> BoxFuture<'static, WsResult<u64>> {
        let run = self.script(FINGERPRINT, vec![], None);
        Box::pin(async move {
            match run.await? {
                (0, out, _) => Ok(fnv1a(&out, FNV_START)),
                (code, out, err) => Err(failure(code, &RelPath::root(), &out, err)),
            }
        })
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::path::Path;
    use std::time::{Duration, Instant};

    /// True while process `pid` runs (a zombie has ended).
    fn alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
    }

    /// A session like a terminal's on this computer: a shell marked as the terminal's, recorded in
    /// the pid file, with a marked job and a job that cleared its environment; then `SHELL_END`
    /// with `path`, and every one of them must end.
    fn ends_the_session(path: &str) {
        let dir = tempfile::tempdir().unwrap();
        let mark = format!("test-{}-{}t", std::process::id(), path.len());
        let pids = dir.path().join("pids");
        let script = format!(
            "echo $$ > /tmp/sidekicks-terminal-{mark}.pid; sleep 1000 & a=$!; env -i sleep 1001 & echo \"$$ $a $!\" > {pids:?}; wait"
        );
        let mut session = std::process::Command::new("/bin/sh")
            .args(["-c", &script])
            .env("SIDEKICKS_TERMINAL", &mark)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let started = loop {
            let text = std::fs::read_to_string(&pids).unwrap_or_default();
            if text.ends_with('\n') {
                break text.split_whitespace().map(String::from).collect::<Vec<_>>();
            }
            assert!(Instant::now() < deadline, "the session did not start");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(started.iter().all(|p| alive(p)), "{started:?}");
        let end = std::process::Command::new("/bin/sh")
            .args(["-c", super::SHELL_END, "sidekicks", &mark])
            .env("PATH", path)
            .status()
            .unwrap();
        assert!(end.success());
        let _ = session.wait();
        let deadline = Instant::now() + Duration::from_secs(20);
        while started.iter().any(|p| alive(p)) {
            assert!(
                Instant::now() < deadline,
                "left running: {:?}",
                started.iter().filter(|p| alive(p)).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!Path::new(&format!("/tmp/sidekicks-terminal-{mark}.pid")).exists(), "the pid file is removed");
    }

    #[test]
    fn the_session_end_finds_every_process_with_awk() {
        ends_the_session(&std::env::var("PATH").unwrap());
    }

    #[test]
    fn the_session_end_finds_every_process_without_awk() {
        // A folder with the tools the script uses, but awk.
        let tools = tempfile::tempdir().unwrap();
        for tool in ["grep", "sed", "cat", "sleep", "rm"] {
            let found = ["/usr/bin", "/bin"].iter().map(|d| Path::new(d).join(tool)).find(|p| p.exists()).unwrap();
            std::os::unix::fs::symlink(found, tools.path().join(tool)).unwrap();
        }
        ends_the_session(&tools.path().display().to_string());
    }
}
