//! The terminal widget: draws the visible rows straight from the terminal state (colours, bold,
//! italic, underline, strike-through, inverse, faint, wide characters, the selection and the cursor
//! in the shape the program asked for), sizes the PTY to the panel, and sends keys, paste and mouse
//! events to the program. The wheel scrolls the 10,000 lines of scrollback (or goes to the program
//! when it asked for the mouse or uses the alternate screen). Drag selects, double-click selects a
//! word, triple-click a line; Ctrl+C copies when there is a selection (else interrupts), as does
//! Ctrl+Shift+C; Ctrl+V pastes. Shift+drag selects even when the program takes the mouse.

use alacritty_terminal::grid::{Dimensions, Scroll};
use alacritty_terminal::index::{Column, Point, Side};
use alacritty_terminal::selection::{Selection, SelectionType};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::color::Colors;
use alacritty_terminal::term::{TermMode, viewport_to_point};
use alacritty_terminal::vte::ansi::{Color, CursorShape, NamedColor};
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, Key, Pos2, Rect, Stroke, vec2};

use super::terminal_colors::{BACKGROUND, SELECTION, resolve};
use super::terminal_input::{MouseReport, key_bytes, mouse_bytes, paste_bytes, text_bytes};
use crate::protocol::terminal::{Screen, TerminalHandle};

/// A terminal and what its widget remembers between frames.
pub struct TerminalView {
    /// The shell (run by the runtime).
    pub session: TerminalHandle,
    id: egui::Id,
    wheel: f32,
    mouse_down: Option<u8>,
    last_cell: Option<(usize, usize)>,
}

/// Cell metrics and where the grid is drawn.
struct Layout {
    rect: Rect,
    char_w: f32,
    row_h: f32,
    cols: usize,
    rows: usize,
}

impl Layout {
    /// The cell under `pos` (column, visible line) and the half of it.
    fn cell_at(&self, pos: Pos2) -> (usize, usize, Side) {
        let x = ((pos.x - self.rect.min.x) / self.char_w).max(0.0);
        let y = ((pos.y - self.rect.min.y) / self.row_h).max(0.0);
        let col = (x as usize).min(self.cols.saturating_sub(1));
        let side = if x.fract() < 0.5 { Side::Left } else { Side::Right };
        (col, (y as usize).min(self.rows.saturating_sub(1)), side)
    }

    fn cell_rect(&self, col: usize, line: usize, width: usize) -> Rect {
        Rect::from_min_size(
            self.rect.min + vec2(col as f32 * self.char_w, line as f32 * self.row_h),
            vec2(self.char_w * width as f32, self.row_h),
        )
    }
}

impl TerminalView {
    /// Wraps `session`; `id` tells terminals apart (focus).
    pub fn new(session: TerminalHandle, id: egui::Id) -> Self {
        Self { session, id, wheel: 0.0, mouse_down: None, last_cell: None }
    }

    /// The title the program set, if any.
    pub fn title(&self) -> Option<String> {
        self.session.title().filter(|t| !t.trim().is_empty())
    }

