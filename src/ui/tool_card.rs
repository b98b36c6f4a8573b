//! A tool call as a card: status, title, kind, input and output folded, diffs in colour.

use egui::{Color32, RichText};

use super::i18n::{Key, tr, trf};
use super::theme::{error_color, ok_color};
use crate::model::config::Language;
use crate::model::tool::{FileDiff, ToolCall, ToolStatus};

/// Draws `call` of an agent working in `workspace` (paths are shown relative to it).
pub fn tool_card_ui(
    ui: &mut egui::Ui,
    lang: Language,
    call: &ToolCall,
    terminals: &std::collections::HashMap<String, crate::app::CommandOutput>,
    workspace: &std::path::Path,
) {
    egui::Frame::group(ui.style()).corner_radius(super::theme::RADIUS).show(ui, |ui| {
        ui.set_width(ui.available_width());
        // One line, folded, once done (a click on the title or the arrow unfolds it); unfolded
        // while it runs, and it stays as the person left it.
        let running = matches!(call.status, ToolStatus::Pending | ToolStatus::InProgress);
        let id = ui.make_persistent_id(("tool-card", call.id.as_str()));
        let mut fold = egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, running);
        let mut toggled = false;
        ui.horizontal(|ui| {
            fold.show_toggle_button(ui, egui::collapsing_header::paint_default_icon);
            // A command that exited with an error failed, whatever the agent calls the call.
            let exits: Vec<&(Option<u32>, Option<String>)> =
                call.terminals.iter().filter_map(|id| terminals.get(id)?.exit.as_ref()).collect();
            let command_failed = exits.iter().any(|exit| !matches!(exit, (Some(0), _)));
            let (key, color) = match call.status {
                ToolStatus::Pending => (Key::ToolPending, ui.visuals().weak_text_color()),
                ToolStatus::InProgress => (Key::ToolRunning, Color32::from_rgb(80, 150, 240)),
                ToolStatus::Completed if command_failed => (Key::ToolFailed, error_color()),
                ToolStatus::Completed => (Key::ToolDone, ok_color()),
                ToolStatus::Failed => (Key::ToolFailed, error_color()),
                ToolStatus::Cancelled => (Key::ToolCancelled, ui.visuals().weak_text_color()),
            };
            ui.label(RichText::new(tr(lang, key)).small().color(color));
            let title = RichText::new(crate::model::tool::human_title(call, workspace)).strong();
            toggled = ui.add(egui::Label::new(title).sense(egui::Sense::click())).clicked();
            ui.label(RichText::new(crate::i18n::tool_kind_text(lang, call.kind)).small().weak());
            for exit in exits {
                exit_ui(ui, lang, exit);
            }
            let (added, removed) = diff_counts(&call.diffs);
            if added + removed > 0 {
                ui.label(RichText::new(format!("+{added}")).small().color(ok_color()));
                ui.label(RichText::new(format!("−{removed}")).small().color(error_color()));
            }
        });
        if toggled {
            fold.toggle(ui);
        }
        fold.show_body_unindented(ui, |ui| body_ui(ui, lang, call, terminals, workspace));
    });
}

/// How a command ended: its exit code (red unless 0) or the signal that ended it.
fn exit_ui(ui: &mut egui::Ui, lang: Language, exit: &(Option<u32>, Option<String>)) {
    match exit {
        (Some(code), _) => {
            let color = if *code == 0 { ok_color() } else { error_color() };
            ui.label(RichText::new(trf(lang, Key::ExitCode, &[("code", &code.to_string())])).small().color(color));
        }
        (None, signal) => {
            let signal = signal.clone().unwrap_or_default();
            ui.label(RichText::new(trf(lang, Key::EndedBySignal, &[("signal", &signal)])).small().color(error_color()));
        }
    }
}

/// Lines added and removed by `diffs`.
fn diff_counts(diffs: &[FileDiff]) -> (usize, usize) {
    let mut counts = (0, 0);
    for diff in diffs {
        let lines = similar::TextDiff::from_lines(diff.old_text.as_deref().unwrap_or(""), &diff.new_text);
        for change in lines.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => counts.0 += 1,
                similar::ChangeTag::Delete => counts.1 += 1,
                similar::ChangeTag::Equal => {}
            }
        }
    }
    counts
}

/// What a card holds unfolded: the agent's text, the diffs, the commands' output, the input as a
/// form and the output.
fn body_ui(
    ui: &mut egui::Ui,
    lang: Language,
    call: &ToolCall,
    terminals: &std::collections::HashMap<String, crate::app::CommandOutput>,
    workspace: &std::path::Path,
) {
    for text in &call.content {
        ui.label(RichText::new(text).monospace());
    }
    for diff in &call.diffs {
        diff_ui(ui, &crate::model::tool::relative_to(&diff.path, workspace), diff);
    }
    for id in &call.terminals {
        let Some(output) = terminals.get(id) else { continue };
        super::terminal::view::output_ui(ui, (call.id.as_str(), id.as_str()), output);
    }
    let id = ("tool", call.id.as_str());
    if let Some(input) = &call.input {
        // As a form: each field's name and value, not the raw JSON.
        egui::CollapsingHeader::new(tr(lang, Key::Input)).id_salt((id, "in")).show(ui, |ui| {
            egui::Grid::new((id, "in-grid")).num_columns(2).striped(true).show(ui, |ui| {
                for (name, value) in crate::model::tool::readable_input(input) {
                    ui.label(RichText::new(name).weak());
                    ui.label(RichText::new(value).monospace());
                    ui.end_row();
                }
            });
        });
    }
    if let Some(output) = &call.output {
        egui::CollapsingHeader::new(tr(lang, Key::Output))
            .id_salt((id, "out"))
            .show(ui, |ui| ui.label(RichText::new(output).monospace()));
    }
}

/// A unified line diff of the file shown as `path`: a header per hunk (`@@ -12,4 +12,6 @@`),
/// the old and new line numbers, removed lines in red and added ones in green.
pub fn diff_ui(ui: &mut egui::Ui, path: &str, diff: &FileDiff) {
    ui.label(RichText::new(path).monospace().strong());
    let old = diff.old_text.as_deref().unwrap_or("");
    let text_diff = similar::TextDiff::from_lines(old, &diff.new_text);
    let mut job = egui::text::LayoutJob::default();
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let weak = ui.visuals().weak_text_color();
    let number = |n: Option<usize>| n.map_or_else(|| "    ".to_string(), |n| format!("{:>4}", n + 1));
    for group in text_diff.grouped_ops(2) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let (old_from, old_to) = (first.old_range().start, last.old_range().end);
        let (new_from, new_to) = (first.new_range().start, last.new_range().end);
        let header = format!("@@ -{},{} +{},{} @@\n", old_from + 1, old_to - old_from, new_from + 1, new_to - new_from);
        job.append(&header, 0.0, egui::TextFormat::simple(font.clone(), HUNK));
        for op in &group {
            for change in text_diff.iter_changes(op) {
                let (sign, color) = match change.tag() {
                    similar::ChangeTag::Delete => ("-", error_color()),
                    similar::ChangeTag::Insert => ("+", ok_color()),
                    similar::ChangeTag::Equal => (" ", weak),
                };
                let numbers = format!("{} {} ", number(change.old_index()), number(change.new_index()));
                job.append(&numbers, 0.0, egui::TextFormat::simple(font.clone(), weak));
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

/// The colour of a hunk's header.
const HUNK: Color32 = Color32::from_rgb(110, 150, 220);
