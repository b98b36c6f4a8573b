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

/// Colour of success (done, added lines).
pub const OK: Color32 = Color32::from_rgb(90, 190, 110);

/// Colour of warning text.
pub const WARNING: Color32 = Color32::from_rgb(230, 170, 50);

/// Colour of error text.
pub const ERROR: Color32 = Color32::from_rgb(225, 80, 80);

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

/// Style settings applied once at start-up. The text cursor does not blink: a blinking cursor
/// repaints twice a second, and an idle Sidekicks draws nothing.
pub fn apply(ctx: &egui::Context) {
    ctx.all_styles_mut(|style| style.visuals.text_cursor.blink = false);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_eight_agents_each_have_their_own_colour() {
        let colours: std::collections::HashSet<_> = (0..8).map(member_color).collect();
        assert_eq!(colours.len(), 8);
        assert_eq!(member_color(9), member_color(1), "then round again");
    }
}
