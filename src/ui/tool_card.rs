//! A tool call as a card: status, title, kind, input and output folded, diffs in colour.

use egui::{Color32, RichText};

use super::i18n::{Key, tr, trf};
use super::theme::{ERROR, OK};
use crate::model::config::Language;
use crate::model::tool::{FileDiff, ToolCall, ToolStatus};

/// Draws `call`.
pub fn tool_card_ui(
    ui: &mut egui::Ui,
    lang: Language,
    call: &ToolCall,
    terminals: &std::collections::HashMap<String, crate::app::CommandOutput>,
) {
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            let (key, color) = match call.status {
                ToolStatus::Pending => (Key::ToolPending, ui.visuals().weak_text_color()),
                ToolStatus::InProgress => (Key::ToolRunning, Color32::from_rgb(80, 150, 240)),
                ToolStatus::Completed => (Key::ToolDone, OK),
                ToolStatus::Failed => (Key::ToolFailed, ERROR),
                ToolStatus::Cancelled => (Key::ToolCancelled, ui.visuals().weak_text_color()),
            };
            ui.label(RichText::new(tr(lang, key)).small().color(color));
            ui.label(RichText::new(&call.title).strong());
            ui.label(RichText::new(call.kind.code()).small().weak());
        });
        for text in &call.content {
            ui.label(RichText::new(text).monospace());
        }
        for diff in &call.diffs {
            diff_ui(ui, diff);
        }
        for id in &call.terminals {
            let Some(output) = terminals.get(id) else { continue };
            super::terminal_view::output_ui(ui, (call.id.as_str(), id.as_str()), output);
            match &output.exit {
                Some((Some(code), _)) => {
                    let color = if *code == 0 { OK } else { ERROR };
                    ui.label(
                        RichText::new(trf(lang, Key::ExitCode, &[("code", &code.to_string())])).small().color(color),
                    );
                }
                Some((None, signal)) => {
                    let signal = signal.clone().unwrap_or_default();
                    ui.label(RichText::new(trf(lang, Key::EndedBySignal, &[("signal", &signal)])).small().color(ERROR));
                }
                None => {}
            }
        }
        let id = ("tool", call.id.as_str());
        if let Some(input) = &call.input {
            egui::CollapsingHeader::new(tr(lang, Key::Input))
                .id_salt((id, "in"))
                .show(ui, |ui| ui.label(RichText::new(input).monospace()));
        }
        if let Some(output) = &call.output {
            egui::CollapsingHeader::new(tr(lang, Key::Output))
                .id_salt((id, "out"))
                .show(ui, |ui| ui.label(RichText::new(output).monospace()));
        }
    });
}

/// A unified line diff, removed lines in red and added ones in green.
pub fn diff_ui(ui: &mut egui::Ui, diff: &FileDiff) {
    ui.label(RichText::new(&diff.path).monospace().strong());
    let old = diff.old_text.as_deref().unwrap_or("");
    let text_diff = similar::TextDiff::from_lines(old, &diff.new_text);
    let mut job = egui::text::LayoutJob::default();
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    for group in text_diff.grouped_ops(2) {
        for op in group {
            for change in text_diff.iter_changes(&op) {
                let (sign, color) = match change.tag() {
                    similar::ChangeTag::Delete => ("-", ERROR),
                    similar::ChangeTag::Insert => ("+", OK),
                    similar::ChangeTag::Equal => (" ", ui.visuals().weak_text_color()),
                };
                let mut line = format!("{sign} {}", change.value());
                if !line.ends_with('\n') {
                    line.push('\n');
                }
                job.append(&line, 0.0, egui::TextFormat::simple(font.clone(), color));
            }
        }
    }
    ui.label(job);
}
