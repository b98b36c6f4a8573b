//! A line written for a terminal (an agent's stderr: loggers colour their levels), read into
//! spans of text with their colour and emphasis (SGR escapes); every other escape is left out, so
//! a log shows words, never escape codes. The parser is the terminal's (`vte`).

use alacritty_terminal::vte::{Params, Parser, Perform};

/// A text colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Colour {
    /// The view's own.
    #[default]
    Default,
    /// Palette entry 0–255 (0–7 normal, 8–15 bright).
    Indexed(u8),
    /// True colour.
    Rgb(u8, u8, u8),
}

/// How a span is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Its colour.
    pub fg: Colour,
    /// Bold.
    pub bold: bool,
    /// Faint.
    pub dim: bool,
    /// Italic.
    pub italic: bool,
    /// Underlined.
    pub underline: bool,
}

/// A piece of text in one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The text.
    pub text: String,
    /// Its style.
    pub style: Style,
}

/// `text` as it may be written to the person's terminal by the command line: every control
/// character but newline and tab — ESC (which starts a title change, a clipboard write with OSC
/// 52, a screen clear…), a lone carriage return, the C1 controls, DEL — shown in caret notation
/// (`^[`, `^M`, `^?`, `<U+009B>`), so what an agent or a registry wrote reads as the words it was
/// and never acts on the terminal (issue 45).
pub fn for_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    let is_control = |c: char| (c.is_control() && c != '\n' && c != '\t') || c == '\u{7f}';
    if !text.chars().any(is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 && is_control(c) => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            c if is_control(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The spans of `line`, escapes read and left out.
pub fn spans(line: &str) -> Vec<Span> {
    let mut reader = Reader::default();
    Parser::new().advance(&mut reader, line.as_bytes());
    reader.spans
}

/// `text` of several lines without its escapes, its line breaks kept (`strip` reads one line:
/// a line break is a control character to it).
pub fn strip_lines(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let end = if line.ends_with('\n') { "\n" } else { "" };
            strip(line.trim_end_matches(['\n', '\r'])) + end
        })
        .collect()
}

/// `line` without its escapes.
pub fn strip(line: &str) -> String {
    spans(line).into_iter().map(|s| s.text).collect()
}

#[derive(Default)]
struct Reader {
    spans: Vec<Span>,
    style: Style,
}

impl Reader {
    fn push(&mut self, c: char) {
        match self.spans.last_mut() {
            Some(last) if last.style == self.style => last.text.push(c),
            _ => self.spans.push(Span { text: c.to_string(), style: self.style }),
        }
    }

    /// Select Graphic Rendition: the codes of one `ESC [ … m`.
    fn sgr(&mut self, params: &Params) {
        let mut codes = params.iter().flat_map(|p| p.iter().copied());
        let mut any = false;
        while let Some(code) = codes.next() {
            any = true;
            let s = &mut self.style;
            match code {
                0 => *s = Style::default(),
                1 => s.bold = true,
                2 => s.dim = true,
                3 => s.italic = true,
                4 => s.underline = true,
                22 => (s.bold, s.dim) = (false, false),
                23 => s.italic = false,
                24 => s.underline = false,
                30..=37 => s.fg = Colour::Indexed((code - 30) as u8),
                90..=97 => s.fg = Colour::Indexed((code - 90 + 8) as u8),
                39 => s.fg = Colour::Default,
                38 => match codes.next() {
                    Some(5) => s.fg = codes.next().map_or(Colour::Default, |i| Colour::Indexed(i.min(255) as u8)),
                    Some(2) => {
                        let mut c = || codes.next().unwrap_or(0).min(255) as u8;
                        s.fg = Colour::Rgb(c(), c(), c());
                    }
                    _ => {}
                },
                // A background colour's own numbers are skipped with it.
                48 => match codes.next() {
                    Some(5) => {
                        codes.next();
                    }
                    Some(2) => {
                        codes.by_ref().take(3).for_each(drop);
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        if !any {
            self.style = Style::default();
        }
    }
}

impl Perform for Reader {
    fn print(&mut self, c: char) {
        self.push(c);
    }

    fn execute(&mut self, byte: u8) {
        if byte == b'\t' {
            self.push('\t');
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        if action == 'm' && intermediates.is_empty() && !ignore {
            self.sgr(params);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_sequences_never_reach_a_terminal() {
        assert_eq!(for_terminal("plain\n\ttext"), "plain\n\ttext");
        let osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07hello";
        assert_eq!(for_terminal(osc52), "^[]52;c;cm0gLXJmIH4=^Ghello");
        assert_eq!(for_terminal("\x1b[2J\x1b]0;title\x07"), "^[[2J^[]0;title^G");
        assert_eq!(for_terminal("line\r\nnext\rover"), "line\r\nnext^Mover");
        assert_eq!(for_terminal("\u{9b}31m\u{7f}"), "<U+009B>31m^?");
    }

    #[test]
    fn several_lines_keep_their_breaks() {
        assert_eq!(strip_lines("\x1b[32m$ make\x1b[0m\nok\r\nlast"), "$ make\nok\nlast");
    }

    #[test]
    fn colours_and_emphasis_are_read_and_other_escapes_left_out() {
        // As `env_logger` and `tracing` write a level, then a 256-colour and a true-colour word,
        // a cursor move and a window title that must not show.
        let line = "\x1b[2m2026-12-02\x1b[0m \x1b[32m INFO\x1b[0m \x1b[1mready\x1b[22m \x1b[38;5;208morange\x1b[39m \
                    \x1b[38;2;1;2;3mrgb\x1b[m\x1b[2K\x1b]0;title\x07 done\tend";
        let spans = spans(line);
        let text: String = spans.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(text, "2026-12-02  INFO ready orange rgb done\tend");
        let style = |word: &str| spans.iter().find(|s| s.text.contains(word)).unwrap().style;
        assert!(style("2026").dim);
        assert_eq!(style("INFO").fg, Colour::Indexed(2));
        assert!(style("ready").bold);
        assert_eq!(style("orange").fg, Colour::Indexed(208));
        assert_eq!(style("rgb").fg, Colour::Rgb(1, 2, 3));
        assert_eq!(style("done").fg, Colour::Default);
        assert_eq!(strip("\x1b[41;97mwhite on red\x1b[0m"), "white on red");
        assert_eq!(
            super::spans("\x1b[48;2;9;9;9;31mx")[0].style.fg,
            Colour::Indexed(1),
            "a background's numbers skipped"
        );
        assert_eq!(strip("plain"), "plain");
    }
}
