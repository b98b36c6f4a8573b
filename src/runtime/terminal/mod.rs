//! A terminal in a workspace: its shell in a real PTY, the screen kept by alacritty_terminal's parser
//! and grid. Output is always read (a full PTY never blocks the program). Closing ends the shell
//! and everything it started: the shell runs under a small host process (`sidekicks terminal-host`)
//! that is a child subreaper, so even jobs started with `setsid`, `nohup` or `disown` stay in its
//! process tree, and closing kills that whole tree.
//!
//! In a container, sandbox or pod the shell runs through `… exec -it` of a script that marks the
//! session (a variable every process it starts inherits, and a pid file); closing runs the
//! workspace's teardown command there, which ends every marked process through /proc.
//!
//! Output is read as soon as it comes (a full PTY never blocks the program) into a pending buffer;
//! the window applies it to the screen once per frame ([`TerminalSession::pump`]). When the window
//! falls behind (a flood) or does not draw (hidden, minimised) and more than [`APPLY_IN_READER`] bytes
//! wait, the reader applies them itself, so memory stays bounded and a frame never parses much.

mod host;

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use alacritty_terminal::Term;
use alacritty_terminal::event::{Event as TermEvent, EventListener};
use alacritty_terminal::term::Config;
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::vte::ansi::Processor;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

pub use host::{descendants, kill_tree as kill_tree_and_root, run_host};

use super::workspace::ShellCommand;

/// Lines of scrollback kept.
pub const SCROLLBACK: usize = 10_000;

/// Pending output beyond which the reader thread applies it to the screen itself.
pub const APPLY_IN_READER: usize = 256 * 1024;

/// The most output a frame applies (about 1.5 ms of parsing); during a flood the reader applies
/// the rest.
const PUMP_MAX: usize = 64 * 1024;

/// The reader applies output in slices of this size, letting the window draw in between.
const APPLY_SLICE: usize = 32 * 1024;

/// Collects what the terminal asks to write back to the program (answers to queries) and its title.
#[derive(Clone, Default)]
pub struct Listener {
    replies: Arc<Mutex<Vec<u8>>>,
    title: Arc<Mutex<Option<String>>>,
}

impl EventListener for Listener {
    fn send_event(&self, event: TermEvent) {
        match event {
            TermEvent::PtyWrite(text) => {
                self.replies.lock().unwrap_or_else(|e| e.into_inner()).extend(text.into_bytes())
            }
            TermEvent::Title(title) => *self.title.lock().unwrap_or_else(|e| e.into_inner()) = Some(title),
            TermEvent::ResetTitle => *self.title.lock().unwrap_or_else(|e| e.into_inner()) = None,
            _ => {}
        }
    }
}

/// A terminal screen: the parser and the grid (with scrollback) it writes to.
pub struct Screen {
    term: Term<Listener>,
    parser: Processor,
}

/// One cell as tests and the widget see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellView {
    /// The character.
    pub c: char,
    /// Foreground colour as the program asked for it.
    pub fg: alacritty_terminal::vte::ansi::Color,
    /// Bold.
    pub bold: bool,
    /// The left half of a double-width character.
    pub wide: bool,
}

impl Screen {
    /// An empty screen of `cols` × `rows`.
    pub fn new(cols: usize, rows: usize, listener: Listener) -> Self {
        let config = Config { scrolling_history: SCROLLBACK, ..Config::default() };
        Self { term: Term::new(config, &TermSize::new(cols, rows), listener), parser: Processor::new() }
    }

    /// Applies output of the program.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.parser.advance(&mut self.term, bytes);
    }

    /// The terminal state (grid, cursor, modes).
    pub fn term(&self) -> &Term<Listener> {
        &self.term
    }

    /// The terminal state, to scroll or select.
    pub fn term_mut(&mut self) -> &mut Term<Listener> {
        &mut self.term
    }

    /// Resizes the grid.
    pub fn resize(&mut self, cols: usize, rows: usize) {
        self.term.resize(TermSize::new(cols, rows));
    }

    /// The lines shown as text, scrolled back as far as the view is (trailing spaces trimmed; the
    /// spacer after a wide character left out).
    pub fn text(&self) -> String {
        use alacritty_terminal::grid::Dimensions;
        use alacritty_terminal::index::{Column, Line};
        use alacritty_terminal::term::cell::Flags;
        let grid = self.term.grid();
        let offset = grid.display_offset() as i32;
        let mut out = String::new();
        for line in 0..grid.screen_lines() {
            let row = &grid[Line(line as i32 - offset)];
            let text: String = (0..grid.columns())
                .map(|c| &row[Column(c)])
                .filter(|cell| !cell.flags.contains(Flags::WIDE_CHAR_SPACER))
                .map(|cell| cell.c)
                .collect();
            out.push_str(text.trim_end());
            out.push('\n');
        }
        out
    }

    /// The cell at visible `line`, `col`.
    pub fn cell(&self, line: usize, col: usize) -> CellView {
        use alacritty_terminal::index::{Column, Line};
        use alacritty_terminal::term::cell::Flags;
        let cell = &self.term.grid()[Line(line as i32)][Column(col)];
        CellView {
            c: cell.c,
            fg: cell.fg,
            bold: cell.flags.contains(Flags::BOLD),
            wide: cell.flags.contains(Flags::WIDE_CHAR),
        }
    }

    /// The cursor: (line, column).
    pub fn cursor(&self) -> (usize, usize) {
        let point = self.term.grid().cursor.point;
        (point.line.0.max(0) as usize, point.column.0)
    }

    /// True while a full-screen program uses the alternate screen.
    pub fn alternate(&self) -> bool {
        self.term.mode().contains(alacritty_terminal::term::TermMode::ALT_SCREEN)
    }
}

