//! The runtime's front door: every `Command` from the window comes here. Agent commands go on to
//! the agent [`Manager`](super::agents); the rest is served here, on the runtime, and answered
//! with an `Event`: the config file (open, follow, save, check, the file dialog, finding and adding
//! agents, the recent files), the agents' workspaces and the one followed, teams, team channels,
//! desktop notifications.
//! The window only sends commands and applies events; it never does this work itself.

mod channels;
mod config;
mod history;
pub mod lead;
mod leases;
mod marks;
mod registry;
mod tasks;
mod team_book;
mod team_commands;
mod team_ops;
mod team_outcome;
mod team_radar;
mod team_setup;
mod team_try;
mod teams;
mod terminals;
mod workspaces;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use super::agents::{ManagerCommand, ManagerSettings, spawn_manager_watched};
use super::config::file::AppDirs;
use super::events::EventSink;
use super::store::Store;
use crate::model::config::Config;
use crate::protocol::AgentCommand;
use crate::protocol::ChannelCommand;
use crate::protocol::ConfigCommand;
use crate::protocol::WorkspaceCommand;
use crate::protocol::{Command, Event};

/// What the runtime needs to start.
#[derive(Clone)]
pub struct Startup {
    /// The config file to load and follow.
    pub config_path: PathBuf,
    /// The user's folders (for `~/` and the preferences); `None` in tests.
    pub dirs: Option<AppDirs>,
    /// Manager timings.
    pub settings: ManagerSettings,
    /// The history database (`None`: nothing is remembered between runs).
    pub store: Option<Arc<Store>>,
    /// The program that hosts terminal shells: this binary (`sidekicks terminal-host`); tests
    /// name the built one.
    pub terminal_host: PathBuf,
    /// What to tell about the history as it was opened (damaged and kept aside, not available).
    pub history_note: Option<crate::protocol::HistoryNote>,
    /// Only the teams answering to this (`TeamRecord::answers_to`) are loaded, their members
    /// reattached; no team's disk use is measured nor leftovers looked for (nor for any door
    /// that does not watch). A command line that
    /// names one team starts so (issue 50: not every team's copies asked of git, nor the
    /// engines' containers listed, for one merge). `None`: every team (the window).
    pub teams_only: Option<String>,
    /// Whether the door lasts (the window, a command that streams agents' turns): the config file
    /// is then followed (read again when it changes) and the leads' tools are served. A command
    /// that ends in a moment reads the config once (following a file costs a process's end a wait
    /// for the kernel, 5–15 ms measured) and starts no lead, so makes no socket for one (issue 50).
    pub lasting: bool,
    /// Whether a door watches what moves (the window): members' change lists (and the radar)
    /// are then read again after each operation and setup, the threads no agent owns listed
    /// after each change of the config, each team's disk use measured and the engines asked for
    /// leftover containers. A command line asks for what it shows (issue 50: a
    /// merge's process no longer reads the copy once more at its end).
    pub watching: bool,
}

impl Startup {
    /// What to start with `config_path`: default timings, no history, no user folders, this
    /// program as the terminals' host.
    pub fn new(config_path: PathBuf) -> Self {
        Self {
            config_path,
            dirs: None,
            settings: ManagerSettings::default(),
            store: None,
            terminal_host: std::env::current_exe().unwrap_or_else(|_| "sidekicks".into()),
            history_note: None,
            teams_only: None,
            lasting: true,
            watching: true,
        }
    }
}

