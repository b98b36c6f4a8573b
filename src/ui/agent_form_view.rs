//! Settings' form to add or edit an agent without typing TOML (issue 35 item 12): name, command
//! (with the agents found on this computer), arguments, workspace (with a folder picker), where it
//! runs, environment (values hidden), channels. "Save agent" writes it into the config text
//! keeping the person's comments (`model::agent_form`), and the file is saved once the loader
//! finds no error in it; otherwise the editor beside shows the problems, unsaved.

use egui::RichText;

use super::i18n::{Key, tr};
use super::theme::error_color;
use crate::app::AppState;
use crate::model::agent_form::{AgentForm, set_agent};
use crate::model::config::{Language, RuntimeKind};

/// The form, while open.
#[derive(Clone, Debug, Default)]
pub struct AgentFormView {
    /// The agent edited (its name in the file), or none for a new one.
    pub editing: Option<String>,
    /// The fields.
    pub form: AgentForm,
    /// Why it could not be written.
    pub error: Option<String>,
    /// The agent this form wrote into the text (its name there), not saved yet: Save agent again
    /// changes that one rather than adding a second of the same name (issue 48, item 1).
    pub wrote: Option<String>,
    /// The text before the form first wrote into it, and what it wrote last: Cancel puts the
    /// text back as it was (when nobody changed it since).
    pub before: Option<(String, String)>,
    /// Environment values shown.
    show_values: bool,
}

/// What the form asked for.
pub enum FormAsked {
    /// Close the form and put the text back as it was before the form wrote into it.
    Undo(String),
    /// Nothing.
    Nothing,
    /// The config text with the agent written in, to save once checked.
    Write(String),
    /// Close the form.
    Close,
    /// Pick the workspace folder (from `start_in`).
    PickFolder(Option<std::path::PathBuf>),
    /// Look for agents on this computer.
    Discover,
}

/// The list of the config's agents, each with Edit, and "Add an agent"; returns the form to
/// open.
pub fn agents_list_ui(ui: &mut egui::Ui, lang: Language, state: &AppState) -> Option<AgentFormView> {
    let mut open = None;
    ui.horizontal(|ui| {
        ui.label(RichText::new(tr(lang, Key::AgentsTitle)).strong());
        if ui.button(tr(lang, Key::AddAnAgent)).clicked() {
            open = Some(AgentFormView::default());
        }
    });
    // A team's members are made by Sidekicks, not written in the file: not offered here.
    for agent in state.config.iter().flat_map(|c| &c.agents).filter(|a| state.teams.team_of(&a.name).is_none()) {
        ui.horizontal(|ui| {
            ui.label(&agent.name);
            if ui.small_button(tr(lang, Key::EditAgent)).clicked() {
                open = Some(AgentFormView {
                    editing: Some(agent.name.clone()),
                    form: AgentForm::of(agent),
                    ..Default::default()
                });
            }
            // A downloaded agent's command is a long path (the data folder's): its program's name
            // (the whole command on hover), so the panel does not grow over the editor.
            let program = std::path::Path::new(&agent.command)
                .file_name()
                .filter(|_| agent.command.chars().count() > 40)
                .map_or(agent.command.as_str(), |n| n.to_str().unwrap_or(&agent.command));
            ui.label(RichText::new(program).monospace().weak()).on_hover_text(&agent.command);
        });
    }
    open
}

/// Draws the form over `text` (the editor's); returns what it asked for.
pub fn agent_form_ui(
    ui: &mut egui::Ui,
    lang: Language,
    state: &AppState,
    view: &mut AgentFormView,
    text: &str,
) -> FormAsked {
    let mut asked = FormAsked::Nothing;
    let title = if view.editing.is_some() { Key::EditAgentTitle } else { Key::AddAgentTitle };
    ui.heading(tr(lang, title));
    let form = &mut view.form;
    egui::Grid::new("agent-form").num_columns(2).spacing([8.0, 6.0]).show(ui, |ui| {
        ui.label(tr(lang, Key::FieldName));
        ui.add(egui::TextEdit::singleline(&mut form.name).desired_width(220.0));
        ui.end_row();

        if command_row(ui, lang, state, form) {
            asked = FormAsked::Discover;
        }
        ui.label(tr(lang, Key::FieldArgs));
        ui.add(egui::TextEdit::multiline(&mut form.args).desired_rows(2).desired_width(220.0));
        ui.end_row();

        ui.label(tr(lang, Key::FieldWorkspace));
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut form.workspace).desired_width(160.0));
            if ui.button(tr(lang, Key::Choose)).clicked() {
                let start = Some(std::path::PathBuf::from(&form.workspace)).filter(|p| p.is_absolute());
                asked = FormAsked::PickFolder(start);
            }
        });
        ui.end_row();

        where_rows(ui, lang, form, &mut view.show_values);
        ui.label(tr(lang, Key::FieldChannels));
        ui.add(egui::TextEdit::singleline(&mut form.channels).desired_width(220.0).hint_text("design, review"));
        ui.end_row();
    });
    if let Some(error) = &view.error {
        ui.label(RichText::new(error).color(error_color()));
    }
    ui.horizontal(|ui| {
        if ui.button(tr(lang, Key::SaveAgent)).clicked() {
            match set_agent(text, view.wrote.as_deref().or(view.editing.as_deref()), &view.form) {
                Ok(written) => {
                    view.error = None;
                    view.wrote = Some(view.form.name.trim().to_string());
                    let first = view.before.take().map_or_else(|| text.to_string(), |(first, _)| first);
                    view.before = Some((first, written.clone()));
                    asked = FormAsked::Write(written);
                }
                Err(e) => view.error = Some(e.to_string()),
            }
        }
        if ui.button(tr(lang, Key::Cancel)).clicked() {
            // What the form wrote and could not save goes with it.
            asked = match view.before.take() {
                Some((first, written)) if written == text => FormAsked::Undo(first),
                _ => FormAsked::Close,
            };
        }
    });
    asked
}

