//! What a frame draws of a terminal screen: the cells read under the screen's lock (`Picture::of`),
//! then painted as one mesh (`Picture::paint`). Each character's glyph is laid out once by egui (a
//! one-character galley, cached by egui across frames) and its quads are copied to every cell that
//! shows it, tinted with the cell's colour: a flood that changes every row each frame costs a copy
//! per cell, not a text layout per row (issue 37: laying out 58 rows of 176 columns was ~7 ms).

use std::collections::HashMap;
use std::sync::Arc;

use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::color::Colors;
use alacritty_terminal::vte::ansi::{Color, CursorShape, NamedColor};
use egui::epaint::text::{Galley, PlacedRow, RowVisuals};
use egui::epaint::{Mesh, Vertex};
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, Pos2, Rect, Stroke, Vec2, pos2, vec2};

use crate::protocol::terminal::Screen;
use crate::ui::terminal::colors::{BACKGROUND, SELECTION, resolve};

/// Cell metrics and where the grid is drawn.
pub(in crate::ui) struct Layout {
    pub rect: Rect,
    pub char_w: f32,
    pub row_h: f32,
    pub cols: usize,
    pub rows: usize,
}

impl Layout {
    /// The cell rectangle at `col`, `line`, `width` cells wide, in screen coordinates.
    pub fn cell_rect(&self, col: usize, line: usize, width: usize) -> Rect {
        Rect::from_min_size(
            self.rect.min + vec2(col as f32 * self.char_w, line as f32 * self.row_h),
            vec2(self.char_w * width as f32, self.row_h),
        )
    }
}

/// The colours and style of one cell as drawn.
struct Look {
    fg: Color32,
    bg: Color32,
}

fn look(cell: &Cell, colors: &Colors, selected: bool, block_cursor: bool) -> Look {
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
    Look { fg, bg }
}

/// A character drawn in a cell.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Glyph {
    col: usize,
    line: usize,
    /// 2 for a wide character.
    width: usize,
    c: char,
    fg: Color32,
    italic: bool,
    /// Drawn a second time, shifted by a pixel.
    bold: bool,
    underline: bool,
    strike: bool,
}

/// A run of cells of one background colour on a line.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Background {
    line: usize,
    col: usize,
    width: usize,
    color: Color32,
}

/// What a frame draws of the screen, read under its lock: backgrounds, glyphs and the cursor.
pub(in crate::ui) struct Picture {
    backgrounds: Vec<Background>,
    glyphs: Vec<Glyph>,
    cursor: Option<(Rect, Color32, CursorShape)>,
}

