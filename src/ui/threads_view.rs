//! Every thread of every agent, to scan: title, agent, last activity, newest first; a click
//! opens it (the thread bar's list shows one agent's threads at a time, in a drop-down).

use egui::RichText;

use super::i18n::{Key, tr};
use crate::app::AppState;
use crate::protocol::threads::ThreadId;

/// Draws the list; returns the thread clicked (agent, thread).
pub fn threads_ui(ui: &mut egui::Ui, state: &AppState) -> Option<(String, ThreadId)> {
    let lang = state.language;
    ui.heading(tr(lang, Key::AllThreads));
    let mut rows: Vec<(&str, &crate::protocol::threads::ThreadSummary, bool)> = state
        .agents
        .iter()
        .flat_map(|a| a.threads.list.iter().map(move |t| (a.config.name.as_str(), t, a.threads.current == Some(t.id))))
        .collect();
    rows.sort_by_key(|(_, t, _)| std::cmp::Reverse(t.updated_at));
    if rows.is_empty() {
        ui.label(RichText::new(tr(lang, Key::NoThreads)).weak());
        return None;
    }
    let mut opened = None;
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        egui::Grid::new("all-threads").num_columns(3).striped(true).spacing([24.0, 6.0]).show(ui, |ui| {
            ui.label(RichText::new(tr(lang, Key::ThreadTitle)).strong());
            ui.label(RichText::new(tr(lang, Key::ThreadAgent)).strong());
            ui.label(RichText::new(tr(lang, Key::ThreadActive)).strong());
            ui.end_row();
            for (agent, thread, current) in rows {
                let title = if thread.title.is_empty() { tr(lang, Key::UntitledThread) } else { &thread.title };
                // A link per thread; the one open in its agent marked in words (every row looked
                // selected).
                ui.horizontal(|ui| {
                    if ui.link(title).clicked() {
                        opened = Some((agent.to_string(), thread.id));
                    }
                    if current {
                        ui.label(RichText::new(tr(lang, Key::ThreadOpen)).small().weak());
                    }
                });
                ui.label(agent);
                ui.label(RichText::new(super::threads_bar::age(lang, thread.updated_at)).weak());
                ui.end_row();
            }
        });
    });
    opened
}
