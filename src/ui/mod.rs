//! egui only: the window. `SidekicksApp` applies runtime events in `logic` (on a time budget)
//! and draws in `ui`; each view has its own file.

mod about;
mod actions;
pub mod agent_form_view;
pub mod agent_header;
pub mod attach_bar;
pub mod attachments;
pub mod big_text;
pub mod channel_view;
pub mod config_editor;
pub mod conversation;
pub mod edit_message;
pub mod elicitation_card;
pub mod file_editor;
pub mod file_picker;
pub mod find_bar;
pub mod glyphs;
pub mod icon;
pub mod inbox_view;
mod pages;
/// The words (English, French) live beside the layers: the command line uses them too.
pub use crate::i18n;
pub mod log;
pub mod login_card;
mod look;
pub mod mention_menu;
pub mod message;
pub mod message_actions;
pub mod message_list;
pub mod palette;
pub mod permission_card;
pub mod registry_view;
pub mod review;
pub mod rules;
pub mod search_view;
pub mod send_key;
pub mod settings;
pub mod sidebar;
pub mod slash_menu;
pub mod status;
pub mod team;
pub mod terminal;
pub mod theme;
pub mod threads_bar;
pub mod threads_view;
pub mod toml_highlight;
pub mod tool_card;
pub mod tool_run;
pub mod turn_actions;
pub mod workspace_view;

use std::collections::HashMap;
use std::time::Duration;

use crate::app::AgentCommand;
use crate::app::ConfigCommand;
use crate::app::WorkspaceCommand;
use crate::app::terminals_state::TerminalsRequest;
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
    /// Everything that waits for the person.
    Inbox,
    /// Search every stored conversation.
    Search,
    /// Every thread of every agent.
    Threads,
    /// The ACP Registry's agents.
    GetAgents,
}

