//! A terminal in a workspace: its shell in a real PTY, owned here; the window holds a
//! [`TerminalHandle`] (the screen and an input channel). Output is always read (a full PTY never
//! blocks the program) and queued for the screen ([`TerminalScreen`], in `model`). Closing ends
//! the shell and everything it started: the shell runs under a small host process (`sidekicks
//! terminal-host`) that is a child subreaper, so even jobs started with `setsid`, `nohup` or
//! `disown` stay in its process tree, and closing kills that whole tree.
//!
//! In a container, sandbox or pod the shell runs through `… exec -it` of a script that marks the
//! session (a variable every process it starts inherits, and a pid file); closing runs the
//! workspace's teardown command there, which ends every marked process through /proc.
//!
//! Four threads per terminal: the reader (output into the screen's queue), the applier (applies
//! the queue to the screen when the window is behind, so reading goes on meanwhile: during a flood
//! reading and parsing run on two cores), the writer (the handle's input into the PTY, resizes; a
//! paste the program does not read blocks only it) and the waiter (notices the end of the shell).

mod host;

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

pub use host::{descendants, kill_tree as kill_tree_and_root, run_host};

use super::workspace::ShellCommand;
pub use crate::model::terminal::{APPLY_OFF_WINDOW, CellView, PENDING_MAX, SCROLLBACK, Screen, TerminalScreen};
pub use crate::protocol::terminal::{TerminalHandle, TerminalInput};

/// A shell in a PTY, with its threads.
pub struct TerminalSession {
    handle: TerminalHandle,
    /// Stops the writer at its next message.
    closed: Arc<AtomicBool>,
    writer: Option<JoinHandle<()>>,
    reader: Option<JoinHandle<()>>,
    applier: Option<JoinHandle<()>>,
    waiter: Option<JoinHandle<()>>,
    teardown: Vec<String>,
}

impl TerminalSession {
    /// Starts `shell` (under the subreaper host `host_exe`) in a PTY of `cols` × `rows`; `on_output`
    /// is called after each batch of output was queued and when the shell ends.
    pub fn spawn(
        host_exe: &std::path::Path,
        shell: &ShellCommand,
        cols: u16,
        rows: u16,
        on_output: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Self> {
        Self::spawn_then(host_exe, shell, cols, rows, on_output, Box::new(|_| {}))
    }

    /// [`TerminalSession::spawn`], calling `on_exit` with whether the program succeeded once it
    /// has ended.
    pub fn spawn_then(
        host_exe: &std::path::Path,
        shell: &ShellCommand,
        cols: u16,
        rows: u16,
        on_output: Arc<dyn Fn() + Send + Sync>,
        on_exit: Box<dyn FnOnce(bool) + Send>,
    ) -> std::io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let pty = native_pty_system()
            .openpty(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 })
            .map_err(std::io::Error::other)?;
        let mut cmd = CommandBuilder::new(host_exe);
        cmd.arg("terminal-host");
        cmd.arg("--");
        cmd.args(&shell.argv);
        cmd.cwd(&shell.cwd);
        for (k, v) in &shell.env {
            cmd.env(k, v);
        }
        let mut child = pty.slave.spawn_command(cmd).map_err(std::io::Error::other)?;
        drop(pty.slave);
        let host_pid = child.process_id().unwrap_or(0);
        let screen = TerminalScreen::new(cols as usize, rows as usize);
        let reader = pty.master.try_clone_reader().map_err(std::io::Error::other)?;
        let writer = pty.master.take_writer().map_err(std::io::Error::other)?;
        let master = pty.master;
        let (input, inbox) = mpsc::channel::<TerminalInput>();
        let closed = Arc::new(AtomicBool::new(false));
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| std::thread::Builder::new().name(name.into()).spawn(f);
        let writer_thread = input_thread(writer, master, inbox, closed.clone())?;
        // The reader's end is heard when its sender goes with it.
        let (read_all, all_read) = mpsc::sync_channel::<()>(0);
        let (reader_thread, applier_thread) = output_threads(reader, &screen, &on_output, read_all)?;
        let (target, notify) = (screen.clone(), on_output);
        let waiter = spawn(
            "sidekicks-pty-wait",
            Box::new(move || {
                let success = child.wait().is_ok_and(|status| status.success());
                // The program's last words (why it ended) are on the screen before it is said to
                // have ended: the reader may not have read them yet (a loaded machine). A
                // process it left holding the terminal would keep the reader going: not waited
                // on longer than `LAST_WORDS`.
                let _ = all_read.recv_timeout(LAST_WORDS);
                target.set_exited();
                notify();
                on_exit(success);
            }),
        )?;
        let handle = TerminalHandle::new(NEXT.fetch_add(1, Ordering::Relaxed), host_pid, screen, input);
        Ok(Self {
            handle,
            closed,
            writer: Some(writer_thread),
            reader: Some(reader_thread),
            applier: Some(applier_thread),
            waiter: Some(waiter),
            teardown: shell.teardown.clone(),
        })
    }

    /// The window's handle on it.
    pub fn handle(&self) -> &TerminalHandle {
        &self.handle
    }

    /// Applies the output that arrived since the last call (see [`TerminalScreen::pump`]).
    pub fn pump(&self) -> bool {
        self.handle.pump()
    }

    /// The host process (the root of everything the terminal started).
    pub fn pid(&self) -> u32 {
        self.handle.pid
    }

    /// Sends bytes to the program (keys, paste), through the writer.
    pub fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        self.handle.send(bytes.to_vec());
        Ok(())
    }

    /// Resizes the screen and the PTY (the program gets SIGWINCH).
    pub fn resize(&self, cols: u16, rows: u16) -> std::io::Result<()> {
        self.handle.resize(cols, rows);
        Ok(())
    }

    /// The visible lines as text (after applying pending output).
    pub fn screen_text(&self) -> String {
        self.handle.screen_text()
    }

    /// True once the shell (and so its host) has exited.
    pub fn has_exited(&self) -> bool {
        self.handle.has_exited()
    }

    /// Ends the shell and everything it started, and closes the PTY.
    pub fn close(mut self) {
        if let Some((program, args)) = self.teardown.split_first() {
            run_teardown(program, args);
        }
        host::kill_tree(self.handle.pid);
        if let Some(waiter) = self.waiter.take() {
            let _ = waiter.join();
        }
        // The writer ends at its next message (the handles the window keeps hold the channel).
        self.closed.store(true, Ordering::Release);
        self.handle.send(Vec::new());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        // The reader's end dropped the applier's channel.
        if let Some(applier) = self.applier.take() {
            let _ = applier.join();
        }
    }
}

