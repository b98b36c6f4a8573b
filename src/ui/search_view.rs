//! Search everywhere (Ctrl+Shift+F): a field, and the messages of every stored thread of this
//! config holding its words — agent, thread, date and a snippet with the words marked. Each
//! keystroke asks the runtime (the history's full-text index answers in milliseconds); only the
//! answer to what the field holds now is shown. Clicking a result opens its thread and scrolls to
//! the message.

use egui::text::LayoutJob;
use egui::{RichText, TextFormat};

use super::i18n::{Key, tr, trf};
use crate::app::{AppState, Command};
use crate::model::search::{Place, SearchHit};

/// What the view keeps between frames.
#[derive(Default)]
pub struct SearchView {
    /// What is typed.
    pub text: String,
    /// The query last sent to the runtime.
    asked: String,
    /// Give the field the keyboard next frame.
    focus: bool,
}

impl SearchView {
    /// Opened by its shortcut or the palette: the field takes the keyboard, its text selected.
    pub fn opened(&mut self) {
        self.focus = true;
    }
}

/// The view; the command to send (a new query) and the result the person opened.
pub fn search_ui(ui: &mut egui::Ui, state: &AppState, view: &mut SearchView) -> (Option<Command>, Option<SearchHit>) {
    let lang = state.language;
    let mut opened = None;
    ui.heading(tr(lang, Key::SearchEverywhere));
    let field = ui.add(
        egui::TextEdit::singleline(&mut view.text).hint_text(tr(lang, Key::SearchHint)).desired_width(f32::INFINITY),
    );
    if std::mem::take(&mut view.focus) {
        field.request_focus();
    }
    ui.separator();
    let query = view.text.trim().to_string();
    let command = match (&state.config_path, query != view.asked) {
        (Some(config_path), true) => {
            view.asked.clone_from(&query);
            Some(Command::Search { config_path: config_path.clone(), query: query.clone() })
        }
        _ => None,
    };
    if query.is_empty() {
        ui.label(RichText::new(tr(lang, Key::SearchEmpty)).weak());
        return (command, None);
    }
    let Some((answered, result)) = &state.search else { return (command, None) };
    if *answered != query {
        ui.spinner();
        return (command, None);
    }
    let hits = match result {
        Ok(hits) => hits,
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, trf(lang, Key::SearchFailed, &[("error", e)]));
            return (command, None);
        }
    };
    if hits.is_empty() {
        ui.label(RichText::new(tr(lang, Key::SearchNone)).weak());
        return (command, None);
    }
    ui.label(RichText::new(trf(lang, Key::SearchCount, &[("count", &hits.len().to_string())])).weak());
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        for hit in hits {
            let response = egui::Frame::group(ui.style())
                .show(ui, |ui| {
                    ui.set_width(ui.available_width());
                    let place = match &hit.place {
                        Place::Thread { agent, thread, title, .. } => {
                            let title = title
                                .clone()
                                .unwrap_or_else(|| trf(lang, Key::SearchThread, &[("id", &thread.to_string())]));
                            let when = super::threads_bar::age(lang, hit.updated_at);
                            format!("{agent}  ·  {title}  ·  {when}")
                        }
                        Place::Channel { name, .. } => format!("#{name}  ·  {}", tr(lang, Key::You)),
                    };
                    ui.label(RichText::new(place).strong());
                    ui.label(snippet_job(ui, hit));
                })
                .response
                .interact(egui::Sense::click())
                .on_hover_cursor(egui::CursorIcon::PointingHand);
            if response.clicked() {
                opened = Some(hit.clone());
            }
            ui.add_space(4.0);
        }
    });
    (command, opened)
}

/// The snippet with the query's words on a marked background.
fn snippet_job(ui: &egui::Ui, hit: &SearchHit) -> LayoutJob {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let plain = TextFormat::simple(font.clone(), ui.visuals().text_color());
    let marked =
        TextFormat { background: super::find_bar::MARK, ..TextFormat::simple(font, ui.visuals().strong_text_color()) };
    let mut job = LayoutJob::default();
    let mut at = 0;
    for range in &hit.ranges {
        if range.start < at || range.end > hit.snippet.len() {
            continue;
        }
        job.append(&hit.snippet[at..range.start], 0.0, plain.clone());
        job.append(&hit.snippet[range.clone()], 0.0, marked.clone());
        at = range.end;
    }
    job.append(&hit.snippet[at..], 0.0, plain);
    job
}
