//! The terminals of one workspace: a strip of terminal tabs (title or "Shell n", a close button, "+"
//! for another), the active one drawn below. Terminals live while the app runs, whatever tab of the
//! workspace is shown; closing one ends its shell and everything it started, on a background thread
//! (a container's teardown takes a moment) that quitting waits for.

use egui::RichText;

use super::i18n::{Key, tr, trf};
use super::terminal_view::TerminalView;
use crate::model::config::Language;
use crate::runtime::terminal::TerminalSession;
use crate::runtime::workspace::ShellCommand;

/// The terminals of a workspace.
#[derive(Default)]
pub struct Terminals {
    list: Vec<(u32, TerminalView)>,
    active: usize,
    next: u32,
    error: Option<String>,
    closing: Vec<std::thread::JoinHandle<()>>,
}

impl Terminals {
    /// True when no terminal is open.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The open terminals.
    pub fn sessions(&self) -> impl Iterator<Item = &TerminalSession> {
        self.list.iter().map(|(_, v)| &v.session)
    }

    /// The terminal shown.
    pub fn active(&self) -> Option<&TerminalSession> {
        self.list.get(self.active).map(|(_, v)| &v.session)
    }

    /// Opens a terminal running `shell` (under `host`) and shows it.
    pub fn open(&mut self, ctx: &egui::Context, host: &std::path::Path, shell: &ShellCommand) {
        let ctx = ctx.clone();
        let on_output = std::sync::Arc::new(move || ctx.request_repaint());
        match TerminalSession::spawn(host, shell, 80, 24, on_output) {
            Ok(session) => {
                static OPENED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                let salt = OPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.next += 1;
                self.list.push((self.next, TerminalView::new(session, egui::Id::unique(("terminal", salt)))));
                self.active = self.list.len() - 1;
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Ends terminal `index` (in the background).
    fn close(&mut self, index: usize) {
        if index < self.list.len() {
            let (_, view) = self.list.remove(index);
            self.closing.push(std::thread::spawn(move || view.session.close()));
            self.active = self.active.min(self.list.len().saturating_sub(1));
        }
        self.closing.retain(|h| !h.is_finished());
    }

    /// Ends every terminal and waits until all are closed.
    pub fn close_all(&mut self) {
        while !self.list.is_empty() {
            self.close(0);
        }
        for handle in self.closing.drain(..) {
            let _ = handle.join();
        }
    }

    /// Draws the strip and the active terminal; `shell` makes the command of a new one. Returns true
    /// when a terminal was drawn; `grab` gives it the keyboard.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        lang: Language,
        host: &std::path::Path,
        shell: impl Fn() -> ShellCommand,
        grab: bool,
    ) -> bool {
        let ended: Vec<usize> = (0..self.list.len()).filter(|&i| self.list[i].1.session.has_exited()).collect();
        for &i in ended.iter().rev() {
            self.close(i);
        }
        if !ended.is_empty() && self.list.is_empty() {
            self.error = Some(tr(lang, Key::TerminalEnded).to_string());
        }
        if self.list.is_empty() {
            if let Some(error) = &self.error {
                ui.label(RichText::new(error).weak());
            }
            if ui.button(tr(lang, Key::OpenTerminal)).clicked() || self.error.is_none() {
                self.open(ui.ctx(), host, &shell());
            }
            return false;
        }
        let mut grab = grab;
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
            if ui.small_button("+").on_hover_text(tr(lang, Key::NewTerminal)).clicked() {
                self.open(ui.ctx(), host, &shell());
                grab = true;
            }
        });
        if let Some(i) = close {
            self.close(i);
            if self.list.is_empty() {
                self.error = Some(tr(lang, Key::TerminalClosed).to_string());
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
