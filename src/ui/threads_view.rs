//! Every thread of every agent, to scan: title, agent, last activity, newest first; a click
//! opens it (the thread bar's list shows one agent's threads at a time, in a drop-down). Threads
//! of agents not in the config (removed, or of another project) are listed too: one opens read
//! only, and can be deleted (issue 48, item 9).

use egui::RichText;
use egui_commonmark::{CommonMarkCache, CommonMarkViewer};

use super::i18n::{Key, tr, trf};
use super::theme;
use crate::app::AppState;
use crate::model::conversation::{Message, Part, Role};
use crate::protocol::threads::{OtherThread, ThreadId};

/// What the page keeps between frames: the thread whose deletion is being asked.
#[derive(Default)]
pub struct ThreadsPage {
    confirm: Option<ThreadId>,
}

/// What the person did on the page.
pub enum ThreadsClick {
    /// Open an agent's thread (agent, thread).
    Open(String, ThreadId),
    /// Read a thread no agent of the config owns.
    Read(ThreadId),
    /// Delete a thread no agent of the config owns.
    Delete(ThreadId),
    /// Back from a thread read to the list.
    Back,
}

/// Draws the list, or the thread read; returns what was clicked.
pub fn threads_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    page: &mut ThreadsPage,
    markdown: &mut CommonMarkCache,
) -> Option<ThreadsClick> {
    if let Some((id, messages)) = &state.read_thread
        && let Some(thread) = state.other_threads.iter().find(|t| t.summary.id == *id)
    {
        return read_ui(ui, state, page, thread, messages, markdown);
    }
    let lang = state.language;
    ui.heading(tr(lang, Key::AllThreads));
    let mut rows: Vec<(&str, &crate::protocol::threads::ThreadSummary, Option<&OtherThread>, bool)> = state
        .agents
        .iter()
        .flat_map(|a| {
            a.threads.list.iter().map(move |t| (a.config.name.as_str(), t, None, a.threads.current == Some(t.id)))
        })
        .chain(state.other_threads.iter().map(|o| (o.agent.as_str(), &o.summary, Some(o), false)))
        // A thread nothing was said in is not listed (every agent has one: they cluttered the page).
        .filter(|(_, t, _, _)| !(t.title.is_empty() && t.session_id.is_none()))
        .collect();
    rows.sort_by_key(|(_, t, _, _)| std::cmp::Reverse(t.updated_at));
    if rows.is_empty() {
        ui.label(RichText::new(tr(lang, Key::NoThreads)).weak());
        return None;
    }
    let mut clicked = None;
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        egui::Grid::new("all-threads").num_columns(4).striped(true).spacing([24.0, 6.0]).show(ui, |ui| {
            ui.label(RichText::new(tr(lang, Key::ThreadTitle)).strong());
            ui.label(RichText::new(tr(lang, Key::ThreadAgent)).strong());
            ui.label(RichText::new(tr(lang, Key::ThreadActive)).strong());
            ui.label("");
            ui.end_row();
            for (agent, thread, other, current) in rows {
                let title = if thread.title.is_empty() { tr(lang, Key::UntitledThread) } else { &thread.title };
                // A link per thread; the one open in its agent marked in words (every row looked
                // selected).
                ui.horizontal(|ui| {
                    if ui.link(title).clicked() {
                        clicked = Some(match other {
                            Some(_) => ThreadsClick::Read(thread.id),
                            None => ThreadsClick::Open(agent.to_string(), thread.id),
                        });
                    }
                    if current {
                        ui.label(RichText::new(tr(lang, Key::ThreadOpen)).small().weak());
                    }
                });
                match other {
                    Some(o) => {
                        ui.label(format!("{agent} — {}", tr(lang, Key::NotInConfig))).on_hover_text(&o.home);
                    }
                    None => {
                        ui.label(agent);
                    }
                }
                ui.label(RichText::new(super::threads_bar::age(lang, thread.updated_at)).weak());
                if let Some(o) = other {
                    if let Some(c) = delete_ui(ui, page, o, title, lang) {
                        clicked = Some(c);
                    }
                } else {
                    ui.label("");
                }
                ui.end_row();
            }
        });
    });
    clicked
}

