//! The workspace view of an agent, under the agent's header (`agent_header`): its Files and
//! Terminal pages. Files: a lazy tree (folders listed when opened),
//! the open file in the editor, new file / new folder / rename / delete with the right confirmation.
//! What the tree and the open file hold is the app's (`app::files_state`, results folded there);
//! this view draws it and asks for work with requests. Only the workspace shown is followed; a
//! change reads the open folders and the open file again.

use egui::RichText;

use super::file_editor::{EditorAction, file_editor_ui};
use super::i18n::{Key, tr, trf, workspace_error_text};
use super::theme::{error_color, warning_color};
use crate::app::Request;
use crate::app::files_state::{FilesRequest, FilesState};
use crate::model::config::{AgentConfig, Language, RuntimeKind};
use crate::model::rel_path::RelPath;
use crate::protocol::workspace::{EntryKind, WorkspaceOp};

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
    dialog: Option<Dialog>,
    /// The terminals of this workspace, kept while another tab is shown.
    pub terminals: super::terminal::tabs::Terminals,
    /// The tab shown on the previous frame (the terminal takes the keyboard when its tab opens).
    last_tab: Option<WsTab>,
    /// What the page asked for this frame.
    asked: Vec<Request>,
}

impl WorkspaceView {
    fn files(&mut self, agent: &AgentConfig, request: FilesRequest) {
        self.asked.push(Request::Files { agent: agent.name.clone(), request });
    }

