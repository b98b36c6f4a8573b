//! The look, chosen once: colours, spacing and shapes shared by the views. Light and dark
//! follow the system (egui's default theme preference); colours that must read on both ask the
//! visuals.

use egui::Color32;

use crate::app::AgentState;

/// The colour of an agent's state dot.
pub fn state_color(state: &AgentState) -> Color32 {
    match state {
        AgentState::Stopped => Color32::from_gray(140),
        AgentState::Starting => Color32::from_rgb(230, 190, 60),
        AgentState::Idle => Color32::from_rgb(80, 190, 100),
        AgentState::Busy => Color32::from_rgb(80, 150, 240),
        AgentState::Stopping => Color32::from_rgb(230, 140, 60),
        AgentState::Crashed(_) => Color32::from_rgb(225, 70, 70),
    }
}

thread_local! {
    /// Whether the frame being drawn on this thread is dark (set at the start of each frame).
    static DARK: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// The theme of the frame about to be drawn: the status colours follow it.
pub fn set_dark(dark: bool) {
    DARK.with(|d| d.set(dark));
}

fn dark() -> bool {
    DARK.with(std::cell::Cell::get)
}

/// Colour of success (done, added lines), readable on the theme's pages (4.5:1 or more).
pub fn ok_color() -> Color32 {
    if dark() { Color32::from_rgb(90, 190, 110) } else { Color32::from_rgb(25, 115, 50) }
}

/// Colour of warning text.
pub fn warning_color() -> Color32 {
    if dark() { Color32::from_rgb(230, 170, 50) } else { Color32::from_rgb(145, 85, 0) }
}

/// Colour of error text.
pub fn error_color() -> Color32 {
    if dark() { Color32::from_rgb(250, 115, 115) } else { Color32::from_rgb(185, 30, 30) }
}

/// Space between two messages.
pub const GAP: f32 = 6.0;

/// Space before a new turn (the person's message), above its rule.
pub const TURN_GAP: f32 = 10.0;

/// Corner radius of blocks (the person's messages, cards).
pub const RADIUS: f32 = 6.0;

/// Inside margin of a block.
pub const BLOCK_MARGIN: f32 = 8.0;

/// The background of the person's messages: a step away from the page, in either theme.
pub fn user_block(visuals: &egui::Visuals) -> Color32 {
    if visuals.dark_mode { Color32::from_rgb(38, 44, 56) } else { Color32::from_rgb(232, 238, 248) }
}

/// The frame of a message of the person's: a block of its own (a conversation, a channel, a
/// thread read).
pub fn user_frame(visuals: &egui::Visuals) -> egui::Frame {
    egui::Frame::new().fill(user_block(visuals)).corner_radius(RADIUS).inner_margin(BLOCK_MARGIN)
}

/// The colour of the agent at `place` in the config's list: the same in every view, and
/// different for each of the first eight agents (readable on light and dark pages).
pub fn member_color(place: usize) -> Color32 {
    const HUES: [(u8, u8, u8); 8] = [
        (86, 156, 214),
        (206, 120, 60),
        (106, 170, 90),
        (190, 100, 190),
        (200, 170, 50),
        (70, 170, 170),
        (214, 90, 110),
        (140, 130, 220),
    ];
    let (r, g, b) = HUES[place % HUES.len()];
    Color32::from_rgb(r, g, b)
}

/// A disc in the colour of the agent at `place`, with the initial of its `name`: who wrote a
/// message, at a glance.
pub fn avatar(ui: &mut egui::Ui, name: &str, place: usize) -> egui::Response {
    let size = ui.text_style_height(&egui::TextStyle::Body) + 2.0;
    let (rect, response) = ui.allocate_exact_size(egui::vec2(size, size), egui::Sense::hover());
    let color = member_color(place);
    ui.painter().circle_filled(rect.center(), size / 2.0, color);
    let initial: String =
        name.chars().find(|c| c.is_alphanumeric()).map(|c| c.to_uppercase().collect()).unwrap_or_default();
    ui.painter().text(
        rect.center(),
        egui::Align2::CENTER_CENTER,
        initial,
        egui::FontId::proportional(size * 0.6),
        Color32::WHITE,
    );
    response
}

/// A small filled circle in the colour of `state`, with the state's words on hover.
pub fn state_dot(ui: &mut egui::Ui, state: &AgentState, hover: &str) -> egui::Response {
    let size = egui::vec2(10.0, 10.0);
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
    ui.painter().circle_filled(rect.center(), 4.5, state_color(state));
    response.on_hover_text(hover)
}

/// The type scale: nothing a person must read under 12 px, body text 14 px (egui's defaults
/// are 9 and 13: message actions, hints and the status bar were hard to read).
pub fn type_scale() -> std::collections::BTreeMap<egui::TextStyle, egui::FontId> {
    use egui::{FontFamily::Monospace, FontFamily::Proportional, FontId, TextStyle};
    [
        (TextStyle::Small, FontId::new(12.0, Proportional)),
        (TextStyle::Body, FontId::new(14.0, Proportional)),
        (TextStyle::Button, FontId::new(14.0, Proportional)),
        (TextStyle::Heading, FontId::new(20.0, Proportional)),
        (TextStyle::Monospace, FontId::new(14.0, Monospace)),
    ]
    .into()
}

/// Weak text (hints, times, labels beside values) at 4.5:1 or more on the theme's pages (egui
/// dims the text colour by alpha, which fell under 3:1).
fn weak_text(dark: bool) -> Color32 {
    if dark { Color32::from_gray(165) } else { Color32::from_gray(95) }
}

/// Style settings applied once at start-up: the type scale, weak text that reads, scroll bars
/// beside what they scroll (floating ones covered the ends of buttons: "Retr", "Réessaye"). The
/// text cursor does not blink: a blinking cursor repaints twice a second, and an idle Sidekicks
/// draws nothing.
pub fn apply(ctx: &egui::Context) {
    ctx.all_styles_mut(|style| {
        style.visuals.text_cursor.blink = false;
        style.text_styles = type_scale();
        style.spacing.scroll = egui::style::ScrollStyle::solid();
        let dark = style.visuals.dark_mode;
        style.visuals.weak_text_color = Some(weak_text(dark));
        // Body text (egui's dark grey 140 fell under 4.5:1 on the person's blocks).
        style.visuals.widgets.noninteractive.fg_stroke.color =
            if dark { Color32::from_gray(210) } else { Color32::from_gray(30) };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WCAG's relative luminance of an sRGB colour.
    fn luminance(c: Color32) -> f64 {
        let lin = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * lin(c.r()) + 0.7152 * lin(c.g()) + 0.0722 * lin(c.b())
    }

    fn contrast(a: Color32, b: Color32) -> f64 {
        let (a, b) = (luminance(a), luminance(b));
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// Text a person must read is 4.5:1 or more on every page it is drawn on, in both themes
    /// (WCAG AA); the type scale has its floor.
    #[test]
    fn text_reads_in_both_themes() {
        for dark in [true, false] {
            let ctx = egui::Context::default();
            apply(&ctx);
            set_dark(dark);
            let style = ctx.style_of(if dark { egui::Theme::Dark } else { egui::Theme::Light });
            let v = &style.visuals;
            // A tint (not opaque) is seen over the panel.
            let over = |tint: Color32| {
                let k = 1.0 - f32::from(tint.a()) / 255.0;
                let mix = |t: u8, p: u8| (f32::from(t) + f32::from(p) * k).round().min(255.0) as u8;
                let p = v.panel_fill;
                Color32::from_rgb(mix(tint.r(), p.r()), mix(tint.g(), p.g()), mix(tint.b(), p.b()))
            };
            let pages = [v.panel_fill, v.window_fill, over(v.faint_bg_color), over(v.extreme_bg_color), user_block(v)];
            let texts = [
                ("text", v.text_color()),
                ("weak", v.weak_text_color()),
                ("strong", v.strong_text_color()),
                ("ok", ok_color()),
                ("warning", warning_color()),
                ("error", error_color()),
            ];
            for (name, text) in texts {
                for page in pages {
                    let ratio = contrast(text, page);
                    assert!(ratio >= 4.5, "{name} {text:?} on {page:?} (dark {dark}): {ratio:.2}:1");
                }
            }
            let size = |s: egui::TextStyle| style.text_styles[&s].size;
            assert!(size(egui::TextStyle::Small) >= 12.0 && size(egui::TextStyle::Body) >= 14.0);
        }
    }

    #[test]
    fn the_first_eight_agents_each_have_their_own_colour() {
        let colours: std::collections::HashSet<_> = (0..8).map(member_color).collect();
        assert_eq!(colours.len(), 8);
        assert_eq!(member_color(9), member_color(1), "then round again");
    }
}
