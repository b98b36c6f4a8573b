//! egui only: the window. `SidekicksApp` applies runtime events in `logic` (on a time budget)
//! and draws in `ui`; each view has its own file.

pub mod agent_header;
pub mod big_text;
pub mod channel_view;
pub mod config_editor;
pub mod conversation;
pub mod file_editor;
pub mod glyphs;
/// The words (English, French) live beside the layers: the command line uses them too.
pub use crate::i18n;
pub mod log;
pub mod login_card;
pub mod message;
pub mod message_list;
pub mod permission_card;
pub mod rules;
pub mod session_settings;
pub mod settings;
pub mod sidebar;
pub mod slash_menu;
pub mod status;
pub mod team_view;
pub mod terminal_colors;
pub mod terminal_input;
pub mod terminal_tabs;
pub mod terminal_view;
pub mod theme;
pub mod toml_highlight;
pub mod tool_card;
pub mod workspace_view;

use std::collections::HashMap;
use std::time::Duration;

use crate::app::{AppState, Bridge, Command, Request};

/// Time spent applying events per frame, at most.
const EVENT_BUDGET: Duration = Duration::from_millis(8);

/// Which view of the selected agent is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tab {
    /// The conversation.
    #[default]
    Conversation,
    /// Its stderr log.
    Log,
    /// Its remembered permission answers.
    Permissions,
}

/// What the centre of the window shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum View {
    /// The selected agent.
    #[default]
    Agent,
    /// The settings (config editor).
    Settings,
    /// The selected agent's workspace (files, terminal, log).
    Workspace,
    /// The selected team.
    Team,
    /// The new-team form.
    NewTeam,
    /// The selected channel.
    Channel,
}

/// The application window.
pub struct SidekicksApp {
    /// What the UI draws from (public for tests).
    pub state: AppState,
    bridge: Bridge,
    selected: Option<String>,
    view: View,
    settings: settings::SettingsView,
    /// What the window keeps per agent, dropped when the agent leaves the config.
    panes: HashMap<String, AgentPane>,
    /// `AppState::opened` when the per-agent views were last pruned.
    opened_seen: u64,
    /// The agent whose workspace the runtime follows (the one shown).
    followed: Option<String>,
    /// The team shown (its id).
    team: Option<String>,
    /// The channel shown.
    channel: Option<String>,
    /// What is being typed in each channel.
    channel_drafts: std::collections::HashMap<String, String>,
    /// The team views' own state.
    team_views: team_view::TeamViews,
    tab: Tab,
    markdown: egui_commonmark::CommonMarkCache,
    shut_down: bool,
    frame_stats: Option<FrameStats>,
}

/// What the window keeps for one agent while it is in the config (one record, pruned when the
/// config changes or another file is opened).
#[derive(Default)]
struct AgentPane {
    /// What is being typed to it.
    draft: String,
    /// Its conversation's laid-out list.
    list: message_list::MessageList,
    /// Its workspace view (tree, open file, terminals).
    workspace: workspace_view::WorkspaceView,
    /// What is typed in the login card (variables of an API-key login), by variable.
    login_values: HashMap<String, String>,
}

/// Counts drawn frames into a file, for the idle-repaint benchmark (`SIDEKICKS_FRAME_STATS`); a
/// thread of its own writes the file.
struct FrameStats {
    frames: u64,
    writer: std::sync::mpsc::Sender<u64>,
}

impl FrameStats {
    fn new(path: std::path::PathBuf) -> Self {
        let (writer, counts) = std::sync::mpsc::channel::<u64>();
        std::thread::spawn(move || {
            while let Ok(mut frames) = counts.recv() {
                // Only the latest count matters.
                while let Ok(later) = counts.try_recv() {
                    frames = later;
                }
                let _ = std::fs::write(&path, frames.to_string());
            }
        });
        Self { frames: 0, writer }
    }
}

impl SidekicksApp {
    /// A window over a started runtime.
    pub fn new(bridge: Bridge) -> Self {
        Self {
            state: AppState::default(),
            bridge,
            selected: None,
            view: View::Agent,
            settings: settings::SettingsView::default(),
            panes: HashMap::new(),
            followed: None,
            team: None,
            team_views: Default::default(),
            channel: None,
            channel_drafts: Default::default(),
            tab: Tab::Conversation,
            markdown: egui_commonmark::CommonMarkCache::default(),
            shut_down: false,
            frame_stats: None,
            opened_seen: 0,
        }
    }

