//! Glyphs no bundled font has, drawn by hand: egui_commonmark's copy button on code blocks uses
//! U+1F5D0 (🗐), which would otherwise show as a box.

use egui::epaint::text::{GlyphBitmap, GlyphRasterizer, GlyphRasterizerRequest, RasterizedGlyph};
use egui::{Color32, ColorImage, vec2};

/// The copy icon of code blocks.
const COPY: &str = "\u{1F5D0}";

/// Installs the hand-drawn glyphs (idempotent: safe on every frame).
pub fn install(ctx: &egui::Context) {
    ctx.add_glyph_rasterizer(GlyphRasterizer::new("sidekicks::copy_icon", copy_icon));
}

/// Two overlapping page outlines, like the usual "copy" icon.
fn copy_icon(request: &GlyphRasterizerRequest<'_>) -> Option<RasterizedGlyph> {
    if request.cluster != COPY {
        return None;
    }
    let size = request.font_size_px.max(6.0);
    let n = size.ceil() as usize;
    let stroke = (size / 12.0).max(1.0);
    let page = size * 0.62;
    let mut pixels = vec![Color32::TRANSPARENT; n * n];
    // Back page at the top right, front page at the bottom left.
    for (x0, y0) in [(size - page - 1.0, 1.0), (1.0, size - page - 1.0)] {
        for y in 0..n {
            for x in 0..n {
                let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
                let inside = fx >= x0 && fx <= x0 + page && fy >= y0 && fy <= y0 + page;
                let inner =
                    fx >= x0 + stroke && fx <= x0 + page - stroke && fy >= y0 + stroke && fy <= y0 + page - stroke;
                if inside && !inner {
                    pixels[y * n + x] = Color32::WHITE;
                }
            }
        }
    }
    Some(RasterizedGlyph {
        bitmap: GlyphBitmap {
            image: ColorImage::new([n, n], pixels),
            // From the baseline origin up to the top of the image.
            offset_px: vec2(0.0, -size * 0.85),
            is_color: false,
        },
        advance_px: size,
    })
}