impl Picture {
    /// The visible rows, the selection and the cursor of `s`.
    pub fn of(layout: &Layout, s: &Screen, focused: bool) -> Self {
        let content = s.term().renderable_content();
        let offset = content.display_offset as i32;
        let cursor = content.cursor;
        let cursor_line = cursor.point.line.0 + offset;
        let block = focused && cursor.shape == CursorShape::Block;
        let mut picture = Picture { backgrounds: Vec::new(), glyphs: Vec::new(), cursor: None };
        for indexed in content.display_iter {
            let line = indexed.point.line.0 + offset;
            let cell = indexed.cell;
            if line < 0 || cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                continue;
            }
            let line = line as usize;
            let col = indexed.point.column.0;
            let selected = content.selection.is_some_and(|r| r.contains(indexed.point));
            let at_cursor = block && line as i32 == cursor_line && col == cursor.point.column.0;
            let look = look(cell, content.colors, selected, at_cursor);
            let width = if cell.flags.contains(Flags::WIDE_CHAR) { 2 } else { 1 };
            if look.bg != BACKGROUND {
                match picture.backgrounds.last_mut() {
                    Some(last) if last.line == line && last.col + last.width == col && last.color == look.bg => {
                        last.width += width;
                    }
                    _ => picture.backgrounds.push(Background { line, col, width, color: look.bg }),
                }
            }
            let flags = cell.flags;
            let underline = flags.intersects(Flags::ALL_UNDERLINES);
            let strike = flags.contains(Flags::STRIKEOUT);
            let blank = cell.c == ' ' || cell.c == '\0' || look.fg == look.bg;
            if blank && !underline && !strike {
                continue;
            }
            picture.glyphs.push(Glyph {
                col,
                line,
                width,
                c: if blank { ' ' } else { cell.c },
                fg: look.fg,
                italic: flags.contains(Flags::ITALIC),
                bold: flags.intersects(Flags::BOLD) && !blank,
                underline,
                strike,
            });
        }
        if cursor_line >= 0 && (cursor_line as usize) < layout.rows {
            let r = layout.cell_rect(cursor.point.column.0, cursor_line as usize, 1);
            let color = resolve(Color::Named(NamedColor::Foreground), content.colors, false, false);
            let shown = !(matches!(cursor.shape, CursorShape::Block) && focused);
            picture.cursor = shown.then_some((r, color, cursor.shape));
        }
        picture
    }

    /// Lays the screen out: one galley holding every cell's background and glyph, and the cursor.
    pub fn render(self, ui: &egui::Ui, layout: &Layout, font: &FontId) -> Painted {
        let ppp = ui.ctx().pixels_per_point();
        let galley = ui.fonts_mut(|fonts| {
            let mut shapes = GlyphShapes::new(font);
            let mesh = self.mesh(layout, ppp, |c, italic| shapes.get(fonts, c, italic));
            let template = shapes.get(fonts, ' ', false);
            grid_galley(&template, mesh, layout.rect.size())
        });
        let cursor = self.cursor.map(|(r, color, shape)| (r.translate(-layout.rect.min.to_vec2()), color, shape));
        Painted { galley, cursor }
    }
}

/// A screen laid out, ready to paint (again, in a frame that could not read the screen).
pub(in crate::ui) struct Painted {
    galley: Arc<Galley>,
    /// Relative to the grid's top-left corner.
    cursor: Option<(Rect, Color32, CursorShape)>,
}

