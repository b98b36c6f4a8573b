//! The agent list: a state dot, the name, what needs the person (a count), a failure or unread
//! output, the state and where it runs; channels and teams with what waits in them. Clicking
//! selects. Search and Settings stay at the bottom, below the list, which scrolls; past
//! [`FILTER_FROM`] agents a filter box keeps the list short.

use egui::RichText;

use super::i18n::{Key, state_text, tr, trf, where_text};
use super::theme::{error_color, state_dot, warning_color};
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
    /// "Try with several agents…" (best of N).
    TryAgents,
    /// The inbox.
    Inbox,
    /// A channel (its name).
    Channel(String),
    /// Search.
    Search,
    /// Every thread.
    Threads,
    /// Settings.
    Settings,
    /// "Get agents" (the ACP Registry).
    GetAgents,
}

/// From how many agents the list has a filter box.
pub const FILTER_FROM: usize = 15;

/// What the main view shows, as the sidebar marks it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown<'a> {
    /// The inbox.
    pub inbox: bool,
    /// The selected agent (its conversation or workspace).
    pub agent: bool,
    /// This team.
    pub team: Option<&'a str>,
    /// Search.
    pub search: bool,
    /// Every thread.
    pub threads: bool,
    /// Settings.
    pub settings: bool,
    /// "Get agents".
    pub get_agents: bool,
}

/// Draws the sidebar; `selected` is the selected agent, marked when `shown` says it is shown;
/// `filter` is what the filter box holds.
pub fn sidebar_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    selected: &mut Option<String>,
    shown: Shown<'_>,
    filter: &mut String,
) -> SidebarClick {
    let lang = state.language;
    // The bottom first, so the list above scrolls in what is left and never runs under it.
    let mut clicked = SidebarClick::None;
    egui::Panel::bottom("sidebar-end").show(ui, |ui| {
        ui.add_space(2.0);
        let search = ui.selectable_label(shown.search, tr(lang, Key::Search));
        if search.on_hover_text("Ctrl+Shift+F").clicked() {
            clicked = SidebarClick::Search;
        }
        if ui.selectable_label(shown.threads, tr(lang, Key::AllThreads)).clicked() {
            clicked = SidebarClick::Threads;
        }
        if ui.selectable_label(shown.get_agents, tr(lang, Key::GetAgents)).clicked() {
            clicked = SidebarClick::GetAgents;
        }
        if ui.selectable_label(shown.settings, tr(lang, Key::Settings)).clicked() {
            clicked = SidebarClick::Settings;
        }
        ui.add_space(2.0);
    });
    egui::CentralPanel::default().frame(egui::Frame::NONE).show(ui, |ui| {
        let list = list_ui(ui, state, selected, shown, filter);
        if list != SidebarClick::None {
            clicked = list;
        }
    });
    clicked
}

/// True when `name` passes the filter (its words, in any case, found in the name).
fn passes(filter: &str, name: &str) -> bool {
    let name = name.to_lowercase();
    filter.split_whitespace().all(|word| name.contains(&word.to_lowercase()))
}

