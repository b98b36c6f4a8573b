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
use alacritty_terminal::term::{TermMode, viewport_to_point};
use egui::{Key, Pos2, vec2};

use crate::protocol::terminal::{Screen, TerminalHandle};
use crate::ui::terminal::input::{MouseReport, key_bytes, mouse_bytes, paste_bytes, text_bytes};
use crate::ui::terminal::picture::{Layout, Painted, Picture};

/// A terminal and what its widget remembers between frames.
pub struct TerminalView {
    /// The shell (run by the runtime).
    pub session: TerminalHandle,
    id: egui::Id,
    wheel: f32,
    mouse_down: Option<u8>,
    last_cell: Option<(usize, usize)>,
    /// The last frame's picture, shown again when the screen is busy with a flood.
    last: Option<Painted>,
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
}

impl TerminalView {
    /// Wraps `session`; `id` tells terminals apart (focus).
    pub fn new(session: TerminalHandle, id: egui::Id) -> Self {
        Self { session, id, wheel: 0.0, mouse_down: None, last_cell: None, last: None }
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
        if response.has_focus() {
            // The window's shortcuts stand aside while a terminal has the keyboard.
            ui.data_mut(|d| d.insert_temp(egui::Id::unique(FOCUSED), self.id));
            let filter = egui::EventFilter { tab: true, horizontal_arrows: true, vertical_arrows: true, escape: true };
            ui.memory_mut(|m| m.set_focus_lock_filter(self.id, filter));
        }
        // The screen is locked only to read it and apply the input: the text is laid out after,
        // while the applier goes on with a flood. A frame waits for it only when the person acts
        // on the terminal: else, while the applier (lower priority, maybe preempted) holds it, the
        // frame shows the last picture again and asks for another — fewer new pictures while
        // output pours, never a frame stalled behind it.
        let guard = match self.acting(ui, &response) {
            true => Some(session.screen().lock()),
            false => session.screen().try_lock_for(std::time::Duration::from_millis(2)),
        };
        let Some(mut s) = guard else {
            if let Some(last) = &self.last {
                last.paint(ui, &layout);
            }
            ui.ctx().request_repaint();
            return;
        };
        let current = (s.term().grid().columns() as u16, s.term().grid().screen_lines() as u16);
        let mut out = Vec::new();
        if response.has_focus() {
            self.keyboard(ui, &mut s, &mut out);
        }
        self.mouse(ui, &response, &layout, &mut s, &mut out);
        let picture = Picture::of(&layout, &s, response.has_focus());
        drop(s);
        if !out.is_empty() {
            self.session.send(out);
        }
        if current != (cols, rows) {
            self.session.resize(cols, rows);
        }
        let painted = picture.render(ui, &layout, &font);
        painted.paint(ui, &layout);
        self.last = Some(painted);
    }

    /// Whether the person acts on the terminal this frame (keys, paste, clicks, wheel, a drag):
    /// the frame then waits for the screen rather than drop what they did.
    fn acting(&self, ui: &egui::Ui, response: &egui::Response) -> bool {
        let focused = response.has_focus();
        let over = response.hovered() || self.mouse_down.is_some() || response.dragged();
        ui.input(|i| {
            i.events.iter().any(|e| match e {
                egui::Event::Text(_)
                | egui::Event::Key { pressed: true, .. }
                | egui::Event::Paste(_)
                | egui::Event::Copy
                | egui::Event::Cut => focused,
                egui::Event::PointerButton { .. } | egui::Event::MouseWheel { .. } => over,
                egui::Event::PointerMoved(_) => self.mouse_down.is_some() || response.dragged(),
                _ => false,
            })
        })
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
    Picture::of(&layout, screen, false).render(ui, &layout, &font).paint(ui, &layout);
}

/// Where the terminal that last had the keyboard leaves its id.
const FOCUSED: &str = "terminal-with-focus";

/// Whether a terminal has the keyboard (its keys are then the shell's, not the window's).
pub fn has_focus(ctx: &egui::Context) -> bool {
    ctx.data(|d| d.get_temp::<egui::Id>(egui::Id::unique(FOCUSED))).is_some_and(|id| ctx.memory(|m| m.has_focus(id)))
}