/// The front door's state: what it serves itself, and the manager it hands the rest to.
struct Services {
    manager: mpsc::Sender<ManagerCommand>,
    /// The config in force (with members' workspaces), as the manager applied it.
    applied: watch::Receiver<Option<Config>>,
    sink: EventSink,
    store: Option<Arc<Store>>,
    /// Where members' copies are made.
    teams_dir: PathBuf,
    config: config::ConfigFile,
    workspaces: workspaces::Workspaces,
    terminals: terminals::Terminals,
    notifier: super::notifier::Notifier,
    /// The team whose members' copies are followed, and their followers.
    team_followed: Option<(String, Vec<super::workspace::Follower>)>,
    /// The team service's shared state.
    team: teams::TeamCtx,
    /// The channel service.
    channels: mpsc::Sender<channels::ChannelCommand>,
    /// The config file followed (its channels are stored under it).
    config_path: PathBuf,
    /// The teams' change mark as last seen (another process changing a team rewrites it);
    /// `None`: not read yet.
    teams_mark: Option<String>,
    /// The registry entries under way.
    registry_busy: registry::Busy,
    /// Only the teams answering to this are loaded (`Startup::teams_only`).
    teams_only: Option<String>,
    /// Whether the config file is followed (`Startup::lasting`).
    follow_config: bool,
    /// Whether a door watches what moves (`Startup::watching`).
    watching: bool,
}

/// Starts the agent manager and the front door on the current runtime, loads and follows the
/// config file and reattaches the stored teams. Returns where to send commands.
pub fn spawn_services(startup: Startup, sink: EventSink) -> mpsc::Sender<Command> {
    // The channel service hears what agents say through the sink; the lead's tools, what the
    // runtime tells of teams and agents.
    let (said, heard) = mpsc::channel(1024);
    let (tap, _) = tokio::sync::broadcast::channel(1024);
    let sink = sink.with_said(said).with_tap(tap.clone());
    if let Some(note) = startup.history_note.clone() {
        let sink = sink.clone();
        tokio::spawn(async move { sink.send(Event::HistoryNote { note }).await });
    }
    let mut settings = startup.settings;
    settings.watching = startup.watching;
    if let Some(dirs) = &startup.dirs {
        // Once per process: the window's runtime.
        settings.checkpoints_root = Some(Box::leak(dirs.data_dir.join("checkpoints").into_boxed_path()));
    }
    let (manager, applied) = spawn_manager_watched(settings, sink.clone(), startup.store.clone());
    let teams_dir = match &startup.dirs {
        Some(dirs) => dirs.data_dir.join("teams"),
        None => startup.config_path.parent().unwrap_or(Path::new(".")).join("sidekicks-teams"),
    };
    let (tx, rx) = mpsc::channel(256);
    let book: Arc<std::sync::Mutex<team_book::TeamBook>> = Arc::new(std::sync::Mutex::new(team_book::TeamBook {
        changes_when_asked: !startup.watching,
        ..Default::default()
    }));
    // The manager's first command: every connection it makes asks about members' writes.
    let leases = crate::runtime::acp::leases::LeasesHandle(Arc::new(leases::BookLeases::new(book.clone())));
    if manager.try_send(ManagerCommand::SetLeases { leases }).is_err() {
        tracing::warn!("the manager did not take the leases: members' writes are not checked");
    }
    let channels =
        channels::spawn(sink.clone(), manager.clone(), startup.store.clone(), book.clone(), heard, teams_dir.clone());
    let door = lead::Door::new(tx.clone(), tap, book.clone());
    let lead_tools = startup.lasting.then(|| lead::LeadTools::start(door, startup.terminal_host.clone())).flatten();
    let (team, notes) =
        teams::TeamCtx::new(sink.clone(), manager.clone(), book, channels.clone(), teams_dir.clone(), lead_tools);
    let services = Services {
        team,
        channels,
        config_path: startup.config_path.clone(),
        // A door that watches reads the other processes' marks now; a command line at its first
        // look, if it lasts that long (and reads the teams again then).
        teams_mark: startup.watching.then(|| marks::others_marks(&teams_dir)),
        config: config::ConfigFile::new(startup.dirs.clone(), sink.clone()),
        workspaces: workspaces::Workspaces::new(sink.clone()),
        terminals: terminals::Terminals::new(startup.terminal_host, sink.clone()),
        notifier: super::notifier::Notifier::spawn(sink.clone()),
        team_followed: None,
        manager,
        applied,
        sink,
        store: startup.store,
        teams_dir,
        registry_busy: registry::Busy::default(),
        teams_only: startup.teams_only.clone(),
        follow_config: startup.lasting,
        watching: startup.watching,
    };
    services.config.tell_remembered();
    tokio::spawn(services.run(rx, notes, startup.config_path));
    tx
}

