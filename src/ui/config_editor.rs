//! The config text editor: TOML highlighting, line numbers with the lines that have problems
//! marked, jump to a line:column, completion of keys and values from the config schema (Tab takes
//! the first), and the description of the key under the pointer.

use std::sync::Arc;

use egui::text::{CCursor, CCursorRange, LayoutJob};
use egui::{Color32, RichText};

use super::i18n::config_doc;
use crate::model::config::Language;
use crate::model::config_schema::{context_at, keys_at};

/// Colour behind a line with a problem.
const PROBLEM_LINE: Color32 = Color32::from_rgba_premultiplied(90, 20, 20, 90);

/// A completion offered at the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// What the list shows.
    pub label: String,
    /// Text that replaces the word before the cursor.
    pub insert: String,
    /// Its description.
    pub doc: String,
}

/// What the person is typing at byte `offset`: the word before the cursor and the suggestions that
/// complete it (keys of the table at the cursor, or the values of an enumerated key).
pub fn suggestions(lang: Language, text: &str, offset: usize) -> (usize, Vec<Suggestion>) {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    let word_len = line.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').map(char::len_utf8).sum();
    let word = &line[line.len() - word_len..];
    let (path, value_key) = context_at(text, offset);
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    let before_word = line[..line.len() - word_len].trim_end();
    let mut out = Vec::new();
    if let Some(key) = value_key.filter(|_| before_word.ends_with('"')) {
        // Inside a string value: the values of an enumerated key.
        if let Some(doc) = keys_at(&path).into_iter().find(|k| k.key == key) {
            for v in doc.values.iter().filter(|v| v.starts_with(word) && v.as_str() != word) {
                out.push(Suggestion { label: v.clone(), insert: format!("{v}\""), doc: String::new() });
            }
        }
    } else if word_len > 0 && (before_word.is_empty() || before_word.ends_with('{') || before_word.ends_with(',')) {
        // Where a key goes, once the person has started typing it.
        for doc in keys_at(&path).into_iter().filter(|k| k.key.starts_with(word) && k.key != word) {
            let description = config_doc(lang, &path, &doc.key).unwrap_or(doc.description);
            out.push(Suggestion { label: doc.key.clone(), insert: format!("{} = ", doc.key), doc: description });
        }
    }
    (word_len, out)
}

/// The key at byte `offset` (a word followed by `=`), with its description.
pub fn hover_doc(lang: Language, text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let start = text[..offset].rfind(|c: char| !is_word(c)).map_or(0, |i| i + 1);
    let end = text[offset..].find(|c: char| !is_word(c)).map_or(text.len(), |i| offset + i);
    let word = &text[start..end];
    if word.is_empty() || !text[end..].trim_start_matches([' ', '\t']).starts_with('=') {
        return None;
    }
    let (path, _) = context_at(text, start);
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    let doc = keys_at(&path).into_iter().find(|k| k.key == word)?;
    let mut text = config_doc(lang, &path, word).unwrap_or(doc.description);
    if !doc.values.is_empty() {
        text.push_str(&format!("\n{}", doc.values.join(" | ")));
    }
    Some(text)
}

/// Byte offset of 1-based `line`:`column` (characters) in `text`.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return offset
                + l.char_indices().nth(column.saturating_sub(1)).map_or(l.trim_end_matches('\n').len(), |(b, _)| b);
        }
        offset += l.len();
    }
    text.len()
}

fn char_index(text: &str, byte: usize) -> usize {
    text[..byte.min(text.len())].chars().count()
}

fn byte_index(text: &str, chars: usize) -> usize {
    text.char_indices().nth(chars).map_or(text.len(), |(b, _)| b)
}

