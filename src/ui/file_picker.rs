//! The window's own picker, where the desktop has no file dialog (no portal file chooser, no
//! zenity): Attach…, Open… and the new team's folder were silent no-ops there. Folders are read
//! by the runtime (`Command::ListFolder`); the UI thread reads nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use egui::RichText;

use super::i18n::{Key, tr, trf};
use crate::app::AgentCommand;
use crate::app::ConfigCommand;
use crate::app::{AppState, Command};
use crate::protocol::attachments::AttachSource;
use crate::protocol::picker::{PickFor, PickerStart};

/// An open picker.
pub struct Picker {
    purpose: PickFor,
    /// The folder shown.
    folder: PathBuf,
    /// The path field (a folder typed to go to).
    typed: String,
    /// Files ticked (names in `folder`).
    selected: BTreeSet<String>,
}

/// What the person chose.
pub enum Picked {
    /// Commands to send (attach, open).
    Commands(Vec<Command>),
    /// The new team's project folder.
    ProjectFolder(PathBuf),
}

impl Picker {
    /// A picker for `start`; the command reads its first folder.
    pub fn open(start: PickerStart) -> (Self, Command) {
        let folder = start.folder;
        let command = Command::Config(ConfigCommand::ListFolder { path: folder.clone() });
        (
            Self { purpose: start.purpose, typed: folder.display().to_string(), folder, selected: BTreeSet::new() },
            command,
        )
    }

    fn go(&mut self, folder: PathBuf, commands: &mut Vec<Command>) {
        self.typed = folder.display().to_string();
        self.selected.clear();
        commands.push(Command::Config(ConfigCommand::ListFolder { path: folder.clone() }));
        self.folder = folder;
    }
}

/// Draws `picker`; returns the commands it asks (folders to read) and, once the person chose or
/// cancelled, what was chosen (`Some(None)`: cancelled).
pub fn picker_ui(ctx: &egui::Context, state: &AppState, picker: &mut Picker) -> (Vec<Command>, Option<Option<Picked>>) {
    let lang = state.language;
    let mut commands = Vec::new();
    let mut done = None;
    let title = match &picker.purpose {
        PickFor::Attach { .. } => tr(lang, Key::PickAttachTitle),
        PickFor::ConfigFile => tr(lang, Key::PickConfigTitle),
        PickFor::ProjectFolder => tr(lang, Key::PickFolderTitle),
    };
    let escape = ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
    let modal = egui::Modal::new(egui::Id::unique("file-picker")).show(ctx, |ui| {
        ui.set_width(560.0);
        ui.heading(title);
        ui.label(RichText::new(tr(lang, Key::PickNoDialog)).small().weak());
        ui.horizontal(|ui| {
            let up = picker.folder.parent().map(Path::to_path_buf);
            if ui.add_enabled(up.is_some(), egui::Button::new(tr(lang, Key::PickUp))).clicked()
                && let Some(up) = up
            {
                picker.go(up, &mut commands);
            }
            let field = ui.add(egui::TextEdit::singleline(&mut picker.typed).desired_width(f32::INFINITY));
            if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                let typed = PathBuf::from(picker.typed.trim());
                picker.go(typed, &mut commands);
            }
        });
        ui.separator();
        let listed = state.listing.as_ref().filter(|(path, _)| *path == picker.folder);
        egui::ScrollArea::vertical().max_height(340.0).auto_shrink([false, false]).show(ui, |ui| match listed {
            None => {
                ui.spinner();
            }
            Some((_, Err(e))) => {
                ui.label(RichText::new(e).color(super::theme::error_color()));
            }
            Some((_, Ok(entries))) => {
                let mut went = None;
                for entry in entries {
                    if entry.dir {
                        if ui.selectable_label(false, format!("{}/", entry.name)).clicked() {
                            went = Some(picker.folder.join(&entry.name));
                        }
                    } else if picker.purpose.offers(&entry.name) {
                        let mut on = picker.selected.contains(&entry.name);
                        let changed = if picker.purpose.several() {
                            ui.checkbox(&mut on, &entry.name).changed()
                        } else {
                            let clicked = ui.selectable_label(on, &entry.name).clicked();
                            if clicked {
                                on = !on;
                                picker.selected.clear();
                            }
                            clicked
                        };
                        if changed {
                            match on {
                                true => picker.selected.insert(entry.name.clone()),
                                false => picker.selected.remove(&entry.name),
                            };
                        }
                    }
                }
                if entries.is_empty() {
                    ui.label(RichText::new(tr(lang, Key::PickEmpty)).weak());
                }
                if let Some(folder) = went {
                    picker.go(folder, &mut commands);
                }
            }
        });
        ui.separator();
        ui.horizontal(|ui| {
            let (label, ready) = match &picker.purpose {
                PickFor::ProjectFolder => (tr(lang, Key::PickThisFolder).to_string(), true),
                PickFor::Attach { .. } => {
                    let count = picker.selected.len().to_string();
                    (trf(lang, Key::PickAttach, &[("count", &count)]), !picker.selected.is_empty())
                }
                PickFor::ConfigFile => (tr(lang, Key::PickOpen).to_string(), !picker.selected.is_empty()),
            };
            if ui.add_enabled(ready, egui::Button::new(label)).clicked() {
                done = Some(Some(chosen(picker)));
            }
            if ui.button(tr(lang, Key::Cancel)).clicked() {
                done = Some(None);
            }
        });
    });
    if escape || modal.should_close() && done.is_none() {
        done.get_or_insert(None);
    }
    (commands, done)
}

/// What the person chose in `picker`.
fn chosen(picker: &Picker) -> Picked {
    let files: Vec<PathBuf> = picker.selected.iter().map(|name| picker.folder.join(name)).collect();
    match &picker.purpose {
        PickFor::Attach { agent } => Picked::Commands(vec![Command::Agent(
            agent.clone().into(),
            AgentCommand::Attach { source: AttachSource::Files(files) },
        )]),
        PickFor::ConfigFile => {
            Picked::Commands(files.into_iter().map(|path| Command::Config(ConfigCommand::Open { path })).collect())
        }
        PickFor::ProjectFolder => Picked::ProjectFolder(picker.folder.clone()),
    }
}
