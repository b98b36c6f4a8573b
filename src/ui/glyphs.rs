//! Characters the bundled fonts lack: the system's fonts are asked for them (CJK, arrows,
//! symbols: `egui_system_font_provider`, through fontconfig on Linux), a character no font has is
//! drawn as a box (never a panic, whatever the build), and egui_commonmark's copy button on code
//! blocks (U+1F5D0, 🗐, which few fonts have) is drawn by hand.

use egui::epaint::text::{GlyphBitmap, GlyphRasterizer, GlyphRasterizerRequest, RasterizedGlyph};
use egui::{Color32, ColorImage, vec2};

/// The copy icon of code blocks.
const COPY: &str = "\u{1F5D0}";

/// Installs the hand-drawn glyphs (idempotent: safe on every frame).
pub fn install(ctx: &egui::Context) {
    ctx.add_glyph_rasterizer(GlyphRasterizer::new("sidekicks::copy_icon", copy_icon));
}

/// Asks the system's fonts for what the bundled ones lack, and draws a box for what none has.
/// Once per context: the provider lists the system's fonts on a thread of its own.
pub fn install_fallback(ctx: &egui::Context) {
    ctx.set_missing_glyph_policy(egui::MissingGlyphPolicy::Tofu);
    ctx.add_font_provider(std::sync::Arc::new(egui_system_font_provider::SystemFontProvider::new()));
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
