//! The terminals of one workspace: a strip of terminal tabs (title or "Shell n", a close button, "+"
//! for another), the active one drawn below. The runtime runs them (`Command::OpenTerminal`, a
//! handle comes back); they live while the app runs, whatever tab of the workspace is shown;
//! closing one (`Command::CloseTerminal`) ends its shell and everything it started. The handles are
//! the app's (`app::terminals_state`); the views here draw them.

use egui::RichText;

use crate::app::Command;
use crate::app::WorkspaceCommand;
use crate::app::terminals_state::{TerminalsRequest, TerminalsState};
use crate::model::config::Language;
use crate::protocol::terminal::TerminalHandle;
use crate::ui::i18n::{Key, tr, trf};
use crate::ui::terminal::view::TerminalView;

/// The drawn terminals of a workspace: a view for each handle the app holds (`TerminalsState`).
#[derive(Default)]
pub struct Terminals {
    /// Each terminal's number ("Shell n") and view.
    list: Vec<(u32, TerminalView)>,
    active: usize,
    next: u32,
    /// Why the page shows no terminal (the last one ended, or was closed).
    notice: Option<String>,
    /// The last lines of the last terminal that ended by itself (an ssh error, a shell's last words).
    last_words: Option<String>,
    /// A terminal just came: it takes the keyboard.
    fresh: bool,
}

impl Terminals {
    /// The open terminals.
    pub fn sessions(&self) -> impl Iterator<Item = &TerminalHandle> {
        self.list.iter().map(|(_, v)| &v.session)
    }

    /// The terminal shown.
    pub fn active(&self) -> Option<&TerminalHandle> {
        self.list.get(self.active).map(|(_, v)| &v.session)
    }

    /// The views follow the app's handles: one for each that came (shown, with the keyboard),
    /// none for one that went.
    fn follow(&mut self, state: &TerminalsState) {
        self.list.retain(|(_, v)| state.open.iter().any(|t| t.id == v.session.id));
        for handle in &state.open {
            if !self.list.iter().any(|(_, v)| v.session.id == handle.id) {
                self.next += 1;
                let id = egui::Id::unique(("terminal", handle.id));
                self.list.push((self.next, TerminalView::new(handle.clone(), id)));
                self.active = self.list.len() - 1;
                self.notice = None;
                self.last_words = None;
                self.fresh = true;
            }
        }
        self.active = self.active.min(self.list.len().saturating_sub(1));
    }

    /// Ends every terminal drawn here (their agent left the window).
    pub fn close_all(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.list)
            .into_iter()
            .map(|(_, v)| Command::Workspace(WorkspaceCommand::CloseTerminal { id: v.session.id }))
            .collect()
    }

    /// Draws the strip and the active terminal of a workspace. Returns true when a terminal was
    /// drawn (`grab` gives it the keyboard), and what the page asks for.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        lang: Language,
        state: &TerminalsState,
        grab: bool,
    ) -> (bool, Vec<TerminalsRequest>) {
        let mut asked = Vec::new();
        self.follow(state);
        let ended: Vec<usize> = (0..self.list.len()).filter(|&i| self.list[i].1.session.has_exited()).collect();
        if let Some(&last) = ended.last() {
            let screen = self.list[last].1.session.screen_text();
            let lines: Vec<&str> = screen.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
            let tail = lines[lines.len().saturating_sub(6)..].join("\n");
            self.last_words = (!tail.is_empty()).then_some(tail);
        }
        for &i in ended.iter().rev() {
            let (_, view) = self.list.remove(i);
            asked.push(TerminalsRequest::Close(view.session.id));
        }
        self.active = self.active.min(self.list.len().saturating_sub(1));
        if !ended.is_empty() && self.list.is_empty() {
            self.notice = Some(tr(lang, Key::TerminalEnded).to_string());
        }
        if self.list.is_empty() {
            self.empty_ui(ui, lang, state, &mut asked);
            return (false, asked);
        }
        let mut grab = grab || std::mem::take(&mut self.fresh);
        let mut close = None;
        ui.horizontal(|ui| {
            for (i, (number, view)) in self.list.iter().enumerate() {
                let name = trf(lang, Key::ShellN, &[("n", &number.to_string())]);
                let label = match view.title() {
                    Some(title) => format!("{name}: {}", ellipsize(&title, 32)),
                    None => name,
                };
                if ui.selectable_label(i == self.active, label).clicked() {
                    self.active = i;
                    grab = true;
                }
                if ui.small_button("×").on_hover_text(tr(lang, Key::CloseTerminal)).clicked() {
                    close = Some(i);
                }
            }
            if state.opening {
                ui.spinner();
            } else if ui.small_button("+").on_hover_text(tr(lang, Key::NewTerminal)).clicked() {
                asked.push(TerminalsRequest::Open);
            }
        });
        if let Some(i) = close {
            let (_, view) = self.list.remove(i);
            asked.push(TerminalsRequest::Close(view.session.id));
            self.active = self.active.min(self.list.len().saturating_sub(1));
            if self.list.is_empty() {
                self.notice = Some(tr(lang, Key::TerminalClosed).to_string());
                self.last_words = None;
                return (false, asked);
            }
        }
        let Some((_, view)) = self.list.get_mut(self.active) else { return (false, asked) };
        view.ui(ui, grab);
        (true, asked)
    }

    /// No terminal: one is coming (a spinner), or why there is none and a button for one; with
    /// nothing to say, one is opened at once.
    fn empty_ui(
        &mut self,
        ui: &mut egui::Ui,
        lang: Language,
        state: &TerminalsState,
        asked: &mut Vec<TerminalsRequest>,
    ) {
        if state.opening {
            ui.spinner();
            return;
        }
        let error = state.error.as_ref().or(self.notice.as_ref());
        if let Some(error) = error {
            ui.label(RichText::new(error).weak());
            // What it said last, so a shell that could not start (or lost its connection) says why.
            if let Some(words) = &self.last_words {
                ui.label(RichText::new(words).monospace());
            }
        }
        if ui.button(tr(lang, Key::OpenTerminal)).clicked() || error.is_none() {
            asked.push(TerminalsRequest::Open);
        }
    }
}

/// `text` cut to `max` characters with an ellipsis.
fn ellipsize(text: &str, max: usize) -> String {
    if text.chars().count() <= max { text.to_string() } else { text.chars().take(max - 1).chain(['…']).collect() }
}
