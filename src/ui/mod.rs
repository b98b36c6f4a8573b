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
pub mod elicitation_card;
pub mod file_editor;
pub mod file_picker;
pub mod find_bar;
pub mod glyphs;
pub mod icon;
pub mod inbox_view;
/// The words (English, French) live beside the layers: the command line uses them too.
pub use crate::i18n;
pub mod log;
pub mod login_card;
pub mod mention_menu;
pub mod message;
pub mod message_list;
pub mod palette;
pub mod permission_card;
pub mod registry_view;
pub mod review;
pub mod review_rows;
pub mod rules;
pub mod search_view;
pub mod send_key;
pub mod session_settings;
pub mod settings;
pub mod sidebar;
pub mod slash_menu;
pub mod status;
pub mod team_branch;
pub mod team_discarded;
pub mod team_setup;
pub mod team_view;
pub mod terminal_colors;
pub mod terminal_input;
mod terminal_picture;
pub mod terminal_tabs;
pub mod terminal_view;
pub mod theme;
pub mod threads_bar;
pub mod threads_view;
pub mod toml_highlight;
pub mod tool_card;
pub mod tool_run;
pub mod workspace_view;

use std::collections::HashMap;
use std::time::Duration;

use crate::app::AgentCommand;
use crate::app::ConfigCommand;
use crate::app::WorkspaceCommand;
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
    /// The window was given its first size for the screen it opened on.
    sized: bool,
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
    team_views: team_view::TeamViews,
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
            frame_stats: None,
            opened_seen: 0,
            fonts_installed: false,
            followed_team: None,
            theme: None,
            about: false,
            picker: None,
            sized: false,
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
        self.frame_stats = path.map(crate::app::FrameStats::new);
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
        if !std::mem::replace(&mut self.fonts_installed, true) {
            glyphs::install_fallback(ctx);
            theme::apply(ctx);
        }
        self.first_size(ctx);
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
        // Only the workspace shown is followed, and the copies of the team shown.
        let shown = if self.view == View::Workspace { self.selected.clone() } else { None };
        if shown != self.followed {
            self.followed.clone_from(&shown);
            self.bridge.send(Command::Workspace(WorkspaceCommand::Follow { agent: shown }));
        }
        let team = self.team.clone().filter(|t| self.view == View::Team && self.state.teams.team(t).is_some());
        if team != self.followed_team {
            self.followed_team.clone_from(&team);
            self.bridge.send(Command::Team(Box::new(crate::protocol::teams::TeamCommand::Follow { team })));
        }
        // The native dialog answered: open what was picked.
        if let Some(picked) = self.state.picked_file.take()
            && let Some(path) = picked
        {
            self.bridge.send(Command::Config(ConfigCommand::Open { path }));
        }
        // The folder dialog answered: the new-team form's project.
        if let Some(folder) = self.state.picked_folder.take() {
            self.folder_picked(&folder);
        }
    }

    /// On a large screen the window opens larger than its 1100×720 (three quarters of the screen,
    /// in its middle); on a small one it stays as it is. Once, when the screen's size is known.
    fn first_size(&mut self, ctx: &egui::Context) {
        if self.sized {
            return;
        }
        let Some(monitor) = ctx.input(|i| i.viewport().monitor_size) else { return };
        self.sized = true;
        if let Some(size) = first_size_for(monitor) {
            ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(size));
            let corner = ((monitor - size) / 2.0).to_pos2();
            ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(corner));
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
            self.bridge.send(command);
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
        // The inbox's shortcut (not while a terminal has the keyboard: its keys are the shell's).
        let inbox_key = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::I);
        if !terminal_view::has_focus(ui.ctx()) && ui.input_mut(|i| i.consume_shortcut(&inbox_key)) {
            self.view = View::Inbox;
        }
        let send_with = self.state.config.as_ref().map(|c| c.defaults.send_with).unwrap_or_default();
        send_key::set(ui.ctx(), send_with);
        let theme = self.state.config.as_ref().map(|c| c.defaults.theme).unwrap_or_default();
        if self.theme != Some(theme) {
            self.theme = Some(theme);
            ui.ctx().set_theme(match theme {
                crate::model::config::Theme::System => egui::ThemePreference::System,
                crate::model::config::Theme::Light => egui::ThemePreference::Light,
                crate::model::config::Theme::Dark => egui::ThemePreference::Dark,
            });
        }
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
        egui::Panel::left("sidebar").resizable(true).default_size(220.0).show(ui, |ui| {
            let shown = sidebar::Shown {
                inbox: self.view == View::Inbox,
                agent: matches!(self.view, View::Agent | View::Workspace),
                team: self.team.as_deref().filter(|_| self.view == View::Team),
                search: self.view == View::Search,
                threads: self.view == View::Threads,
                settings: self.view == View::Settings,
                get_agents: self.view == View::GetAgents,
            };
            match sidebar::sidebar_ui(ui, &self.state, &mut self.selected, shown, &mut self.sidebar_filter) {
                sidebar::SidebarClick::Inbox => self.view = View::Inbox,
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
                sidebar::SidebarClick::Settings => self.view = View::Settings,
                sidebar::SidebarClick::GetAgents => {
                    self.view = View::GetAgents;
                    self.registry_page.asked = false;
                }
                sidebar::SidebarClick::Threads => self.view = View::Threads,
                sidebar::SidebarClick::Search => {
                    self.view = View::Search;
                    self.search.opened();
                }
                sidebar::SidebarClick::None => {}
            }
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
                let pane = self.channels.entry(name.clone()).or_default();
                let requests = channel_view::channel_ui(ui, &self.state, &name, pane, &mut self.markdown);
                self.submit(requests);
                return;
            }
            if self.view == View::Threads {
                if let Some((agent, thread)) = threads_view::threads_ui(ui, &self.state) {
                    let current = self.state.agent(&agent).and_then(|a| a.threads.current);
                    if current != Some(thread) {
                        let op = crate::protocol::threads::ThreadOp::Open(thread);
                        self.submit([Command::Agent(agent.clone(), AgentCommand::Thread { op })]);
                    }
                    self.selected = Some(agent);
                    self.view = View::Agent;
                    self.tab = Tab::Conversation;
                }
                return;
            }
            if self.view == View::Search {
                let (command, opened) = search_view::search_ui(ui, &self.state, &mut self.search);
                self.submit(command);
                if let Some(hit) = opened {
                    self.reveal(ui.ctx(), hit);
                }
                return;
            }
            if self.view == View::Inbox {
                let (requests, go) = inbox_view::inbox_ui(ui, &self.state);
                self.submit(requests);
                match go {
                    Some(inbox_view::Go::Agent(name)) => {
                        self.selected = Some(name);
                        self.tab = Tab::Conversation;
                        self.view = View::Agent;
                    }
                    Some(inbox_view::Go::Team(id)) => {
                        self.team = Some(id);
                        self.view = View::Team;
                    }
                    None => {}
                }
                return;
            }
            // A team discarded while shown: its kept work is listed on the new-team page.
            if self.view == View::Team && self.team.as_ref().is_some_and(|id| self.state.teams.team(id).is_none()) {
                self.view = View::NewTeam;
            }
            if self.view == View::NewTeam {
                let mut commands = team_view::new_team_ui(ui, lang, &self.state, &mut self.team_views.form);
                commands.extend(team_discarded::list_ui(ui, lang, &self.state));
                commands.extend(team_discarded::leftovers_ui(ui, lang, &self.state));
                self.submit(commands);
                return;
            }
            if self.view == View::Team
                && let Some(id) = self.team.clone()
                && self.state.teams.team(&id).is_some()
            {
                let commands = team_view::team_ui(ui, lang, &self.state, &id, &mut self.team_views);
                self.submit(commands);
                // A review closed is not read again as the member writes.
                if self.team_views.review.as_ref().is_none_or(|r| r.team != id)
                    && self.state.teams.team(&id).is_some_and(|t| t.review.is_some())
                {
                    self.state.teams.close_review(&id);
                    let close = crate::protocol::teams::TeamCommand::CloseReview { team: id.clone() };
                    self.bridge.send(Command::Team(Box::new(close)));
                }
                if let Some(agent) = self.team_views.open_agent.take() {
                    self.selected = Some(agent);
                    self.tab = Tab::Conversation;
                    self.view = View::Agent;
                }
                return;
            }
            if self.view == View::Settings {
                let lang = self.state.language;
                let commands = self.settings.ui(ui, lang, &self.state);
                if self.settings.take_get_agents() {
                    self.view = View::GetAgents;
                    self.registry_page.asked = false;
                }
                self.submit(commands);
                return;
            }
            if self.view == View::GetAgents {
                let commands = registry_view::registry_ui(ui, &self.state, &mut self.registry_page);
                self.submit(commands);
                return;
            }
            if self.view == View::Workspace
                && let Some(name) = self.selected.clone()
                && let Some(agent) = self.state.agent(&name)
            {
                let lang = self.state.language;
                let team = self.state.teams.team_of(&name);
                let shown = match self.panes.entry(name.clone()).or_default().workspace.tab {
                    workspace_view::WsTab::Files => agent_header::Page::Files,
                    workspace_view::WsTab::Terminal => agent_header::Page::Terminal,
                };
                let mut asked = agent_header::agent_header_ui(ui, lang, agent, shown, team.as_ref());
                let view = &mut self.panes.entry(name.clone()).or_default().workspace;
                view.ui(ui, lang, agent);
                let mut commands = std::mem::take(&mut asked.commands);
                commands.extend(view.take_commands());
                self.submit(commands);
                self.follow_header(ui.ctx(), &name, asked);
                return;
            }
            status::problems_ui(ui, &self.state);
            let lang = self.state.language;
            let Some(name) = self.selected.clone() else {
                // A config that never loaded has agents the problems above hold back.
                let key = match self.state.config.is_none() && !self.state.problems.is_empty() {
                    true => i18n::Key::AgentsHeldBack,
                    false => i18n::Key::NoAgents,
                };
                ui.label(i18n::tr(lang, key));
                return;
            };
            let Some(agent) = self.state.agent(&name) else {
                ui.label(i18n::tr(lang, i18n::Key::PickAgent));
                return;
            };
            let AgentPane { draft, list, workspace, login_values, find, reveal, review } =
                self.panes.entry(name.clone()).or_default();
            // A search result: its message, once its thread is shown.
            if let Some((thread, seq)) = *reveal
                && agent.threads.current == Some(thread)
                && agent.conversation.messages.len() > seq
            {
                list.jump_to(seq);
                *reveal = None;
            }
            let team = self.state.teams.team_of(&name);
            let shown = match self.tab {
                Tab::Conversation => agent_header::Page::Conversation,
                Tab::Log => agent_header::Page::Log,
                Tab::Permissions => agent_header::Page::Permissions,
            };
            let mut header = agent_header::agent_header_ui(ui, lang, agent, shown, team.as_ref());
            let mut requests: Vec<Request> =
                std::mem::take(&mut header.commands).into_iter().map(Request::from).collect();
            let asked = login_card::login_card_ui(ui, lang, agent, login_values);
            requests.extend(asked.requests);
            if asked.terminal {
                // The login runs in the workspace's terminal: show it there.
                workspace.tab = workspace_view::WsTab::Terminal;
                workspace.terminals.expect_one();
                self.view = View::Workspace;
            }
            match self.tab {
                // Its changes since a checkpoint, while reviewed, in place of the conversation.
                Tab::Conversation if agent.review.is_some() => {
                    let view = review.get_or_insert_with(|| review::ReviewView::new("", &name));
                    let (asked, close) = review::workspace_review_ui(ui, lang, agent, view);
                    requests.extend(asked);
                    if close {
                        *review = None;
                    }
                }
                Tab::Conversation => {
                    *review = None;
                    if agent.read != agent.conversation.messages.len() {
                        requests.push(Request::Seen { agent: name.clone() });
                    }
                    requests.extend(conversation::conversation_ui(
                        ui,
                        lang,
                        agent,
                        draft,
                        list,
                        &mut self.markdown,
                        find,
                    ))
                }
                Tab::Log => log::log_ui(ui, lang, agent),
                Tab::Permissions => requests.extend(rules::rules_ui(ui, lang, agent).into_iter().map(Request::from)),
            }
            self.submit(requests);
            self.follow_header(ui.ctx(), &name, header);
        });
    }

    /// Follows a click in the agent header: to its team's page, a channel, or another page of the
    /// agent.
    fn follow_header(&mut self, ctx: &egui::Context, agent: &str, asked: agent_header::HeaderAsked) {
        if asked.team.is_some() || asked.channel.is_some() || asked.page.is_some() {
            // Drawn already this frame: the next one shows where the click leads, at once.
            ctx.request_repaint();
        }
        if let Some(id) = asked.team {
            self.team = Some(id);
            self.view = View::Team;
        } else if let Some(name) = asked.channel {
            self.channel = Some(name);
            self.view = View::Channel;
        } else if let Some(page) = asked.page {
            self.show_page(agent, page);
        }
    }

    /// Shows page `page` of `agent`.
    fn show_page(&mut self, agent: &str, page: agent_header::Page) {
        use agent_header::Page;
        let workspace = &mut self.panes.entry(agent.to_string()).or_default().workspace;
        (self.view, self.tab) = match page {
            Page::Conversation => (View::Agent, Tab::Conversation),
            Page::Log => (View::Agent, Tab::Log),
            Page::Permissions => (View::Agent, Tab::Permissions),
            Page::Files | Page::Terminal => {
                workspace.tab =
                    if page == Page::Files { workspace_view::WsTab::Files } else { workspace_view::WsTab::Terminal };
                (View::Workspace, self.tab)
            }
        };
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

/// The size the window takes on a screen of `monitor` points, when larger than its default.
fn first_size_for(monitor: egui::Vec2) -> Option<egui::Vec2> {
    let size = (monitor * 0.75).round();
    (size.x > 1100.0 && size.y > 720.0).then_some(size)
}
