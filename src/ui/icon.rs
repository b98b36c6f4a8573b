//! The application's icon, drawn in code (no image file to ship): two overlapping discs — a
//! person and a sidekick — on a rounded square. Used for the window and the desktop entry.

/// The icon as RGBA pixels, `size` × `size`.
pub fn rgba(size: u32) -> Vec<u8> {
    let s = size as f32;
    let mut pixels = vec![0u8; (size * size * 4) as usize];
    let radius = s * 0.22;
    let discs = [((0.40, 0.46), 0.24, [86u8, 156, 214]), ((0.62, 0.58), 0.20, [206, 120, 60])];
    for y in 0..size {
        for x in 0..size {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            // The rounded square: inside unless in a corner beyond its circle.
            let (cx, cy) = (px.clamp(radius, s - radius), py.clamp(radius, s - radius));
            if (px - cx).hypot(py - cy) > radius {
                continue;
            }
            let mut rgb = [32u8, 36, 46];
            for ((dx, dy), r, color) in discs {
                if (px - dx * s).hypot(py - dy * s) <= r * s {
                    rgb = color;
                }
            }
            let i = ((y * size + x) * 4) as usize;
            pixels[i..i + 4].copy_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
        }
    }
    pixels
}

/// The window's icon.
pub fn window_icon() -> egui::IconData {
    const SIZE: u32 = 64;
    egui::IconData { rgba: rgba(SIZE), width: SIZE, height: SIZE }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_icon_has_its_square_its_two_discs_and_clear_corners() {
        let size = 64;
        let pixels = rgba(size);
        let at = |x: u32, y: u32| {
            let i = ((y * size + x) * 4) as usize;
            [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]]
        };
        assert_eq!(at(0, 0)[3], 0, "a rounded corner is clear");
        assert_eq!(at(22, 29), [86, 156, 214, 255], "the first disc");
        assert_eq!(at(44, 40), [206, 120, 60, 255], "the second disc, over the first");
        assert_eq!(at(60, 10), [32, 36, 46, 255], "the square");
    }
}
