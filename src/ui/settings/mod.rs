//! The settings view: the config file in the editor, checked live by the very loader used at
//! startup; Save (atomic, refused while the text has errors); a conflict bar when the file
//! changes on disk under unsaved edits; Open…, Recent; and agents found on this computer.

mod look;
pub mod session;

pub use look::{language_name, set_default, theme_key};

use std::path::{Path, PathBuf};

use egui::RichText;

use crate::app::ConfigCommand;
use crate::app::{AppState, Command};
use crate::model::config::Language;
use crate::model::problem::{Problem, Severity};
use crate::protocol::discovery::Source;
use crate::ui::config_editor::config_editor_ui;
use crate::ui::i18n::{Key, problem_text, tr, trf};
use crate::ui::theme::{error_color, ok_color, warning_color};

/// The `[registry]` table "Set a mirror…" adds, to be filled in.
const MIRROR_STUB: &str =
    "\n[registry]\n# A mirror of the ACP Registry's index (https://…, or http:// on this computer only).\nurl = \"\"\n";

/// The editor's state.
#[derive(Default)]
pub struct SettingsView {
    path: Option<PathBuf>,
    /// The text being edited.
    pub text: String,
    /// The file's text when last read or saved.
    disk: Option<String>,
    seen_loads: u64,
    /// The last text sent to be checked.
    asked: Option<String>,
    /// The problems of the last text checked (the current one's once its check is back).
    problems: Vec<Problem>,
    /// Their version, when the file changed on disk under unsaved edits.
    conflict: Option<String>,
    jump: Option<(usize, usize)>,
    /// Saving: the count of reported saves when it began.
    saving: Option<u64>,
    /// The form of an agent, when open.
    form: Option<crate::ui::agent_form_view::AgentFormView>,
    /// The form wrote the text: save it once the loader finds no error in it.
    save_when_checked: bool,
    /// The form asked for a folder: the one picked is its workspace.
    pub wants_folder: bool,
    /// "Get agents from the ACP Registry…" was clicked.
    get_agents: bool,
}

impl SettingsView {
    /// Whether "Get agents from the ACP Registry…" was clicked since last asked.
    pub fn take_get_agents(&mut self) -> bool {
        std::mem::take(&mut self.get_agents)
    }

    /// True when the text differs from the file.
    pub fn is_dirty(&self) -> bool {
        self.disk.as_deref() != Some(self.text.as_str())
    }