/// The command row: the field, and the agents found on this computer to fill it; true when the
/// search for them should start.
fn command_row(ui: &mut egui::Ui, lang: Language, state: &AppState, form: &mut AgentForm) -> bool {
    let mut discover = false;
    ui.label(tr(lang, Key::FieldCommand));
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut form.command).desired_width(160.0));
        // What is found on this computer fills the command and its arguments.
        let found = ui.menu_button(tr(lang, Key::FoundAgents), |ui| match &state.found_agents {
            None => {
                ui.spinner();
            }
            Some(found) if found.is_empty() => {
                ui.label(RichText::new(tr(lang, Key::NoAgentsFound)).weak());
            }
            Some(found) => {
                for f in found {
                    let line = format!("{} — {} {}", f.agent.name, f.agent.command, f.agent.args.join(" "));
                    if ui.button(line).clicked() {
                        form.command.clone_from(&f.agent.command);
                        form.args = f.agent.args.join("\n");
                        if form.name.trim().is_empty() {
                            form.name.clone_from(&f.agent.name);
                        }
                        ui.close();
                    }
                }
            }
        });
        if found.response.clicked() && state.found_agents.is_none() {
            discover = true;
        }
    });
    ui.end_row();

    discover
}

/// Where the agent runs (and the place and folder there), and its environment.
fn where_rows(ui: &mut egui::Ui, lang: Language, form: &mut AgentForm, show_values: &mut bool) {
    ui.label(tr(lang, Key::FieldRunsOn));
    egui::ComboBox::from_id_salt("agent-form-runtime")
        .selected_text(super::i18n::runtime_place(lang, form.runtime.code()))
        .show_ui(ui, |ui| {
            for kind in RuntimeKind::ALL {
                ui.selectable_value(&mut form.runtime, kind, super::i18n::runtime_place(lang, kind.code()));
            }
        });
    ui.end_row();
    // Where exactly, and the folder there.
    if let Some(key) = form.runtime.target_key() {
        let (label, hint) = match key {
            "host" => (Key::FieldHost, "gpu-box, me@host:2222"),
            "sandbox" => (Key::FieldSandbox, ""),
            "pod" => (Key::FieldPod, ""),
            _ => (Key::FieldContainer, ""),
        };
        ui.label(tr(lang, label));
        ui.add(egui::TextEdit::singleline(&mut form.target).desired_width(220.0).hint_text(hint));
        ui.end_row();
        ui.label(tr(lang, Key::FieldFolderThere));
        ui.vertical(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut form.remote_path)
                    .desired_width(220.0)
                    .hint_text(tr(lang, Key::FolderThereHint)),
            );
            ui.label(RichText::new(tr(lang, Key::FolderThereNote)).small().weak());
        });
        ui.end_row();
    }

    ui.label(tr(lang, Key::FieldEnv));
    ui.vertical(|ui| {
        let mut remove = None;
        for (i, (name, value)) in form.env.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                ui.add(egui::TextEdit::singleline(name).desired_width(110.0).hint_text("NAME"));
                ui.add(egui::TextEdit::singleline(value).desired_width(110.0).password(!*show_values));
                if ui.small_button("×").on_hover_text(tr(lang, Key::RemoveVariable)).clicked() {
                    remove = Some(i);
                }
            });
        }
        if let Some(i) = remove {
            form.env.remove(i);
        }
        ui.horizontal(|ui| {
            if ui.small_button(tr(lang, Key::AddVariable)).clicked() {
                form.env.push(Default::default());
            }
            if !form.env.is_empty() {
                ui.checkbox(show_values, tr(lang, Key::ShowValues));
            }
        });
    });
    ui.end_row();
}
