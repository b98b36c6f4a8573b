//! The open file of a workspace: highlighted by extension, a dirty marker, Save (and Ctrl+S), and a
//! conflict bar when the file changes on disk under unsaved edits.

use std::sync::Arc;

use egui::RichText;
use egui::text::LayoutJob;

use super::i18n::{Key, tr, trf};
use super::theme::{error_color, warning_color};
use crate::model::config::Language;
use crate::model::rel_path::RelPath;
use crate::protocol::workspace::Version;

pub use crate::app::files_state::{FileState, MAX_OPEN, OpenFile};

/// What the editor asks for.
pub enum EditorAction {
    /// Write the text over `expected`.
    Save {
        /// The text.
        text: String,
        /// What was expected.
        expected: Version,
    },
    /// Rename the file (its dialog).
    Rename,
    /// Delete the file (its dialog).
    Delete,
}

fn language(path: &RelPath) -> Option<&'static str> {
    language_of(path.name())
}

/// The highlighter's language for a file named `name` (by its extension), if it knows one.
pub(super) fn language_of(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "rs" => "rs",
        "py" => "py",
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "tsx" => "js",
        "json" => "json",
        "yaml" | "yml" => "yaml",
        "md" | "markdown" => "md",
        "sh" | "bash" | "zsh" => "sh",
        "toml" => "toml",
        "html" | "htm" => "html",
        "css" => "css",
        "c" | "h" => "c",
        "cpp" | "hpp" | "cc" => "cpp",
        "go" => "go",
        "java" => "java",
        _ => return None,
    })
}

/// Draws the open file; returns what the person asked for.
pub fn file_editor_ui(ui: &mut egui::Ui, lang: Language, file: &mut OpenFile) -> Option<EditorAction> {
    let mut action = header_ui(ui, lang, file);
    if let Some((theirs, version)) = file.conflict.clone() {
        egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, warning_color())).show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(tr(lang, Key::ChangedOnDisk)).color(warning_color()));
                if ui.button(tr(lang, Key::TakeTheirs)).clicked() {
                    file.text = theirs.clone();
                    file.base = Some((theirs.clone(), version.clone()));
                    file.conflict = None;
                }
                if ui.button(tr(lang, Key::KeepMine)).clicked() {
                    // Theirs becomes the base: the save now knowingly replaces it.
                    file.base = Some((theirs.clone(), version.clone()));
                    file.conflict = None;
                    file.saving = true;
                    action = Some(EditorAction::Save { text: file.text.clone(), expected: version.clone() });
                }
            });
        });
    }
    ui.separator();
    match &file.state {
        FileState::Loading => {
            ui.spinner();
        }
        FileState::Binary => {
            ui.label(tr(lang, Key::BinaryFile));
        }
        FileState::TooLarge(size) => {
            ui.label(trf(lang, Key::LargeFile, &[("size", &(size / 1024).to_string())]));
        }
        FileState::Failed(why) => {
            ui.label(RichText::new(crate::i18n::workspace_error_text(lang, why)).color(error_color()));
        }
        FileState::Text => {
            let lang_code = language(&file.path);
            let mut layouter = |ui: &egui::Ui, buf: &dyn egui::TextBuffer, _wrap: f32| -> Arc<egui::Galley> {
                let font = egui::TextStyle::Monospace.resolve(ui.style());
                let job: LayoutJob = match lang_code {
                    Some("toml") => super::toml_highlight::highlight(buf.as_str(), font, ui.visuals().dark_mode),
                    Some(code) => {
                        let theme = egui_extras::syntax_highlighting::CodeTheme::from_memory(ui.ctx(), ui.style());
                        egui_extras::syntax_highlighting::highlight(ui.ctx(), ui.style(), &theme, buf.as_str(), code)
                    }
                    None => LayoutJob::simple(buf.as_str().to_string(), font, ui.visuals().text_color(), f32::INFINITY),
                };
                ui.fonts_mut(|f| f.layout_job(job))
            };
            let id = ui.make_persistent_id(("file-editor-text", &file.path));
            auto_indent(ui, id, &mut file.text);
            let lines = file.text.lines().count().max(1) + usize::from(file.text.ends_with('\n'));
            egui::ScrollArea::both().id_salt("file-editor").auto_shrink([false, false]).show(ui, |ui| {
                // The editor fills its page (it was 30 rows, whatever the window's height).
                let row = ui.text_style_height(&egui::TextStyle::Monospace);
                let rows = ((ui.available_height() / row).floor() as usize).max(10);
                ui.horizontal_top(|ui| {
                    ui.add(egui::Label::new(line_numbers(ui, lines)).selectable(false));
                    ui.add(
                        egui::TextEdit::multiline(&mut file.text)
                            .id(id)
                            .code_editor()
                            .desired_width(f32::INFINITY)
                            .desired_rows(rows)
                            .layouter(&mut layouter),
                    );
                });
            });
        }
    }
    action
}

