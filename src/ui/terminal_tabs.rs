//! The terminals of one workspace: a strip of terminal tabs (title or "Shell n", a close button, "+"
//! for another), the active one drawn below. The runtime runs them (`Command::OpenTerminal`, a
//! handle comes back); they live while the app runs, whatever tab of the workspace is shown;
//! closing one (`Command::CloseTerminal`) ends its shell and everything it started.

use egui::RichText;

use super::i18n::{Key, tr, trf};
use super::terminal_view::TerminalView;
use crate::app::Command;
use crate::app::WorkspaceCommand;
use crate::model::config::Language;
use crate::protocol::terminal::TerminalHandle;

/// The terminals of a workspace.
#[derive(Default)]
pub struct Terminals {
    list: Vec<(u32, TerminalView)>,
    active: usize,
    next: u32,
    error: Option<String>,
    /// The last lines of the last terminal that ended by itself (an ssh error, a shell's last words).
    last_words: Option<String>,
    /// A terminal was asked for and has not come yet.
    opening: bool,
    /// A terminal just came: it takes the keyboard.
    fresh: bool,
}

impl Terminals {
    /// True when no terminal is open.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The open terminals.
    pub fn sessions(&self) -> impl Iterator<Item = &TerminalHandle> {
        self.list.iter().map(|(_, v)| &v.session)
    }

    /// The terminal shown.
    pub fn active(&self) -> Option<&TerminalHandle> {
        self.list.get(self.active).map(|(_, v)| &v.session)
    }

    /// A terminal asked for came (or could not start): it is shown.
    pub fn opened(&mut self, result: Result<TerminalHandle, String>) {
        self.opening = false;
        match result {
            Ok(handle) => {
                self.next += 1;
                let id = egui::Id::unique(("terminal", handle.id));
                self.list.push((self.next, TerminalView::new(handle, id)));
                self.active = self.list.len() - 1;
                self.error = None;
                self.last_words = None;
                self.fresh = true;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// A terminal was asked for elsewhere (a login): it comes; none is opened meanwhile.
    pub fn expect_one(&mut self) {
        self.opening = true;
    }

    /// Asks for a terminal in `agent`'s workspace.
    fn open(&mut self, agent: &str, commands: &mut Vec<Command>) {
        if !self.opening {
            self.opening = true;
            commands.push(Command::Workspace(WorkspaceCommand::OpenTerminal { agent: agent.to_string() }));
        }
    }

    /// Ends terminal `index` (the runtime closes it in the background).
    fn close(&mut self, index: usize, commands: &mut Vec<Command>) {
        if index < self.list.len() {
            let (_, view) = self.list.remove(index);
            commands.push(Command::Workspace(WorkspaceCommand::CloseTerminal { id: view.session.id }));
            self.active = self.active.min(self.list.len().saturating_sub(1));
        }
    }

    /// Ends every terminal.
    pub fn close_all(&mut self) -> Vec<Command> {
        let mut commands = Vec::new();
        while !self.list.is_empty() {
            self.close(0, &mut commands);
        }
        commands
    }

    /// Draws the strip and the active terminal of `agent`'s workspace. Returns true when a
    /// terminal was drawn; `grab` gives it the keyboard.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        lang: Language,
        agent: &str,
        grab: bool,
        commands: &mut Vec<Command>,
    ) -> bool {
        let ended: Vec<usize> = (0..self.list.len()).filter(|&i| self.list[i].1.session.has_exited()).collect();
        if let Some(&last) = ended.last() {
            let screen = self.list[last].1.session.screen_text();
            let lines: Vec<&str> = screen.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
            let tail = lines[lines.len().saturating_sub(6)..].join("\n");
            self.last_words = (!tail.is_empty()).then_some(tail);
        }
        for &i in ended.iter().rev() {
            self.close(i, commands);
        }
        if !ended.is_empty() && self.list.is_empty() {
            self.error = Some(tr(lang, Key::TerminalEnded).to_string());
        }
        if self.list.is_empty() {
            if self.opening {
                ui.spinner();
                return false;
            }
            if let Some(error) = &self.error {
                ui.label(RichText::new(error).weak());
                // What it said last, so a shell that could not start (or lost its connection) says why.
                if let Some(words) = &self.last_words {
                    ui.label(RichText::new(words).monospace());
                }
            }
            if ui.button(tr(lang, Key::OpenTerminal)).clicked() || self.error.is_none() {
                self.open(agent, commands);
            }
            return false;
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
            if self.opening {
                ui.spinner();
            } else if ui.small_button("+").on_hover_text(tr(lang, Key::NewTerminal)).clicked() {
                self.open(agent, commands);
            }
        });
        if let Some(i) = close {
            self.close(i, commands);
            if self.list.is_empty() {
                self.error = Some(tr(lang, Key::TerminalClosed).to_string());
                self.last_words = None;
                return false;
            }
        }
        let Some((_, view)) = self.list.get_mut(self.active) else { return false };
        view.ui(ui, grab);
        true
    }
}

/// `text` cut to `max` characters with an ellipsis.
fn ellipsize(text: &str, max: usize) -> String {
    if text.chars().count() <= max { text.to_string() } else { text.chars().take(max - 1).chain(['…']).collect() }
}
