//! The terminal's colours: the 16 named colours, the 256-colour cube and greys, true colour, and the
//! palette changes a program may make (OSC 4/10/11), resolved to egui colours.

use alacritty_terminal::term::color::Colors;
use alacritty_terminal::vte::ansi::{Color, NamedColor};
use egui::Color32;

const BASE16: [(u8, u8, u8); 16] = [
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

/// The default foreground.
pub const FOREGROUND: Color32 = Color32::from_rgb(220, 220, 220);
/// The default background.
pub const BACKGROUND: Color32 = Color32::from_rgb(20, 20, 24);
/// Behind selected cells.
pub const SELECTION: Color32 = Color32::from_rgb(58, 88, 140);

fn dim(c: Color32) -> Color32 {
    let f = |v: u8| (f32::from(v) * 0.66) as u8;
    Color32::from_rgb(f(c.r()), f(c.g()), f(c.b()))
}

/// The built-in colour at palette index `i` (0–255, then the named colours after them).
pub fn default_color(i: usize) -> Color32 {
    match i {
        0..16 => {
            let (r, g, b) = BASE16[i];
            Color32::from_rgb(r, g, b)
        }
        16..232 => {
            let i = (i - 16) as u8;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            Color32::from_rgb(level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        232..256 => {
            let g = 8 + (i - 232) as u8 * 10;
            Color32::from_rgb(g, g, g)
        }
        _ if i == NamedColor::Background as usize => BACKGROUND,
        _ if i == NamedColor::DimForeground as usize => dim(FOREGROUND),
        _ if (NamedColor::DimBlack as usize..=NamedColor::DimWhite as usize).contains(&i) => {
            dim(default_color(i - NamedColor::DimBlack as usize))
        }
        _ => FOREGROUND,
    }
}

/// The colour `color` resolves to, with the program's palette changes; `bold` brightens the eight
/// basic colours (as terminals do), `faint` dims.
pub fn resolve(color: Color, colors: &Colors, bold: bool, faint: bool) -> Color32 {
    let index = match color {
        Color::Spec(rgb) => {
            let c = Color32::from_rgb(rgb.r, rgb.g, rgb.b);
            return if faint { dim(c) } else { c };
        }
        Color::Named(n) => {
            let n = if bold && (n as usize) < 8 { n.to_bright() } else { n };
            n as usize
        }
        Color::Indexed(i) if bold && i < 8 => usize::from(i) + 8,
        Color::Indexed(i) => usize::from(i),
    };
    let c = colors[index].map_or_else(|| default_color(index), |rgb| Color32::from_rgb(rgb.r, rgb.g, rgb.b));
    if faint { dim(c) } else { c }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_palette_has_the_cube_the_greys_and_bright_bold() {
        let colors = Colors::default();
        assert_eq!(resolve(Color::Indexed(196), &colors, false, false), Color32::from_rgb(255, 0, 0));
        assert_eq!(resolve(Color::Indexed(232), &colors, false, false), Color32::from_rgb(8, 8, 8));
        assert_eq!(resolve(Color::Named(NamedColor::Red), &colors, true, false), default_color(9));
        assert_eq!(resolve(Color::Named(NamedColor::Background), &colors, false, false), BACKGROUND);
        let mut changed = Colors::default();
        changed[1] = Some(alacritty_terminal::vte::ansi::Rgb { r: 1, g: 2, b: 3 });
        assert_eq!(resolve(Color::Indexed(1), &changed, false, false), Color32::from_rgb(1, 2, 3));
    }
}
