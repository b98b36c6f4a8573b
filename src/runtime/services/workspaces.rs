//! The agents' workspaces as the front door serves them: one `Workspace` per agent (on this
//! computer or in its container), made on first use and again when the agent's config changes,
//! each operation run on the runtime and answered with `Event::Workspace`; and the one workspace
//! followed (the one shown), moved along when its agent starts working elsewhere (a team copy).

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::config::{AgentConfig, Config};
use crate::protocol::workspace::WorkspaceOp;
use crate::protocol::{Event, WorkspaceEvent};
use crate::runtime::events::EventSink;
use crate::runtime::workspace::{Follower, Workspace, follow};

/// Every agent's workspace, and the one followed.
pub(super) struct Workspaces {
    sink: EventSink,
    made: HashMap<String, (AgentConfig, Arc<dyn Workspace>)>,
    /// The agent whose workspace is followed (with its config then), and its follower.
    followed: Option<(AgentConfig, Follower)>,
}

impl Workspaces {
    pub(super) fn new(sink: EventSink) -> Self {
        Self { sink, made: HashMap::new(), followed: None }
    }

    /// The workspace of `agent` (on this computer or in its container).
    pub(super) fn workspace(&mut self, agent: &AgentConfig) -> Arc<dyn Workspace> {
        if let Some((config, ws)) = self.made.get(&agent.name)
            && config == agent
        {
            return ws.clone();
        }
        let ws = crate::runtime::workspace::for_agent(agent);
        self.made.insert(agent.name.clone(), (agent.clone(), ws.clone()));
        ws
    }

    /// Runs `op` on the workspace of `agent`; its result comes back as `Event::Workspace`.
    pub(super) fn run(&mut self, agent: &AgentConfig, op: WorkspaceOp) {
        let ws = self.workspace(agent);
        let sink = self.sink.clone();
        let name = agent.name.clone();
        tokio::spawn(async move {
            let event = serve(ws, op).await;
            sink.send(Event::Workspace { agent: name, event }).await;
        });
    }

    /// Follows the workspace of `agent` and no other (`None`: none).
    pub(super) fn follow(&mut self, agent: Option<&AgentConfig>) {
        let Some(agent) = agent else {
            self.followed = None;
            return;
        };
        if self.followed.as_ref().is_some_and(|(config, _)| config == agent) {
            return;
        }
        self.followed = None;
        let ws = self.workspace(agent);
        let (sink, name) = (self.sink.clone(), agent.name.clone());
        // Called from the watcher's own thread: the task goes to this runtime.
        let rt = tokio::runtime::Handle::current();
        let on_change = Arc::new(move || {
            let (sink, name) = (sink.clone(), name.clone());
            rt.spawn(async move { sink.send(Event::Workspace { agent: name, event: WorkspaceEvent::Changed }).await });
        });
        match follow(ws, on_change) {
            Ok(follower) => self.followed = Some((agent.clone(), follower)),
            Err(e) => tracing::warn!("cannot follow the workspace of {}: {e}", agent.name),
        }
    }

    /// The config in force changed: workspaces of agents that left go; the one followed moves with
    /// its agent (a member put to work in its copy, or back) and the view is told to look again.
    pub(super) async fn config_changed(&mut self, config: Option<&Config>) {
        let agent = |name: &str| config.and_then(|c| c.agent(name));
        self.made.retain(|name, (made, _)| agent(name) == Some(made));
        let Some((followed, _)) = &self.followed else { return };
        match agent(&followed.name).cloned() {
            None => self.followed = None,
            Some(now) if now != *followed => {
                let moved = now.workspace_path() != followed.workspace_path();
                self.follow(Some(&now));
                if moved {
                    let event = Event::Workspace { agent: now.name.clone(), event: WorkspaceEvent::Changed };
                    self.sink.send(event).await;
                }
            }
            Some(_) => {}
        }
    }
}

/// Runs one operation and says how it went.
async fn serve(ws: Arc<dyn Workspace>, op: WorkspaceOp) -> WorkspaceEvent {
    match op {
        WorkspaceOp::List { dir } => {
            let result = ws.list(&dir).await;
            WorkspaceEvent::Listed { dir, result }
        }
        WorkspaceOp::Paths { limit } => WorkspaceEvent::Paths { result: ws.paths(limit).await },
        WorkspaceOp::Read { path } => {
            let result = ws.read(&path).await;
            WorkspaceEvent::Read { path, result }
        }
        WorkspaceOp::Write { path, bytes, expected } => {
            let result = ws.write(&path, bytes, expected).await;
            WorkspaceEvent::Written { path, result }
        }
        WorkspaceOp::NewFile { path } => {
            WorkspaceEvent::Done { result: ws.write(&path, Vec::new(), None).await.map(|_| ()) }
        }
        WorkspaceOp::CreateDir { path } => WorkspaceEvent::Done { result: ws.create_dir(&path).await },
        WorkspaceOp::Rename { from, to } => WorkspaceEvent::Done { result: ws.rename(&from, &to).await },
        WorkspaceOp::Remove { path } => {
            let result = ws.remove(&path).await;
            WorkspaceEvent::Removed { path, result }
        }
        WorkspaceOp::Restore { path } => WorkspaceEvent::Done { result: ws.restore(&path).await },
    }
}
