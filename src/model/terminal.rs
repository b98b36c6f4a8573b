//! A terminal's screen, as plain logic: alacritty_terminal's parser and grid (with scrollback),
//! and the output waiting to be applied to it. The program's output is queued as it comes (by the
//! runtime's reader thread) and applied by the window once per frame ([`TerminalScreen::pump`]);
//! when the window falls behind or does not draw and more than [`APPLY_OFF_WINDOW`] bytes wait,
//! the queue is applied off the window ([`TerminalScreen::apply_pending`], by the runtime's
//! applier thread, while the reader goes on reading), so a frame never parses much; past
//! [`PENDING_MAX`] the reader applies it itself, so memory stays bounded.
//! No I/O here: what the terminal answers the program (cursor reports) is handed back as bytes.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use alacritty_terminal::Term;
use alacritty_terminal::event::{Event as TermEvent, EventListener};
use alacritty_terminal::term::Config;
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::vte::ansi::Processor;

/// Lines of scrollback kept.
pub const SCROLLBACK: usize = 10_000;

/// Pending output beyond which it is applied off the window.
pub const APPLY_OFF_WINDOW: usize = 64 * 1024;

/// Pending output beyond which the reader applies it itself (the applier is behind).
pub const PENDING_MAX: usize = 4 * 1024 * 1024;

/// The most output a frame applies (well under a millisecond of parsing); during a flood the
/// applier applies the rest.
const PUMP_MAX: usize = 16 * 1024;

/// Output is applied off the window in slices of this size; a frame waiting for the screen gets
/// it between two (a frame never waits long for the screen).
const APPLY_SLICE: usize = 4 * 1024;

/// The longest the applier stands aside for a frame that wants the screen.
const FRAME_WAIT: std::time::Duration = std::time::Duration::from_millis(4);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Collects what the terminal asks to write back to the program (answers to queries) and its title.
#[derive(Clone, Default)]
pub struct Listener {
    replies: Arc<Mutex<Vec<u8>>>,
    title: Arc<Mutex<Option<String>>>,
}

