//! A first terminal view: the screen drawn row by row from the grid (colours, inverse, the cursor),
//! the PTY sized to the panel, and typing (text, Enter, Backspace, Tab, Escape, arrows, Home/End,
//! Page Up/Down, Delete, Ctrl+letter). Not finished (the terminal issue): selection and copy, paste,
//! mouse reporting, F-keys, Alt, wheel scrollback, cursor shapes, several terminals per workspace.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::Flags;
use alacritty_terminal::vte::ansi::{Color, NamedColor};
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, Key, Modifiers};

use crate::runtime::terminal::TerminalSession;

const NAMED: [NamedColor; 16] = [
    NamedColor::Black,
    NamedColor::Red,
    NamedColor::Green,
    NamedColor::Yellow,
    NamedColor::Blue,
    NamedColor::Magenta,
    NamedColor::Cyan,
    NamedColor::White,
    NamedColor::BrightBlack,
    NamedColor::BrightRed,
    NamedColor::BrightGreen,
    NamedColor::BrightYellow,
    NamedColor::BrightBlue,
    NamedColor::BrightMagenta,
    NamedColor::BrightCyan,
    NamedColor::BrightWhite,
];

const PALETTE: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (205, 49, 49),
    (13, 188, 121),
    (229, 229, 16),
    (36, 114, 200),
    (188, 63, 188),
    (17, 168, 205),
    (229, 229, 229),
    (102, 102, 102),
    (241, 76, 76),
    (35, 209, 139),
    (245, 245, 67),
    (59, 142, 234),
    (214, 112, 214),
    (41, 184, 219),
    (255, 255, 255),
];

/// The colour of a cell's foreground (16 named colours, the 256-colour cube and greys, true colour).
fn color(c: Color) -> Color32 {
    let from_index = |i: usize| {
        let (r, g, b) = PALETTE[i];
        Color32::from_rgb(r, g, b)
    };
    match c {
        Color::Named(n) => NAMED.iter().position(|x| *x == n).map_or(Color32::from_gray(220), from_index),
        Color::Spec(rgb) => Color32::from_rgb(rgb.r, rgb.g, rgb.b),
        Color::Indexed(i) if i < 16 => from_index(i as usize),
        Color::Indexed(i) if i < 232 => {
            let i = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            Color32::from_rgb(level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        Color::Indexed(i) => {
            let g = 8 + (i - 232) * 10;
            Color32::from_rgb(g, g, g)
        }
    }
}

/// The bytes a key press sends to the program.
pub fn key_bytes(key: Key, modifiers: Modifiers) -> Option<Vec<u8>> {
    if modifiers.ctrl && !modifiers.alt {
        let name = key.name();
        if name.len() == 1 && name.as_bytes()[0].is_ascii_alphabetic() {
            return Some(vec![name.as_bytes()[0].to_ascii_lowercase() - b'a' + 1]);
        }
    }
    let seq: &[u8] = match key {
        Key::Enter => b"\r",
        Key::Backspace => b"\x7f",
        Key::Tab => b"\t",
        Key::Escape => b"\x1b",
        Key::ArrowUp => b"\x1b[A",
        Key::ArrowDown => b"\x1b[B",
        Key::ArrowRight => b"\x1b[C",
        Key::ArrowLeft => b"\x1b[D",
        Key::Home => b"\x1b[H",
        Key::End => b"\x1b[F",
        Key::PageUp => b"\x1b[5~",
        Key::PageDown => b"\x1b[6~",
        Key::Delete => b"\x1b[3~",
        _ => return None,
    };
    Some(seq.to_vec())
}

/// Draws `session` in the space left and sends what is typed to it; `grab` gives it the keyboard.
pub fn terminal_ui(ui: &mut egui::Ui, session: &mut TerminalSession, grab: bool) {
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let (char_w, row_h) = ui.fonts_mut(|f| (f.glyph_width(&font, 'M'), f.row_height(&font)));
    let size = ui.available_size();
    let cols = ((size.x / char_w.max(1.0)) as u16).clamp(10, 500);
    let rows = ((size.y / row_h.max(1.0)) as u16).clamp(3, 300);
    let screen = session.screen();
    let current = {
        let s = screen.lock().unwrap_or_else(|e| e.into_inner());
        (s.term().grid().columns() as u16, s.term().grid().screen_lines() as u16)
    };
    if current != (cols, rows) {
        let _ = session.resize(cols, rows);
    }
    let id = ui.make_persistent_id("terminal");
    let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    let response = ui.interact(rect, id, egui::Sense::click());
    if grab || response.clicked() {
        response.request_focus();
    }
    if response.has_focus() {
        let filter = egui::EventFilter { tab: true, horizontal_arrows: true, vertical_arrows: true, escape: true };
        ui.memory_mut(|m| m.set_focus_lock_filter(id, filter));
        let mut out = Vec::new();
        ui.input(|i| {
            for event in &i.events {
                match event {
                    egui::Event::Text(t) => out.extend(t.as_bytes()),
                    egui::Event::Key { key, pressed: true, modifiers, .. } => {
                        out.extend(key_bytes(*key, *modifiers).unwrap_or_default())
                    }
                    _ => {}
                }
            }
        });
        if !out.is_empty() {
            let _ = session.write(&out);
        }
    }
    let s = screen.lock().unwrap_or_else(|e| e.into_inner());
    let grid = s.term().grid();
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::from_rgb(20, 20, 24));
    for line in 0..grid.screen_lines() {
        let row = &grid[Line(line as i32)];
        let mut job = LayoutJob::default();
        for col in 0..grid.columns() {
            let cell = &row[Column(col)];
            if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                continue;
            }
            let mut format = TextFormat::simple(font.clone(), color(cell.fg));
            if cell.flags.contains(Flags::INVERSE) {
                format.background = format.color;
                format.color = Color32::BLACK;
            }
            let mut buf = [0u8; 4];
            job.append(cell.c.encode_utf8(&mut buf), 0.0, format);
        }
        let galley = ui.fonts_mut(|f| f.layout_job(job));
        painter.galley(rect.min + egui::vec2(0.0, line as f32 * row_h), galley, Color32::WHITE);
    }
    let (cl, cc) = s.cursor();
    let cursor = egui::Rect::from_min_size(
        rect.min + egui::vec2(cc as f32 * char_w, cl as f32 * row_h),
        egui::vec2(char_w, row_h),
    );
    painter.rect_stroke(cursor, 0.0, egui::Stroke::new(1.0, Color32::from_gray(200)), egui::StrokeKind::Inside);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_become_the_bytes_terminals_send() {
        assert_eq!(key_bytes(Key::C, Modifiers::CTRL), Some(vec![3]));
        assert_eq!(key_bytes(Key::Enter, Modifiers::NONE), Some(b"\r".to_vec()));
        assert_eq!(key_bytes(Key::ArrowUp, Modifiers::NONE), Some(b"\x1b[A".to_vec()));
        assert_eq!(key_bytes(Key::A, Modifiers::NONE), None, "text comes as text events");
        assert_eq!(color(Color::Indexed(196)), Color32::from_rgb(255, 0, 0));
    }
}
