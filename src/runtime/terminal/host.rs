//! The terminal host (`sidekicks terminal-host -- SHELL…`): makes itself a child subreaper, runs the
//! shell, and when the shell ends, ends whatever it left behind. Orphans — jobs started with `&`,
//! `setsid`, `setsid -f`, `nohup`, `disown`, `(cmd &)` — are reparented to the host instead of init,
//! so they stay in its process tree, and `kill_tree` on the host reaches all of them.

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

/// The host's main: subreaper, run `argv`, then end and reap everything left. Returns the shell's
/// exit code.
pub fn run_host(argv: &[String]) -> i32 {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only changes this process's own attribute.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    let Some((program, args)) = argv.split_first() else { return 127 };
    let status = match std::process::Command::new(program).args(args).status() {
        Ok(status) => status.code().unwrap_or(1),
        Err(e) => {
            eprintln!("sidekicks: cannot start {program}: {e}");
            127
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
    status
}