/// The application window.
pub struct SidekicksApp {
    /// The system font fallback is installed (`glyphs::install_fallback`, on the first frame).
    fonts_installed: bool,
    /// The About box is shown.
    about: bool,
    /// The window's own file picker, when the desktop has no dialog.
    picker: Option<file_picker::Picker>,
    /// The window's size, place and zoom: given at start, remembered as they change.
    look: look::Look,
    /// The theme the config asked for, as last applied.
    theme: Option<crate::model::config::Theme>,
    /// The team whose copies are followed (the team page shown), as last asked.
    followed_team: Option<String>,
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
    /// Each channel's draft and laid-out timeline.
    channels: std::collections::HashMap<String, channel_view::ChannelPane>,
    /// The team views' own state.
    team_views: team::view::TeamViews,
    tab: Tab,
    markdown: egui_commonmark::CommonMarkCache,
    shut_down: bool,
    frame_stats: Option<crate::app::FrameStats>,
    /// The count of things that need the person, as the window title shows it.
    title_count: Option<usize>,
    /// The command palette.
    palette: palette::Palette,
    /// What the sidebar's filter box holds.
    sidebar_filter: String,
    /// "Get agents" asked for the index since it was opened.
    registry_page: registry_view::RegistryPage,
    /// Search everywhere.
    search: search_view::SearchView,
    /// All threads' page (a deletion asked).
    threads_page: threads_view::ThreadsPage,
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
    /// The find bar (Ctrl+F), while open.
    find: Option<find_bar::FindBar>,
    /// A search result being opened: scroll to message `.1` once thread `.0` is shown.
    reveal: Option<(crate::protocol::threads::ThreadId, usize)>,
    /// The review of its changes since a checkpoint, while open.
    review: Option<review::ReviewView>,
    /// The thread the list last showed: another one opens at its end.
    thread: Option<crate::protocol::threads::ThreadId>,
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
            channels: Default::default(),
            tab: Tab::Conversation,
            markdown: egui_commonmark::CommonMarkCache::default(),
            shut_down: false,
            title_count: None,
            palette: Default::default(),
            sidebar_filter: String::new(),
            registry_page: registry_view::RegistryPage::default(),
            search: Default::default(),
            threads_page: Default::default(),
            frame_stats: None,
            opened_seen: 0,
            fonts_installed: false,
            followed_team: None,
            theme: None,
            about: false,
            picker: None,
            look: look::Look::default(),
        }
    }

    /// The visible text of the terminal shown in `agent`'s workspace, if one is open.
    pub fn terminal_text(&self, agent: &str) -> Option<String> {
        self.panes.get(agent)?.workspace.terminals.active().map(|t| t.screen_text())
    }

    /// The pids of the hosts of every terminal open in `agent`'s workspace.
    pub fn terminal_pids(&self, agent: &str) -> Vec<u32> {
        self.state.agent(agent).map(|a| a.shells.open.iter().map(|t| t.pid).collect()).unwrap_or_default()
    }

    /// Writes the number of frames drawn so far to `path` after each frame (benchmarks only).
    pub fn with_frame_stats(mut self, path: Option<std::path::PathBuf>) -> Self {
        self.frame_stats = path.map(crate::app::FrameStats::new);
        self
    }

    /// Sends a command to the runtime (as a request, like every view's).
    pub fn send(&mut self, command: Command) {
        self.submit([command]);
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
        if !std::mem::replace(&mut self.fonts_installed, true) {
            glyphs::install_fallback(ctx);
            theme::apply(ctx);
        }
        self.look.frame(ctx, &self.state, &self.bridge);
        // Images in messages: decoded on egui_extras' own thread (idempotent).
        egui_extras::install_image_loaders(ctx);
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
                closing.extend(pane.workspace.terminals.close_all());
            }
            keep
        });
        self.submit(closing);
        if self.selected.as_ref().is_none_or(|s| self.state.agent(s).is_none()) {
            self.selected = self.state.agents.first().map(|a| a.config.name.clone());
        }
        // Only the workspace shown is followed, and the copies of the team shown.
        let shown = if self.view == View::Workspace { self.selected.clone() } else { None };
        if shown != self.followed {
            self.followed.clone_from(&shown);
            self.submit([Command::Workspace(WorkspaceCommand::Follow { agent: shown })]);
        }
        // The team shown is followed: on its page, and in its channel (whose Merge buttons say
        // whether a member has work to merge).
        let team = match self.view {
            View::Team => self.team.clone(),
            View::Channel => self.channel.as_deref().and_then(|c| self.state.channels.channel(c)?.team.clone()),
            _ => None,
        };
        let team = team.filter(|t| self.state.teams.team(t).is_some());
        if team != self.followed_team {
            self.followed_team.clone_from(&team);
            self.submit([Command::Team(Box::new(crate::protocol::teams::TeamCommand::Follow { team }))]);
        }
        // The native dialog answered: open what was picked.
        if let Some(picked) = self.state.picked_file.take()
            && let Some(path) = picked
        {
            self.submit([Command::Config(ConfigCommand::Open { path })]);
        }
        // The folder dialog answered: the new-team form's project.
        if let Some(folder) = self.state.picked_folder.take() {
            self.folder_picked(&folder);
        }
    }

    /// A folder picked goes where it was asked for: the settings form's workspace, or the new
    /// team's project.
    fn folder_picked(&mut self, folder: &std::path::Path) {
        if self.settings.wants_folder {
            self.settings.take_folder(folder);
        } else {
            self.team_views.form.project = folder.display().to_string();
        }
    }

    /// The window's own picker: opened when the runtime says the desktop has no dialog.
    fn picker_ui(&mut self, ctx: &egui::Context) {
        if let Some(start) = self.state.picker.take() {
            let (picker, command) = file_picker::Picker::open(start);
            self.picker = Some(picker);
            self.submit([command]);
        }
        let Some(picker) = &mut self.picker else { return };
        let (commands, done) = file_picker::picker_ui(ctx, &self.state, picker);
        self.submit(commands);
        if done.is_some() {
            self.picker = None;
        }
        match done {
            Some(Some(file_picker::Picked::Commands(commands))) => self.submit(commands),
            Some(Some(file_picker::Picked::ProjectFolder(folder))) => self.folder_picked(&folder),
            Some(None) | None => {}
        }
    }

    /// Draws the window.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        theme::set_dark(ui.visuals().dark_mode);
        if let Some(stats) = &mut self.frame_stats {
            stats.frame();
        }
        self.look(ui);
        self.shortcuts(ui.ctx());
        self.notifications(ui.ctx());
        let shown = self.selected.clone().filter(|_| matches!(self.view, View::Agent | View::Workspace));
        about::about_ui(ui.ctx(), &self.state, &mut self.about);
        self.picker_ui(ui.ctx());
        if let Some(action) = palette::palette_ui(ui.ctx(), &self.state, shown.as_deref(), &mut self.palette) {
            self.run(ui.ctx(), action);
        }
        // The title says how many things wait for the person: visible in the task bar.
        let needs = self.state.needs_you();
        if self.title_count != Some(needs) {
            self.title_count = Some(needs);
            let title = if needs == 0 { "Sidekicks".to_string() } else { format!("Sidekicks ({needs})") };
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Title(title));
        }
        let shown = self.selected.as_deref().filter(|_| matches!(self.view, View::Agent | View::Workspace));
        egui::Panel::bottom("status").show(ui, |ui| status::status_ui(ui, &self.state, shown));
        egui::Panel::left("sidebar").resizable(true).default_size(220.0).show(ui, |ui| self.sidebar_ui(ui));
        // A team just made opens.
        if let Some(id) = self.state.teams.created.take() {
            self.team = Some(id);
            self.view = View::Team;
        }
        let channel = self.channel.clone().filter(|_| self.view == View::Channel);
        self.state.channels.show(channel.as_deref());
        egui::CentralPanel::default().show(ui, |ui| self.page_ui(ui));
    }

    /// The agent shown, if any (tests).
    pub fn shown_agent(&self) -> Option<&str> {
        self.selected.as_deref().filter(|_| self.view == View::Agent)
    }

    /// Stops every agent and closes every terminal (the runtime does both) before the window goes
    /// away.
    pub fn shutdown(&mut self) {
        // The runtime ends them (Shutdown); the window lets go of their screens.
        for pane in self.panes.values_mut() {
            pane.workspace.terminals.close_all();
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
