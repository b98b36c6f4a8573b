//! What the command line writes for a person: text an agent, a member's copy or a registry wrote
//! goes through `model::ansi::for_terminal`, so an escape sequence in it (a title change, an OSC 52
//! clipboard write, a screen clear) shows as characters and never acts on the terminal. JSON
//! output is written as it is (serde escapes control characters there).

//!
//! A closed pipe (`sidekicks team merge … | head`) is not an error of the command: what follows
//! is dropped, and the command goes on to its end and its exit code (`println!` would panic).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Standard output, then standard error, closed by the reader.
static CLOSED: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];

/// Writes `text` to standard error (`to_err`) or output; once a write fails, nothing more is
/// written there.
pub(crate) fn write(to_err: bool, text: &str) {
    let closed = &CLOSED[usize::from(to_err)];
    if closed.load(Ordering::Relaxed) {
        return;
    }
    let written = if to_err {
        std::io::stderr().lock().write_all(text.as_bytes())
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    if written.is_err() {
        closed.store(true, Ordering::Relaxed);
    }
}

/// `println!` for a person.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::cli::out::write(false, &format!("{}\n", $crate::model::ansi::for_terminal(&format!($($arg)*)))) };
}

/// `print!` for a person.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::out::write(false, &$crate::model::ansi::for_terminal(&format!($($arg)*))) };
}

/// `eprintln!` for a person.
macro_rules! errln {
    ($($arg:tt)*) => { $crate::cli::out::write(true, &format!("{}\n", $crate::model::ansi::for_terminal(&format!($($arg)*)))) };
}

/// `eprint!` for a person.
macro_rules! err {
    ($($arg:tt)*) => { $crate::cli::out::write(true, &$crate::model::ansi::for_terminal(&format!($($arg)*))) };
}

/// `println!` of what is not a person's text (JSON, which escapes control characters itself).
macro_rules! jsonln {
    () => { $crate::cli::out::write(false, "\n") };
    ($($arg:tt)*) => { $crate::cli::out::write(false, &format!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {err, errln, jsonln, out, outln};
