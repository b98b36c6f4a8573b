//! The workspace view of an agent, under the agent's header (`agent_header`): its Files and
//! Terminal pages. Files: a lazy tree (folders listed when opened),
//! the open file in the editor, new file / new folder / rename / delete with the right confirmation.
//! Only the workspace shown is followed; a change reloads the open folders and the open file.

use std::collections::{BTreeMap, BTreeSet};

use egui::RichText;

use super::file_editor::{EditorAction, FileState, MAX_OPEN, OpenFile, file_editor_ui};
use super::i18n::{Key, tr, trf, workspace_error_text};
use super::theme::error_color;
use crate::app::WorkspaceCommand;
use crate::app::{AgentView, Command, WorkspaceEvent};
use crate::model::config::{Language, RuntimeKind};
use crate::model::rel_path::RelPath;
use crate::protocol::workspace::{Entry, EntryKind, WorkspaceError, WorkspaceOp};

/// The tabs of the workspace view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WsTab {
    /// The files.
    #[default]
    Files,
    /// The workspace's terminals.
    Terminal,
}

/// A dialog of the Files tab.
#[derive(Clone, Debug)]
enum Dialog {
    NewFile { dir: RelPath, name: String },
    NewFolder { dir: RelPath, name: String },
    Rename { path: RelPath, name: String },
    Delete { path: RelPath },
}

/// The workspace view of one agent (kept while the app runs, so the tabs keep their state).
#[derive(Default)]
pub struct WorkspaceView {
    /// The tab shown.
    pub tab: WsTab,
    dirs: BTreeMap<RelPath, Result<Vec<Entry>, WorkspaceError>>,
    expanded: BTreeSet<RelPath>,
    /// The open file.
    pub file: Option<OpenFile>,
    /// Files left with unsaved edits for another one, by path: back as they were when reopened.
    unsaved: std::collections::HashMap<RelPath, OpenFile>,
    dialog: Option<Dialog>,
    error: Option<WorkspaceError>,
    started: bool,
    /// The terminals of this workspace, kept while another tab is shown.
    pub terminals: super::terminal_tabs::Terminals,
    /// The tab shown on the previous frame (the terminal takes the keyboard when its tab opens).
    last_tab: Option<WsTab>,
    /// Commands for the runtime, taken by the window after each frame.
    outbox: Vec<Command>,
    /// The folder the tree shows (an agent put to work in its team copy moves).
    root: Option<std::path::PathBuf>,
    /// What was deleted last (to the trash), for Undo.
    removed: Option<RelPath>,
}