/// The thread that writes the person's input and resizes into the PTY, until the terminal closes.
fn input_thread(
    mut writer: Box<dyn Write + Send>,
    master: Box<dyn portable_pty::MasterPty + Send>,
    inbox: mpsc::Receiver<TerminalInput>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new().name("sidekicks-pty-in".into()).spawn(move || {
        while let Ok(message) = inbox.recv() {
            if stop.load(Ordering::Acquire) {
                break;
            }
            match message {
                TerminalInput::Bytes(bytes) => {
                    let _ = writer.write_all(&bytes).and_then(|()| writer.flush());
                }
                TerminalInput::Resize { cols, rows } => {
                    let _ = master.resize(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 });
                }
            }
        }
    })
}

/// How long a program's end waits for the reader to read what it wrote last.
const LAST_WORDS: std::time::Duration = std::time::Duration::from_secs(2);

/// The threads that read the PTY's output into the screen's queue, and apply the queue when the
/// window is behind (one kick waiting at most: the applier takes everything queued when it wakes).
/// `read_all` is dropped when the reader has read everything (the PTY closed).
fn output_threads(
    mut reader: Box<dyn Read + Send>,
    screen: &Arc<TerminalScreen>,
    on_output: &Arc<dyn Fn() + Send + Sync>,
    read_all: mpsc::SyncSender<()>,
) -> std::io::Result<(std::thread::JoinHandle<()>, std::thread::JoinHandle<()>)> {
    let (kick, kicked) = mpsc::sync_channel::<()>(1);
    let (target, notify) = (screen.clone(), on_output.clone());
    let applier = std::thread::Builder::new().name("sidekicks-pty-apply".into()).spawn(move || {
        yield_to_the_window();
        while kicked.recv().is_ok() {
            target.apply_pending();
            notify();
        }
    })?;
    let (target, notify) = (screen.clone(), on_output.clone());
    let reader = std::thread::Builder::new().name("sidekicks-pty".into()).spawn(move || {
        yield_to_the_window();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if target.queue(&buf[..n]) {
                        let _ = kick.try_send(());
                    }
                    notify();
                }
            }
        }
        drop(read_all);
    })?;
    Ok((reader, applier))
}

/// Lowers the calling thread's priority (Linux: nice 5), so that during a flood the window's
/// frames get a core before the reader and the applier do. Nice 10 starved them when other work
/// ran (a flood 4.8× tmux's time with both cores busy); nice 0 let them delay frames (p95 29–41 ms
/// then): docs/PERFORMANCE.md.
fn yield_to_the_window() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread's own id.
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, thread, 5);
    }
}

/// Runs the workspace's teardown command (ends the session inside a container), waiting at most
/// 10 s for it; one that takes longer (an engine slow under load) is left to finish, not killed:
/// killing a `podman exec` client ends the teardown inside too, and leaves the session's processes.
fn run_teardown(program: &str, args: &[String]) {
    let started = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match started {
        Ok(child) => child,
        Err(e) => {
            tracing::warn!("terminal teardown: cannot run {program}: {e}");
            return;
        }
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if !status.success() => {
                let mut err = String::new();
                let _ = child.stderr.take().map(|mut e| e.read_to_string(&mut err));
                tracing::warn!("terminal teardown in {program} failed ({status}): {}", err.trim());
                return;
            }
            Ok(Some(_)) => return,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            Ok(None) => {
                tracing::warn!("terminal teardown in {program} takes over 10 s: left to finish");
                let program = program.to_string();
                std::thread::spawn(move || {
                    if !child.wait().is_ok_and(|s| s.success()) {
                        tracing::warn!("terminal teardown in {program} failed after its 10 s");
                    }
                });
                return;
            }
            Err(e) => {
                tracing::warn!("terminal teardown in {program}: {e}");
                return;
            }
        }
    }
}
