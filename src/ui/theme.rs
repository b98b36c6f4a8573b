//! Colours shared by the views.

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
