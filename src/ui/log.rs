//! The Log view: what the agent wrote to stderr, newest at the bottom, in the colours it wrote
//! them (escape codes read, never shown).

use egui::RichText;
use egui::text::{LayoutJob, TextFormat};

use super::i18n::{Key, log_text, tr};
use crate::app::AgentView;
use crate::model::ansi::{Colour, spans};
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
                ui.label(coloured(ui, &log_text(lang, entry)));
            }
        },
    );
}

/// `line` as a layout job: its spans in their colours.
fn coloured(ui: &egui::Ui, line: &str) -> LayoutJob {
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let normal = ui.visuals().text_color();
    let mut job = LayoutJob::default();
    for span in spans(line) {
        let mut color = match span.style.fg {
            Colour::Default => normal,
            Colour::Indexed(i) => super::terminal::colors::default_color(usize::from(i)),
            Colour::Rgb(r, g, b) => egui::Color32::from_rgb(r, g, b),
        };
        if span.style.dim {
            color = color.gamma_multiply(0.6);
        }
        let format = TextFormat {
            font_id: font.clone(),
            color,
            italics: span.style.italic,
            underline: if span.style.underline { egui::Stroke::new(1.0, color) } else { egui::Stroke::NONE },
            ..Default::default()
        };
        // Bold: the strong colour where the span has none of its own.
        let format = if span.style.bold && span.style.fg == Colour::Default {
            TextFormat { color: ui.visuals().strong_text_color(), ..format }
        } else {
            format
        };
        job.append(&span.text, 0.0, format);
    }
    job
}
