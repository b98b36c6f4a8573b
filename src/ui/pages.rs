//! The window's pages: the look and keys, the sidebar, and the page shown in the middle — a
//! channel, threads, search, the inbox, a team or the new-team form, settings, the registry, an
//! agent's workspace or its conversation — and where a click in an agent's header leads.

use super::*;

impl SidekicksApp {
    /// The window's look and keys: the inbox's shortcut, the send key, the theme.
    pub(super) fn look(&mut self, ui: &mut egui::Ui) {
        // The inbox's shortcut (not while a terminal has the keyboard: its keys are the shell's).
        let inbox_key = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::I);
        if !terminal::view::has_focus(ui.ctx()) && ui.input_mut(|i| i.consume_shortcut(&inbox_key)) {
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
    }

    /// The sidebar: a click there changes the page shown.
    pub(super) fn sidebar_ui(&mut self, ui: &mut egui::Ui) {
        let shown = sidebar::Shown {
            inbox: self.view == View::Inbox,
            agent: matches!(self.view, View::Agent | View::Workspace),
            team: self.team.as_deref().filter(|_| self.view == View::Team),
            search: self.view == View::Search,
            threads: self.view == View::Threads,
            settings: self.view == View::Settings,
            get_agents: self.view == View::GetAgents,
        };
        let before = self.selected.clone();
        match sidebar::sidebar_ui(ui, &self.state, &mut self.selected, shown, &mut self.sidebar_filter) {
            sidebar::SidebarClick::Inbox => self.view = View::Inbox,
            sidebar::SidebarClick::Agent => {
                // Another agent opens on its conversation (the Log tab did not carry over well);
                // the agent shown, clicked again, goes back to its conversation from a review.
                if self.selected != before {
                    self.tab = Tab::Conversation;
                } else if let Some(agent) = self.selected.clone()
                    && self.tab == Tab::Conversation
                    && self.state.agent(&agent).is_some_and(|a| a.review.is_some())
                {
                    self.submit([crate::app::Request::CloseReview { agent }]);
                }
                self.view = View::Agent;
            }
            sidebar::SidebarClick::Files => self.view = View::Workspace,
            sidebar::SidebarClick::Team(id) => {
                self.team = Some(id);
                self.view = View::Team;
            }
            sidebar::SidebarClick::NewTeam => {
                self.team_views.form.try_task = None;
                self.view = View::NewTeam;
            }
            sidebar::SidebarClick::TryAgents => {
                self.team_views.form.try_task.get_or_insert_with(String::new);
                self.view = View::NewTeam;
            }
            sidebar::SidebarClick::Channel(name) => {
                self.channel = Some(name);
                self.view = View::Channel;
            }
            sidebar::SidebarClick::Settings => self.view = View::Settings,
            sidebar::SidebarClick::GetAgents => {
                self.view = View::GetAgents;
                self.registry_page.asked = false;
            }
            sidebar::SidebarClick::Threads => {
                self.view = View::Threads;
                self.state.read_thread = None;
            }
            sidebar::SidebarClick::Search => {
                self.view = View::Search;
                self.search.opened();
            }
            sidebar::SidebarClick::None => {}
        }
    }

