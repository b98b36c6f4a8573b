//! One typo, one problem (issue 48, item 5): a `[` or `{` opened in a value and never closed makes
//! the TOML parser read every later line as part of it, and report each ("missing comma between
//! array elements" twenty times). This finds the bracket that caused it, so the checker reports it
//! once, at its place, and not the cascade after it.
//!
//! A small lexer of its own over the text: strings (all four kinds) and comments are skipped; an
//! array is taken as never closed when a line inside it can only be a table header (`[agent]`) or a
//! `key =` line, or when the file ends; an inline table when its line ends (TOML 1.0 keeps one on
//! one line).

/// A bracket opened in a value and never closed: its byte offset and which it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unclosed {
    /// Its byte offset in the text.
    pub at: usize,
    /// `[` or `{`.
    pub open: char,
}

/// When the syntax error at `at` is on a table header line (`[defaults` never closed), that line
/// and the lines under it up to the next header: what the parser made of them is a guess.
pub fn under_broken_header(src: &str, at: usize) -> Option<std::ops::Range<usize>> {
    let start = src[..at.min(src.len())].rfind('\n').map_or(0, |n| n + 1);
    let end = src[start..].find('\n').map_or(src.len(), |n| start + n);
    if !src[start..end].trim_start().starts_with('[') {
        return None;
    }
    let mut next = end;
    while next < src.len() {
        let line_end = src[next + 1..].find('\n').map_or(src.len(), |n| next + 1 + n);
        if src[(next + 1).min(src.len())..line_end].trim_start().starts_with('[') {
            break;
        }
        next = line_end;
    }
    Some(start..next.max(end))
}

/// The first bracket of `src` opened in a value and never closed, if any.
pub fn find(src: &str) -> Option<Unclosed> {
    let bytes = src.as_bytes();
    // Open brackets of the value being read: offset and kind.
    let mut stack: Vec<(usize, u8)> = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        if line_start {
            line_start = false;
            let line_end = src[i..].find('\n').map_or(src.len(), |n| i + n);
            let line = &src[i..line_end];
            if stack.is_empty() {
                // Outside a value: a header line, or `key = value` (the value starts after `=`).
                if line.trim_start().starts_with('[') || line.trim_start().starts_with('#') {
                    i = line_end;
                    continue;
                }
                match value_start(line) {
                    Some(start) => i += start,
                    None => {
                        i = line_end;
                        continue;
                    }
                }
                continue;
            }
            if stack[0].1 == b'[' && stack.iter().all(|(_, k)| *k == b'[') && (is_header(line) || is_key_line(line)) {
                return Some(Unclosed { at: stack[0].0, open: '[' });
            }
        }
        match b {
            b'\n' => {
                if let Some(&(at, b'{')) = stack.last() {
                    return Some(Unclosed { at, open: '{' });
                }
                line_start = true;
                i += 1;
            }
            b'#' => i = src[i..].find('\n').map_or(src.len(), |n| i + n),
            b'"' | b'\'' => i = skip_string(src, i),
            b'[' | b'{' => {
                stack.push((i, b));
                i += 1;
            }
            b']' | b'}' => {
                stack.pop();
                i += 1;
            }
            _ => i += 1,
        }
        if stack.is_empty() && !line_start && matches!(b, b']' | b'}') {
            // The value ended: the rest of its line is not a value (a comment, or an error the
            // parser reports on its own).
            i = src[i..].find('\n').map_or(src.len(), |n| i + n);
        }
    }
    stack.first().map(|&(at, k)| Unclosed { at, open: k as char })
}

/// Where the value of a `key = value` line starts (after `=`), skipping quoted keys.
fn value_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => i = skip_string(line, i),
            b'=' => return Some(i + 1),
            b'#' => return None,
            _ => i += 1,
        }
    }
    None
}

/// The offset just after the string that starts at `at` (basic, literal, or either multi-line
/// kind); the text's end when it never closes.
fn skip_string(src: &str, at: usize) -> usize {
    let bytes = src.as_bytes();
    let quote = bytes[at];
    let triple = bytes.get(at..at + 3).is_some_and(|t| t.iter().all(|&b| b == quote));
    let mut i = at + if triple { 3 } else { 1 };
    while i < bytes.len() {
        let b = bytes[i];
        if quote == b'"' && b == b'\\' {
            i += 2;
            continue;
        }
        if !triple && b == b'\n' {
            return i;
        }
        if b == quote && (!triple || bytes.get(i..i + 3).is_some_and(|t| t.iter().all(|&b| b == quote))) {
            let mut end = i + if triple { 3 } else { 1 };
            // A multi-line string may end with up to two more quotes of its own.
            while triple && bytes.get(end) == Some(&quote) && end < i + 5 {
                end += 1;
            }
            return end;
        }
        i += 1;
    }
    bytes.len()
}

/// `[name]` or `[[name.part]]` alone on its line: a table header, never an array's element.
fn is_header(line: &str) -> bool {
    let line = line.split('#').next().unwrap_or_default().trim();
    let inner = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]"));
    let inner = inner.or_else(|| line.strip_prefix('[').and_then(|l| l.strip_suffix(']')));
    inner.is_some_and(|name| {
        let name = name.trim();
        name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
            && !matches!(name, "true" | "false" | "inf" | "nan")
    })
}

/// `key =` or `a.b =` at a line's start: a key, which an array cannot hold outside `{…}`.
fn is_key_line(line: &str) -> bool {
    let Some((key, _)) = line.split_once('=') else { return false };
    let key = key.trim();
    !key.is_empty()
        && key.split('.').all(|part| {
            let part = part.trim();
            !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_left_open_before_a_table_is_found_at_its_bracket() {
        let src = "[defaults]\nmax_running = [4\n\n[[agent]]\nname = \"Demo\"\ncommand = \"x\"\n";
        assert_eq!(find(src), Some(Unclosed { at: src.find("[4").unwrap(), open: '[' }));
    }

    #[test]
    fn an_array_left_open_before_a_key_or_the_end_is_found() {
        let src = "[[agent]]\nargs = [\"a\",\n  \"b\"\nname = \"x\"\n";
        assert_eq!(find(src).map(|u| u.at), Some(src.find("[\"a").unwrap()));
        assert_eq!(find("x = [1, [2, 3]\n").map(|u| u.at), Some(4));
    }

    #[test]
    fn an_inline_table_left_open_ends_with_its_line() {
        let src = "[[agent]]\nenv = { A = \"1\"\nname = \"x\"\n";
        assert_eq!(find(src), Some(Unclosed { at: src.find('{').unwrap(), open: '{' }));
    }

    #[test]
    fn closed_brackets_strings_and_comments_are_not_taken_for_open_ones() {
        let good = "[[agent]]\nargs = [\n  \"[not a bracket\", # a comment [\n  '{', \"\"\"x]\n\"\"\",\n]\n\
                    env = { A = \"}\" }\nname = \"a[b\" # [\n[defaults]\nmax_running = [[1], [2]]\n";
        assert_eq!(find(good), None);
        assert_eq!(find("x = \"unclosed\ny = 1\n"), None, "an unclosed string is the parser's own one error");
    }
}
