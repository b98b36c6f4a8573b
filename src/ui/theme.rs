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

/// Colour of error text.
pub const ERROR: Color32 = Color32::from_rgb(225, 80, 80);