/// A shell in a PTY, with its screen.
pub struct TerminalSession {
    screen: Arc<Mutex<Screen>>,
    pending: Arc<Mutex<Vec<u8>>>,
    /// Held by whoever applies output, so it is applied in order.
    feeding: Arc<Mutex<()>>,
    listener: Listener,
    writer: Mutex<Box<dyn Write + Send>>,
    master: Box<dyn portable_pty::MasterPty + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    reader: Option<JoinHandle<()>>,
    host_pid: u32,
    teardown: Vec<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl TerminalSession {
    /// Starts `shell` (under the subreaper host `host_exe`) in a PTY of `cols` × `rows`; `on_output`
    /// is called after each batch of output was applied to the screen.
    pub fn spawn(
        host_exe: &std::path::Path,
        shell: &ShellCommand,
        cols: u16,
        rows: u16,
        on_output: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Self> {
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
        let child = pty.slave.spawn_command(cmd).map_err(std::io::Error::other)?;
        drop(pty.slave);
        let host_pid = child.process_id().unwrap_or(0);
        let listener = Listener::default();
        let screen = Arc::new(Mutex::new(Screen::new(cols as usize, rows as usize, listener.clone())));
        let mut reader = pty.master.try_clone_reader().map_err(std::io::Error::other)?;
        let writer = pty.master.take_writer().map_err(std::io::Error::other)?;
        let pending = Arc::new(Mutex::new(Vec::new()));
        let feeding = Arc::new(Mutex::new(()));
        let (target, queue, order) = (screen.clone(), pending.clone(), feeding.clone());
        let reader = std::thread::Builder::new().name("sidekicks-pty".into()).spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut queued = lock(&queue);
                        queued.extend_from_slice(&buf[..n]);
                        if queued.len() > APPLY_IN_READER {
                            drop(queued);
                            // The window is behind (or not drawing): apply here, in order (the
                            // feeding lock), a slice at a time so drawing never waits long.
                            let _feeding = lock(&order);
                            let bytes = std::mem::take(&mut *lock(&queue));
                            for slice in bytes.chunks(APPLY_SLICE) {
                                lock(&target).feed(slice);
                            }
                        } else {
                            drop(queued);
                        }
                        on_output();
                    }
                }
            }
        })?;
        Ok(Self {
            screen,
            pending,
            feeding,
            listener,
            writer: Mutex::new(writer),
            master: pty.master,
            child,
            reader: Some(reader),
            host_pid,
            teardown: shell.teardown.clone(),
        })
    }

    /// Applies the output that arrived since the last call (at most [`PUMP_MAX`] bytes) to the screen
    /// and answers the program's queries (cursor position, device attributes). The window calls it
    /// once per frame. Returns true when output remains to apply (the window asks for another frame).
    pub fn pump(&self) -> bool {
        // The reader is applying a flood: this frame draws what is there.
        let _feeding = match self.feeding.try_lock() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return true,
        };
        let (bytes, more) = {
            let mut pending = lock(&self.pending);
            if pending.is_empty() {
                return false;
            }
            let n = pending.len().min(PUMP_MAX);
            let bytes: Vec<u8> = pending.drain(..n).collect();
            (bytes, !pending.is_empty())
        };
        lock(&self.screen).feed(&bytes);
        let _ = self.write(&[]);
        more
    }

    /// The host process (the root of everything the terminal started).
    pub fn pid(&self) -> u32 {
        self.host_pid
    }

    /// Sends bytes to the program (keys, paste), then the terminal's pending replies.
    pub fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut writer = lock(&self.writer);
        writer.write_all(bytes)?;
        let replies = std::mem::take(&mut *lock(&self.listener.replies));
        if !replies.is_empty() {
            writer.write_all(&replies)?;
        }
        writer.flush()
    }

    /// Resizes the PTY (the program gets SIGWINCH) and the screen.
    pub fn resize(&mut self, cols: u16, rows: u16) -> std::io::Result<()> {
        self.master.resize(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 }).map_err(std::io::Error::other)?;
        self.screen.lock().unwrap_or_else(|e| e.into_inner()).resize(cols as usize, rows as usize);
        Ok(())
    }

    /// The screen, for drawing (lock it briefly).
    pub fn screen(&self) -> Arc<Mutex<Screen>> {
        self.screen.clone()
    }

    /// The title the program set, if any.
    pub fn title(&self) -> Option<String> {
        self.listener.title.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The visible lines as text (after applying pending output).
    pub fn screen_text(&self) -> String {
        while self.pump() {}
        lock(&self.screen).text()
    }

    /// True once the shell (and so its host) has exited.
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Ends the shell and everything it started, and closes the PTY.
    pub fn close(mut self) {
        if let Some((program, args)) = self.teardown.split_first() {
            run_teardown(program, args);
        }
        host::kill_tree(self.host_pid);
        let _ = self.child.wait();
        drop(self.writer.into_inner());
        drop(self.master);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// Runs the workspace's teardown command (ends the session inside a container), waiting at most
/// 10 s for it.
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
            _ => {
                tracing::warn!("terminal teardown in {program} timed out");
                let _ = child.kill();
                let _ = child.wait();
                return;
            }
        }
    }
}
