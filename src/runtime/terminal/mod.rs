//! A terminal in a workspace: its shell in a real PTY, the screen kept by alacritty_terminal's parser
//! and grid. Output is always read (a full PTY never blocks the program). Closing ends the shell
//! and everything it started: the shell runs under a small host process (`sidekicks terminal-host`)
//! that is a child subreaper, so even jobs started with `setsid`, `nohup` or `disown` stay in its
//! process tree, and closing kills that whole tree.
//!
//! Not finished (the terminal issue goes on): the egui widget, keys and mouse, selection, and the
//! shell in a container ended through /proc there.

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

pub use host::{descendants, run_host};

use super::workspace::ShellCommand;

/// Lines of scrollback kept.
pub const SCROLLBACK: usize = 10_000;

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

    /// Resizes the grid.
    pub fn resize(&mut self, cols: usize, rows: usize) {
        self.term.resize(TermSize::new(cols, rows));
    }

    /// The visible lines as text (trailing spaces trimmed; the spacer after a wide character left out).
    pub fn text(&self) -> String {
        use alacritty_terminal::grid::Dimensions;
        use alacritty_terminal::index::{Column, Line};
        use alacritty_terminal::term::cell::Flags;
        let grid = self.term.grid();
        let mut out = String::new();
        for line in 0..grid.screen_lines() {
            let row = &grid[Line(line as i32)];
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
    listener: Listener,
    writer: Box<dyn Write + Send>,
    master: Box<dyn portable_pty::MasterPty + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    reader: Option<JoinHandle<()>>,
    host_pid: u32,
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
        let target = screen.clone();
        let reader = std::thread::Builder::new().name("sidekicks-pty".into()).spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        target.lock().unwrap_or_else(|e| e.into_inner()).feed(&buf[..n]);
                        on_output();
                    }
                }
            }
        })?;
        Ok(Self { screen, listener, writer, master: pty.master, child, reader: Some(reader), host_pid })
    }

    /// The host process (the root of everything the terminal started).
    pub fn pid(&self) -> u32 {
        self.host_pid
    }

    /// Sends bytes to the program (keys, paste), then the terminal's pending replies.
    pub fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(bytes)?;
        let replies = std::mem::take(&mut *self.listener.replies.lock().unwrap_or_else(|e| e.into_inner()));
        if !replies.is_empty() {
            self.writer.write_all(&replies)?;
        }
        self.writer.flush()
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

    /// The visible lines as text.
    pub fn screen_text(&self) -> String {
        self.screen.lock().unwrap_or_else(|e| e.into_inner()).text()
    }

    /// True once the shell (and so its host) has exited.
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Ends the shell and everything it started, and closes the PTY.
    pub fn close(mut self) {
        host::kill_tree(self.host_pid);
        let _ = self.child.wait();
        drop(self.writer);
        drop(self.master);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}
