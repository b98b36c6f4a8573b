//! The agent list: a state dot, the name, the state and where it runs. Clicking selects.

use egui::RichText;

use super::i18n::{Key, state_text, tr, where_text};
use super::theme::state_dot;
use crate::app::AppState;

/// What was clicked in the sidebar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SidebarClick {
    /// Nothing.
    None,
    /// An agent's name: its conversation.
    Agent,
    /// An agent's Files button: its workspace.
    Files,
    /// A team (its id).
    Team(String),
    /// "New team…".
    NewTeam,
    /// A channel (its name).
    Channel(String),
}

/// Draws the agent list; `selected` is the agent shown.
pub fn sidebar_ui(ui: &mut egui::Ui, state: &AppState, selected: &mut Option<String>) -> SidebarClick {
    let mut clicked = SidebarClick::None;
    let lang = state.language;
    ui.add_space(6.0);
    ui.heading(tr(lang, Key::Agents));
    ui.separator();
    egui::ScrollArea::vertical().show(ui, |ui| {
        for agent in &state.agents {
            let name = &agent.config.name;
            let is_selected = selected.as_deref() == Some(name.as_str());
            ui.horizontal(|ui| {
                state_dot(ui, &agent.state, state_text(lang, &agent.state));
                if ui.selectable_label(is_selected, RichText::new(name).strong()).clicked() {
                    *selected = Some(name.clone());
                    clicked = SidebarClick::Agent;
                }
                let files =
                    ui.small_button(tr(lang, Key::Files)).on_hover_text(agent.config.workspace.display().to_string());
                if files.clicked() {
                    *selected = Some(name.clone());
                    clicked = SidebarClick::Files;
                }
            });
            ui.label(
                RichText::new(format!(
                    "{} · {}",
                    state_text(lang, &agent.state),
                    where_text(lang, &agent.config.runtime)
                ))
                .small()
                .weak(),
            );
            ui.add_space(4.0);
        }
        if !state.channels.channels.is_empty() {
            ui.add_space(8.0);
            ui.heading(tr(lang, Key::Channels));
            ui.separator();
            for channel in &state.channels.channels {
                ui.horizontal(|ui| {
                    let shown = state.channels.viewing.as_deref() == Some(channel.name.as_str());
                    if ui.selectable_label(shown, RichText::new(format!("#{}", channel.title)).strong()).clicked() {
                        clicked = SidebarClick::Channel(channel.name.clone());
                    }
                    if channel.unread {
                        ui.label(RichText::new("•").color(super::theme::WARNING)).on_hover_text(tr(lang, Key::Unread));
                    }
                });
            }
        }
        ui.add_space(8.0);
        ui.heading(tr(lang, Key::Teams));
        ui.separator();
        for team in &state.teams.teams {
            let record = &team.info.record;
            if ui.selectable_label(false, RichText::new(&record.name).strong()).clicked() {
                clicked = SidebarClick::Team(record.id.clone());
            }
            let members: Vec<&str> = record.members.iter().map(|m| m.agent.as_str()).collect();
            ui.label(RichText::new(members.join(", ")).small().weak());
        }
        if ui.small_button(tr(lang, Key::NewTeam)).clicked() {
            clicked = SidebarClick::NewTeam;
        }
    });
    clicked
}