/// The Delete button of a thread no agent owns, and its question.
fn delete_ui(
    ui: &mut egui::Ui,
    page: &mut ThreadsPage,
    thread: &OtherThread,
    title: &str,
    lang: crate::model::config::Language,
) -> Option<ThreadsClick> {
    let id = thread.summary.id;
    let mut clicked = None;
    ui.horizontal_wrapped(|ui| {
        if page.confirm == Some(id) {
            ui.label(trf(lang, Key::DeleteThreadConfirm, &[("title", title)]));
            // The thread is the agent's, not this config's: said before it goes everywhere.
            let whose = trf(lang, Key::DeleteOtherThreadNote, &[("agent", &thread.agent), ("home", &thread.home)]);
            ui.label(RichText::new(whose).small().weak());
            if ui.button(tr(lang, Key::DeleteThread)).clicked() {
                page.confirm = None;
                clicked = Some(ThreadsClick::Delete(id));
            }
            if ui.button(tr(lang, Key::Cancel)).clicked() {
                page.confirm = None;
            }
        } else if ui.button(tr(lang, Key::DeleteThread)).clicked() {
            page.confirm = Some(id);
        }
    });
    clicked
}

/// A thread no agent owns, read only: who it was with, its messages, Delete.
fn read_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    page: &mut ThreadsPage,
    thread: &OtherThread,
    messages: &Result<Vec<Message>, String>,
    markdown: &mut CommonMarkCache,
) -> Option<ThreadsClick> {
    let lang = state.language;
    let mut clicked = None;
    if ui.link(tr(lang, Key::BackToThreads)).clicked() {
        clicked = Some(ThreadsClick::Back);
    }
    let title = if thread.summary.title.is_empty() { tr(lang, Key::UntitledThread) } else { &thread.summary.title };
    ui.horizontal_wrapped(|ui| {
        ui.heading(title);
        if let Some(c) = delete_ui(ui, page, thread, title, lang) {
            clicked = Some(c);
        }
    });
    let said = trf(lang, Key::ReadOnlyThread, &[("agent", &thread.agent), ("home", &thread.home)]);
    ui.label(RichText::new(said).weak());
    ui.separator();
    let messages = match messages {
        Ok(messages) => messages,
        Err(error) => {
            ui.label(RichText::new(trf(lang, Key::ThreadUnreadable, &[("error", error)])).color(theme::error_color()));
            return clicked;
        }
    };
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        super::conversation::column(ui, |ui| {
            for (i, message) in messages.iter().enumerate() {
                message_ui(ui, lang, &thread.agent, message, i, markdown);
            }
        });
    });
    clicked
}

/// One message of a thread read: the person's as a block, the agent's text as markdown, its tool
/// calls by their titles.
fn message_ui(
    ui: &mut egui::Ui,
    lang: crate::model::config::Language,
    agent: &str,
    message: &Message,
    i: usize,
    markdown: &mut CommonMarkCache,
) {
    ui.add_space(theme::GAP);
    if message.role == Role::User {
        theme::user_frame(ui.visuals()).show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(RichText::new(tr(lang, Key::ThreadRole)).strong());
            ui.label(message.text());
        });
        return;
    }
    ui.label(RichText::new(agent).strong());
    for (j, part) in message.parts.iter().enumerate() {
        match part {
            Part::Text(text) => {
                let id = egui::Id::unique(("read-thread", i, j));
                CommonMarkViewer::new().show_with_id(id, ui, markdown, text);
            }
            Part::Tool(tool) => {
                ui.label(RichText::new(format!("▸ {}", tool.title)).weak());
            }
            _ => {}
        }
    }
}
