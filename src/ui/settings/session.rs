//! The session's settings above the composer: one picker per option the agent offers (mode,
//! model, thinking level, …: a list for a select, a tick for on/off), or the older modes. A choice
//! goes to the agent at once and is remembered for its next sessions.

use egui::RichText;

use crate::app::AgentCommand;
use crate::app::{AgentView, Command};
use crate::model::config::Language;
use crate::model::session_config::{Category, OptionKey, OptionKind, OptionValue};
use crate::ui::i18n::{Key, tr};

/// Draws the pickers (nothing when the agent offers none); returns the choices made.
pub fn settings_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) -> Vec<Command> {
    let mut commands = Vec::new();
    if agent.options.is_empty() && agent.modes.is_none() {
        return commands;
    }
    let name = &agent.config.name;
    let choose = |key: OptionKey, value: OptionValue| {
        Command::Agent(name.clone().into(), AgentCommand::SetOption { key, value })
    };
    ui.horizontal_wrapped(|ui| {
        for option in &agent.options {
            let salt = ("option", name.as_str(), option.id.as_str());
            match &option.kind {
                OptionKind::Select { current, choices } => {
                    let shown = choices.iter().find(|c| c.value == *current).map_or(current.as_str(), |c| &c.name);
                    let heading = ui.label(RichText::new(&option.name).small().weak());
                    let combo = egui::ComboBox::from_id_salt(salt).selected_text(shown).show_ui(ui, |ui| {
                        let mut group = None;
                        for choice in choices {
                            if choice.group != group {
                                group.clone_from(&choice.group);
                                if let Some(g) = &group {
                                    ui.label(RichText::new(g).small().strong());
                                }
                            }
                            let picked = ui.selectable_label(choice.value == *current, &choice.name);
                            let picked = match &choice.description {
                                Some(d) => picked.on_hover_text(d),
                                None => picked,
                            };
                            if picked.clicked() && choice.value != *current {
                                commands.push(choose(
                                    OptionKey::Id(option.id.clone()),
                                    OptionValue::Choice(choice.value.clone()),
                                ));
                            }
                        }
                    });
                    let combo = combo.response.labelled_by(heading.id);
                    if let Some(d) = &option.description {
                        combo.on_hover_text(d);
                    }
                }
                OptionKind::Boolean { current } => {
                    let mut on = *current;
                    let tick = ui.checkbox(&mut on, &option.name);
                    if tick.changed() {
                        commands.push(choose(OptionKey::Id(option.id.clone()), OptionValue::Bool(on)));
                    }
                }
            }
            ui.add_space(6.0);
        }
        // Older agents: modes only.
        if let (true, Some(modes)) = (agent.options.is_empty(), &agent.modes) {
            let shown =
                modes.available.iter().find(|m| m.value == modes.current).map_or(modes.current.as_str(), |m| &m.name);
            let heading = ui.label(RichText::new(tr(lang, Key::Mode)).small().weak());
            let combo = egui::ComboBox::from_id_salt(("mode", name.as_str())).selected_text(shown).show_ui(ui, |ui| {
                for mode in &modes.available {
                    if ui.selectable_label(mode.value == modes.current, &mode.name).clicked()
                        && mode.value != modes.current
                    {
                        commands
                            .push(choose(OptionKey::Category(Category::Mode), OptionValue::Choice(mode.value.clone())));
                    }
                }
            });
            combo.response.labelled_by(heading.id);
        }
    });
    commands
}