    /// The page shown in the middle.
    pub(super) fn page_ui(&mut self, ui: &mut egui::Ui) {
        if self.view == View::Channel
            && let Some(name) = self.channel.clone()
        {
            let pane = self.channels.entry(name.clone()).or_default();
            let requests = channel_view::channel_ui(ui, &self.state, &name, pane, &mut self.markdown);
            self.submit(requests);
            return;
        }
        if self.view == View::Threads {
            use crate::protocol::threads::HistoryCommand;
            use threads_view::ThreadsClick;
            match threads_view::threads_ui(ui, &self.state, &mut self.threads_page, &mut self.markdown) {
                Some(ThreadsClick::Open(agent, thread)) => {
                    let current = self.state.agent(&agent).and_then(|a| a.threads.current);
                    if current != Some(thread) {
                        let op = crate::protocol::threads::ThreadOp::Open(thread);
                        self.submit([Command::Agent(agent.clone().into(), AgentCommand::Thread { op })]);
                    }
                    self.selected = Some(agent);
                    self.view = View::Agent;
                    self.tab = Tab::Conversation;
                }
                Some(ThreadsClick::Read(thread)) => self.submit([Command::History(HistoryCommand::Read(thread))]),
                Some(ThreadsClick::Delete(thread)) => self.submit([Command::History(HistoryCommand::Delete(thread))]),
                Some(ThreadsClick::Back) => self.state.read_thread = None,
                None => {}
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
        if matches!(self.view, View::Team | View::NewTeam) && self.team_page(ui) {
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
            if let Some(with_form) = self.registry_page.take_settings() {
                self.view = View::Settings;
                if with_form {
                    self.settings.open_new_agent_form();
                } else {
                    self.settings.add_mirror_stub();
                }
            }
            return;
        }
        if self.view == View::Workspace
            && let Some(name) = self.selected.clone()
            && self.state.agent(&name).is_some()
        {
            self.workspace_page(ui, &name);
            return;
        }
        self.agent_page(ui);
    }

    /// A team's page, or the new-team page (where a team discarded while shown leaves its kept
    /// work listed); false when neither was drawn.
    pub(super) fn team_page(&mut self, ui: &mut egui::Ui) -> bool {
        let lang = self.state.language;
        // A team discarded while shown: its kept work is listed on the new-team page.
        if self.view == View::Team && self.team.as_ref().is_some_and(|id| self.state.teams.team(id).is_none()) {
            self.view = View::NewTeam;
        }
        if self.view == View::NewTeam {
            let form = &mut self.team_views.form;
            // "Try with several agents…" is the same form in another mode.
            let mut commands = match form.try_task.is_some() {
                true => team::try_form::try_ui(ui, lang, &self.state, form),
                false => team::view::new_team_ui(ui, lang, &self.state, form),
            };
            commands.extend(team::discarded::list_ui(ui, lang, &self.state));
            commands.extend(team::discarded::leftovers_ui(ui, lang, &self.state));
            self.submit(commands);
            return true;
        }
        if self.view == View::Team
            && let Some(id) = self.team.clone()
            && self.state.teams.team(&id).is_some()
        {
            let commands = team::view::team_ui(ui, lang, &self.state, &id, &mut self.team_views);
            self.submit(commands);
            // A review closed is not read again as the member writes.
            if self.team_views.review.as_ref().is_none_or(|r| r.team != id)
                && self.state.teams.team(&id).is_some_and(|t| t.review.is_some())
            {
                self.submit([Request::CloseTeamReview { team: id.clone() }]);
            }
            if let Some(agent) = self.team_views.open_agent.take() {
                self.selected = Some(agent);
                self.tab = Tab::Conversation;
                self.view = View::Agent;
            }
            return true;
        }
        false
    }

    /// An agent's workspace: its header, then its Files or Terminal page.
    pub(super) fn workspace_page(&mut self, ui: &mut egui::Ui, name: &str) {
        let Some(agent) = self.state.agent(name) else { return };
        let lang = self.state.language;
        let team = self.state.teams.team_of(name);
        let shown = match self.panes.entry(name.to_string()).or_default().workspace.tab {
            workspace_view::WsTab::Files => agent_header::Page::Files,
            workspace_view::WsTab::Terminal => agent_header::Page::Terminal,
        };
        let mut asked = agent_header::agent_header_ui(ui, lang, agent, shown, team.as_ref());
        let view = &mut self.panes.entry(name.to_string()).or_default().workspace;
        let mut requests: Vec<Request> = std::mem::take(&mut asked.commands).into_iter().map(Request::from).collect();
        if let Some(agent) = self.state.agent_mut(name) {
            let (config, files, shells) = (&agent.config, &mut agent.files, &agent.shells);
            requests.extend(view.ui(ui, lang, config, files, shells));
        }
        self.submit(requests);
        self.follow_header(ui.ctx(), name, asked);
    }

    /// An agent's page: its header, login card, and its conversation (or review), log or rules.
    pub(super) fn agent_page(&mut self, ui: &mut egui::Ui) {
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
        let AgentPane { draft, list, workspace, login_values, find, reveal, review, thread } =
            self.panes.entry(name.clone()).or_default();
        // Another thread shown (from the bar, All threads, the palette): its last messages, not its
        // first (a search result goes to its own message below).
        if *thread != agent.threads.current {
            *thread = agent.threads.current;
            list.jump_to_bottom();
        }
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
        let mut requests: Vec<Request> = std::mem::take(&mut header.commands).into_iter().map(Request::from).collect();
        let asked = login_card::login_card_ui(ui, lang, agent, login_values);
        requests.extend(asked.requests);
        if asked.terminal {
            // The login runs in the workspace's terminal: show it there.
            workspace.tab = workspace_view::WsTab::Terminal;
            requests.push(Request::Terminals { agent: name.clone(), request: TerminalsRequest::Expect });
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
                requests.extend(conversation::conversation_ui(ui, lang, agent, draft, list, &mut self.markdown, find))
            }
            Tab::Log => log::log_ui(ui, lang, agent),
            Tab::Permissions => requests.extend(rules::rules_ui(ui, lang, agent).into_iter().map(Request::from)),
        }
        self.submit(requests);
        self.follow_header(ui.ctx(), &name, header);
    }

    /// Follows a click in the agent header: to its team's page, a channel, or another page of the
    /// agent.
    pub(super) fn follow_header(&mut self, ctx: &egui::Context, agent: &str, asked: agent_header::HeaderAsked) {
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
    pub(super) fn show_page(&mut self, agent: &str, page: agent_header::Page) {
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
}
