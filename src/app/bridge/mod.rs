//! Starting the runtime side (agent manager, history, config load and watcher) and the UI's
//! handle on it: commands are sent without blocking, events are drained on a time budget per frame,
//! and file work (open, save, the file dialog, finding agents) runs on the runtime.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::state::AppState;
use crate::model::config::AgentConfig;
use crate::model::config_edit::{NewAgent, add_agent};
use crate::protocol::{Command, Event, WorkspaceEvent};
use crate::runtime::agents::{ManagerSettings, spawn_manager};
use crate::runtime::config_file::{AppDirs, Preferences, load_file, save_atomic};
use crate::runtime::config_watch::{ConfigWatcher, watch_config};
use crate::runtime::events::{EventSink, Waker};
use crate::runtime::history::spawn_recorder;
use crate::runtime::store::Store;
use crate::runtime::workspace::{Follower, LocalWorkspace, RemoteWorkspace, Workspace, follow};

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
}

/// The UI's handle on the runtime.
pub struct Bridge {
    commands: mpsc::Sender<Command>,
    events: mpsc::Receiver<Event>,
    sink: EventSink,
    rt: tokio::runtime::Handle,
    dirs: Option<AppDirs>,
    watcher: Option<ConfigWatcher>,
    /// The workspace of each agent, made on first use (and again when its config changes).
    workspaces: std::collections::HashMap<String, (AgentConfig, Arc<dyn Workspace>)>,
    /// Follows the workspace being shown (only one at a time).
    follower: Option<(String, Follower)>,
    /// Where teams are remembered (`None`: for this run only).
    store: Option<Arc<Store>>,
    /// Where members' copies are made.
    teams_dir: PathBuf,
}

mod teams;

/// Starts the manager on `rt`, loads the config and follows the file.
pub fn start(rt: &tokio::runtime::Handle, startup: Startup, waker: Waker) -> Bridge {
    let _guard = rt.enter();
    let (mut sink, events) = EventSink::new(waker);
    if let Some(store) = &startup.store {
        sink = sink.with_history(spawn_recorder(store.clone()));
    }
    let commands = spawn_manager(startup.settings, sink.clone(), startup.store.clone());
    let teams_dir = match &startup.dirs {
        Some(dirs) => dirs.data_dir.join("teams"),
        None => startup.config_path.parent().unwrap_or(Path::new(".")).join("sidekicks-teams"),
    };
    let mut bridge = Bridge {
        commands,
        events,
        sink,
        rt: rt.clone(),
        dirs: startup.dirs,
        watcher: None,
        workspaces: Default::default(),
        follower: None,
        store: startup.store.clone(),
        teams_dir,
    };
    let path = startup.config_path;
    let result = bridge.follow(&path);
    let _ = bridge.commands.try_send(Command::ConfigLoaded { path, result });
    bridge.load_teams();
    bridge
}

impl Bridge {
    /// Sends a command without blocking the UI; a full queue is logged and the command dropped.
    pub fn send(&self, command: Command) {
        if let Command::SaveTeamChannel { team, timeline } = command {
            self.save_team_channel(team, timeline);
            return;
        }
        if let Err(e) = self.commands.try_send(command) {
            tracing::warn!("command not sent: {e}");
        }
    }

    /// Loads `path` and follows it from now on (the previous file is no longer followed).
    fn follow(&mut self, path: &Path) -> crate::model::config_check::LoadResult {
        let _guard = self.rt.enter();
        let home = self.dirs.as_ref().and_then(|d| d.home.clone());
        let initial = std::fs::read_to_string(path).ok();
        let result = load_file(path, home.as_deref());
        self.watcher = None;
        match watch_config(path.to_path_buf(), home, initial, self.commands.clone()) {
            Ok(w) => self.watcher = Some(w),
            Err(e) => tracing::warn!("cannot follow {}: {e}", path.display()),
        }
        result
    }

    /// Opens another config file: every agent stops, the file is loaded (problems included) and
    /// followed, recorded as last opened and recent, and its conversations are shown. The Open…
    /// dialog and the Recent menu both come here.
    pub fn open(&mut self, path: PathBuf) {
        let path = std::path::absolute(&path).unwrap_or(path);
        if let Some(dirs) = &self.dirs {
            let mut prefs = Preferences::load(dirs);
            prefs.record_opened(&path);
            if let Err(e) = prefs.save(dirs) {
                tracing::warn!("cannot save preferences: {e}");
            }
        }
        let result = self.follow(&path);
        self.send(Command::OpenConfig { path, result });
    }

    /// The recent config files, newest first, each with whether it still exists.
    pub fn recent(&self) -> Vec<(PathBuf, bool)> {
        let Some(dirs) = &self.dirs else { return Vec::new() };
        Preferences::load(dirs)
            .recent
            .into_iter()
            .map(|p| {
                let exists = p.is_file();
                (p, exists)
            })
            .collect()
    }

