//! The registry's icons: small monochrome SVGs (FORMAT.md: 16×16, `fill="currentColor"`), kept in
//! the data folder beside the index and drawn here into an alpha mask the window tints with its
//! text colour. Only what the registry's icons use is read: the `viewBox`, and the `<path>`,
//! `<circle>` and `<rect>` elements with their `fill-rule`; groups' transforms, strokes, gradients
//! and text are not drawn (an icon drawn from nothing falls back to the entry's letter).

use std::path::{Path, PathBuf};

use vello_cpu::kurbo::{Affine, BezPath, Circle, Rect, Shape};
use vello_cpu::peniko::Fill;

use super::{fetch, folder};
pub use crate::model::registry::IconMask as Mask;

/// The icon at `url` for entry `id`: the copy kept in the data folder, else downloaded (and kept).
/// Its SVG text, or why not.
pub fn load(data_dir: &Path, id: &str, url: &str) -> Result<String, String> {
    let kept = kept_path(data_dir, id, url);
    if let Ok(text) = std::fs::read_to_string(&kept) {
        return Ok(text);
    }
    let bytes = fetch::get(url, &folder(data_dir)).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{url}: not an SVG (not text)"))?;
    if let Some(dir) = kept.parent() {
        let _ = std::fs::create_dir_all(dir);
        let _ = crate::runtime::config::file::save_atomic(&kept, &text);
    }
    Ok(text)
}

/// Where the icon at `url` of entry `id` is kept (named after both: a new address is a new icon).
fn kept_path(data_dir: &Path, id: &str, url: &str) -> PathBuf {
    let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let id: String = id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    folder(data_dir).join("icons").join(format!("{id}-{hash:016x}.svg"))
}

/// Draws `svg` into a `size`×`size` mask, its view box fitted and centred; why not when it has
/// nothing this reader draws.
pub fn rasterize(svg: &str, size: u16) -> Result<Mask, String> {
    let (x, y, w, h) = view_box(svg).ok_or("the SVG has no viewBox and no width and height")?;
    if !(w > 0.0 && h > 0.0 && [x, y, w, h].iter().all(|n| n.is_finite())) {
        return Err("the SVG's view box is empty".into());
    }
    let shapes = shapes(svg, Bounds::around((x, y, w, h)))?;
    let side = f64::from(size);
    let scale = side / w.max(h);
    let fit = Affine::translate(((side - w * scale) / 2.0, (side - h * scale) / 2.0))
        * Affine::scale(scale)
        * Affine::translate((-x, -y));
    let mut ctx = vello_cpu::RenderContext::new(size, size);
    ctx.set_transform(fit);
    ctx.set_paint(vello_cpu::color::OpaqueColor::<vello_cpu::color::Srgb>::WHITE);
    for (path, rule) in &shapes {
        ctx.set_fill_rule(*rule);
        ctx.fill_path(path);
    }
    let mut pixmap = vello_cpu::Pixmap::new(size, size);
    ctx.render(&mut pixmap, &mut vello_cpu::Resources::new());
    // White, premultiplied: every channel is the coverage.
    let alpha = pixmap.data_as_u8_slice().chunks_exact(4).map(|px| px[3]).collect();
    Ok(Mask { size, alpha })
}

/// How far outside its view box an icon's shapes may reach: what lies beyond is never seen, and a
/// shape of any size costs what its outline costs (a circle of radius 1e308 was cut into billions
/// of segments, and the window died for memory). Circles and rectangles are cut to these bounds;
/// a path that reaches past them, or has too many segments, is refused.
#[derive(Clone, Copy)]
struct Bounds {
    min: (f64, f64),
    max: (f64, f64),
    /// The largest radius kept (one that covers the bounds whole).
    radius: f64,
}

/// Segments an icon may have, in all.
const MAX_SEGMENTS: usize = 100_000;

impl Bounds {
    fn around((x, y, w, h): (f64, f64, f64, f64)) -> Self {
        let side = w.max(h);
        Self { min: (x - side, y - side), max: (x + w + side, y + h + side), radius: 4.0 * side }
    }

    fn clamp(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (x.clamp(self.min.0, self.max.0), y.clamp(self.min.1, self.max.1))
    }

    fn holds(&self, p: vello_cpu::kurbo::Point) -> bool {
        p.is_finite() && (self.min.0..=self.max.0).contains(&p.x) && (self.min.1..=self.max.1).contains(&p.y)
    }
}