    /// The visible text of the terminal shown in `agent`'s workspace, if one is open.
    pub fn terminal_text(&self, agent: &str) -> Option<String> {
        self.panes.get(agent)?.workspace.terminals.active().map(|t| t.screen_text())
    }

    /// The pids of the hosts of every terminal open in `agent`'s workspace.
    pub fn terminal_pids(&self, agent: &str) -> Vec<u32> {
        self.panes.get(agent).map(|p| p.workspace.terminals.sessions().map(|t| t.pid).collect()).unwrap_or_default()
    }

    /// Writes the number of frames drawn so far to `path` after each frame (benchmarks only).
    pub fn with_frame_stats(mut self, path: Option<std::path::PathBuf>) -> Self {
        self.frame_stats = path.map(FrameStats::new);
        self
    }

    /// Sends a command to the runtime.
    pub fn send(&self, command: Command) {
        self.bridge.send(command);
    }

    /// The one way views start work: each request is taken by the state (which records what it
    /// starts) and its commands go to the runtime.
    fn submit<R: Into<Request>>(&mut self, requests: impl IntoIterator<Item = R>) {
        for request in requests {
            for command in self.state.request(request.into()) {
                self.bridge.send(command);
            }
        }
    }

    /// Applies pending runtime events; asks for another frame if the budget ran out.
    pub fn logic(&mut self, ctx: &egui::Context) {
        glyphs::install(ctx);
        if self.bridge.drain(&mut self.state, EVENT_BUDGET) {
            ctx.request_repaint();
        }
        // The views of agents that left (another file opened, an agent removed from the config)
        // go, and their terminals are closed; an agent of the same name in another file starts
        // with a new view.
        let reopened = std::mem::replace(&mut self.opened_seen, self.state.opened) != self.state.opened;
        let state = &self.state;
        let mut closing = Vec::new();
        self.panes.retain(|name, pane| {
            let keep = !reopened && state.agent(name).is_some();
            if !keep {
                pane.workspace.close_terminals();
                closing.extend(pane.workspace.take_commands());
            }
            keep
        });
        self.submit(closing);
        if self.selected.as_ref().is_none_or(|s| self.state.agent(s).is_none()) {
            self.selected = self.state.agents.first().map(|a| a.config.name.clone());
        }
        // Workspace results go to the view of their agent.
        for (agent, event) in std::mem::take(&mut self.state.workspace_events) {
            if let (Some(view), Some(agent)) =
                (self.panes.get_mut(&agent), self.state.agents.iter().find(|a| a.config.name == agent))
            {
                view.workspace.apply(agent, event);
                let commands = view.workspace.take_commands();
                self.submit(commands);
            }
        }
        // Only the workspace shown is followed.
        let shown = if self.view == View::Workspace { self.selected.clone() } else { None };
        if shown != self.followed {
            self.followed.clone_from(&shown);
            self.bridge.send(Command::FollowWorkspace { agent: shown });
        }
        // A lead's hand-over and other commands that events produced.
        let outbox = self.state.take_outbox();
        self.submit(outbox);
        // The native dialog answered: open what was picked.
        if let Some(picked) = self.state.picked_file.take()
            && let Some(path) = picked
        {
            self.bridge.send(Command::OpenFile { path });
        }
    }