impl Painted {
    /// Paints the background, the grid and the cursor in `layout`'s rectangle.
    pub fn paint(&self, ui: &egui::Ui, layout: &Layout) {
        let painter = ui.painter_at(layout.rect);
        painter.rect_filled(layout.rect, 0.0, BACKGROUND);
        painter.galley(layout.rect.min, self.galley.clone(), Color32::WHITE);
        let Some((r, color, shape)) = self.cursor else { return };
        let r = r.translate(layout.rect.min.to_vec2());
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

impl Picture {
    /// The backgrounds and glyphs as one mesh, relative to the grid's top-left corner, edges on
    /// physical pixels (`ppp` of them per point); `glyph` gives a character's one-character galley.
    fn mesh(&self, layout: &Layout, ppp: f32, mut glyph: impl FnMut(char, bool) -> Arc<Galley>) -> Mesh {
        let snap = |v: f32| (v * ppp).round() / ppp;
        let x = |col: usize| snap(col as f32 * layout.char_w);
        let y = |line: usize| snap(line as f32 * layout.row_h);
        let pixel = 1.0 / ppp;
        let mut mesh = Mesh::default();
        mesh.reserve_triangles(2 * (self.backgrounds.len() + self.glyphs.len()));
        mesh.reserve_vertices(4 * (self.backgrounds.len() + self.glyphs.len()));
        for b in &self.backgrounds {
            let rect = Rect::from_min_max(pos2(x(b.col), y(b.line)), pos2(x(b.col + b.width), y(b.line + 1)));
            mesh.add_colored_rect(rect, b.color);
        }
        let bold_shift = vec2(snap(0.7).max(pixel), 0.0);
        for g in &self.glyphs {
            let (left, top) = (x(g.col), y(g.line));
            if g.c != ' ' {
                let galley = glyph(g.c, g.italic);
                let at = vec2(left, top);
                append_glyph(&mut mesh, &galley, at, g.fg);
                if g.bold {
                    append_glyph(&mut mesh, &galley, at + bold_shift, g.fg);
                }
            }
            let right = x(g.col + g.width);
            if g.underline {
                let bottom = y(g.line + 1);
                mesh.add_colored_rect(Rect::from_min_max(pos2(left, bottom - pixel), pos2(right, bottom)), g.fg);
            }
            if g.strike {
                let middle = snap(top + layout.row_h / 2.0);
                mesh.add_colored_rect(Rect::from_min_max(pos2(left, middle), pos2(right, middle + pixel)), g.fg);
            }
        }
        mesh
    }
}

/// Copies the glyph quads of a one-character galley to `at`, tinted `color` (the galley is white).
fn append_glyph(mesh: &mut Mesh, galley: &Galley, at: Vec2, color: Color32) {
    for row in &galley.rows {
        let from = &row.visuals.mesh;
        let base = mesh.vertices.len() as u32;
        let offset = at + row.pos.to_vec2();
        mesh.indices.extend(from.indices.iter().map(|i| i + base));
        mesh.vertices.extend(from.vertices.iter().map(|v| Vertex { pos: v.pos + offset, uv: v.uv, color }));
    }
}

/// The one-character galleys of a frame: ASCII in a table, the rest in a map.
struct GlyphShapes {
    font: FontId,
    ascii: Vec<Option<Arc<Galley>>>,
    other: HashMap<(char, bool), Arc<Galley>>,
}

impl GlyphShapes {
    fn new(font: &FontId) -> Self {
        Self { font: font.clone(), ascii: vec![None; 256], other: HashMap::new() }
    }

    /// The galley of `c` in white (egui keeps it from frame to frame; this keeps it for the frame).
    fn get(&mut self, fonts: &mut egui::epaint::text::FontsView<'_>, c: char, italic: bool) -> Arc<Galley> {
        let lay_out = |fonts: &mut egui::epaint::text::FontsView<'_>| {
            let mut format = TextFormat::simple(self.font.clone(), Color32::WHITE);
            format.italics = italic;
            fonts.layout_job(LayoutJob::single_section(c.to_string(), format))
        };
        if c.is_ascii() {
            let slot = c as usize * 2 + usize::from(italic);
            if let Some(galley) = &self.ascii[slot] {
                return galley.clone();
            }
            let galley = lay_out(fonts);
            self.ascii[slot] = Some(galley.clone());
            galley
        } else {
            self.other.entry((c, italic)).or_insert_with(|| lay_out(fonts)).clone()
        }
    }
}

/// A galley holding `mesh` as its one row (texel UVs, as laid-out text has: the tessellator divides
/// them by the font atlas' size when it draws, as for any text), built from `template`, a galley of
/// the same font. Its size is the grid's.
fn grid_galley(template: &Galley, mesh: Mesh, size: Vec2) -> Arc<Galley> {
    let bounds = Rect::from_min_size(Pos2::ZERO, size);
    let mut galley = template.clone();
    // (A galley always has a row, even for empty text.)
    let Some(mut row) = template.rows.first().map(|r| (*r.row).clone()) else { return Arc::new(galley) };
    row.glyphs.clear();
    row.size = size;
    galley.num_vertices = mesh.vertices.len();
    galley.num_indices = mesh.indices.len();
    row.visuals = RowVisuals { mesh, mesh_bounds: bounds, glyph_index_start: 0, glyph_vertex_range: 0..0 };
    galley.rows = vec![PlacedRow { pos: Pos2::ZERO, row: Arc::new(row), ends_with_newline: false }];
    galley.rect = bounds;
    galley.mesh_bounds = bounds;
    Arc::new(galley)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::terminal::Listener;

    fn screen(bytes: &[u8]) -> Screen {
        let mut screen = Screen::new(20, 3, Listener::default());
        screen.feed(b"\x1b[?25l");
        screen.feed(bytes);
        screen
    }

    fn layout() -> Layout {
        Layout {
            rect: Rect::from_min_size(pos2(10.0, 20.0), vec2(160.0, 48.0)),
            char_w: 8.0,
            row_h: 16.0,
            cols: 20,
            rows: 3,
        }
    }

    /// Blank cells draw nothing, a run of one background is one rectangle, each cell keeps its own
    /// colour, weight and lines.
    #[test]
    fn the_picture_keeps_each_cells_look_and_merges_backgrounds() {
        let s = screen(b"\x1b[1;31mA\x1b[0mb \x1b[4;9mC\x1b[0m\x1b[42m   \x1b[0m\r\n\x1b[3m\xe4\xb8\xadx");
        let p = Picture::of(&layout(), &s, false);
        type Drawn = (usize, usize, char, bool, bool, bool, bool, usize);
        let drawn: Vec<Drawn> =
            p.glyphs.iter().map(|g| (g.line, g.col, g.c, g.bold, g.italic, g.underline, g.strike, g.width)).collect();
        assert_eq!(
            drawn,
            [
                (0, 0, 'A', true, false, false, false, 1),
                (0, 1, 'b', false, false, false, false, 1),
                (0, 3, 'C', false, false, true, true, 1),
                (1, 0, '中', false, true, false, false, 2),
                (1, 2, 'x', false, true, false, false, 1),
            ]
        );
        assert_ne!(p.glyphs[0].fg, p.glyphs[1].fg, "red is not the default colour");
        let green: Vec<(usize, usize, usize)> = p.backgrounds.iter().map(|b| (b.line, b.col, b.width)).collect();
        assert_eq!(green, [(0, 4, 3)], "three cells of one background are one rectangle");
    }

    /// Painted, the screen is one mesh: a quad per background run, the glyph quads of each
    /// character at its cell in its colour (twice for bold), lines under and through.
    #[test]
    fn the_screen_is_painted_as_one_mesh_of_glyph_quads() {
        let s = screen(b"\x1b[31mA\x1b[0m\x1b[1mA\x1b[0m\x1b[4m \x1b[0m\x1b[44m \x1b[0m");
        let layout = layout();
        let ctx = egui::Context::default();
        let mut mesh = None;
        let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
            let font = egui::TextStyle::Monospace.resolve(ui.style());
            let picture = Picture::of(&layout, &s, false);
            let one = ui.fonts_mut(|f| GlyphShapes::new(&font).get(f, 'A', false));
            let quad = one.rows[0].visuals.mesh.vertices.len();
            assert!(quad >= 4, "the glyph of A has quads");
            let m = ui.fonts_mut(|f| {
                let mut shapes = GlyphShapes::new(&font);
                picture.mesh(&layout, 1.0, |c, italic| shapes.get(f, c, italic))
            });
            mesh = Some((m, quad, one));
        });
        // (The font atlas' upload, which a window would make.)
        output.textures_delta.clear();
        let (mesh, quad, one) = mesh.expect("the pass ran");
        // Background (blue) 4, red A, bold A twice, the underline 4.
        assert_eq!(mesh.vertices.len(), 4 + quad * 3 + 4);
        assert!(mesh.is_valid());
        let blue = &mesh.vertices[..4];
        assert!(blue.iter().all(|v| v.pos.x >= 24.0 && v.pos.x <= 32.0 && v.color == blue[0].color));
        let red = &mesh.vertices[4..4 + quad];
        let glyph = &one.rows[0].visuals.mesh.vertices;
        for (v, g) in red.iter().zip(glyph) {
            assert_eq!((v.pos, v.uv), (g.pos, g.uv), "the first cell's glyph sits at the grid's corner");
            assert_eq!(v.color, red[0].color);
        }
        let bold = &mesh.vertices[4 + quad..4 + 3 * quad];
        assert_ne!(bold[0].color, red[0].color);
        assert_eq!(bold[0].pos, glyph[0].pos + vec2(8.0, 0.0), "the second cell starts a cell later");
        assert_eq!(bold[quad].pos, glyph[0].pos + vec2(9.0, 0.0), "its bold copy a pixel to the right");
        let underline = &mesh.vertices[4 + 3 * quad..];
        assert!(underline.iter().all(|v| v.pos.y >= 15.0 && v.pos.y <= 16.0 && v.pos.x >= 16.0 && v.pos.x <= 24.0));
    }
}