    /// Saves `text` to `path` atomically; `Event::ConfigSaved` tells how it went. The watcher then
    /// reloads the running config.
    pub fn save(&self, path: PathBuf, text: String) {
        let sink = self.sink.clone();
        self.rt.spawn(async move {
            let p = path.clone();
            let error = match tokio::task::spawn_blocking(move || save_atomic(&p, &text)).await {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e.to_string()),
                Err(e) => Some(e.to_string()),
            };
            sink.send(Event::ConfigSaved { path, error }).await;
        });
    }

    /// Opens the native file dialog (without blocking the window); `Event::FilePicked` brings the
    /// answer.
    pub fn pick_file(&self, start_in: Option<PathBuf>) {
        let sink = self.sink.clone();
        self.rt.spawn(async move {
            let mut dialog = rfd::AsyncFileDialog::new().add_filter("TOML", &["toml"]).set_title("Open a config file");
            if let Some(dir) = start_in {
                dialog = dialog.set_directory(dir);
            }
            let path = dialog.pick_file().await.map(|f| f.path().to_path_buf());
            sink.send(Event::FilePicked { path }).await;
        });
    }

    /// Looks for agents installed on this computer; `Event::AgentsFound` lists them.
    pub fn discover(&self) {
        let sink = self.sink.clone();
        let home = self.dirs.as_ref().and_then(|d| d.home.clone());
        self.rt.spawn(async move {
            let agents = tokio::task::spawn_blocking(move || {
                crate::runtime::discovery::discover(home.as_deref(), std::env::var_os("PATH").as_deref())
            })
            .await
            .unwrap_or_default();
            sink.send(Event::AgentsFound { agents }).await;
        });
    }

    /// Adds `agent` (working in `workspace`) to the config file at `path`, keeping its comments
    /// and layout; reported like a save.
    pub fn add_agent(&self, path: PathBuf, agent: NewAgent, workspace: PathBuf) {
        let sink = self.sink.clone();
        self.rt.spawn(async move {
            let p = path.clone();
            let error = tokio::task::spawn_blocking(move || -> Result<(), String> {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                let edited = add_agent(&text, &agent, &workspace).map_err(|e| e.to_string())?;
                save_atomic(&p, &edited).map_err(|e| e.to_string())
            })
            .await
            .unwrap_or_else(|e| Err(e.to_string()))
            .err();
            sink.send(Event::ConfigSaved { path, error }).await;
        });
    }

    /// The workspace of `agent` (on this computer or in its container).
    pub fn workspace(&mut self, agent: &AgentConfig) -> Arc<dyn Workspace> {
        if let Some((config, ws)) = self.workspaces.get(&agent.name)
            && config == agent
        {
            return ws.clone();
        }
        let ws: Arc<dyn Workspace> = match crate::runtime::exec::executor_for(agent) {
            Ok(executor) if agent.runtime.kind != crate::model::config::RuntimeKind::Local => {
                let tool = match agent.runtime.kind {
                    crate::model::config::RuntimeKind::Podman => "podman",
                    crate::model::config::RuntimeKind::Sbx => "sbx",
                    crate::model::config::RuntimeKind::Kubectl => "kubectl",
                    _ => "docker",
                };
                let target = agent.runtime.target_name().unwrap_or_default();
                Arc::new(RemoteWorkspace::new(executor, agent.workspace_path(), tool, target))
            }
            _ => Arc::new(LocalWorkspace::new(agent.workspace.clone())),
        };
        self.workspaces.insert(agent.name.clone(), (agent.clone(), ws.clone()));
        ws
    }

    /// Runs a workspace operation on the runtime; its result comes back as `Event::Workspace`.
    pub fn workspace_op<F>(&mut self, agent: &AgentConfig, op: impl FnOnce(Arc<dyn Workspace>) -> F + Send + 'static)
    where
        F: Future<Output = WorkspaceEvent> + Send + 'static,
    {
        let ws = self.workspace(agent);
        let sink = self.sink.clone();
        let name = agent.name.clone();
        self.rt.spawn(async move {
            let event = op(ws).await;
            sink.send(Event::Workspace { agent: name, event }).await;
        });
    }

    /// Follows the workspace of `agent` (and stops following any other): changes come back as
    /// `WorkspaceEvent::Changed`. `None` stops following.
    pub fn follow_workspace(&mut self, agent: Option<&AgentConfig>) {
        let Some(agent) = agent else {
            self.follower = None;
            return;
        };
        if self.follower.as_ref().is_some_and(|(name, _)| *name == agent.name) {
            return;
        }
        self.follower = None;
        let ws = self.workspace(agent);
        let sink = self.sink.clone();
        let rt = self.rt.clone();
        let name = agent.name.clone();
        let _guard = self.rt.enter();
        let on_change = Arc::new(move || {
            let (sink, name) = (sink.clone(), name.clone());
            rt.spawn(async move { sink.send(Event::Workspace { agent: name, event: WorkspaceEvent::Changed }).await });
        });
        match follow(ws, on_change) {
            Ok(follower) => self.follower = Some((agent.name.clone(), follower)),
            Err(e) => tracing::warn!("cannot follow the workspace of {}: {e}", agent.name),
        }
    }

    /// Applies pending events to `state` for at most `budget`. Returns true if some remain.
    pub fn drain(&mut self, state: &mut AppState, budget: Duration) -> bool {
        let start = Instant::now();
        loop {
            match self.events.try_recv() {
                Ok(event) => state.apply(event),
                Err(_) => return false,
            }
            if start.elapsed() >= budget {
                return !self.events.is_empty();
            }
        }
    }

    /// Stops every agent and waits (up to `limit`) until they are all gone and the history has
    /// saved everything they sent.
    pub fn shutdown_blocking(&mut self, state: &mut AppState, limit: Duration) {
        let _ = self.commands.try_send(Command::Shutdown);
        let deadline = Instant::now() + limit;
        while !state.shutdown_complete && Instant::now() < deadline {
            match self.events.try_recv() {
                Ok(event) => state.apply(event),
                Err(mpsc::error::TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(10)),
                Err(mpsc::error::TryRecvError::Disconnected) => break,
            }
        }
        let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_secs(1));
        let sink = &self.sink;
        let _ = self.rt.block_on(async move { tokio::time::timeout(left, sink.flush_history()).await });
    }
}