    /// Applies new output, handles input and draws in the space left; `grab` takes the keyboard.
    pub fn ui(&mut self, ui: &mut egui::Ui, grab: bool) {
        if self.session.pump() {
            ui.ctx().request_repaint();
        }
        let font = egui::TextStyle::Monospace.resolve(ui.style());
        let (char_w, row_h) = ui.fonts_mut(|f| (f.glyph_width(&font, 'M'), f.row_height(&font)));
        let size = ui.available_size();
        let cols = ((size.x / char_w.max(1.0)) as u16).clamp(10, 500);
        let rows = ((size.y / row_h.max(1.0)) as u16).clamp(3, 300);
        let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
        let response = ui.interact(rect, self.id, egui::Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Terminal, true, "Terminal screen"));
        if grab || response.clicked() || response.drag_started() {
            response.request_focus();
        }
        let layout = Layout { rect, char_w, row_h, cols: cols as usize, rows: rows as usize };
        let session = self.session.clone();
        // The screen is locked only to read it and apply the input: the text is laid out after,
        // while the applier goes on with a flood.
        let mut s = session.screen().lock();
        let current = (s.term().grid().columns() as u16, s.term().grid().screen_lines() as u16);
        let mut out = Vec::new();
        if response.has_focus() {
            // The window's shortcuts stand aside while a terminal has the keyboard.
            ui.data_mut(|d| d.insert_temp(egui::Id::unique(FOCUSED), self.id));
            let filter = egui::EventFilter { tab: true, horizontal_arrows: true, vertical_arrows: true, escape: true };
            ui.memory_mut(|m| m.set_focus_lock_filter(self.id, filter));
            self.keyboard(ui, &mut s, &mut out);
        }
        self.mouse(ui, &response, &layout, &mut s, &mut out);
        let picture = Picture::of(&layout, &font, &s, response.has_focus());
        drop(s);
        if !out.is_empty() {
            self.session.send(out);
        }
        if current != (cols, rows) {
            self.session.resize(cols, rows);
        }
        picture.paint(ui, &layout);
    }

    fn keyboard(&mut self, ui: &egui::Ui, s: &mut Screen, out: &mut Vec<u8>) {
        let mode = *s.term().mode();
        let typed = out.len();
        // Taken out first: copying needs the context, which `ui.input` keeps locked.
        let (events, modifiers) = ui.input(|i| (i.events.clone(), i.modifiers));
        for event in &events {
            match event {
                egui::Event::Text(t) => out.extend(text_bytes(t, modifiers)),
                egui::Event::Key { key: Key::C, pressed: true, modifiers, .. } if modifiers.ctrl && modifiers.shift => {
                    copy_selection(ui, s);
                }
                egui::Event::Key { key: key @ (Key::PageUp | Key::PageDown), pressed: true, modifiers, .. }
                    if modifiers.shift && !mode.contains(TermMode::ALT_SCREEN) =>
                {
                    let page = s.term().grid().screen_lines() as i32;
                    s.term_mut().scroll_display(Scroll::Delta(if *key == Key::PageUp { page } else { -page }));
                }
                egui::Event::Key { key, pressed: true, modifiers, .. } => {
                    out.extend(key_bytes(*key, *modifiers, mode).unwrap_or_default())
                }
                egui::Event::Copy if !copy_selection(ui, s) => out.push(0x03),
                egui::Event::Cut => out.push(0x18),
                egui::Event::Paste(text) => out.extend(paste_bytes(text, mode)),
                _ => {}
            }
        }
        if out.len() > typed {
            s.term_mut().scroll_display(Scroll::Bottom);
        }
    }

    fn mouse(&mut self, ui: &egui::Ui, response: &egui::Response, layout: &Layout, s: &mut Screen, out: &mut Vec<u8>) {
        let mode = *s.term().mode();
        let shift = ui.input(|i| i.modifiers.shift);
        let reporting = mode.intersects(TermMode::MOUSE_MODE) && !shift;
        let hovered = response.hovered() || self.mouse_down.is_some();
        if hovered {
            let events = ui.input(|i| i.events.clone());
            for event in &events {
                self.pointer_event(event, layout, s, mode, reporting, out);
            }
        }
        if reporting {
            return;
        }
        let offset = s.term().grid().display_offset();
        let point_at = |pos: Pos2| {
            let (col, line, side) = layout.cell_at(pos);
            (viewport_to_point(offset, Point::new(line, Column(col))), side)
        };
        let pointer = response.interact_pointer_pos().or(response.hover_pos());
        if response.triple_clicked() || response.double_clicked() {
            if let Some(pos) = pointer {
                let (point, side) = point_at(pos);
                let ty = if response.triple_clicked() { SelectionType::Lines } else { SelectionType::Semantic };
                s.term_mut().selection = Some(Selection::new(ty, point, side));
            }
        } else if response.drag_started_by(egui::PointerButton::Primary) {
            if let Some(origin) = ui.input(|i| i.pointer.press_origin()) {
                let (point, side) = point_at(origin);
                s.term_mut().selection = Some(Selection::new(SelectionType::Simple, point, side));
            }
        } else if response.clicked() {
            s.term_mut().selection = None;
        }
        if response.dragged_by(egui::PointerButton::Primary)
            && let Some(pos) = pointer
        {
            let (point, side) = point_at(pos);
            if let Some(selection) = &mut s.term_mut().selection {
                selection.update(point, side);
            }
        }
    }

    fn pointer_event(
        &mut self,
        event: &egui::Event,
        layout: &Layout,
        s: &mut Screen,
        mode: TermMode,
        reporting: bool,
        out: &mut Vec<u8>,
    ) {
        match event {
            egui::Event::PointerButton { pos, button, pressed, modifiers } if reporting => {
                let b = match button {
                    egui::PointerButton::Primary => 0,
                    egui::PointerButton::Middle => 1,
                    egui::PointerButton::Secondary => 2,
                    _ => return,
                };
                if *pressed && !layout.rect.contains(*pos) {
                    return;
                }
                let (col, line, _) = layout.cell_at(*pos);
                let report = if *pressed { MouseReport::Press(b) } else { MouseReport::Release(b) };
                self.mouse_down = pressed.then_some(b);
                out.extend(mouse_bytes(report, col, line, *modifiers, mode).unwrap_or_default());
            }
            egui::Event::PointerButton { pressed: false, .. } => self.mouse_down = None,
            egui::Event::PointerMoved(pos) if reporting && layout.rect.contains(*pos) => {
                let (col, line, _) = layout.cell_at(*pos);
                if self.last_cell != Some((col, line)) {
                    self.last_cell = Some((col, line));
                    let m = egui::Modifiers::NONE;
                    out.extend(
                        mouse_bytes(MouseReport::Motion(self.mouse_down), col, line, m, mode).unwrap_or_default(),
                    );
                }
            }
            egui::Event::MouseWheel { unit, delta, modifiers, .. } => {
                self.wheel += match unit {
                    egui::MouseWheelUnit::Line => delta.y,
                    egui::MouseWheelUnit::Point => delta.y / layout.row_h,
                    egui::MouseWheelUnit::Page => delta.y * layout.rows as f32,
                };
                let lines = self.wheel.trunc() as i32;
                self.wheel -= lines as f32;
                if lines == 0 {
                    return;
                }
                let up = lines > 0;
                if reporting {
                    let (col, line, _) = layout.last_pointer(self.last_cell);
                    for _ in 0..lines.abs() {
                        out.extend(
                            mouse_bytes(MouseReport::Wheel(up), col, line, *modifiers, mode).unwrap_or_default(),
                        );
                    }
                } else if mode.contains(TermMode::ALT_SCREEN | TermMode::ALTERNATE_SCROLL) {
                    let key = if up { Key::ArrowUp } else { Key::ArrowDown };
                    for _ in 0..lines.abs() {
                        out.extend(key_bytes(key, egui::Modifiers::NONE, mode).unwrap_or_default());
                    }
                } else {
                    s.term_mut().scroll_display(Scroll::Delta(lines));
                }
            }
            _ => {}
        }
    }
}