    /// True when the text has an error (warnings do not block saving).
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(|p| p.severity() == Severity::Error)
    }

    /// True while the current text's check has not come back.
    fn checking(&self, state: &AppState) -> bool {
        state.checked.as_ref().is_none_or(|(text, _)| *text != self.text)
    }

    /// Follows the file: on first show, after another file is opened, and after each change on disk.
    fn sync_with_disk(&mut self, state: &AppState) {
        let path = state.config_path.clone();
        let new_file = path != self.path;
        if !new_file && self.seen_loads == state.config_loads {
            return;
        }
        self.seen_loads = state.config_loads;
        self.path = path;
        if self.path.is_none() {
            return;
        }
        let theirs = state.config_text.clone();
        if new_file || !self.is_dirty() {
            self.text = theirs.clone().unwrap_or_default();
            self.disk = theirs;
            self.conflict = None;
        } else if theirs != self.disk {
            // Changed on disk while the person has unsaved edits: ask, never overwrite.
            self.conflict = theirs;
        }
    }

    /// Asks the runtime to check the text with the loader when it changed, and takes the
    /// problems of the text checked when they come back.
    fn check(&mut self, state: &AppState, commands: &mut Vec<Command>) {
        if let Some((text, problems)) = &state.checked
            && *text == self.text
        {
            self.problems.clone_from(problems);
        }
        if self.asked.as_deref() == Some(self.text.as_str()) {
            return;
        }
        if let Some(path) = &self.path {
            commands.push(Command::Config(ConfigCommand::Check { path: path.clone(), text: self.text.clone() }));
            self.asked = Some(self.text.clone());
        }
    }

    /// Draws the view; returns the commands to send.
    pub fn ui(&mut self, ui: &mut egui::Ui, lang: Language, state: &AppState) -> Vec<Command> {
        let mut commands = Vec::new();
        self.sync_with_disk(state);
        self.check(state, &mut commands);
        if self.saving.is_some_and(|at| state.saves > at)
            && let Some(result) = &state.last_save
        {
            self.saving = None;
            if result.is_none() {
                self.disk = Some(self.text.clone());
                self.conflict = None;
            }
        }
        self.save_checked(state, &mut commands);
        self.toolbar_ui(ui, lang, state, &mut commands);
        if let Some(theirs) = self.conflict.clone() {
            egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, warning_color())).show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(tr(lang, Key::ChangedOnDisk)).color(warning_color()));
                    if ui.button(tr(lang, Key::TakeTheirs)).clicked() {
                        self.text = theirs.clone();
                        self.disk = Some(theirs.clone());
                        self.conflict = None;
                    }
                    if ui.button(tr(lang, Key::KeepMine)).clicked() {
                        // Theirs becomes the base: saving now replaces it knowingly.
                        self.disk = Some(theirs.clone());
                        self.conflict = None;
                    }
                });
            });
        }
        egui::Panel::right("agent-form").resizable(true).default_size(400.0).show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("agent-form-scroll")
                .show(ui, |ui| self.form_ui(ui, lang, state, &mut commands));
        });
        egui::Panel::bottom("settings-problems")
            .resizable(true)
            .show(ui, |ui| self.problems_ui(ui, lang, state, &mut commands));
        let lines: Vec<usize> = self.problems.iter().map(|p| p.line).collect();
        config_editor_ui(ui, lang, &mut self.text, &lines, &mut self.jump);
        commands
    }

    /// Opens the form to add an agent by hand (from "Get agents" when the index cannot be read).
    pub fn open_new_agent_form(&mut self) {
        self.form = Some(crate::ui::agent_form_view::AgentFormView::default());
    }

    /// Shows where a mirror of the ACP Registry goes: a `[registry]` table with an empty `url`
    /// added to the text when it has none (not saved: the checker marks the empty URL to fill in).
    pub fn add_mirror_stub(&mut self) {
        let has = self.text.lines().any(|l| l.trim_start().starts_with("[registry]"));
        if !has && !self.text.is_empty() {
            if !self.text.ends_with('\n') {
                self.text.push('\n');
            }
            self.text.push_str(MIRROR_STUB);
        }
    }

    /// The folder picked for the form's workspace.
    pub fn take_folder(&mut self, folder: &Path) {
        self.wants_folder = false;
        if let Some(form) = &mut self.form {
            form.form.workspace = folder.display().to_string();
        }
    }

    /// Saves what the form wrote once its check is back without errors; else says why not.
    fn save_checked(&mut self, state: &AppState, commands: &mut Vec<Command>) {
        if !self.save_when_checked || self.checking(state) {
            return;
        }
        self.save_when_checked = false;
        match (self.has_errors(), self.path.clone()) {
            (false, Some(path)) => {
                self.saving = Some(state.saves);
                commands.push(Command::Config(ConfigCommand::Save { path, text: self.text.clone() }));
                self.form = None;
            }
            _ => {
                if let Some(form) = &mut self.form {
                    form.error = Some(tr(state.language, Key::NotSavedProblems).to_string());
                }
            }
        }
    }

    /// The agents of the file and the form to add or edit one.
    fn form_ui(&mut self, ui: &mut egui::Ui, lang: Language, state: &AppState, commands: &mut Vec<Command>) {
        use crate::ui::agent_form_view::{FormAsked, agent_form_ui, agents_list_ui};
        let Some(view) = &mut self.form else {
            self.form = agents_list_ui(ui, lang, state);
            return;
        };
        match agent_form_ui(ui, lang, state, view, &self.text) {
            FormAsked::Nothing => {}
            FormAsked::Write(text) => {
                self.text = text;
                self.save_when_checked = true;
            }
            FormAsked::Close => self.form = None,
            FormAsked::Undo(text) => {
                self.text = text;
                self.save_when_checked = false;
                self.form = None;
            }
            FormAsked::PickFolder(start_in) => {
                self.wants_folder = true;
                commands.push(Command::Config(ConfigCommand::PickFolder { start_in }));
            }
            FormAsked::Discover => commands.push(Command::Config(ConfigCommand::DiscoverAgents)),
        }
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, lang: Language, state: &AppState, commands: &mut Vec<Command>) {
        let checking = self.checking(state);
        ui.horizontal(|ui| {
            ui.heading(tr(lang, Key::Settings));
            if let Some(path) = &self.path {
                ui.label(RichText::new(path.display().to_string()).monospace().weak());
            }
            ui.separator();
            let can_save =
                self.is_dirty() && !checking && !self.has_errors() && self.conflict.is_none() && self.saving.is_none();
            let save = ui.add_enabled(can_save, egui::Button::new(tr(lang, Key::Save)));
            let save = if self.has_errors() { save.on_disabled_hover_text(tr(lang, Key::SaveRefused)) } else { save };
            let save = save.on_hover_text("Ctrl+S");
            // Ctrl+S saves here as in the file editor (taken only when saving is possible).
            let shortcut = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::S);
            let keyed = can_save && ui.input_mut(|i| i.consume_shortcut(&shortcut));
            if (save.clicked() || keyed)
                && let Some(path) = self.path.clone()
            {
                self.saving = Some(state.saves);
                commands.push(Command::Config(ConfigCommand::Save { path, text: self.text.clone() }));
            }
            if ui.button(tr(lang, Key::OpenFile)).clicked() {
                let start_in = self.path.as_deref().and_then(Path::parent).map(Path::to_path_buf);
                commands.push(Command::Config(ConfigCommand::PickFile { start_in }));
            }
            ui.menu_button(tr(lang, Key::Recent), |ui| {
                if state.recent.is_empty() {
                    ui.label(RichText::new(tr(lang, Key::NoRecent)).weak());
                }
                for (path, exists) in &state.recent {
                    let label = if *exists {
                        path.display().to_string()
                    } else {
                        trf(lang, Key::MissingFile, &[("path", &path.display().to_string())])
                    };
                    if ui.add_enabled(*exists, egui::Button::new(label)).clicked() {
                        commands.push(Command::Config(ConfigCommand::Open { path: path.clone() }));
                        ui.close();
                    }
                }
            });
            let status = if self.saving.is_some() || checking {
                None
            } else if let Some(Some(error)) = &state.last_save
                && self.is_dirty()
            {
                Some((trf(lang, Key::SaveFailed, &[("error", error)]), error_color()))
            } else if self.has_errors() {
                Some((tr(lang, Key::SaveRefused).to_string(), error_color()))
            } else if self.is_dirty() {
                Some((tr(lang, Key::Unsaved).to_string(), warning_color()))
            } else {
                Some((tr(lang, Key::Saved).to_string(), ok_color()))
            };
            if let Some((text, color)) = status {
                ui.label(RichText::new(text).small().color(color));
            }
        });
        commands.extend(look::look_ui(ui, lang, state));
        ui.separator();
    }

    fn problems_ui(&mut self, ui: &mut egui::Ui, lang: Language, state: &AppState, commands: &mut Vec<Command>) {
        // One count everywhere: the text as the file holds it shows the file's problems (those of
        // the file itself too, as who can read it), as the status bar does; an edited text, its own.
        let problems =
            if state.config_text.as_deref() == Some(self.text.as_str()) { &state.problems } else { &self.problems };
        let problems = problems.clone();
        egui::ScrollArea::vertical().id_salt("settings-problems-scroll").max_height(220.0).show(ui, |ui| {
            if problems.is_empty() {
                ui.label(RichText::new(tr(lang, Key::NoProblems)).color(ok_color()));
            }
            for p in &problems {
                let color = if p.severity() == Severity::Error { error_color() } else { warning_color() };
                let text = format!("{}:{}  {}", p.line, p.column, problem_text(lang, &p.kind));
                if ui.link(RichText::new(text).color(color)).clicked() {
                    self.jump = Some((p.line, p.column));
                }
            }
            ui.separator();
            self.discovery_ui(ui, lang, state, commands);
        });
    }

    fn discovery_ui(&mut self, ui: &mut egui::Ui, lang: Language, state: &AppState, commands: &mut Vec<Command>) {
        ui.horizontal(|ui| {
            ui.label(RichText::new(tr(lang, Key::FindAgents)).strong());
            if ui.button(tr(lang, Key::Search)).clicked() {
                commands.push(Command::Config(ConfigCommand::DiscoverAgents));
            }
            if ui.button(tr(lang, Key::GetAgentsFromRegistry)).clicked() {
                self.get_agents = true;
            }
        });
        let known: Vec<&str> = state.config.iter().flat_map(|c| &c.agents).map(|a| a.command.as_str()).collect();
        if state.found_agents.as_ref().is_some_and(Vec::is_empty) {
            ui.label(RichText::new(tr(lang, Key::NoAgentsFound)).weak());
        }
        for found in state.found_agents.iter().flatten() {
            ui.horizontal(|ui| {
                let from = match &found.source {
                    Source::Path(p) => p.display().to_string(),
                    Source::Zed(_) => tr(lang, Key::FromZed).to_string(),
                    Source::JetBrains(_) => tr(lang, Key::FromJetBrains).to_string(),
                };
                let command = std::iter::once(found.agent.command.as_str())
                    .chain(found.agent.args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                ui.label(RichText::new(&found.agent.name).strong());
                ui.label(RichText::new(command).monospace());
                ui.label(RichText::new(from).small().weak());
                if known.contains(&found.agent.command.as_str()) {
                    ui.label(RichText::new(tr(lang, Key::AlreadyAdded)).small().weak());
                } else if ui.button(tr(lang, Key::AddToConfig)).clicked()
                    && let Some(path) = self.path.clone()
                {
                    commands.push(Command::Config(ConfigCommand::AddAgent { path, agent: found.agent.clone() }));
                }
            });
        }
    }
}