fn list_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    selected: &mut Option<String>,
    shown: Shown<'_>,
    filter: &mut String,
) -> SidebarClick {
    let inbox_shown = shown.inbox;
    let mut clicked = SidebarClick::None;
    let lang = state.language;
    ui.add_space(6.0);
    let waiting = state.needs_you();
    let entry = RichText::new(trf(lang, Key::InboxEntry, &[("count", &waiting.to_string())])).strong();
    let entry = if waiting > 0 { entry.color(warning_color()) } else { entry };
    if ui.selectable_label(inbox_shown, entry).on_hover_text("Ctrl+Shift+I").clicked() {
        clicked = SidebarClick::Inbox;
    }
    ui.add_space(6.0);
    ui.heading(tr(lang, Key::Agents));
    if state.agents.len() >= FILTER_FROM {
        let hint = tr(lang, Key::FilterAgents);
        ui.add(egui::TextEdit::singleline(filter).hint_text(hint).desired_width(f32::INFINITY));
    } else {
        filter.clear();
    }
    ui.separator();
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        // Team members are listed under their team.
        let own = |a: &&crate::app::AgentView| state.teams.team_of(&a.config.name).is_none();
        for agent in state.agents.iter().filter(own).filter(|a| passes(filter, &a.config.name)) {
            let row = agent_row_ui(ui, lang, agent, selected, shown);
            if row != SidebarClick::None {
                clicked = row;
            }
        }
        if !state.channels.channels.is_empty() {
            ui.add_space(8.0);
            ui.heading(tr(lang, Key::Channels));
            ui.separator();
            for channel in state.channels.channels.iter().filter(|c| passes(filter, &c.title)) {
                ui.horizontal(|ui| {
                    let shown = state.channels.viewing.as_deref() == Some(channel.name.as_str());
                    if ui.selectable_label(shown, RichText::new(format!("#{}", channel.title)).strong()).clicked() {
                        clicked = SidebarClick::Channel(channel.name.clone());
                    }
                    let needs = state.channel_needs(&channel.name);
                    if needs > 0 {
                        badge(ui, needs, &trf(lang, Key::ChannelNeedsYou, &[("count", &needs.to_string())]));
                    } else if state.channels.is_unread(&channel.name) {
                        ui.label(RichText::new("•").color(warning_color())).on_hover_text(tr(lang, Key::Unread));
                    }
                });
            }
        }
        ui.add_space(8.0);
        ui.heading(tr(lang, Key::Teams));
        ui.separator();
        for team in state.teams.teams.iter().filter(|t| passes(filter, &t.info.record.name)) {
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
            // Its members, each with its state and what waits in it.
            ui.indent(("team-members", &record.id), |ui| {
                for m in &record.members {
                    match state.agent(&m.agent) {
                        Some(agent) => {
                            let row = agent_row_ui(ui, lang, agent, selected, shown);
                            if row != SidebarClick::None {
                                clicked = row;
                            }
                        }
                        // Not started (its setup runs, or its agent left the config).
                        None => {
                            ui.label(RichText::new(&m.agent).weak());
                        }
                    }
                }
            });
        }
        ui.horizontal_wrapped(|ui| {
            if ui.small_button(tr(lang, Key::NewTeam)).clicked() {
                clicked = SidebarClick::NewTeam;
            }
            if ui.small_button(tr(lang, Key::TryAgents)).clicked() {
                clicked = SidebarClick::TryAgents;
            }
        });
        ui.add_space(6.0);
    });
    clicked
}

/// One agent's row: its state, name, what waits in it, its files; a click on its name or its
/// Files selects it.
fn agent_row_ui(
    ui: &mut egui::Ui,
    lang: crate::model::config::Language,
    agent: &crate::app::AgentView,
    selected: &mut Option<String>,
    shown: Shown<'_>,
) -> SidebarClick {
    let mut clicked = SidebarClick::None;
    let name = &agent.config.name;
    let is_selected = shown.agent && selected.as_deref() == Some(name.as_str());
    ui.horizontal(|ui| {
        state_dot(ui, &agent.state, state_text(lang, &agent.state));
        if ui.selectable_label(is_selected, RichText::new(name).strong()).clicked() {
            *selected = Some(name.clone());
            clicked = SidebarClick::Agent;
        }
        // One slot of its own for what the agent shows beside its name, there or not, so that a
        // dot appearing moves nothing (the sidebar moved by 3 px).
        let needs = agent.needs();
        let slot = egui::vec2(22.0, ui.spacing().interact_size.y);
        ui.allocate_ui_with_layout(slot, egui::Layout::left_to_right(egui::Align::Center), |ui| {
            ui.set_min_size(slot);
            if needs.count() > 0 {
                badge(ui, needs.count(), &needs_text(lang, &needs));
            } else if agent.failed() {
                ui.label(RichText::new("!").strong().color(error_color())).on_hover_text(tr(lang, Key::AgentFailed));
            } else if agent.unread() && !is_selected {
                ui.label(RichText::new("•").color(warning_color())).on_hover_text(tr(lang, Key::Unread));
            }
        });
        let files = ui.small_button(tr(lang, Key::Files)).on_hover_text(agent.config.workspace.display().to_string());
        if files.clicked() {
            *selected = Some(name.clone());
            clicked = SidebarClick::Files;
        }
    });
    let needs = agent.needs().count();
    let status = if needs > 0 { tr(lang, Key::NeedsYou) } else { state_text(lang, &agent.state) };
    let line = RichText::new(format!("{status} · {}", where_text(lang, &agent.config.runtime))).small();
    ui.label(if needs > 0 { line.color(warning_color()) } else { line.weak() });
    ui.add_space(4.0);
    clicked
}

/// A count of things waiting for the person, on a warning background.
fn badge(ui: &mut egui::Ui, count: usize, why: &str) {
    let text = RichText::new(format!(" {count} "))
        .small()
        .strong()
        // Dark digits on the dark theme's amber, light ones on the light theme's brown.
        .color(if ui.visuals().dark_mode { egui::Color32::BLACK } else { egui::Color32::WHITE })
        .background_color(warning_color());
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

#[cfg(test)]
mod tests {
    use super::passes;

    #[test]
    fn the_filter_finds_every_word_in_any_case() {
        assert!(passes("", "Ada"));
        assert!(passes("ad", "Ada"));
        assert!(passes("REV bot", "review-bot"));
        assert!(!passes("rev x", "review-bot"));
    }
}