    /// Draws the window.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        if let Some(stats) = &mut self.frame_stats {
            stats.frames += 1;
            let _ = stats.writer.send(stats.frames);
        }
        egui::Panel::bottom("status").show(ui, |ui| status::status_ui(ui, &self.state));
        egui::Panel::left("sidebar").resizable(true).default_size(220.0).show(ui, |ui| {
            match sidebar::sidebar_ui(ui, &self.state, &mut self.selected) {
                sidebar::SidebarClick::Agent => self.view = View::Agent,
                sidebar::SidebarClick::Files => self.view = View::Workspace,
                sidebar::SidebarClick::Team(id) => {
                    self.team = Some(id);
                    self.view = View::Team;
                }
                sidebar::SidebarClick::NewTeam => self.view = View::NewTeam,
                sidebar::SidebarClick::Channel(name) => {
                    self.channel = Some(name);
                    self.view = View::Channel;
                }
                sidebar::SidebarClick::None => {}
            }
            ui.with_layout(egui::Layout::bottom_up(egui::Align::LEFT), |ui| {
                let lang = self.state.language;
                if ui.selectable_label(self.view == View::Settings, i18n::tr(lang, i18n::Key::Settings)).clicked() {
                    self.view = View::Settings;
                }
            });
        });
        // A team just made opens.
        if let Some(id) = self.state.teams.created.take() {
            self.team = Some(id);
            self.view = View::Team;
        }
        let channel = self.channel.clone().filter(|_| self.view == View::Channel);
        self.state.channels.show(channel.as_deref());
        egui::CentralPanel::default().show(ui, |ui| {
            let lang = self.state.language;
            if self.view == View::Channel
                && let Some(name) = self.channel.clone()
            {
                let draft = self.channel_drafts.entry(name.clone()).or_default();
                let requests = channel_view::channel_ui(ui, &self.state, &name, draft, &mut self.markdown);
                self.submit(requests);
                return;
            }
            if self.view == View::NewTeam {
                let commands = team_view::new_team_ui(ui, lang, &self.state, &mut self.team_views.form);
                self.submit(commands);
                return;
            }
            if self.view == View::Team
                && let Some(id) = self.team.clone()
                && self.state.teams.team(&id).is_some()
            {
                let commands = team_view::team_ui(ui, lang, &self.state, &id, &mut self.team_views);
                self.submit(commands);
                return;
            }
            if self.view == View::Settings {
                let lang = self.state.language;
                let commands = self.settings.ui(ui, lang, &self.state);
                self.submit(commands);
                return;
            }
            if self.view == View::Workspace
                && let Some(name) = self.selected.clone()
                && let Some(agent) = self.state.agent(&name)
            {
                let lang = self.state.language;
                let view = &mut self.panes.entry(name).or_default().workspace;
                let mut commands = Vec::new();
                for action in view.ui(ui, lang, agent) {
                    match action {
                        workspace_view::HeaderAction::Conversation => self.view = View::Agent,
                        workspace_view::HeaderAction::Command(c) => commands.push(c),
                    }
                }
                commands.extend(view.take_commands());
                self.submit(commands);
                return;
            }
            status::problems_ui(ui, &self.state);
            let lang = self.state.language;
            let Some(name) = self.selected.clone() else {
                ui.label(i18n::tr(lang, i18n::Key::NoAgents));
                return;
            };
            let Some(agent) = self.state.agent(&name) else {
                ui.label(i18n::tr(lang, i18n::Key::PickAgent));
                return;
            };
            let AgentPane { draft, list, workspace, login_values } = self.panes.entry(name.clone()).or_default();
            let actions = agent_header::agent_header_ui(ui, lang, agent, &mut self.tab);
            let mut requests: Vec<Request> = actions.into_iter().map(Request::from).collect();
            let asked = login_card::login_card_ui(ui, lang, agent, login_values);
            requests.extend(asked.requests);
            if asked.terminal {
                // The login runs in the workspace's terminal: show it there.
                workspace.tab = workspace_view::WsTab::Terminal;
                workspace.terminals.expect_one();
                self.view = View::Workspace;
            }
            match self.tab {
                Tab::Conversation => {
                    requests.extend(conversation::conversation_ui(ui, lang, agent, draft, list, &mut self.markdown))
                }
                Tab::Log => log::log_ui(ui, lang, agent),
                Tab::Permissions => requests.extend(rules::rules_ui(ui, lang, agent).into_iter().map(Request::from)),
            }
            self.submit(requests);
        });
    }

    /// Stops every agent and closes every terminal (the runtime does both) before the window goes
    /// away.
    pub fn shutdown(&mut self) {
        // The runtime ends them (Shutdown); the window lets go of their screens.
        for pane in self.panes.values_mut() {
            pane.workspace.close_terminals();
            pane.workspace.take_commands();
        }
        if !self.shut_down {
            self.shut_down = true;
            self.bridge.shutdown_blocking(&mut self.state, Duration::from_secs(10));
        }
    }
}

impl eframe::App for SidekicksApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        SidekicksApp::logic(self, ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        SidekicksApp::ui(self, ui);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.shutdown();
    }
}

impl Drop for SidekicksApp {
    fn drop(&mut self) {
        self.shutdown();
    }
}