impl Layout {
    /// The last cell the pointer was seen on (the top-left one when unknown).
    fn last_pointer(&self, last: Option<(usize, usize)>) -> (usize, usize, Side) {
        let (col, line) = last.unwrap_or((0, 0));
        (col.min(self.cols.saturating_sub(1)), line.min(self.rows.saturating_sub(1)), Side::Left)
    }
}

/// Copies the selection to the clipboard; false when nothing is selected.
fn copy_selection(ui: &egui::Ui, s: &mut Screen) -> bool {
    match s.term().selection_to_string().filter(|t| !t.is_empty()) {
        Some(text) => {
            ui.ctx().copy_text(text);
            s.term_mut().selection = None;
            true
        }
        None => false,
    }
}

/// The colours and style of one cell as drawn.
struct Look {
    fg: Color32,
    bg: Color32,
    bold: bool,
    format: TextFormat,
}

fn look(cell: &Cell, colors: &Colors, font: &FontId, selected: bool, block_cursor: bool) -> Look {
    let flags = cell.flags;
    let bold = flags.intersects(Flags::BOLD);
    let mut fg = resolve(cell.fg, colors, bold, flags.intersects(Flags::DIM));
    let mut bg = resolve(cell.bg, colors, false, false);
    if flags.contains(Flags::INVERSE) {
        std::mem::swap(&mut fg, &mut bg);
    }
    if flags.contains(Flags::HIDDEN) {
        fg = bg;
    }
    if selected {
        bg = SELECTION;
    }
    if block_cursor {
        bg = resolve(Color::Named(NamedColor::Foreground), colors, false, false);
        fg = BACKGROUND;
    }
    let mut format = TextFormat::simple(font.clone(), fg);
    format.italics = flags.contains(Flags::ITALIC);
    if flags.intersects(Flags::ALL_UNDERLINES) {
        format.underline = Stroke::new(1.0, fg);
    }
    if flags.contains(Flags::STRIKEOUT) {
        format.strikethrough = Stroke::new(1.0, fg);
    }
    Look { fg, bg, bold, format }
}

/// A run of cells laid out as one text (a new run starts after each wide character, so every
/// character sits on its column whatever the font's width for it).
struct Run {
    col: usize,
    job: LayoutJob,
    /// Whether each section of `job` is bold (drawn a second time, shifted, when any is).
    bold: Vec<bool>,
    has_bold: bool,
}

