//! The agent list: a state dot, the name, what needs the person (a count), a failure or unread
//! output, the state and where it runs; channels and teams with what waits in them. Clicking
//! selects.

use egui::RichText;

use super::i18n::{Key, state_text, tr, trf, where_text};
use super::theme::{ERROR, WARNING, state_dot};
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
    /// The inbox.
    Inbox,
    /// A channel (its name).
    Channel(String),
}

/// What the main view shows, as the sidebar marks it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown<'a> {
    /// The inbox.
    pub inbox: bool,
    /// The selected agent (its conversation or workspace).
    pub agent: bool,
    /// This team.
    pub team: Option<&'a str>,
}

/// Draws the agent list; `selected` is the selected agent, marked when `shown` says it is shown.
pub fn sidebar_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    selected: &mut Option<String>,
    shown: Shown<'_>,
) -> SidebarClick {
    let inbox_shown = shown.inbox;
    let mut clicked = SidebarClick::None;
    let lang = state.language;
    ui.add_space(6.0);
    let waiting = state.needs_you();
    let entry = RichText::new(trf(lang, Key::InboxEntry, &[("count", &waiting.to_string())])).strong();
    let entry = if waiting > 0 { entry.color(WARNING) } else { entry };
    if ui.selectable_label(inbox_shown, entry).on_hover_text("Ctrl+Shift+I").clicked() {
        clicked = SidebarClick::Inbox;
    }
    ui.add_space(6.0);
    ui.heading(tr(lang, Key::Agents));
    ui.separator();
    egui::ScrollArea::vertical().show(ui, |ui| {
        for agent in &state.agents {
            let name = &agent.config.name;
            let is_selected = shown.agent && selected.as_deref() == Some(name.as_str());
            ui.horizontal(|ui| {
                state_dot(ui, &agent.state, state_text(lang, &agent.state));
                if ui.selectable_label(is_selected, RichText::new(name).strong()).clicked() {
                    *selected = Some(name.clone());
                    clicked = SidebarClick::Agent;
                }
                let needs = agent.needs();
                if needs.count() > 0 {
                    badge(ui, needs.count(), &needs_text(lang, &needs));
                } else if agent.failed() {
                    ui.label(RichText::new("!").strong().color(ERROR)).on_hover_text(tr(lang, Key::AgentFailed));
                } else if agent.unread() && !is_selected {
                    ui.label(RichText::new("•").color(WARNING)).on_hover_text(tr(lang, Key::Unread));
                }
                let files =
                    ui.small_button(tr(lang, Key::Files)).on_hover_text(agent.config.workspace.display().to_string());
                if files.clicked() {
                    *selected = Some(name.clone());
                    clicked = SidebarClick::Files;
                }
            });
            let needs = agent.needs().count();
            let status = if needs > 0 { tr(lang, Key::NeedsYou) } else { state_text(lang, &agent.state) };
            let line = RichText::new(format!("{status} · {}", where_text(lang, &agent.config.runtime))).small();
            ui.label(if needs > 0 { line.color(WARNING) } else { line.weak() });
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
                    let needs = state.channel_needs(&channel.name);
                    if needs > 0 {
                        badge(ui, needs, &trf(lang, Key::ChannelNeedsYou, &[("count", &needs.to_string())]));
                    } else if channel.unread {
                        ui.label(RichText::new("•").color(WARNING)).on_hover_text(tr(lang, Key::Unread));
                    }
                });
            }
        }
        ui.add_space(8.0);
        ui.heading(tr(lang, Key::Teams));
        ui.separator();
        for team in &state.teams.teams {
            let record = &team.info.record;
            ui.horizontal(|ui| {
                let team_shown = shown.team == Some(record.id.as_str());
                if ui.selectable_label(team_shown, RichText::new(&record.name).strong()).clicked() {
                    clicked = SidebarClick::Team(record.id.clone());
                }
                let conflicts = state.team_conflicts(&record.id);
                if conflicts > 0 {
                    badge(ui, conflicts, &trf(lang, Key::TeamConflicts, &[("count", &conflicts.to_string())]));
                }
            });
            let members: Vec<&str> = record.members.iter().map(|m| m.agent.as_str()).collect();
            ui.label(RichText::new(members.join(", ")).small().weak());
        }
        if ui.small_button(tr(lang, Key::NewTeam)).clicked() {
            clicked = SidebarClick::NewTeam;
        }
    });
    clicked
}

/// A count of things waiting for the person, on a warning background.
fn badge(ui: &mut egui::Ui, count: usize, why: &str) {
    let text =
        RichText::new(format!(" {count} ")).small().strong().color(egui::Color32::BLACK).background_color(WARNING);
    ui.label(text).on_hover_text(why);
}

/// What waits, in words.
fn needs_text(lang: crate::model::config::Language, needs: &crate::app::attention::Needs) -> String {
    let mut parts = Vec::new();
    if needs.permissions > 0 {
        parts.push(trf(lang, Key::NeedsPermissions, &[("count", &needs.permissions.to_string())]));
    }
    if needs.questions > 0 {
        parts.push(trf(lang, Key::NeedsQuestions, &[("count", &needs.questions.to_string())]));
    }
    if needs.login {
        parts.push(tr(lang, Key::NeedsLogin).to_string());
    }
    format!("{}: {}", tr(lang, Key::NeedsYou), parts.join(", "))
}
