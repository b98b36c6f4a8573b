//! The thread bar above a conversation: the thread shown (a list of every thread to switch to),
//! New thread, Rename, Delete (asked first), and the agent's own sessions when it lists them.

use egui::RichText;

use super::i18n::{Key, tr, trf};
use crate::app::AgentCommand;
use crate::app::{AgentState, AgentView, Command};
use crate::model::config::Language;
use crate::protocol::threads::{ListError, ThreadId, ThreadOp, ThreadSummary};

/// What the bar is doing besides showing: renaming (the text being typed), asking before a
/// delete, showing the agent's sessions. Kept in egui's memory, per agent.
#[derive(Clone, Debug, Default)]
struct BarState {
    renaming: Option<String>,
    confirm_delete: bool,
    sessions_open: bool,
}

/// Draws the bar; returns what the person asked for.
pub fn threads_bar_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) -> Vec<Command> {
    let name = &agent.config.name;
    let id = ui.make_persistent_id(("threads", name));
    let mut state: BarState = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    let mut ops = Vec::new();
    // Switching while the agent starts or stops would race its session: wait for it.
    let settled = !matches!(agent.state, AgentState::Starting | AgentState::Stopping);
    let shown = agent.threads.shown();
    let label = |t: Option<&ThreadSummary>| match t {
        Some(t) if !t.title.is_empty() => t.title.clone(),
        _ => tr(lang, Key::UntitledThread).to_string(),
    };
    let mut renamed = None;
    ui.horizontal_wrapped(|ui| {
        let heading = ui.label(RichText::new(tr(lang, Key::Threads)).small().weak());
        match (&mut state.renaming, shown) {
            // Renamed in place: the name is typed where the list was, nothing else moves.
            (Some(text), Some(thread)) => renamed = rename_ui(ui, lang, text, thread.id),
            _ => {
                ui.add_enabled_ui(settled, |ui| {
                    let list = egui::ComboBox::from_id_salt(("thread-list", name.as_str()))
                        .selected_text(label(shown))
                        .width(260.0)
                        .show_ui(ui, |ui| {
                            for thread in &agent.threads.list {
                                let current = Some(thread.id) == agent.threads.current;
                                let text = format!("{}  ·  {}", label(Some(thread)), age(lang, thread.updated_at));
                                if ui.selectable_label(current, text).clicked() && !current {
                                    ops.push(ThreadOp::Open(thread.id));
                                }
                            }
                        });
                    list.response.labelled_by(heading.id);
                    if ui.button(tr(lang, Key::NewThread)).clicked() {
                        ops.push(ThreadOp::New);
                    }
                });
                if let Some(thread) = shown
                    && ui.button(tr(lang, Key::RenameThread)).clicked()
                {
                    state.renaming = Some(thread.title.clone());
                }
            }
        }
        if agent.abilities.list && ui.button(trf(lang, Key::AgentSessions, &[("agent", name)])).clicked() {
            state.sessions_open = !state.sessions_open;
            if state.sessions_open {
                ops.push(ThreadOp::ListAgentSessions);
            }
        }
        // Delete apart, at the end of the bar (it slid under the pointer when Rename reflowed the
        // bar), and asked first.
        if shown.is_some() {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.add_enabled(settled, egui::Button::new(tr(lang, Key::DeleteThread))).clicked() {
                    state.confirm_delete = true;
                }
            });
        }
    });
    match renamed {
        Some(Some((thread, text))) => {
            ops.push(ThreadOp::Rename(thread, Some(text).filter(|t| !t.is_empty())));
            state.renaming = None;
        }
        Some(None) => state.renaming = None,
        None => {}
    }
    if shown.is_none() {
        state.renaming = None;
    }
    if state.confirm_delete
        && let Some(thread) = shown
    {
        ui.horizontal_wrapped(|ui| {
            ui.label(trf(lang, Key::DeleteThreadConfirm, &[("title", &label(Some(thread)))]));
            if ui.button(tr(lang, Key::DeleteThread)).clicked() {
                ops.push(ThreadOp::Delete(thread.id));
                state.confirm_delete = false;
            }
            if ui.button(tr(lang, Key::Cancel)).clicked() {
                state.confirm_delete = false;
            }
        });
    }
    if state.sessions_open {
        sessions_ui(ui, lang, agent, settled, &mut state, &mut ops);
    }
    ui.data_mut(|d| d.insert_temp(id, state));
    ops.into_iter().map(|op| Command::Agent(name.clone().into(), AgentCommand::Thread { op })).collect()
}

