//! A terminal of a workspace as the window holds it: its screen (shared with the runtime, which
//! owns the shell, its PTY and its threads) and a channel for its input. The widget draws the
//! screen and sends keys through the channel, as alacritty's window sends `Msg::Input` to its event
//! loop; it never writes to the PTY itself.

use std::sync::Arc;
use std::sync::mpsc::Sender;

pub use crate::model::terminal::{CellView, Screen, TerminalScreen};

/// What the window sends a terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TerminalInput {
    /// Bytes for the program (keys, paste, mouse reports, answers to its queries).
    Bytes(Vec<u8>),
    /// The size the window draws it at: the PTY follows (the program gets SIGWINCH).
    Resize {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
}

/// The window's handle on a terminal the runtime runs.
#[derive(Clone)]
pub struct TerminalHandle {
    /// Its number, unique in this run (`Command::CloseTerminal` names it).
    pub id: u64,
    /// The pid of its host process (the root of everything it started).
    pub pid: u32,
    screen: Arc<TerminalScreen>,
    input: Sender<TerminalInput>,
}

impl TerminalHandle {
    /// A handle on `screen`, whose input goes to `input`.
    pub fn new(id: u64, pid: u32, screen: Arc<TerminalScreen>, input: Sender<TerminalInput>) -> Self {
        Self { id, pid, screen, input }
    }

    /// The screen.
    pub fn screen(&self) -> &TerminalScreen {
        &self.screen
    }

    /// Applies output that arrived (once per frame) and sends the terminal's answers to the
    /// program's queries; true when more remains.
    pub fn pump(&self) -> bool {
        let more = self.screen.pump();
        let replies = self.screen.take_replies();
        if !replies.is_empty() {
            self.send(replies);
        }
        more
    }

    /// Sends bytes to the program (a terminal that ended drops them).
    pub fn send(&self, bytes: Vec<u8>) {
        let _ = self.input.send(TerminalInput::Bytes(bytes));
    }

    /// Resizes the screen now and the PTY soon after.
    pub fn resize(&self, cols: u16, rows: u16) {
        self.screen.lock().resize(cols as usize, rows as usize);
        let _ = self.input.send(TerminalInput::Resize { cols, rows });
    }

    /// The title the program set, if any.
    pub fn title(&self) -> Option<String> {
        self.screen.title()
    }

    /// The visible lines as text (after applying pending output).
    pub fn screen_text(&self) -> String {
        let text = self.screen.text();
        let replies = self.screen.take_replies();
        if !replies.is_empty() {
            self.send(replies);
        }
        text
    }

    /// True once the shell (and so its host) has ended.
    pub fn has_exited(&self) -> bool {
        self.screen.has_exited()
    }
}

impl std::fmt::Debug for TerminalHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalHandle").field("id", &self.id).field("pid", &self.pid).finish_non_exhaustive()
    }
}

/// Two handles are equal when they are on the same terminal.
impl PartialEq for TerminalHandle {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && Arc::ptr_eq(&self.screen, &other.screen)
    }
}
