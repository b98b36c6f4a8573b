//! Ctrl+F in a conversation: a bar above the messages; the messages that hold the words are
//! framed, the current one strongly, and scrolled to; Enter / Shift+Enter (or the arrows) go to
//! the next / previous one; Esc closes.

use egui::{Key as EguiKey, Modifiers, RichText};

use super::i18n::{Key, tr, trf};
use super::message_list::MessageList;
use crate::model::config::Language;
use crate::model::conversation::Message;

/// The bar's state (per agent, while open).
#[derive(Clone, Debug, Default)]
pub struct FindBar {
    query: String,
    current: usize,
    /// The matches for (query, message count, the last message's length).
    cached: Option<((String, usize, usize), Vec<usize>)>,
    /// Take the keyboard on the next frame.
    focus: bool,
    /// Show the first match once the matches of a new query are known.
    jump: bool,
    /// The field had the keyboard last frame (egui drops focus on Esc before the field sees it).
    had_focus: bool,
}

impl FindBar {
    /// A bar that takes the keyboard.
    pub fn opened() -> Self {
        Self { focus: true, ..Self::default() }
    }
}

/// What the messages are framed by.
pub struct Found {
    /// Messages that hold the words.
    pub matches: Vec<usize>,
    /// The one shown now.
    pub current: Option<usize>,
    /// The words looked for (marked in the messages).
    pub query: String,
}

/// The bar; `None` when it was closed.
pub fn find_bar_ui(
    ui: &mut egui::Ui,
    lang: Language,
    bar: &mut Option<FindBar>,
    messages: &[Message],
    list: &mut MessageList,
) -> Option<Found> {
    let state = bar.as_mut()?;
    let key = (state.query.clone(), messages.len(), messages.last().map_or(0, |m| m.text().len()));
    if state.cached.as_ref().is_none_or(|(k, _)| *k != key) {
        let found = crate::model::find::matches(messages, &state.query);
        state.cached = Some((key, found));
    }
    let matches = state.cached.as_ref().map(|(_, m)| m.clone()).unwrap_or_default();
    let mut close = false;
    let mut step: i64 = 0;
    ui.horizontal(|ui| {
        let id = egui::Id::unique("find-query");
        // Read before the field: a one-line field gives up the keyboard on Enter.
        if state.had_focus || ui.memory(|m| m.has_focus(id)) {
            let (enter, shift_enter, down, up, escape) = ui.input_mut(|i| {
                (
                    i.consume_key(Modifiers::NONE, EguiKey::Enter),
                    i.consume_key(Modifiers::SHIFT, EguiKey::Enter),
                    i.consume_key(Modifiers::NONE, EguiKey::ArrowDown),
                    i.consume_key(Modifiers::NONE, EguiKey::ArrowUp),
                    i.consume_key(Modifiers::NONE, EguiKey::Escape),
                )
            });
            if enter || down {
                step = 1;
            }
            if shift_enter || up {
                step = -1;
            }
            close |= escape;
        }
        let edit = ui.add(
            egui::TextEdit::singleline(&mut state.query).id(id).hint_text(tr(lang, Key::FindHint)).desired_width(260.0),
        );
        if std::mem::take(&mut state.focus) {
            edit.request_focus();
        }
        state.had_focus = edit.has_focus();
        if edit.changed() {
            state.current = 0;
            state.jump = true;
        }
        let words = if state.query.trim().is_empty() {
            String::new()
        } else if matches.is_empty() {
            tr(lang, Key::FindNone).to_string()
        } else {
            let (n, of) = ((state.current.min(matches.len() - 1) + 1).to_string(), matches.len().to_string());
            trf(lang, Key::FindCount, &[("n", &n), ("of", &of)])
        };
        ui.label(RichText::new(words).small());
        if ui.small_button(tr(lang, Key::FindPrevious)).clicked() {
            step = -1;
        }
        if ui.small_button(tr(lang, Key::FindNext)).clicked() {
            step = 1;
        }
        close |= ui.small_button(tr(lang, Key::Close)).clicked();
    });
    if close {
        *bar = None;
        return None;
    }
    if !matches.is_empty() && (step != 0 || state.jump) {
        state.jump = false;
        state.current = (state.current as i64 + step).rem_euclid(matches.len() as i64) as usize;
        list.jump_to(matches[state.current]);
    }
    let current = matches.get(state.current.min(matches.len().saturating_sub(1))).copied();
    Some(Found { matches, current, query: state.query.trim().to_string() })
}

/// `text` with every occurrence of `query` (case ignored) on a marked background.
pub fn marked_job(ui: &egui::Ui, text: &str, query: &str) -> egui::text::LayoutJob {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let plain = egui::TextFormat::simple(font.clone(), ui.visuals().text_color());
    let marked =
        egui::TextFormat { background: MARK, ..egui::TextFormat::simple(font, ui.visuals().strong_text_color()) };
    let mut job = egui::text::LayoutJob::default();
    let mut at = 0;
    for range in crate::model::find::ranges(text, query) {
        job.append(&text[at..range.start], 0.0, plain.clone());
        job.append(&text[range.clone()], 0.0, marked.clone());
        at = range.end;
    }
    job.append(&text[at..], 0.0, plain);
    job
}

/// The background of a found word.
pub const MARK: egui::Color32 = egui::Color32::from_rgba_premultiplied(90, 70, 0, 90);

/// Makes the Markdown viewer `id` mark `query` in `text` (its own search, over the rendered text
/// only: not in link targets or syntax). Asked again only when the query or the text changed.
pub fn mark_markdown(
    ui: &egui::Ui,
    markdown: &mut egui_commonmark::CommonMarkCache,
    id: egui::Id,
    text: &str,
    query: &str,
) {
    let key = (query.to_string(), text.len());
    let seen = ui.data(|d| d.get_temp::<(String, usize)>(id));
    if seen.as_ref() != Some(&key) {
        *markdown.search_query_mut(&id) = query.to_string();
        markdown.update_search_matches(&id, text);
        ui.data_mut(|d| d.insert_temp(id, key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_words_are_marked_in_plain_and_markdown_text() {
        let ctx = egui::Context::default();
        let mut markdown = egui_commonmark::CommonMarkCache::default();
        let mut output = ctx.run_ui(Default::default(), |ui| {
            let job = marked_job(ui, "Fix the build, then BUILD again", "build");
            let marked: Vec<&str> = job
                .sections
                .iter()
                .filter(|s| s.format.background == MARK)
                .map(|s| &job.text[s.byte_range.start.0..s.byte_range.end.0])
                .collect();
            assert_eq!(marked, ["build", "BUILD"]);

            let id = egui::Id::unique("a message");
            let text = "The **build** is [green](https://build.example) now; build it.";
            mark_markdown(ui, &mut markdown, id, text, "build");
            let found: Vec<&str> = markdown.search_ranges(&id).iter().map(|r| &text[r.clone()]).collect();
            assert_eq!(found, ["build", "build"], "the rendered words, not the link's target");
        });
        output.textures_delta.clear();
    }
}