    /// Draws the page shown over `agent`'s files and terminals; returns what it asks for.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        lang: Language,
        agent: &AgentConfig,
        files: &mut FilesState,
        terminals: &crate::app::terminals_state::TerminalsState,
    ) -> Vec<Request> {
        // The agent may work elsewhere now (its team copy, or back): what is due is read from where.
        self.files(agent, FilesRequest::Show { root: agent.workspace_path() });
        let tab = self.tab;
        let mut terminal_drawn = false;
        match self.tab {
            WsTab::Files => self.files_ui(ui, lang, agent, files),
            WsTab::Terminal => {
                let grab = self.last_tab != Some(WsTab::Terminal);
                let (drawn, asked) = self.terminals.ui(ui, lang, terminals, grab);
                terminal_drawn = drawn;
                let name = &agent.name;
                self.asked.extend(asked.into_iter().map(|request| Request::Terminals { agent: name.clone(), request }));
            }
        }
        // The terminal's tab counts as seen once the terminal was drawn (and took the keyboard).
        self.last_tab = if tab == WsTab::Terminal && !terminal_drawn { None } else { Some(tab) };
        std::mem::take(&mut self.asked)
    }

    fn files_ui(&mut self, ui: &mut egui::Ui, lang: Language, agent: &AgentConfig, files: &mut FilesState) {
        if let Some(error) = &files.error {
            ui.label(
                RichText::new(trf(lang, Key::WorkspaceError, &[("message", &workspace_error_text(lang, error))]))
                    .color(error_color()),
            );
        }
        if let Some(path) = files.removed.clone() {
            ui.horizontal(|ui| {
                ui.label(RichText::new(trf(lang, Key::MovedToTrash, &[("path", path.as_str())])).weak());
                if ui.button(tr(lang, Key::UndoDelete)).clicked() {
                    self.files(agent, FilesRequest::UndoDelete);
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
                self.tree_ui(ui, lang, agent, files, &RelPath::root());
            });
        });
        let mut save = None;
        // The editor's text is the person's, typed into the open file in place.
        egui::CentralPanel::default().show(ui, |ui| match &mut files.file {
            None => {
                ui.label(RichText::new(tr(lang, Key::OpenAFile)).weak());
            }
            Some(file) => match file_editor_ui(ui, lang, file) {
                Some(EditorAction::Save { text, expected }) => save = Some(FilesRequest::Save { text, expected }),
                Some(EditorAction::Rename) => {
                    let name = file.path.name().to_string();
                    self.dialog = Some(Dialog::Rename { path: file.path.clone(), name });
                }
                Some(EditorAction::Delete) => self.dialog = Some(Dialog::Delete { path: file.path.clone() }),
                None => {}
            },
        });
        if let Some(request) = save {
            self.files(agent, request);
        }
        let dirty = files.file.as_ref().filter(|f| f.is_dirty()).map(|f| f.path.clone());
        self.dialog_ui(ui, lang, agent, dirty.as_ref());
    }

    fn tree_ui(&mut self, ui: &mut egui::Ui, lang: Language, agent: &AgentConfig, files: &FilesState, dir: &RelPath) {
        let entries = match files.dirs.get(dir) {
            None => {
                ui.spinner();
                return;
            }
            Some(Err(e)) => {
                ui.label(RichText::new(workspace_error_text(lang, e)).color(error_color()));
                return;
            }
            Some(Ok(entries)) => entries,
        };
        if entries.is_empty() {
            ui.label(RichText::new(tr(lang, Key::EmptyFolder)).weak());
        }
        for entry in entries {
            let Ok(path) = dir.join(&entry.name) else { continue };
            match entry.kind {
                EntryKind::Dir => {
                    let id = ui.make_persistent_id(("ws-dir", path.as_str()));
                    let open = files.expanded.contains(&path);
                    let mut state =
                        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, open);
                    state.set_open(open);
                    let header = state.show_header(ui, |ui| {
                        let label = ui.selectable_label(false, format!("{}/", entry.name));
                        self.context_menu(lang, &label, &path, true);
                        label
                    });
                    let (toggle, label, _) = header.body(|ui| self.tree_ui(ui, lang, agent, files, &path));
                    if toggle.clicked() || label.inner.clicked() {
                        let request = if open { FilesRequest::Collapse(path) } else { FilesRequest::Expand(path) };
                        self.files(agent, request);
                    }
                }
                _ => {
                    let selected = files.file.as_ref().is_some_and(|f| f.path == path);
                    let label = ui.selectable_label(selected, &entry.name);
                    self.context_menu(lang, &label, &path, false);
                    if label.clicked() && !selected {
                        self.files(agent, FilesRequest::Open { path, size: entry.size });
                    }
                }
            }
        }
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

    /// The open dialog; `dirty`: the open file, when it has unsaved edits (a delete loses them).
    fn dialog_ui(&mut self, ui: &mut egui::Ui, lang: Language, agent: &AgentConfig, dirty: Option<&RelPath>) {
        let unsaved_inside = |path: &RelPath| dirty.is_some_and(|d| d.is_within(path));
        let Some(dialog) = &mut self.dialog else { return };
        // On this computer a removal goes to the trash; in a container it is for good.
        let final_removal = agent.runtime.kind != RuntimeKind::Local;
        let mut close = false;
        let mut run: Option<Dialog> = None;
        egui::Window::new(tr(lang, Key::Files))
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ui.ctx(), |ui| {
                // Enter in the name does what the dialog's button does.
                let field = |ui: &mut egui::Ui, title: Key, name: &mut String| {
                    ui.label(tr(lang, title));
                    let edit = ui.text_edit_singleline(name);
                    let entered = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    edit.request_focus();
                    entered && !name.trim().is_empty()
                };
                let entered = match dialog {
                    Dialog::NewFile { name, .. } => field(ui, Key::NewFile, name),
                    Dialog::NewFolder { name, .. } => field(ui, Key::NewFolder, name),
                    Dialog::Rename { name, .. } => field(ui, Key::Rename, name),
                    Dialog::Delete { path } => {
                        let key = if final_removal { Key::ConfirmFinal } else { Key::ConfirmTrash };
                        ui.label(trf(lang, key, &[("name", path.as_str())]));
                        if unsaved_inside(path) {
                            ui.label(RichText::new(tr(lang, Key::UnsavedLost)).color(warning_color()));
                        }
                        false
                    }
                };
                if entered {
                    run = Some(dialog.clone());
                    close = true;
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
            Dialog::Rename { path, name } => {
                path.parent().join_path(&name).map(|to| WorkspaceOp::Rename { from: path, to })
            }
            Dialog::Delete { path } => Ok(WorkspaceOp::Remove { path }),
        };
        let request = match op {
            Ok(op) => FilesRequest::Op(op),
            Err(e) => FilesRequest::Failed(e.into()),
        };
        self.files(agent, request);
    }
}
