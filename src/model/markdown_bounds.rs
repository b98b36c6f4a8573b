//! What Markdown the window lays out as Markdown. Layout grows faster than the text with nesting:
//! a 10 KB line of `- ` repeated 5,000 times (a list 5,000 deep) froze the window for good and
//! grew its memory by half a gigabyte a second (and, stored, froze it again at every start). Past
//! these bounds a text is shown as plain text (ADR 0030). The scan is one pass over the bytes, so
//! it can run every frame.

/// Containers (lists, quotes) nested deeper than this: plain text. People nest a handful; 500
/// levels still drew, slowly.
pub const MAX_DEPTH: usize = 32;

/// Emphasis markers (`*`, `_`, `~`) on one line past this: plain text (each opens or closes a
/// span the layout nests).
pub const MAX_EMPHASIS: usize = 256;

/// Table cells on one line past this: plain text.
pub const MAX_CELLS: usize = 128;

/// Whether `text` is within the bounds above: shown as Markdown.
pub fn fits(text: &str) -> bool {
    // Code in fences is laid out as it is: its indentation and stars nest nothing.
    let mut fence: Option<&str> = None;
    text.lines().all(|line| {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                return true;
            }
            (Some(open), Some(m)) if open == m => {
                fence = None;
                return true;
            }
            (Some(_), _) => return true,
            (None, None) => {}
        }
        depth(line) <= MAX_DEPTH
            && line.bytes().filter(|b| matches!(b, b'*' | b'_' | b'~')).count() <= MAX_EMPHASIS
            && line.bytes().filter(|b| *b == b'|').count() <= MAX_CELLS
    })
}

/// How deep `line` opens containers: its indentation (four columns per level at most, as
/// CommonMark nests by indentation) plus the list and quote markers that start it, one after the
/// other (`- - > 1. text`).
fn depth(line: &str) -> usize {
    let bytes = line.as_bytes();
    let (mut i, mut columns, mut markers) = (0, 0, 0);
    while i < bytes.len() {
        match bytes[i] {
            // Indentation counts before the first marker (not the spaces between markers).
            b' ' if markers == 0 => columns += 1,
            b'\t' if markers == 0 => columns += 4,
            b' ' | b'\t' => {}
            b'>' => markers += 1,
            b'-' | b'*' | b'+' if bytes.get(i + 1).is_none_or(|b| *b == b' ' || *b == b'\t') => markers += 1,
            b'0'..=b'9' => {
                let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                let after = bytes.get(i + digits);
                if digits > 9 || !matches!(after, Some(b'.' | b')')) {
                    break;
                }
                markers += 1;
                i += digits;
            }
            _ => break,
        }
        i += 1;
    }
    // Indentation nests only list items and quotes (two columns a level at most); an indented
    // line without a marker is a paragraph's or code's.
    if markers == 0 { 0 } else { markers + columns / 2 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everyday_markdown_fits() {
        let text = "# Plan\n\n- one\n  - two\n    - three\n\n> a quote\n> > nested\n\n1. first\n2. **second** _it_\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn main() {}\n```\n";
        assert!(fits(text));
        assert!(fits(""));
        assert!(fits("a line with - dashes - and 3.5 numbers"));
        let code = format!("```json\n{}{{}}\n```\n{}indented code\n", " ".repeat(200), " ".repeat(100));
        assert!(fits(&code), "code's indentation nests nothing");
    }

    #[test]
    fn deep_nesting_does_not() {
        let deep = format!("{}word", "- ".repeat(5_000));
        assert!(!fits(&deep), "a list 5,000 deep on one line");
        assert!(!fits(&format!("{}quoted", "> ".repeat(100))));
        assert!(!fits(&format!("{}1. x", "1. ".repeat(40))));
        let indented: String = (0..100).map(|d| format!("{}- level {d}\n", "  ".repeat(d))).collect();
        assert!(!fits(&indented), "a list nested by indentation");
        assert!(fits(&format!("{}word", "- ".repeat(MAX_DEPTH))), "up to the bound");
    }

    #[test]
    fn long_runs_of_emphasis_and_cells_do_not() {
        assert!(!fits(&"*_".repeat(300)));
        assert!(!fits(&"| a ".repeat(200)));
        assert!(fits(&"**bold** ".repeat(40)));
    }
}