/// The gutter: numbers 1 to `lines`, in the editor's font so each faces its line.
fn line_numbers(ui: &egui::Ui, lines: usize) -> LayoutJob {
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let color = ui.visuals().weak_text_color();
    let width = lines.to_string().len().max(3);
    let mut numbers = String::with_capacity(lines * (width + 1));
    for n in 1..=lines {
        numbers.push_str(&format!("{n:>width$}\n"));
    }
    LayoutJob::simple(numbers, font, color, f32::INFINITY)
}

/// Enter in the editor (id `id`) starts the new line indented like the current one, a step more
/// after a line that opens a block. Taken before the text field would insert a bare line break.
fn auto_indent(ui: &mut egui::Ui, id: egui::Id, text: &mut String) {
    if !ui.memory(|m| m.has_focus(id)) {
        return;
    }
    let Some(mut state) = egui::TextEdit::load_state(ui.ctx(), id) else { return };
    let Some(range) = state.cursor.char_range() else { return };
    if !ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Enter)) {
        return;
    }
    let byte = |c: usize| text.char_indices().nth(c).map_or(text.len(), |(b, _)| b);
    let (from, to) = {
        let [a, b] = range.sorted_cursors();
        (byte(a.index.0), byte(b.index.0))
    };
    let inserted = crate::model::indent::newline_at(text, from);
    text.replace_range(from..to, &inserted);
    let at = text[..from + inserted.len()].chars().count();
    state.cursor.set_char_range(Some(egui::text::CCursorRange::one(egui::text::CCursor::new(at))));
    state.store(ui.ctx(), id);
}

/// The file's header: its path, modified, Save (Ctrl+S), Rename, Delete, and how the last save went.
fn header_ui(ui: &mut egui::Ui, lang: Language, file: &mut OpenFile) -> Option<EditorAction> {
    let mut action = None;
    let dirty = file.is_dirty();
    ui.horizontal(|ui| {
        ui.label(RichText::new(file.path.as_str()).monospace().strong());
        if dirty {
            ui.label(RichText::new(tr(lang, Key::Modified)).small().color(warning_color()));
        }
        let can_save = dirty && file.conflict.is_none() && !file.saving;
        let save = ui.add_enabled(can_save, egui::Button::new(tr(lang, Key::Save))).clicked();
        let shortcut =
            ui.input_mut(|i| i.consume_shortcut(&egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::S)));
        if (save || (shortcut && can_save))
            && let Some((_, version)) = &file.base
        {
            file.saving = true;
            action = Some(EditorAction::Save { text: file.text.clone(), expected: version.clone() });
        }
        // Rename and Delete in sight, not only on the tree's right-click (issue 48, item 10).
        if ui.small_button(tr(lang, Key::Rename)).clicked() {
            action = Some(EditorAction::Rename);
        }
        if ui.small_button(tr(lang, Key::Delete)).clicked() {
            action = Some(EditorAction::Delete);
        }
        if file.saved && !dirty {
            ui.label(RichText::new(tr(lang, Key::SavedMark)).small().color(crate::ui::theme::ok_color()));
        }
        if let Some(error) = &file.save_error {
            let error = crate::i18n::workspace_error_text(lang, error);
            ui.label(RichText::new(trf(lang, Key::SaveFailed, &[("error", &error)])).small().color(error_color()));
        }
    });
    action
}