impl EventListener for Listener {
    fn send_event(&self, event: TermEvent) {
        match event {
            TermEvent::PtyWrite(text) => lock(&self.replies).extend(text.into_bytes()),
            TermEvent::Title(title) => *lock(&self.title) = Some(title),
            TermEvent::ResetTitle => *lock(&self.title) = None,
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

/// A terminal's screen and the output waiting for it, shared by whoever reads the program's output
/// and the window that draws it.
pub struct TerminalScreen {
    /// The screen; the applier, applying a flood a slice at a time, stands aside between slices
    /// while someone waits for it (`wanting`).
    screen: parking_lot::Mutex<Screen>,
    pending: Mutex<Vec<u8>>,
    /// Held by whoever applies output, so it is applied in order.
    feeding: Mutex<()>,
    /// How many wait for the screen (a frame): the applier stands aside between slices meanwhile.
    wanting: AtomicUsize,
    listener: Listener,
    exited: AtomicBool,
}

impl TerminalScreen {
    /// An empty screen of `cols` × `rows`.
    pub fn new(cols: usize, rows: usize) -> Arc<Self> {
        let listener = Listener::default();
        Arc::new(Self {
            screen: parking_lot::Mutex::new(Screen::new(cols, rows, listener.clone())),
            pending: Mutex::new(Vec::new()),
            feeding: Mutex::new(()),
            wanting: AtomicUsize::new(0),
            listener,
            exited: AtomicBool::new(false),
        })
    }

    /// Queues output of the program. Returns true when more than [`APPLY_OFF_WINDOW`] bytes wait:
    /// the window is behind or not drawing, and [`TerminalScreen::apply_pending`] should run off
    /// it. Past [`PENDING_MAX`] it is applied here, before returning.
    pub fn queue(&self, bytes: &[u8]) -> bool {
        let waiting = {
            let mut queued = lock(&self.pending);
            queued.extend_from_slice(bytes);
            queued.len()
        };
        if waiting > PENDING_MAX {
            self.apply_pending();
            return false;
        }
        waiting > APPLY_OFF_WINDOW
    }

    /// How many bytes of output wait to be applied.
    pub fn waiting(&self) -> usize {
        lock(&self.pending).len()
    }

    /// Applies all the output waiting, in order, a slice at a time so drawing never waits long.
    pub fn apply_pending(&self) {
        let _feeding = lock(&self.feeding);
        let bytes = std::mem::take(&mut *lock(&self.pending));
        for slice in bytes.chunks(APPLY_SLICE) {
            self.stand_aside();
            self.screen.lock().feed(slice);
        }
    }

    /// Waits (at most [`FRAME_WAIT`]) while a frame wants the screen, so that it gets it between
    /// two slices.
    fn stand_aside(&self) {
        let since = std::time::Instant::now();
        while self.wanting.load(Ordering::Acquire) > 0 && since.elapsed() < FRAME_WAIT {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }

    /// Applies the output that arrived since the last call (at most 64 KiB) to the screen. The
    /// window calls it once per frame. Returns true when output remains to apply.
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
        self.screen.lock().feed(&bytes);
        more
    }

    /// What the terminal has to answer the program (replies to its queries), taken.
    pub fn take_replies(&self) -> Vec<u8> {
        std::mem::take(&mut *lock(&self.listener.replies))
    }

    /// The screen, locked (briefly: the reader waits meanwhile); the applier stands aside for it.
    pub fn lock(&self) -> parking_lot::MutexGuard<'_, Screen> {
        self.wanting.fetch_add(1, Ordering::AcqRel);
        let screen = self.screen.lock();
        self.wanting.fetch_sub(1, Ordering::AcqRel);
        screen
    }

    /// The screen, locked, if it is free within `wait` (a frame that would rather show its last
    /// picture than wait for a flood's applier, which stands aside between slices meanwhile).
    /// Tried every 50 µs against the clock: a timed wait on the lock itself overshot to 5–18 ms
    /// when the applier was preempted (issue 50, benches/terminal.rs).
    pub fn try_lock_for(&self, wait: std::time::Duration) -> Option<parking_lot::MutexGuard<'_, Screen>> {
        let since = std::time::Instant::now();
        self.wanting.fetch_add(1, Ordering::AcqRel);
        let screen = loop {
            if let Some(screen) = self.screen.try_lock() {
                break Some(screen);
            }
            if since.elapsed() >= wait {
                break None;
            }
            std::thread::sleep(std::time::Duration::from_micros(50));
        };
        self.wanting.fetch_sub(1, Ordering::AcqRel);
        screen
    }

    /// The title the program set, if any.
    pub fn title(&self) -> Option<String> {
        lock(&self.listener.title).clone()
    }

    /// The visible lines as text, after applying every pending output.
    pub fn text(&self) -> String {
        self.apply_pending();
        self.screen.lock().text()
    }

    /// Marks the program as ended.
    pub fn set_exited(&self) {
        self.exited.store(true, Ordering::Release);
    }

    /// True once the program (its host) has ended.
    pub fn has_exited(&self) -> bool {
        self.exited.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame asking for the screen while the applier applies a flood gets it between two slices
    /// (the applier stands aside), and the flood is applied whole and in order all the same.
    #[test]
    fn a_frame_gets_the_screen_while_a_flood_is_applied_and_nothing_is_lost() {
        let screen = TerminalScreen::new(80, 24);
        let mut flood = Vec::new();
        for i in 0..200_000 {
            flood.extend_from_slice(format!("line {i}\r\n").as_bytes());
        }
        flood.extend_from_slice(b"the end\r\n");
        screen.queue(&flood);
        let applier = {
            let screen = screen.clone();
            std::thread::spawn(move || screen.apply_pending())
        };
        let mut got = 0;
        while !applier.is_finished() {
            if screen.try_lock_for(std::time::Duration::from_millis(2)).is_some() {
                got += 1;
            }
        }
        applier.join().unwrap();
        assert_eq!(screen.wanting.load(Ordering::Acquire), 0);
        let text = screen.lock().text();
        assert!(text.contains("line 199999\nthe end"), "{text}");
        // At least the lock taken once the flood was applied; usually many times during it.
        assert!(screen.try_lock_for(std::time::Duration::from_millis(2)).is_some() || got > 0);
    }
}