/// The thread's name being typed: `Some(Some(new name))` when saved, `Some(None)` when cancelled.
fn rename_ui(
    ui: &mut egui::Ui,
    lang: Language,
    text: &mut String,
    thread: ThreadId,
) -> Option<Option<(ThreadId, String)>> {
    let edit = ui.add(egui::TextEdit::singleline(text).desired_width(260.0));
    if !edit.has_focus() && !edit.lost_focus() {
        edit.request_focus();
    }
    let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
    if enter || ui.button(tr(lang, Key::SaveName)).clicked() {
        Some(Some((thread, text.trim().to_string())))
    } else if ui.button(tr(lang, Key::Cancel)).clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
        Some(None)
    } else {
        None
    }
}

/// The agent's own sessions, each openable as a thread.
fn sessions_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    settled: bool,
    state: &mut BarState,
    ops: &mut Vec<ThreadOp>,
) {
    let name = agent.config.name.as_str();
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.label(RichText::new(trf(lang, Key::AgentSessionsTitle, &[("agent", name)])).strong());
            if ui.small_button(tr(lang, Key::Close)).clicked() {
                state.sessions_open = false;
            }
        });
        match &agent.threads.agent_sessions {
            None => {
                ui.spinner();
            }
            Some(Err(e)) => {
                let words = match e {
                    ListError::NotRunning => trf(lang, Key::SessionsNotRunning, &[("agent", name)]),
                    ListError::Unsupported => trf(lang, Key::SessionsUnsupported, &[("agent", name)]),
                    ListError::Failed(m) => trf(lang, Key::SessionsFailed, &[("agent", name), ("message", m)]),
                };
                ui.label(RichText::new(words).weak());
            }
            Some(Ok(sessions)) if sessions.is_empty() => {
                ui.label(RichText::new(trf(lang, Key::NoAgentSessions, &[("agent", name)])).weak());
            }
            Some(Ok(sessions)) => {
                egui::ScrollArea::vertical().max_height(180.0).show(ui, |ui| {
                    for s in sessions {
                        ui.horizontal(|ui| {
                            let open = ui.add_enabled(settled, egui::Button::new(tr(lang, Key::OpenSession)));
                            if open.clicked() {
                                ops.push(ThreadOp::OpenAgentSession {
                                    session_id: s.session_id.clone(),
                                    title: s.title.clone(),
                                });
                                state.sessions_open = false;
                            }
                            ui.label(s.title.as_deref().unwrap_or(tr(lang, Key::Untitled)));
                            if let Some(at) = &s.updated_at {
                                ui.label(RichText::new(at).small().weak());
                            }
                            if s.known {
                                ui.label(RichText::new(tr(lang, Key::SessionShown)).small().weak());
                            }
                        });
                    }
                });
            }
        }
    });
}

/// How long ago `at` (seconds since 1970) was, in a few words.
pub(super) fn age(lang: Language, at: i64) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    let secs = (now - at).max(0);
    let (n, unit) = match secs {
        s if s < 60 => return tr(lang, Key::JustNow).to_string(),
        s if s < 3600 => (s / 60, "min"),
        s if s < 86_400 => (s / 3600, "h"),
        s => (s / 86_400, if lang == Language::Fr { "j" } else { "d" }),
    };
    format!("{n} {unit}")
}
