//! The Log view: what the agent wrote to stderr, newest at the bottom.

use egui::RichText;

use super::i18n::{Key, log_text, tr};
use crate::app::AgentView;
use crate::model::config::Language;

/// Draws the log of `agent`, a row at a time (only visible rows are laid out).
pub fn log_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) {
    if agent.log.is_empty() {
        ui.label(RichText::new(tr(lang, Key::EmptyLog)).weak());
        return;
    }
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace);
    egui::ScrollArea::both().stick_to_bottom(true).auto_shrink([false, false]).show_rows(
        ui,
        row_height,
        agent.log.len(),
        |ui, rows| {
            for entry in agent.log.range(rows) {
                ui.label(RichText::new(log_text(lang, entry)).monospace());
            }
        },
    );
}
