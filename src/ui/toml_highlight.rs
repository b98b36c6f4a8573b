//! TOML highlighting for the config editor. syntect's bundled syntaxes have no TOML, so this small
//! tokenizer colours comments, table headers, keys, strings, and numbers or booleans.

use egui::Color32;
use egui::text::{LayoutJob, TextFormat};

/// What a stretch of text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// `# …`
    Comment,
    /// `[table]`, `[[array]]`
    Header,
    /// A key before `=`.
    Key,
    /// A string.
    Str,
    /// A number, boolean or date.
    Literal,
    /// Anything else.
    Plain,
}

/// Splits `text` into tokens, as (byte range, token), covering every byte in order.
pub fn tokens(text: &str) -> Vec<(std::ops::Range<usize>, Token)> {
    let mut out: Vec<(std::ops::Range<usize>, Token)> = Vec::new();
    let mut push = |range: std::ops::Range<usize>, token: Token| {
        if range.is_empty() {
            return;
        }
        match out.last_mut() {
            Some((last, t)) if *t == token && last.end == range.start => last.end = range.end,
            _ => out.push((range, token)),
        }
    };
    let bytes = text.as_bytes();
    let mut i = 0;
    // A key may start here: at the start of a line, or after `{` or `,` in an inline table.
    let mut key_position = true;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'#' => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                push(i..end, Token::Comment);
                i = end;
            }
            b'\n' => {
                push(i..i + 1, Token::Plain);
                key_position = true;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => {
                push(i..i + 1, Token::Plain);
                i += 1;
            }
            b'[' if key_position && text[..i].rsplit('\n').next().is_none_or(|l| l.trim().is_empty()) => {
                let line_end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                let end = text[i..line_end].find('#').map_or(line_end, |n| i + n);
                push(i..end, Token::Header);
                i = end;
                key_position = false;
            }
            b'"' | b'\'' => {
                let triple = text[i..].starts_with("\"\"\"") || text[i..].starts_with("'''");
                let end = string_end(text, i, triple);
                push(i..end, if key_position { Token::Key } else { Token::Str });
                i = end;
            }
            b'{' | b',' => {
                push(i..i + 1, Token::Plain);
                key_position = c == b'{' || inside_inline_table(text, i);
                i += 1;
            }
            b'=' => {
                push(i..i + 1, Token::Plain);
                key_position = false;
                i += 1;
            }
            _ if key_position && (c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.') => {
                let end = i + text[i..]
                    .find(|ch: char| !(ch.is_ascii_alphanumeric() || "_-.".contains(ch)))
                    .unwrap_or(text.len() - i);
                push(i..end, Token::Key);
                i = end;
            }
            _ if c.is_ascii_alphanumeric() || c == b'+' || c == b'-' => {
                let end = i + text[i..]
                    .find(|ch: char| !(ch.is_ascii_alphanumeric() || "_+-.:".contains(ch)))
                    .unwrap_or(text.len() - i);
                push(i..end, Token::Literal);
                i = end;
            }
            _ => {
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                push(i..i + len, Token::Plain);
                i += len;
                key_position = false;
            }
        }
    }
    out
}

/// Is the `,` at `at` inside `{ … }` (a key follows) rather than inside `[ … ]` (a value follows)?
fn inside_inline_table(text: &str, at: usize) -> bool {
    let mut depth_brace = 0i32;
    let mut depth_bracket = 0i32;
    for c in text[..at].chars().rev() {
        match c {
            '}' => depth_brace += 1,
            ']' => depth_bracket += 1,
            '{' if depth_brace == 0 && depth_bracket == 0 => return true,
            '{' => depth_brace -= 1,
            '[' if depth_bracket == 0 && depth_brace == 0 => return false,
            '[' => depth_bracket -= 1,
            '\n' if depth_brace == 0 && depth_bracket == 0 => return false,
            _ => {}
        }
    }
    false
}

fn string_end(text: &str, start: usize, triple: bool) -> usize {
    let quote = &text[start..start + if triple { 3 } else { 1 }];
    let literal = quote.starts_with('\'');
    let mut i = start + quote.len();
    let bytes = text.as_bytes();
    while i < bytes.len() {
        if !literal && bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if text[i..].starts_with(quote) {
            return i + quote.len();
        }
        if !triple && bytes[i] == b'\n' {
            return i;
        }
        i += 1;
    }
    text.len()
}

/// A highlighted layout of `text` in `font`, with a dark or light palette.
pub fn highlight(text: &str, font: egui::FontId, dark: bool) -> LayoutJob {
    let color = |token: Token| match (token, dark) {
        (Token::Comment, _) => Color32::from_rgb(120, 130, 120),
        (Token::Header, true) => Color32::from_rgb(229, 192, 123),
        (Token::Header, false) => Color32::from_rgb(152, 104, 1),
        (Token::Key, true) => Color32::from_rgb(97, 175, 239),
        (Token::Key, false) => Color32::from_rgb(1, 64, 160),
        (Token::Str, true) => Color32::from_rgb(152, 195, 121),
        (Token::Str, false) => Color32::from_rgb(40, 120, 40),
        (Token::Literal, true) => Color32::from_rgb(209, 154, 102),
        (Token::Literal, false) => Color32::from_rgb(150, 80, 0),
        (Token::Plain, true) => Color32::from_gray(220),
        (Token::Plain, false) => Color32::from_gray(30),
    };
    let mut job = LayoutJob::default();
    for (range, token) in tokens(text) {
        job.append(&text[range], 0.0, TextFormat::simple(font.clone(), color(token)));
    }
    job
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(&str, Token)> {
        tokens(text).into_iter().filter(|(_, t)| *t != Token::Plain).map(|(r, t)| (&text[r], t)).collect()
    }

    #[test]
    fn headers_keys_values_and_comments() {
        let text = "# hi\n[[agent]]\nname = \"a # b\" # c\nargs = [\"x\", 'y']\nruntime = { type = \"local\", pod = \"p\" }\nidle_stop = 600\nx = true\n";
        assert_eq!(
            kinds(text),
            vec![
                ("# hi", Token::Comment),
                ("[[agent]]", Token::Header),
                ("name", Token::Key),
                ("\"a # b\"", Token::Str),
                ("# c", Token::Comment),
                ("args", Token::Key),
                ("\"x\"", Token::Str),
                ("'y'", Token::Str),
                ("runtime", Token::Key),
                ("type", Token::Key),
                ("\"local\"", Token::Str),
                ("pod", Token::Key),
                ("\"p\"", Token::Str),
                ("idle_stop", Token::Key),
                ("600", Token::Literal),
                ("x", Token::Key),
                ("true", Token::Literal),
            ]
        );
        let covered: usize = tokens(text).iter().map(|(r, _)| r.len()).sum();
        assert_eq!(covered, text.len(), "every byte is in a token");
    }
}