/// The editor. `problem_lines` (1-based) are marked; `jump` moves the cursor there.
pub fn config_editor_ui(
    ui: &mut egui::Ui,
    lang: Language,
    text: &mut String,
    problem_lines: &[usize],
    jump: &mut Option<(usize, usize)>,
) -> egui::Response {
    let id = ui.make_persistent_id("config-editor");
    let lines: Vec<usize> = problem_lines.to_vec();
    let mut layouter = |ui: &egui::Ui, buf: &dyn egui::TextBuffer, _wrap: f32| -> Arc<egui::Galley> {
        let font = egui::TextStyle::Monospace.resolve(ui.style());
        let mut job: LayoutJob = super::toml_highlight::highlight(buf.as_str(), font, ui.visuals().dark_mode);
        mark_lines(&mut job, buf.as_str(), &lines);
        ui.fonts_mut(|f| f.layout_job(job))
    };
    let line_count = text.lines().count().max(1);
    let mut numbers = LayoutJob::default();
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    for n in 1..=line_count {
        let color =
            if problem_lines.contains(&n) { Color32::from_rgb(230, 90, 90) } else { ui.visuals().weak_text_color() };
        numbers.append(&format!("{n:>4}\n"), 0.0, egui::TextFormat::simple(font.clone(), color));
    }
    let mut response = None;
    egui::ScrollArea::both().id_salt("config-editor-scroll").auto_shrink([false, false]).show(ui, |ui| {
        // The editor fills its page (it was 20 rows, whatever the window's height).
        let fill = (ui.available_height() / ui.text_style_height(&egui::TextStyle::Monospace)).floor() as usize;
        ui.horizontal_top(|ui| {
            ui.add(egui::Label::new(numbers).selectable(false));
            let output = egui::TextEdit::multiline(text)
                .id(id)
                .code_editor()
                .lock_focus(true)
                .desired_width(f32::INFINITY)
                .desired_rows(line_count.max(fill).max(10))
                .layouter(&mut layouter)
                .show(ui);
            if let Some((line, column)) = jump.take() {
                let at = char_index(text, offset_of(text, line, column));
                let mut state = output.state.clone();
                state.cursor.set_char_range(Some(CCursorRange::one(CCursor::new(at))));
                state.store(ui.ctx(), id);
                ui.memory_mut(|m| m.request_focus(id));
                let rect = output.galley.pos_from_cursor(CCursor::new(at)).translate(output.galley_pos.to_vec2());
                ui.scroll_to_rect(rect, Some(egui::Align::Center));
            }
            if output.response.has_focus()
                && let Some(range) = output.cursor_range
            {
                let offset = byte_index(text, range.primary.index.0);
                let cursor_rect = output.galley.pos_from_cursor(range.primary).translate(output.galley_pos.to_vec2());
                completion_ui(ui, lang, text, offset, cursor_rect, id);
            }
            let hovered = output.response.hover_pos();
            let mut response_out = output.response.response.clone();
            if let Some(pos) = hovered {
                let cursor = output.galley.cursor_from_pos(pos - output.galley_pos);
                if let Some(doc) = hover_doc(lang, text, byte_index(text, cursor.index.0)) {
                    response_out = response_out.on_hover_text(doc);
                }
            }
            response = Some(response_out);
        });
    });
    response.expect("the editor was shown")
}

/// The suggestions under the cursor; Tab takes the first.
fn completion_ui(ui: &mut egui::Ui, lang: Language, text: &mut String, offset: usize, at: egui::Rect, id: egui::Id) {
    let (word_len, list) = suggestions(lang, text, offset);
    if list.is_empty() {
        return;
    }
    let take_first = ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Tab));
    let mut chosen = take_first.then(|| list[0].clone());
    egui::Area::new(id.with("completion")).fixed_pos(at.left_bottom()).order(egui::Order::Foreground).show(
        ui.ctx(),
        |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                for s in list.iter().take(8) {
                    ui.horizontal(|ui| {
                        if ui.selectable_label(false, RichText::new(&s.label).monospace()).clicked() {
                            chosen = Some(s.clone());
                        }
                        if !s.doc.is_empty() {
                            ui.label(RichText::new(&s.doc).small().weak());
                        }
                    });
                }
            });
        },
    );
    if let Some(s) = chosen {
        text.replace_range(offset - word_len..offset, &s.insert);
        let at = char_index(text, offset - word_len + s.insert.len());
        if let Some(mut state) = egui::TextEdit::load_state(ui.ctx(), id) {
            state.cursor.set_char_range(Some(CCursorRange::one(CCursor::new(at))));
            state.store(ui.ctx(), id);
        }
    }
}

/// Gives the sections on `lines` (1-based) a red background.
fn mark_lines(job: &mut LayoutJob, text: &str, lines: &[usize]) {
    if lines.is_empty() {
        return;
    }
    let mut line_starts = vec![0];
    line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let line_of = |byte: usize| line_starts.partition_point(|s| *s <= byte);
    for section in &mut job.sections {
        if lines.contains(&line_of(section.byte_range.start.0)) {
            section.format.background = PROBLEM_LINE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values_are_suggested_from_the_schema() {
        let text = "[[agent]]\nna";
        let (word, list) = suggestions(Language::En, text, text.len());
        assert_eq!(word, 2);
        assert_eq!(list[0].insert, "name = ");
        assert!(list[0].doc.contains("Unique name"));
        let text = "[[agent]]\nruntime = { type = \"co";
        let (word, list) = suggestions(Language::En, text, text.len());
        assert_eq!(word, 2);
        let labels: Vec<&str> = list.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["container"]);
        let text = "[defaults]\nidle_stop = 1";
        assert!(suggestions(Language::En, text, text.len()).1.is_empty(), "no keys inside a value");
    }

    #[test]
    fn hover_describes_keys_in_the_ui_language() {
        let text = "[defaults]\nmax_running = 2\n";
        let doc = hover_doc(Language::En, text, 13).unwrap();
        assert!(doc.contains("at once"), "{doc}");
        let doc = hover_doc(Language::Fr, text, 13).unwrap();
        assert!(doc.contains("en même temps"), "{doc}");
        assert_eq!(hover_doc(Language::En, text, 26), None, "a value is not a key");
    }

    #[test]
    fn line_and_column_become_an_offset() {
        let text = "ab\nçd\nef";
        assert_eq!(offset_of(text, 2, 2), 5);
        assert_eq!(offset_of(text, 3, 1), 7);
        assert_eq!(offset_of(text, 9, 1), text.len());
    }
}
