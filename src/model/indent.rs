//! Auto-indent for the file editor: a new line starts with the current line's indentation, one
//! level more after a line that opens a block (`{`, `(`, `[`, `:` at its end).

/// What Enter inserts at byte `at` of `text`: a line break and the indentation the new line gets.
pub fn newline_at(text: &str, at: usize) -> String {
    let at = floor_char_boundary(text, at.min(text.len()));
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    let indent: String = before.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let opens = before.trim_end().ends_with(['{', '(', '[', ':']);
    let unit = if indent.starts_with('\t') { "\t".to_string() } else { " ".repeat(unit_width(text)) };
    let mut out = String::from("\n");
    out.push_str(&indent);
    if opens {
        out.push_str(&unit);
    }
    out
}

/// The indentation step the text uses: the smallest indentation of a line indented with spaces
/// (2 to 8), else 4.
fn unit_width(text: &str) -> usize {
    text.lines().map(|l| l.len() - l.trim_start_matches(' ').len()).filter(|w| (2..=8).contains(w)).min().unwrap_or(4)
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_line_keeps_the_indentation_and_steps_in_after_an_opening() {
        let text = "fn main() {\n    let x = [\n        1,";
        assert_eq!(newline_at(text, 11), "\n    ", "after `{{`: one step in (4, the file's step)");
        assert_eq!(newline_at(text, text.len()), "\n        ", "same as the line");
        assert_eq!(newline_at("def f():", 8), "\n    ");
        assert_eq!(newline_at("a:\n  b: 1", 9), "\n  ", "a YAML file stepping by 2");
        assert_eq!(newline_at("\tif x {", 7), "\n\t\t", "tabs stay tabs");
        assert_eq!(newline_at("plain", 2), "\n");
        assert_eq!(newline_at("é", 1), "\n", "not inside a character");
    }
}