/// The points of a path element.
fn points(element: &vello_cpu::kurbo::PathEl) -> Vec<vello_cpu::kurbo::Point> {
    use vello_cpu::kurbo::PathEl;
    match *element {
        PathEl::MoveTo(a) | PathEl::LineTo(a) => vec![a],
        PathEl::QuadTo(a, b) => vec![a, b],
        PathEl::CurveTo(a, b, c) => vec![a, b, c],
        PathEl::ClosePath => vec![],
    }
}

/// The filled shapes of `svg`, in its own coordinates, within `bounds`.
fn shapes(svg: &str, bounds: Bounds) -> Result<Vec<(BezPath, Fill)>, String> {
    let mut out = Vec::new();
    let mut segments = 0;
    for (name, attrs) in elements(svg) {
        if attr(attrs, "fill") == Some("none") {
            continue;
        }
        let rule = if attr(attrs, "fill-rule") == Some("evenodd") { Fill::EvenOdd } else { Fill::NonZero };
        let number = |key: &str| attr(attrs, key).and_then(|v| v.trim().trim_end_matches("px").parse::<f64>().ok());
        let path = match name {
            "path" => {
                let Some(d) = attr(attrs, "d") else { continue };
                let path = BezPath::from_svg(d).map_err(|e| format!("a path of the SVG cannot be read: {e}"))?;
                segments += path.elements().len();
                let far = path.elements().iter().any(|e| points(e).iter().any(|p| !bounds.holds(*p)));
                if far || segments > MAX_SEGMENTS {
                    return Err("a path of the SVG reaches far outside its view box, or has too many segments".into());
                }
                path
            }
            "circle" => {
                let (Some(cx), Some(cy), Some(r)) =
                    (number("cx").or(Some(0.0)), number("cy").or(Some(0.0)), number("r"))
                else {
                    continue;
                };
                if ![cx, cy, r].iter().all(|n| n.is_finite()) || r <= 0.0 {
                    continue;
                }
                let (cx, cy) = bounds.clamp((cx, cy));
                Circle::new((cx, cy), r.min(bounds.radius)).to_path(0.01)
            }
            "rect" => {
                let (Some(w), Some(h)) = (number("width"), number("height")) else { continue };
                let (x, y) = (number("x").unwrap_or(0.0), number("y").unwrap_or(0.0));
                if ![x, y, w, h].iter().all(|n| n.is_finite()) {
                    continue;
                }
                let (x0, y0) = bounds.clamp((x, y));
                let (x1, y1) = bounds.clamp((x + w, y + h));
                Rect::new(x0, y0, x1, y1).to_path(0.01)
            }
            _ => continue,
        };
        out.push((path, rule));
    }
    if out.is_empty() {
        return Err("the SVG has no path, circle or rectangle to draw".into());
    }
    Ok(out)
}

/// The `<name attributes…>` elements of `svg`, in order (comments and the rest skipped).
fn elements(svg: &str) -> impl Iterator<Item = (&str, &str)> {
    svg.split('<').skip(1).filter_map(|part| {
        let tag = part.split('>').next()?;
        let name_end = tag.find(|c: char| c.is_whitespace() || c == '/').unwrap_or(tag.len());
        let name = &tag[..name_end];
        (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric())).then_some((name, &tag[name_end..]))
    })
}

/// The value of attribute `key` in an element's `attrs` (quoted with `"` or `'`).
fn attr<'a>(attrs: &'a str, key: &str) -> Option<&'a str> {
    let mut rest = attrs;
    while let Some(at) = rest.find(key) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + key.len()..].trim_start();
        rest = &rest[at + key.len()..];
        if before.is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let Some(value) = after.strip_prefix('=') else { continue };
        let value = value.trim_start();
        let quote = value.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let body = &value[1..];
        return body.find(quote).map(|end| &body[..end]);
    }
    None
}

