//! Recorded byte streams replayed into the terminal screen give the expected grid: colours and
//! attributes, cursor movement, the alternate screen of full-screen programs, wide characters,
//! scrollback.

use alacritty_terminal::vte::ansi::{Color, NamedColor, Rgb};
use sidekicks::model::terminal::{Listener, Screen};

fn screen(bytes: &[u8]) -> Screen {
    let mut s = Screen::new(20, 5, Listener::default());
    s.feed(bytes);
    s
}

#[test]
fn colours_and_attributes() {
    // 16 colours, 256 colours, true colour, bold, reset.
    let s = screen(b"\x1b[31mR\x1b[0m\x1b[38;5;208mO\x1b[38;2;1;2;3mT\x1b[1mB\x1b[0mn");
    assert_eq!(s.text().lines().next(), Some("ROTBn"));
    assert_eq!(s.cell(0, 0).fg, Color::Named(NamedColor::Red));
    assert_eq!(s.cell(0, 1).fg, Color::Indexed(208));
    assert_eq!(s.cell(0, 2).fg, Color::Spec(Rgb { r: 1, g: 2, b: 3 }));
    assert!(s.cell(0, 3).bold);
    assert!(!s.cell(0, 4).bold);
    assert_eq!(s.cell(0, 4).fg, Color::Named(NamedColor::Foreground));
}

#[test]
fn cursor_movement_and_erasing() {
    // Write, move to row 3 col 5, write, go home, erase the line.
    let s = screen(b"first line\r\nsecond\x1b[3;5Hxy\x1b[H\x1b[2K");
    let text = s.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "");
    assert_eq!(lines[1], "second");
    assert_eq!(lines[2], "    xy");
    assert_eq!(s.cursor(), (0, 0));
}

#[test]
fn the_alternate_screen_of_a_full_screen_program() {
    let mut s = screen(b"shell prompt $ ");
    s.feed(b"\x1b[?1049h\x1b[H\x1b[2Jfull screen");
    assert!(s.alternate());
    assert_eq!(s.text().lines().next(), Some("full screen"));
    s.feed(b"\x1b[?1049l");
    assert!(!s.alternate());
    assert_eq!(s.text().lines().next(), Some("shell prompt $"));
}

#[test]
fn wide_characters_take_two_cells() {
    let s = screen("a中b".as_bytes());
    assert_eq!(s.text().lines().next(), Some("a中b"));
    assert!(s.cell(0, 1).wide);
    assert_eq!(s.cell(0, 3).c, 'b');
    assert_eq!(s.cursor(), (0, 4));
}

#[test]
fn lines_scroll_into_the_history() {
    let mut s = Screen::new(20, 5, Listener::default());
    for i in 0..100 {
        s.feed(format!("line {i}\r\n").as_bytes());
    }
    let text = s.text();
    assert!(text.starts_with("line 96\n"), "{text}");
    use alacritty_terminal::grid::Dimensions;
    assert!(s.term().grid().history_size() >= 95);
}