impl Services {
    async fn run(
        mut self,
        mut commands: mpsc::Receiver<Command>,
        mut notes: mpsc::Receiver<teams::TeamNote>,
        first: PathBuf,
    ) {
        let result = self.config.follow(&first, &self.manager, self.follow_config).await;
        self.forward(ManagerCommand::ConfigLoaded { path: first, result }).await;
        self.config.send_recent().await;
        self.load_teams();
        // Teams changed by another Sidekicks or the command line are read again.
        // (From a second on: the teams were just read, and a command that ends in a moment
        // need not look again.)
        let second = std::time::Duration::from_secs(1);
        let mut look = tokio::time::interval_at(tokio::time::Instant::now() + second, second);
        look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = look.tick() => self.look_at_teams().await,
                command = commands.recv() => match command {
                    Some(command) => self.command(command).await,
                    // The window is gone: so is the manager's sender, and it stops every agent.
                    None => return,
                },
                Some(note) = notes.recv() => self.team_note(note),
                Ok(()) = self.applied.changed() => {
                    let config = self.applied.borrow_and_update().clone();
                    let follow = channels::ChannelCommand::Config(config.clone(), Some(self.config_path.clone()));
                    let _ = self.channels.send(follow).await;
                    self.workspaces.config_changed(config.as_ref()).await;
                    if self.watching {
                        history::tell_others(self.store.clone(), config.clone(), self.sink.clone());
                    }
                    // Terminals of agents that left the config end (whatever file comes next).
                    if let Some(config) = &config {
                        self.terminals.close_where(|agent| config.agent(agent).is_some());
                    }
                }
            }
        }
    }

    /// The config service's commands: open, save, check, pick, add an agent, set a default,
    /// remember the window's look.
    async fn config_command(&mut self, command: ConfigCommand) {
        match command {
            ConfigCommand::Open { path } => {
                let path = std::path::absolute(&path).unwrap_or(path);
                self.config_path = path.clone();
                // What was open for the first file's agents ends, even for a namesake in the next.
                self.terminals.close_where(|_| false);
                self.config.record_opened(&path).await;
                let result = self.config.follow(&path, &self.manager, self.follow_config).await;
                self.forward(ManagerCommand::OpenConfig { path, result }).await;
                self.config.send_recent().await;
            }
            ConfigCommand::Save { path, text } => self.config.save(path, text),
            ConfigCommand::Check { path, text } => self.config.check(path, text),
            ConfigCommand::PickFile { start_in } => self.config.pick_file(start_in),
            ConfigCommand::ListFolder { path } => self.config.list_folder(path),
            ConfigCommand::PickFolder { start_in } => self.config.pick_folder(start_in),
            ConfigCommand::DiscoverAgents => self.config.discover(),
            ConfigCommand::AddAgent { path, agent } => self.config.add_agent(path, agent),
            ConfigCommand::SetDefault { path, key, value } => self.config.set_default(path, key, value),
            ConfigCommand::Remember { zoom, window } => self.config.remember(zoom, window),
        }
    }

    async fn command(&mut self, command: Command) {
        match command {
            Command::Config(command) => self.config_command(command).await,
            Command::Registry(command) => {
                let dirs = self.config.dirs();
                let (data, home) = (dirs.map(|d| d.data_dir.clone()), dirs.and_then(|d| d.home.clone()));
                registry::serve(command, data, home, self.registry_busy.clone(), self.sink.clone());
            }
            Command::Workspace(WorkspaceCommand::Op { agent, op }) => match self.agent(&agent) {
                Some(config) => self.workspaces.run(&config, op),
                None => tracing::warn!("workspace operation for {agent}, who is not in the config"),
            },
            Command::Workspace(WorkspaceCommand::Follow { agent }) => {
                let config = agent.and_then(|a| self.agent(&a));
                self.workspaces.follow(config.as_ref());
            }
            Command::Team(command) => match *command {
                crate::protocol::teams::TeamCommand::Assign { team, member, text, by, id } => {
                    let _ = self.channels.send(channels::ChannelCommand::Assign { team, member, text, by, id }).await;
                }
                crate::protocol::teams::TeamCommand::Tasks { team } => {
                    let _ = self.channels.send(channels::ChannelCommand::Tasks { team }).await;
                }
                command => self.team(command),
            },
            Command::Workspace(WorkspaceCommand::OpenTerminal { agent }) => match self.agent(&agent) {
                Some(config) => {
                    let workspace = self.workspaces.workspace(&config);
                    self.terminals.open(agent, workspace);
                }
                None => tracing::warn!("terminal for {agent}, who is not in the config"),
            },
            Command::Workspace(WorkspaceCommand::CloseTerminal { id }) => self.terminals.close(id),
            Command::Notify(note) => self.notifier.show(*note),
            Command::History(command) => {
                history::serve(command, self.store.clone(), self.applied.borrow().clone(), self.sink.clone());
            }
            Command::Search { config_path, query } => {
                let scope = history::scope(&config_path, self.applied.borrow().as_ref());
                let (store, sink) = (self.store.clone(), self.sink.clone());
                tokio::spawn(async move {
                    let asked = query.clone();
                    let hits = match store {
                        Some(store) => tokio::task::spawn_blocking(move || store.search(&scope, &query, 50))
                            .await
                            .map_err(|e| e.to_string())
                            .and_then(|r| r.map_err(|e| e.to_string())),
                        None => Err("no history is kept in this run".to_string()),
                    };
                    sink.send(Event::SearchResults { query: asked, hits }).await;
                });
            }
            Command::Workspace(WorkspaceCommand::LoginTerminal { agent, args, env }) => match self.agent(&agent) {
                Some(config) => {
                    let workspace = self.workspaces.workspace(&config);
                    let argv = std::iter::once(config.command.clone()).chain(config.args.clone()).chain(args).collect();
                    let vars = config.env.clone().into_iter().chain(env).collect();
                    let shell = workspace.program_command(argv, vars);
                    // Logged in (a zero exit): the agent starts; what was sent to it goes then.
                    let (manager, rt) = (self.manager.clone(), tokio::runtime::Handle::current());
                    let on_exit = Box::new(move |success: bool| {
                        if success {
                            rt.spawn(async move {
                                let _ = manager
                                    .send(ManagerCommand::Agent(
                                        agent,
                                        AgentCommand::Login { method: None, values: Vec::new() },
                                    ))
                                    .await;
                            });
                        }
                    });
                    self.terminals.run(config.name.clone(), shell, on_exit);
                }
                None => tracing::warn!("login terminal for {agent}, who is not in the config"),
            },
            Command::Shutdown => {
                self.workspaces.follow(None);
                self.terminals.close_all().await;
                self.forward(ManagerCommand::Shutdown).await;
            }
            Command::Channel(ChannelCommand::Say { channel, text }) => {
                let _ = self.channels.send(channels::ChannelCommand::Say { channel, text }).await;
            }
            Command::Agent(agent, command) => self.forward(ManagerCommand::Agent(agent.0, command)).await,
            Command::Checkpoint(command) => self.forward(ManagerCommand::Checkpoint(command)).await,
        }
    }

    /// Reads the teams again when another process changed them (its mark moved).
    async fn look_at_teams(&mut self) {
        self.team.look_for_interrupted();
        let dir = self.teams_dir.clone();
        let Ok(marks) = tokio::task::spawn_blocking(move || marks::others_marks(&dir)).await else { return };
        // (Not read at start: read again, as a change may have come since the first reading.)
        if self.teams_mark.replace(marks.clone()).is_none_or(|seen| seen != marks) {
            self.load_teams();
        }
    }

    /// The config of `agent` as it works now (a member in its copy), if it is in the config.
    fn agent(&self, agent: &str) -> Option<crate::model::config::AgentConfig> {
        self.applied.borrow().as_ref().and_then(|c| c.agent(agent).cloned())
    }

    /// Hands a command to the agent manager, in order.
    async fn forward(&self, command: ManagerCommand) {
        if self.manager.send(command).await.is_err() {
            tracing::warn!("the agent manager has ended");
        }
    }
}