impl Run {
    fn new(col: usize) -> Self {
        Self { col, job: LayoutJob::default(), bold: Vec::new(), has_bold: false }
    }

    /// Appends `text` in `format`, in the last section when it has the same format and weight (a
    /// row of one colour is one section, not one per cell: less to lay out and to hash).
    fn push(&mut self, text: &str, format: &TextFormat, bold: bool) {
        let job = &mut self.job;
        if let Some(last) = job.sections.last_mut()
            && last.byte_range.end.0 == job.text.len()
            && self.bold.last() == Some(&bold)
            && last.format == *format
        {
            job.text.push_str(text);
            last.byte_range.end = egui::text::ByteIndex(job.text.len());
        } else {
            // (Not `LayoutJob::append`: it merges a section of the same format whatever its weight.)
            let start = egui::text::ByteIndex(job.text.len());
            job.text.push_str(text);
            let byte_range = start..egui::text::ByteIndex(job.text.len());
            job.sections.push(egui::text::LayoutSection { leading_space: 0.0, byte_range, format: format.clone() });
            self.bold.push(bold);
        }
    }

    /// The same text with only its bold sections visible (made only for a run that has some).
    fn bold_job(&self) -> LayoutJob {
        let mut job = self.job.clone();
        for (section, bold) in job.sections.iter_mut().zip(&self.bold) {
            if !bold {
                section.format.color = Color32::TRANSPARENT;
                section.format.underline = Stroke::NONE;
                section.format.strikethrough = Stroke::NONE;
            }
        }
        job
    }
}

/// What a frame draws of the screen, read under its lock: backgrounds, text runs and the cursor.
struct Picture {
    backgrounds: Vec<(Rect, Color32)>,
    runs: Vec<(usize, Run)>,
    cursor: Option<(Rect, Color32, CursorShape)>,
}

impl Picture {
    /// The visible rows, the selection and the cursor of `s`.
    fn of(layout: &Layout, font: &FontId, s: &Screen, focused: bool) -> Self {
        let content = s.term().renderable_content();
        let offset = content.display_offset as i32;
        let cursor = content.cursor;
        let cursor_line = cursor.point.line.0 + offset;
        let block = focused && cursor.shape == CursorShape::Block;
        let mut picture = Picture { backgrounds: Vec::new(), runs: Vec::new(), cursor: None };
        let mut current_line = None;
        for indexed in content.display_iter {
            let line = indexed.point.line.0 + offset;
            if current_line != Some(line) {
                current_line = Some(line);
                picture.runs.push((line.max(0) as usize, Run::new(0)));
            }
            let cell = indexed.cell;
            if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                continue;
            }
            let col = indexed.point.column.0;
            let selected = content.selection.is_some_and(|r| r.contains(indexed.point));
            let at_cursor = block && line == cursor_line && col == cursor.point.column.0;
            let look = look(cell, content.colors, font, selected, at_cursor);
            let wide = cell.flags.contains(Flags::WIDE_CHAR);
            if look.bg != BACKGROUND {
                let rect = layout.cell_rect(col, line as usize, if wide { 2 } else { 1 });
                picture.backgrounds.push((rect, look.bg));
            }
            if wide {
                picture.runs.push((line as usize, Run::new(col)));
            }
            let Some((_, run)) = picture.runs.last_mut() else { continue };
            let mut buf = [0u8; 4];
            let text = if cell.c == '\0' { " " } else { cell.c.encode_utf8(&mut buf) };
            let bold = look.bold && look.fg != look.bg;
            run.has_bold |= bold;
            run.push(text, &look.format, bold);
            if wide {
                picture.runs.push((line as usize, Run::new(col + 2)));
            }
        }
        if cursor_line >= 0 && (cursor_line as usize) < layout.rows {
            let r = layout.cell_rect(cursor.point.column.0, cursor_line as usize, 1);
            let color = resolve(Color::Named(NamedColor::Foreground), content.colors, false, false);
            let shown = !(matches!(cursor.shape, CursorShape::Block) && focused);
            picture.cursor = shown.then_some((r, color, cursor.shape));
        }
        picture
    }

    /// Lays the text out and paints it all.
    fn paint(self, ui: &egui::Ui, layout: &Layout) {
        let painter = ui.painter_at(layout.rect);
        painter.rect_filled(layout.rect, 0.0, BACKGROUND);
        for (rect, color) in self.backgrounds {
            painter.rect_filled(rect, 0.0, color);
        }
        for (line, run) in self.runs {
            let pos = layout.cell_rect(run.col, line, 1).min;
            let bold = run.has_bold.then(|| run.bold_job());
            let galley = ui.fonts_mut(|f| f.layout_job(run.job));
            painter.galley(pos, galley, Color32::WHITE);
            if let Some(bold) = bold {
                let galley = ui.fonts_mut(|f| f.layout_job(bold));
                painter.galley(pos + vec2(0.7, 0.0), galley, Color32::WHITE);
            }
        }
        let Some((r, color, shape)) = self.cursor else { return };
        match shape {
            CursorShape::Block | CursorShape::HollowBlock => {
                painter.rect_stroke(r, 0.0, Stroke::new(1.0, color), egui::StrokeKind::Inside);
            }
            CursorShape::Underline => {
                painter.rect_filled(Rect::from_min_max(r.left_bottom() - vec2(0.0, 2.0), r.right_bottom()), 0.0, color);
            }
            CursorShape::Beam => {
                painter.rect_filled(Rect::from_min_size(r.min, vec2(2.0, r.height())), 0.0, color);
            }
            CursorShape::Hidden => {}
        }
    }
}

