//! The status line (config path, count of problems) and the list of config problems.

use egui::RichText;

use super::i18n::{Key, problem_text, tr, trf};
use super::theme::{ERROR, WARNING};
use crate::app::AppState;
use crate::model::problem::Severity;

/// The status line at the bottom of the window.
pub fn status_ui(ui: &mut egui::Ui, state: &AppState) {
    let lang = state.language;
    ui.horizontal(|ui| {
        let path = state.config_path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        ui.label(RichText::new(trf(lang, Key::ConfigFile, &[("path", &path)])).small());
        ui.separator();
        if state.problems.is_empty() {
            ui.label(RichText::new(tr(lang, Key::NoProblems)).small().weak());
        } else {
            let count = state.problems.len().to_string();
            ui.label(RichText::new(trf(lang, Key::ProblemCount, &[("count", &count)])).small().color(ERROR));
        }
    });
}

/// The problems of the last load, with line:column, when there are any.
pub fn problems_ui(ui: &mut egui::Ui, state: &AppState) {
    if state.problems.is_empty() {
        return;
    }
    let lang = state.language;
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.0, ERROR)).show(ui, |ui| {
        ui.label(RichText::new(tr(lang, Key::ProblemsTitle)).strong().color(ERROR));
        for p in &state.problems {
            let text = format!("{}:{}  {}", p.line, p.column, problem_text(lang, &p.kind));
            match p.severity() {
                Severity::Error => ui.label(text),
                Severity::Warning => ui.label(RichText::new(text).color(WARNING)),
            };
        }
        if state.config.is_some() {
            ui.label(RichText::new(tr(lang, Key::KeptLastGood)).weak());
        }
    });
    ui.add_space(6.0);
}
