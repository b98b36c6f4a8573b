//! The terminal host (`sidekicks terminal-host -- SHELL…`): makes itself a child subreaper, runs the
//! shell, and when the shell ends, ends whatever it left behind. Orphans — jobs started with `&`,
//! `setsid`, `setsid -f`, `nohup`, `disown`, `(cmd &)` — are reparented to the host instead of init,
//! so they stay in its process tree, and `kill_tree` on the host reaches all of them.
//!
//! Agents on this computer run under the same host. If Sidekicks itself dies (SIGKILL, a crash),
//! the host is reparented; it notices (its parent pid changes) and ends its whole tree, so no
//! agent, terminal or agent-run command outlives Sidekicks. The host ignores the signals meant
//! for its program (SIGTERM, SIGINT, SIGHUP reach the program through its group) and exits as the
//! program did: with its code, or killed by the same signal.

use std::time::Duration;

/// The pids of every descendant of `root` (children, their children, …), found through /proc.
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
            // The parent pid is the second field after the command, which is in parentheses.
            let Some(after) = stat.rsplit_once(") ").map(|(_, a)| a) else { continue };
            let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
            parents.push((pid, ppid));
        }
    }
    let mut found = Vec::new();
    let mut level = vec![root];
    while !level.is_empty() {
        let next: Vec<u32> = parents.iter().filter(|(_, ppid)| level.contains(ppid)).map(|(pid, _)| *pid).collect();
        found.extend(&next);
        level = next;
    }
    found
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: kill has no memory-safety preconditions; a gone pid only yields ESRCH.
    unsafe { libc::kill(pid as i32, sig) };
}

/// Ends `root` and all its descendants: SIGHUP, a short grace, then SIGKILL to whatever is left,
/// repeated until nothing is left (a process may fork while being ended).
pub fn kill_tree(root: u32) {
    if root == 0 {
        return;
    }
    for pid in descendants(root) {
        signal(pid, libc::SIGHUP);
    }
    std::thread::sleep(Duration::from_millis(50));
    for _ in 0..20 {
        let left = descendants(root);
        if left.is_empty() {
            break;
        }
        for pid in left {
            signal(pid, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(root, libc::SIGKILL);
}

/// How often the host checks that Sidekicks is still its parent.
const PARENT_CHECK: Duration = Duration::from_millis(200);

extern "C" fn ignore(_: libc::c_int) {}

/// The host's main: subreaper, run `argv`, then end and reap everything left. Returns the
/// program's exit code (or ends by the signal that ended it).
pub fn run_host(argv: &[String]) -> i32 {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only changes this process's own attribute.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    // A handler, not SIG_IGN: the program gets the default actions back when it starts.
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: installs a handler that does nothing (async-signal-safe).
        unsafe { libc::signal(sig, ignore as *const () as libc::sighandler_t) };
    }
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(PARENT_CHECK);
            // SAFETY: getppid has no preconditions.
            if unsafe { libc::getppid() } != parent {
                // Sidekicks is gone: so is everything it started here.
                for pid in descendants(std::process::id()) {
                    signal(pid, libc::SIGKILL);
                }
                std::process::exit(137);
            }
        }
    });
    let Some((program, args)) = argv.split_first() else { return 127 };
    let mut child = match std::process::Command::new(program).args(args).spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("sidekicks: cannot start {program}: {e}");
            return 127;
        }
    };
    // The program has its own stdin and stdout: the host lets go of them, so an agent that
    // closes its output is seen to (an end of file no copy held here keeps back).
    if let Ok(null) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/null") {
        use std::os::fd::AsRawFd;
        // SAFETY: dup2 onto the standard descriptors of this process, from one it owns.
        unsafe {
            libc::dup2(null.as_raw_fd(), 0);
            libc::dup2(null.as_raw_fd(), 1);
        }
    }
    let status = match child.wait() {
        Ok(status) => status,
        Err(e) => {
            eprintln!("sidekicks: lost {program}: {e}");
            return 1;
        }
    };
    // The shell is gone: end what it left, then reap every child (they were reparented here).
    let me = std::process::id();
    for pid in descendants(me) {
        signal(pid, libc::SIGHUP);
    }
    std::thread::sleep(Duration::from_millis(50));
    for pid in descendants(me) {
        signal(pid, libc::SIGKILL);
    }
    loop {
        // SAFETY: waitpid on any child with a valid status pointer.
        let mut st = 0;
        let r = unsafe { libc::waitpid(-1, &mut st, 0) };
        if r <= 0 {
            break;
        }
    }
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        // Ended by a signal: end the same way, so whoever waits for the host sees it.
        // SAFETY: restores the default action and sends the signal to this process.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
        }
    }
    status.code().unwrap_or(1)
}