/// The output of a command an agent runs, drawn read-only by the terminal's renderer (colours and
/// carriage-return progress bars look right): a screen of 100 × 12 kept in egui's memory and fed
/// only the bytes that arrived since the last frame.
pub fn output_ui(ui: &mut egui::Ui, key: (&str, &str), output: &crate::app::CommandOutput) {
    use std::sync::{Arc, Mutex};
    type Cached = Arc<Mutex<(usize, Screen)>>;
    const COLS: usize = 100;
    const ROWS: usize = 12;
    let id = egui::Id::unique(("command-output", key.0, key.1));
    let cached: Cached = ui.data_mut(|d| {
        d.get_temp_mut_or_insert_with(id, || {
            let mut screen = Screen::new(COLS, ROWS, crate::model::terminal::Listener::default());
            // Read-only: no cursor.
            screen.feed(b"\x1b[?25l");
            Arc::new(Mutex::new((0, screen)))
        })
        .clone()
    });
    let mut guard = cached.lock().unwrap_or_else(|e| e.into_inner());
    let (fed, screen) = &mut *guard;
    let total = output.dropped + output.bytes.len();
    if total > *fed {
        let start = (*fed).saturating_sub(output.dropped).min(output.bytes.len());
        // Pipes carry bare line feeds; a terminal needs carriage returns too.
        let mut bytes = Vec::with_capacity(output.bytes.len() - start);
        for b in &output.bytes[start..] {
            if *b == b'\n' {
                bytes.push(b'\r');
            }
            bytes.push(*b);
        }
        screen.feed(&bytes);
        *fed = total;
    }
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let (char_w, row_h) = ui.fonts_mut(|f| (f.glyph_width(&font, 'M'), f.row_height(&font)));
    let size = vec2((char_w * COLS as f32).min(ui.available_width()), row_h * ROWS as f32);
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
    response.widget_info(|| {
        let mut info = egui::WidgetInfo::labeled(egui::Role::Terminal, true, "Command output");
        info.current_text_value = Some(screen.text());
        info
    });
    let layout = Layout { rect, char_w, row_h, cols: COLS, rows: ROWS };
    Picture::of(&layout, &font, screen, false).paint(ui, &layout);
}

/// Where the terminal that last had the keyboard leaves its id.
const FOCUSED: &str = "terminal-with-focus";

/// Whether a terminal has the keyboard (its keys are then the shell's, not the window's).
pub fn has_focus(ctx: &egui::Context) -> bool {
    ctx.data(|d| d.get_temp::<egui::Id>(egui::Id::unique(FOCUSED))).is_some_and(|id| ctx.memory(|m| m.has_focus(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run keeps one section per colour and weight; its bold copy shows only the bold text.
    #[test]
    fn a_runs_bold_copy_shows_only_its_bold_sections() {
        let format = TextFormat::simple(FontId::monospace(12.0), Color32::RED);
        let mut run = Run::new(0);
        for (text, bold) in [("a", false), ("b", false), ("c", true), ("d", true), ("e", false)] {
            run.has_bold |= bold;
            run.push(text, &format, bold);
        }
        assert_eq!(run.job.text, "abcde");
        assert_eq!(run.job.sections.len(), 3, "one section per weight change, not per cell");
        let bold = run.bold_job();
        let colors: Vec<Color32> = bold.sections.iter().map(|s| s.format.color).collect();
        assert_eq!(colors, [Color32::TRANSPARENT, Color32::RED, Color32::TRANSPARENT]);
        assert_eq!(bold.text, run.job.text);
    }
}
