//! What the window does on a key, a palette choice or a click on a desktop notification: the
//! shortcuts (none while a terminal has the keyboard), the palette's actions, showing what a
//! notification is about.

use super::{SidekicksApp, Tab, View, conversation, find_bar, palette};
use crate::app::AgentCommand;
use crate::app::Command;
use crate::app::ConfigCommand;
use crate::protocol::notify::NoteTarget;
use crate::protocol::threads::ThreadOp;

impl SidekicksApp {
    /// The window's shortcuts: the palette, Alt+1…9 for agents, Ctrl+N for a new thread, Ctrl+F and
    /// Ctrl+Shift+F. None is taken while a terminal has the keyboard (its keys are the shell's).
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        if super::terminal::view::has_focus(ctx) {
            return;
        }
        if palette::opened(ctx) {
            self.palette.open = true;
        }
        let digits = [
            egui::Key::Num1,
            egui::Key::Num2,
            egui::Key::Num3,
            egui::Key::Num4,
            egui::Key::Num5,
            egui::Key::Num6,
            egui::Key::Num7,
            egui::Key::Num8,
            egui::Key::Num9,
        ];
        for (i, key) in digits.into_iter().enumerate() {
            // The text the desktop sends with the key (the digit, or what Alt makes of it) is
            // the shortcut's, not the composer's.
            let taken = ctx.input_mut(|input| {
                let taken = input.consume_key(egui::Modifiers::ALT, key);
                if taken {
                    input.events.retain(|e| !matches!(e, egui::Event::Text(_)));
                }
                taken
            });
            if taken && let Some(agent) = self.state.agents.get(i) {
                let name = agent.config.name.clone();
                self.run(ctx, palette::Action::Agent(name));
            }
        }
        // Before Ctrl+F, which would take Ctrl+Shift+F too.
        let everywhere = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::F);
        if ctx.input_mut(|i| i.consume_shortcut(&everywhere)) {
            self.run(ctx, palette::Action::Search);
        }
        let find = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::F);
        if self.view == View::Agent
            && let Some(name) = self.selected.clone()
            && ctx.input_mut(|i| i.consume_shortcut(&find))
        {
            self.tab = Tab::Conversation;
            self.panes.entry(name).or_default().find = Some(find_bar::FindBar::opened());
        }
        let new_thread = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::N);
        if self.view == View::Agent && ctx.input_mut(|i| i.consume_shortcut(&new_thread)) {
            self.run(ctx, palette::Action::NewThread);
        }
    }

    /// Does what the palette or a shortcut asked.
    pub(super) fn run(&mut self, ctx: &egui::Context, action: palette::Action) {
        use palette::Action;
        let shown = self.selected.clone();
        let command = |make: fn(String) -> Command| shown.clone().map(make);
        let command = match action {
            Action::Agent(name) => {
                self.selected = Some(name);
                self.view = View::Agent;
                self.tab = Tab::Conversation;
                None
            }
            Action::Channel(name) => {
                self.channel = Some(name);
                self.view = View::Channel;
                None
            }
            Action::Team(id) => {
                self.team = Some(id);
                self.view = View::Team;
                None
            }
            Action::Review(team, agent) => {
                self.team = Some(team.clone());
                self.view = View::Team;
                self.team_views.review = Some(super::review::ReviewView::new(&team, &agent));
                let review = crate::protocol::teams::TeamCommand::Review { team, member: agent };
                self.submit(Some(Command::Team(Box::new(review))));
                None
            }
            Action::Thread(id) => {
                shown.map(|agent| Command::Agent(agent.into(), AgentCommand::Thread { op: ThreadOp::Open(id) }))
            }
            Action::NewThread => {
                shown.map(|agent| Command::Agent(agent.into(), AgentCommand::Thread { op: ThreadOp::New }))
            }
            Action::Start => command(|agent| Command::Agent(agent.into(), AgentCommand::Start)),
            Action::Stop => command(|agent| Command::Agent(agent.into(), AgentCommand::Stop)),
            Action::Restart => command(|agent| Command::Agent(agent.into(), AgentCommand::Restart)),
            Action::OpenConfig => {
                let start_in = self.state.config_path.as_ref().and_then(|p| p.parent().map(|d| d.to_path_buf()));
                Some(Command::Config(ConfigCommand::PickFile { start_in }))
            }
            Action::Find => {
                if let Some(name) = shown {
                    self.view = View::Agent;
                    self.tab = Tab::Conversation;
                    self.panes.entry(name).or_default().find = Some(find_bar::FindBar::opened());
                }
                None
            }
            Action::Page(page) => {
                if let Some(name) = shown {
                    self.show_page(&name, page);
                }
                None
            }
            Action::FocusComposer => {
                self.view = View::Agent;
                self.tab = Tab::Conversation;
                conversation::focus_composer(ctx);
                None
            }
            action => self.run_view(ctx, action),
        };
        if let Some(command) = command {
            self.submit([command]);
        }
    }

    /// The palette's actions that show a page (split from `run`).
    fn run_view(&mut self, ctx: &egui::Context, action: palette::Action) -> Option<Command> {
        use palette::Action;
        match action {
            Action::NewTeam => {
                self.team_views.form.try_task = None;
                self.view = View::NewTeam;
                None
            }
            Action::TryAgents => {
                self.team_views.form.try_task.get_or_insert_with(String::new);
                self.view = View::NewTeam;
                None
            }
            Action::Settings => {
                self.view = View::Settings;
                None
            }
            Action::AllThreads => {
                self.view = View::Threads;
                self.state.read_thread = None;
                None
            }
            Action::GetAgents => {
                self.view = View::GetAgents;
                self.registry_page.asked = false;
                None
            }
            Action::About => {
                self.about = true;
                None
            }
            Action::Inbox => {
                self.view = View::Inbox;
                None
            }
            Action::Search => {
                self.view = View::Search;
                self.search.opened();
                None
            }
            action => self.run_team_or_look(ctx, action),
        }
    }

    /// The palette's actions on a team and on the window's look (split from `run`).
    fn run_team_or_look(&mut self, ctx: &egui::Context, action: palette::Action) -> Option<Command> {
        use palette::Action;
        match action {
            Action::Merge(team, member) => {
                self.team = Some(team.clone());
                self.view = View::Team;
                let merge = crate::protocol::teams::TeamCommand::Merge { team, member, selected: None };
                Some(Command::Team(Box::new(merge)))
            }
            Action::UndoMerge(team, member) => {
                self.team = Some(team.clone());
                self.view = View::Team;
                Some(Command::Team(Box::new(crate::protocol::teams::TeamCommand::UndoMerge { team, member })))
            }
            Action::Discard(team) => {
                // The team's page, its question asked: nothing is discarded without the person's yes.
                self.team_views.ask_discard(&team);
                self.team = Some(team);
                self.view = View::Team;
                None
            }
            Action::Theme(theme) => super::settings::set_default(&self.state, "theme", theme.code()),
            Action::Language(language) => {
                super::settings::set_default(&self.state, "language", language.map_or("", |l| l.code()))
            }
            Action::StartAgent(name) => Some(Command::Agent(name.into(), AgentCommand::Start)),
            Action::Zoom(step) => {
                // egui's own keys step by 10 %.
                let zoom = match step {
                    0 => 1.0,
                    s if s > 0 => ctx.zoom_factor() * 1.1,
                    _ => ctx.zoom_factor() / 1.1,
                };
                ctx.set_zoom_factor(zoom.clamp(0.3, 3.0));
                None
            }
            _ => None,
        }
    }

    /// Desktop notifications: what happened while the window was not focused goes to the runtime
    /// as notes (and the task bar is asked to flag the window); a clicked note shows what it is
    /// about and brings the window forward.
    pub(super) fn notifications(&mut self, ctx: &egui::Context) {
        let focused = ctx.input(|i| i.focused);
        let notes = self.state.take_notes(focused);
        if !notes.is_empty() {
            ctx.send_viewport_cmd(egui::ViewportCommand::RequestUserAttention(egui::UserAttentionType::Informational));
        }
        self.submit(notes.into_iter().map(|note| Command::Notify(Box::new(note))));
        if let Some(target) = self.state.clicked.take() {
            match target {
                NoteTarget::Agent(name) => self.run(ctx, palette::Action::Agent(name)),
                NoteTarget::Team(id) => self.run(ctx, palette::Action::Team(id)),
            }
            ctx.send_viewport_cmd(egui::ViewportCommand::Focus);
        }
    }

    /// Opens a search result: its agent, its thread (asked of the runtime when another is shown),
    /// and the message scrolled to once the thread is there; or its channel.
    pub(super) fn reveal(&mut self, ctx: &egui::Context, hit: crate::model::search::SearchHit) {
        use crate::model::search::Place;
        match hit.place {
            Place::Thread { agent, thread, seq, .. } => {
                let current = self.state.agent(&agent).and_then(|a| a.threads.current);
                if current != Some(thread) {
                    self.submit([Command::Agent(
                        agent.clone().into(),
                        AgentCommand::Thread { op: ThreadOp::Open(thread) },
                    )]);
                }
                self.panes.entry(agent.clone()).or_default().reveal = Some((thread, seq));
                self.selected = Some(agent);
                self.tab = Tab::Conversation;
                self.view = View::Agent;
            }
            Place::Channel { name, .. } => self.run(ctx, palette::Action::Channel(name)),
        }
    }
}
