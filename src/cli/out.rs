//! What the command line writes for a person: text an agent, a member's copy or a registry wrote
//! goes through `model::ansi::for_terminal`, so an escape sequence in it (a title change, an OSC 52
//! clipboard write, a screen clear) shows as characters and never acts on the terminal. JSON
//! output is written as it is (serde escapes control characters there).

/// `println!` for a person.
macro_rules! outln {
    ($($arg:tt)*) => { println!("{}", $crate::model::ansi::for_terminal(&format!($($arg)*))) };
}

/// `print!` for a person.
macro_rules! out {
    ($($arg:tt)*) => { print!("{}", $crate::model::ansi::for_terminal(&format!($($arg)*))) };
}

/// `eprintln!` for a person.
macro_rules! errln {
    ($($arg:tt)*) => { eprintln!("{}", $crate::model::ansi::for_terminal(&format!($($arg)*))) };
}

/// `eprint!` for a person.
macro_rules! err {
    ($($arg:tt)*) => { eprint!("{}", $crate::model::ansi::for_terminal(&format!($($arg)*))) };
}

pub(crate) use {err, errln, out, outln};