impl WorkspaceView {
    /// The commands the view asked for since the last call.
    pub fn take_commands(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.outbox)
    }

    /// Applies a workspace result.
    pub fn apply(&mut self, agent: &AgentView, event: WorkspaceEvent) {
        match event {
            WorkspaceEvent::TerminalOpened { result } => self.terminals.opened(result),
            // The composer's, for `@` (the app state keeps them).
            WorkspaceEvent::Paths { .. } => {}
            WorkspaceEvent::Listed { dir, result } => {
                self.dirs.insert(dir, result);
            }
            WorkspaceEvent::Read { path, result } => {
                if let Some(file) = self.file.as_mut().filter(|f| f.path == path) {
                    match result {
                        Ok((bytes, version)) => file.loaded(bytes, version),
                        Err(e) => file.state = FileState::Failed(e),
                    }
                }
            }
            WorkspaceEvent::Written { path, result } => {
                if let Some(file) = self.file.as_mut().filter(|f| f.path == path) {
                    file.saving = false;
                    match result {
                        Ok(version) => {
                            file.base = Some((file.text.clone(), version));
                            file.save_error = None;
                        }
                        // Someone wrote meanwhile: fetch theirs, the conflict bar asks.
                        Err(WorkspaceError::Conflict { .. }) => self.read(agent, &path),
                        Err(e) => file.save_error = Some(e),
                    }
                }
                self.refresh(agent);
            }
            WorkspaceEvent::Done { result } => {
                self.error = result.err();
                self.refresh(agent);
            }
            WorkspaceEvent::Removed { path, result } => {
                // On this computer it is in the trash: offered back until the next delete.
                let local = agent.config.runtime.kind == RuntimeKind::Local;
                self.removed = result.is_ok().then_some(path).filter(|_| local);
                self.error = result.err();
                self.refresh(agent);
            }
            WorkspaceEvent::Changed => {
                self.refresh(agent);
                if let Some(path) = self.file.as_ref().filter(|f| f.state == FileState::Text).map(|f| f.path.clone()) {
                    self.read(agent, &path);
                }
            }
        }
    }

    /// Asks the runtime for `op` on `agent`'s workspace.
    fn ask(&mut self, agent: &AgentView, op: WorkspaceOp) {
        self.outbox.push(Command::Workspace(WorkspaceCommand::Op { agent: agent.config.name.clone(), op }));
    }

    fn list(&mut self, agent: &AgentView, dir: &RelPath) {
        self.ask(agent, WorkspaceOp::List { dir: dir.clone() });
    }

    fn read(&mut self, agent: &AgentView, path: &RelPath) {
        self.ask(agent, WorkspaceOp::Read { path: path.clone() });
    }

    /// Lists again the root and every open folder.
    fn refresh(&mut self, agent: &AgentView) {
        self.list(agent, &RelPath::root());
        for dir in self.expanded.clone() {
            self.list(agent, &dir);
        }
    }

    /// Draws the page shown (its requests for the runtime are in `take_commands`).
    pub fn ui(&mut self, ui: &mut egui::Ui, lang: Language, agent: &AgentView) {
        if !self.started {
            self.started = true;
            self.root = Some(agent.config.workspace_path());
            self.refresh(agent);
        }
        // The agent works elsewhere now (its team copy, or back): the tree and the open file are
        // read again from there.
        let root = agent.config.workspace_path();
        if self.root.as_ref() != Some(&root) {
            self.root = Some(root);
            self.dirs.clear();
            self.apply(agent, WorkspaceEvent::Changed);
        }
        let tab = self.tab;
        let mut terminal_drawn = false;
        match self.tab {
            WsTab::Files => self.files_ui(ui, lang, agent),
            WsTab::Terminal => terminal_drawn = self.terminal_tab_ui(ui, lang, agent),
        }
        // The terminal's tab counts as seen once the terminal was drawn (and took the keyboard).
        self.last_tab = if tab == WsTab::Terminal && !terminal_drawn { None } else { Some(tab) };
    }

    /// The Terminal tab; true when a terminal was drawn.
    fn terminal_tab_ui(&mut self, ui: &mut egui::Ui, lang: Language, agent: &AgentView) -> bool {
        let grab = self.last_tab != Some(WsTab::Terminal);
        self.terminals.ui(ui, lang, &agent.config.name, grab, &mut self.outbox)
    }

    /// Ends the terminals and everything they started.
    pub fn close_terminals(&mut self) {
        let commands = self.terminals.close_all();
        self.outbox.extend(commands);
    }

    fn files_ui(&mut self, ui: &mut egui::Ui, lang: Language, agent: &AgentView) {
        if let Some(error) = &self.error {
            ui.label(
                RichText::new(trf(lang, Key::WorkspaceError, &[("message", &workspace_error_text(lang, error))]))
                    .color(error_color()),
            );
        }
        if let Some(path) = self.removed.clone() {
            ui.horizontal(|ui| {
                ui.label(RichText::new(trf(lang, Key::MovedToTrash, &[("path", path.as_str())])).weak());
                if ui.button(tr(lang, Key::UndoDelete)).clicked() {
                    self.removed = None;
                    self.ask(agent, WorkspaceOp::Restore { path });
                }
            });
        }
        egui::Panel::left("ws-tree").resizable(true).default_size(260.0).show(ui, |ui| {
            ui.horizontal(|ui| {
                if ui.small_button(tr(lang, Key::NewFile)).clicked() {
                    self.dialog = Some(Dialog::NewFile { dir: RelPath::root(), name: String::new() });
                }
                if ui.small_button(tr(lang, Key::NewFolder)).clicked() {
                    self.dialog = Some(Dialog::NewFolder { dir: RelPath::root(), name: String::new() });
                }
            });
            ui.separator();
            egui::ScrollArea::vertical().id_salt("ws-tree-scroll").show(ui, |ui| {
                self.tree_ui(ui, lang, agent, &RelPath::root());
            });
        });
        let mut save = None;
        egui::CentralPanel::default().show(ui, |ui| match &mut self.file {
            None => {
                ui.label(RichText::new(tr(lang, Key::OpenAFile)).weak());
            }
            Some(file) => {
                if let Some(EditorAction::Save { text, expected }) = file_editor_ui(ui, lang, file) {
                    save = Some(WorkspaceOp::Write {
                        path: file.path.clone(),
                        bytes: text.into_bytes(),
                        expected: Some(expected),
                    });
                }
            }
        });
        if let Some(op) = save {
            self.ask(agent, op);
        }
        self.dialog_ui(ui, lang, agent);
    }

    fn tree_ui(&mut self, ui: &mut egui::Ui, lang: Language, agent: &AgentView, dir: &RelPath) {
        let entries = match self.dirs.get(dir) {
            None => {
                ui.spinner();
                return;
            }
            Some(Err(e)) => {
                ui.label(RichText::new(workspace_error_text(lang, e)).color(error_color()));
                return;
            }
            Some(Ok(entries)) => entries.clone(),
        };
        if entries.is_empty() {
            ui.label(RichText::new(tr(lang, Key::EmptyFolder)).weak());
        }
        for entry in entries {
            let Ok(path) = dir.join(&entry.name) else { continue };
            match entry.kind {
                EntryKind::Dir => {
                    let id = ui.make_persistent_id(("ws-dir", path.as_str()));
                    let open = self.expanded.contains(&path);
                    let mut state =
                        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, open);
                    state.set_open(open);
                    let header = state.show_header(ui, |ui| {
                        let label = ui.selectable_label(false, format!("{}/", entry.name));
                        self.context_menu(lang, &label, &path, true);
                        label
                    });
                    let (toggle, label, _) = header.body(|ui| self.tree_ui(ui, lang, agent, &path));
                    if toggle.clicked() || label.inner.clicked() {
                        if open {
                            self.expanded.remove(&path);
                        } else {
                            self.expanded.insert(path.clone());
                            self.list(agent, &path);
                        }
                    }
                }
                _ => {
                    let selected = self.file.as_ref().is_some_and(|f| f.path == path);
                    let label = ui.selectable_label(selected, &entry.name);
                    self.context_menu(lang, &label, &path, false);
                    if label.clicked() && !selected {
                        self.open(agent, path, entry.size);
                    }
                }
            }
        }
    }

    fn open(&mut self, agent: &AgentView, path: RelPath, size: u64) {
        // Unsaved edits are kept while another file is open, and come back with their file (they
        // were dropped silently); a change on disk meanwhile shows the conflict bar.
        if let Some(left) = self.file.take().filter(OpenFile::is_dirty) {
            self.unsaved.insert(left.path.clone(), left);
        }
        if let Some(kept) = self.unsaved.remove(&path) {
            self.read(agent, &path);
            self.file = Some(kept);
            return;
        }
        let mut file = OpenFile::loading(path.clone());
        if size > MAX_OPEN {
            file.state = FileState::TooLarge(size);
        } else {
            self.read(agent, &path);
        }
        self.file = Some(file);
    }

    fn context_menu(&mut self, lang: Language, response: &egui::Response, path: &RelPath, is_dir: bool) {
        response.context_menu(|ui| {
            if is_dir && ui.button(tr(lang, Key::NewFile)).clicked() {
                self.dialog = Some(Dialog::NewFile { dir: path.clone(), name: String::new() });
            }
            if is_dir && ui.button(tr(lang, Key::NewFolder)).clicked() {
                self.dialog = Some(Dialog::NewFolder { dir: path.clone(), name: String::new() });
            }
            if ui.button(tr(lang, Key::Rename)).clicked() {
                self.dialog = Some(Dialog::Rename { path: path.clone(), name: path.name().to_string() });
            }
            if ui.button(tr(lang, Key::Delete)).clicked() {
                self.dialog = Some(Dialog::Delete { path: path.clone() });
            }
        });
    }

    fn dialog_ui(&mut self, ui: &mut egui::Ui, lang: Language, agent: &AgentView) {
        let Some(dialog) = &mut self.dialog else { return };
        // On this computer a removal goes to the trash; in a container it is for good.
        let final_removal = agent.config.runtime.kind != RuntimeKind::Local;
        let mut close = false;
        let mut run: Option<Dialog> = None;
        egui::Window::new(tr(lang, Key::Files))
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ui.ctx(), |ui| {
                let field = |ui: &mut egui::Ui, title: Key, name: &mut String| {
                    ui.label(tr(lang, title));
                    ui.text_edit_singleline(name).request_focus();
                };
                match dialog {
                    Dialog::NewFile { name, .. } => field(ui, Key::NewFile, name),
                    Dialog::NewFolder { name, .. } => field(ui, Key::NewFolder, name),
                    Dialog::Rename { name, .. } => field(ui, Key::Rename, name),
                    Dialog::Delete { path } => {
                        let key = if final_removal { Key::ConfirmFinal } else { Key::ConfirmTrash };
                        ui.label(trf(lang, key, &[("name", path.as_str())]));
                    }
                }
                ui.horizontal(|ui| {
                    let ok = match dialog {
                        Dialog::Delete { .. } => tr(lang, Key::Delete),
                        Dialog::Rename { .. } => tr(lang, Key::Rename),
                        _ => tr(lang, Key::Create),
                    };
                    if ui.button(ok).clicked() {
                        run = Some(dialog.clone());
                        close = true;
                    }
                    if ui.button(tr(lang, Key::Cancel)).clicked() {
                        close = true;
                    }
                });
            });
        if close {
            self.dialog = None;
        }
        let Some(dialog) = run else { return };
        let op = match dialog {
            Dialog::NewFile { dir, name } => dir.join(&name).map(|path| WorkspaceOp::NewFile { path }),
            Dialog::NewFolder { dir, name } => dir.join(&name).map(|path| WorkspaceOp::CreateDir { path }),
            Dialog::Rename { path, name } => path.parent().join(&name).map(|to| WorkspaceOp::Rename { from: path, to }),
            Dialog::Delete { path } => Ok(WorkspaceOp::Remove { path }),
        };
        match op {
            Ok(op) => self.ask(agent, op),
            Err(e) => self.error = Some(e.into()),
        }
    }
}