/// The `<svg>` element's view box (`x y width height`), else its width and height.
fn view_box(svg: &str) -> Option<(f64, f64, f64, f64)> {
    let (_, attrs) = elements(svg).find(|(name, _)| *name == "svg")?;
    if let Some(vb) = attr(attrs, "viewBox") {
        let n: Vec<f64> = vb.split(|c: char| c.is_whitespace() || c == ',').filter_map(|s| s.parse().ok()).collect();
        if let [x, y, w, h] = n[..] {
            return Some((x, y, w, h));
        }
    }
    let number = |key: &str| attr(attrs, key).and_then(|v| v.trim().trim_end_matches("px").parse::<f64>().ok());
    Some((0.0, 0.0, number("width")?, number("height")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(mask: &Mask, x: usize, y: usize) -> u8 {
        mask.alpha[y * usize::from(mask.size) + x]
    }

    #[test]
    fn a_square_path_fills_its_part_of_the_view_box() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">
            <path fill="currentColor" d="M0 0H8V8H0Z"/></svg>"#;
        let mask = rasterize(svg, 32).unwrap();
        assert_eq!(mask.alpha.len(), 32 * 32);
        assert_eq!(covered(&mask, 4, 4), 255, "inside the square");
        assert_eq!(covered(&mask, 24, 24), 0, "outside it");
    }

    #[test]
    fn even_odd_leaves_the_hole_and_non_zero_fills_it() {
        let rings = "M0 0H16V16H0Z M4 4H12V12H4Z";
        let evenodd = format!(r#"<svg viewBox="0 0 16 16"><path fill-rule="evenodd" d="{rings}"/></svg>"#);
        let nonzero = format!(r#"<svg viewBox="0 0 16 16"><path d="{rings}"/></svg>"#);
        assert_eq!(covered(&rasterize(&evenodd, 16).unwrap(), 8, 8), 0);
        assert_eq!(covered(&rasterize(&nonzero, 16).unwrap(), 8, 8), 255);
        assert_eq!(covered(&rasterize(&evenodd, 16).unwrap(), 1, 1), 255);
    }

    #[test]
    fn a_wide_view_box_is_fitted_and_centred() {
        let svg = r#"<svg viewBox="100 0 200 100"><rect x="100" y="0" width="200" height="100"/></svg>"#;
        let mask = rasterize(svg, 20).unwrap();
        assert_eq!(covered(&mask, 10, 2), 0, "the band above");
        assert_eq!(covered(&mask, 10, 10), 255, "the middle");
        assert_eq!(covered(&mask, 10, 17), 0, "the band below");
    }

    /// A 64-byte icon with a circle of radius 1e308 took the window to 7.2 GB and aborted it
    /// (issue 45): shapes are cut to the view box.
    #[test]
    fn a_huge_shape_is_cut_to_the_view_box() {
        let huge = r#"<svg viewBox="0 0 16 16"><circle cx="8" cy="8" r="1e308"/></svg>"#;
        let mask = rasterize(huge, 56).unwrap();
        assert_eq!(covered(&mask, 28, 28), 255, "it covers the whole icon");
        let far = r#"<svg viewBox="0 0 16 16"><rect x="-1e300" y="-1e300" width="1e308" height="1e308"/></svg>"#;
        assert_eq!(covered(&rasterize(far, 16).unwrap(), 8, 8), 255);
        let path = r#"<svg viewBox="0 0 16 16"><path d="M0 0L1e300 0L0 1e300Z"/></svg>"#;
        assert!(rasterize(path, 16).unwrap_err().contains("far outside"));
        let nan = r#"<svg viewBox="0 0 1e309 16"><path d="M0 0H8V8Z"/></svg>"#;
        assert!(rasterize(nan, 16).is_err());
        let many: String = (0..200_000).map(|i| format!("L{} {} ", i % 16, (i / 16) % 16)).collect();
        let busy = format!(r#"<svg viewBox="0 0 16 16"><path d="M0 0 {many}Z"/></svg>"#);
        assert!(rasterize(&busy, 16).is_err());
    }

    #[test]
    fn an_svg_with_nothing_to_draw_says_so() {
        let why = rasterize(r#"<svg viewBox="0 0 16 16"><text>hi</text></svg>"#, 16).unwrap_err();
        assert!(why.contains("no path"), "{why}");
        let why = rasterize(r#"<svg><path d="M0 0H8V8Z"/></svg>"#, 16).unwrap_err();
        assert!(why.contains("viewBox"), "{why}");
        assert!(rasterize(r#"<svg viewBox="0 0 16 16"><path d="M0 0 Q"/></svg>"#, 16).is_err());
    }

    #[test]
    fn every_icon_of_the_real_registry_is_drawn() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry/icons");
        let mut seen = 0;
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            let svg = std::fs::read_to_string(&path).unwrap();
            let mask = rasterize(&svg, 56).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let inked = mask.alpha.iter().filter(|&&a| a > 127).count() as f64 / mask.alpha.len() as f64;
            // A logo: some ink, not a filled square.
            assert!((0.05..0.9).contains(&inked), "{}: {inked:.2} of the pixels covered", path.display());
            seen += 1;
        }
        assert!(seen >= 11, "the registry's icons: {seen}");
    }

    #[test]
    fn attributes_are_found_by_whole_name() {
        assert_eq!(attr(r#" fill-rule="evenodd" fill="none""#, "fill"), Some("none"));
        assert_eq!(attr(r#" d='M0 0'"#, "d"), Some("M0 0"));
        assert_eq!(attr(r#" id="d" data-d="x""#, "d"), None);
    }
}
