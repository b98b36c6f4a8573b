//! The agent manager: one task that owns every agent slot — its config, state, process and ACP
//! connection — and applies `Command`s. Slow work (starting, a turn, stopping) runs in spawned
//! tasks that report back through an internal channel, so the manager never waits on an agent.
//! Enforces `max_running` (stops the least recently used idle agent to make room) and
//! `idle_stop`; a turn borrows its agent (acquire on send, release on the turn's end).

use crate::model::config::Language;
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::events::EventSink;
use super::permission_rules::{MemoryRules, PermissionRules};
use super::process::StopTimeouts;
use super::store::{Store, StoredRules};
use crate::model::config::{AgentConfig, Config, Defaults, RuntimeKind};
use crate::model::conversation::{Notice, TurnEnd};
use crate::model::permission::PermissionAnswer;
use crate::model::session_config::{Category, Chosen, OptionKey, OptionValue};
use crate::protocol::AgentCommand;
use crate::protocol::attachments::Attachment;
use crate::protocol::{AgentState, CrashReason, CrashReport, Event, HandshakeFailure};

pub use self::inbox::ManagerCommand;
pub use super::launch::ManagerSettings;
use super::launch::{CRASH_TAIL, Running, SessionPlan, exit_reason, launch};
use crate::protocol::AgentEvent;
use crate::protocol::ConfigEvent;
use crate::protocol::threads::SessionAbilities;

mod answers;
mod checkpoints;
mod commands;
mod edit;
mod homes;
mod inbox;
mod lifecycle;
mod members;
mod prompt;
mod reports;
mod retry;
mod shared_thread;
mod threads;

/// Starts the manager on the current tokio runtime; returns where to send commands.
/// With a `store`, conversations are loaded from it and permission answers remembered in it.
pub fn spawn_manager(
    settings: ManagerSettings,
    events: EventSink,
    store: Option<Arc<Store>>,
) -> mpsc::Sender<ManagerCommand> {
    spawn_manager_watched(settings, events, store).0
}

/// Like [`spawn_manager`], also giving the config in force (with each agent's workspace as it
/// works now: a team member's copy) each time it changes; `None` while none is.
pub fn spawn_manager_watched(
    settings: ManagerSettings,
    events: EventSink,
    store: Option<Arc<Store>>,
) -> (mpsc::Sender<ManagerCommand>, tokio::sync::watch::Receiver<Option<Config>>) {
    let (applied, applied_rx) = tokio::sync::watch::channel(None);
    let (tx, rx) = mpsc::channel(256);
    let (internal_tx, internal_rx) = mpsc::channel(256);
    let manager = Manager {
        settings,
        events,
        defaults: Defaults::default(),
        slots: Vec::new(),
        internal_tx,
        shutting_down: false,
        asked: Default::default(),
        rules: HashMap::new(),
        store,
        config_path: None,
        opening: None,
        members: Default::default(),
        lead_tools: Default::default(),
        leases: None,
        loaded: None,
        applied,
        data_version: 0,
    };
    tokio::spawn(manager.run(rx, internal_rx));
    (tx, applied_rx)
}

/// Reports from the manager's own tasks.
enum Internal {
    Started {
        agent: String,
        generation: u64,
        result: Result<Box<Running>, CrashReport>,
    },
    TurnDone {
        agent: String,
        turn: u64,
        end: TurnEnd,
    },
    Exited {
        agent: String,
        generation: u64,
        status: Option<ExitStatus>,
        /// It closed its output and kept running (it is stopped now).
        stopped_talking: bool,
    },
    Stopped {
        agent: String,
        generation: u64,
    },
    /// The grace after a cancel ran out.
    CancelDeadline {
        agent: String,
        turn: u64,
    },
    /// The agent answered a setting.
    OptionSet {
        agent: String,
        generation: u64,
        setting: String,
        result: Result<crate::model::conversation::Update, String>,
    },
    /// The agent answered `logout` (or could not).
    LoggedOut {
        agent: String,
        generation: u64,
    },
    /// The session of another thread opened (true: the thread's earlier session, reopened).
    Switched {
        agent: String,
        generation: u64,
        thread: i64,
        /// The thread has messages (the agent may not remember them).
        had_messages: bool,
        result: Result<bool, super::acp::client::AcpError>,
    },
    /// The agent listed its sessions.
    Listed {
        agent: String,
        result: Result<Vec<crate::protocol::threads::AgentSession>, crate::protocol::threads::ListError>,
    },
}

struct Slot {
    config: AgentConfig,
    state: AgentState,
    running: Option<Box<Running>>,
    last_used: Instant,
    queue: VecDeque<(crate::model::conversation::MessageId, String, Vec<Attachment>)>,
    /// Bumped on each start and stop, so reports about an older process are recognised.
    generation: u64,
    /// The turn in flight, if any.
    turn: Option<u64>,
    next_turn: u64,
    /// What happens once the current turn, start or stop ends.
    then: Then,
    /// Its stored conversation.
    conversation_id: Option<i64>,
    /// What its sessions remember and were told.
    memory: SessionMemory,
    /// The process group of a process being stopped (a `Kill` ends it at once).
    stopping_pid: Option<i32>,
    /// How it logs in.
    login: Login,
    /// The person's last messages in its thread: what Retry and Send again name.
    said: retry::Said,
    /// The checkpoint its open review compares with (read again after each turn).
    reviewed: Option<String>,
    /// Its thread as shared with other processes (see `shared_thread`).
    shared: SharedThread,
}

/// What an agent's sessions remember across its starts.
#[derive(Default)]
struct SessionMemory {
    /// Turns answered by the current session.
    turns_in_session: u32,
    /// An earlier session had turns: the next session starts without them.
    forgot: bool,
    /// The session to reopen at the next start (its thread's, restored from history).
    resume: Option<super::acp::client::Reopen>,
    /// What it can do with sessions, as it last said (in this run or an earlier one).
    abilities: Option<SessionAbilities>,
    /// Its conversation was restored from history and no session has been opened since.
    restored: bool,
    /// The person's choices of model, mode, … given to each new session.
    chosen: Vec<Chosen>,
    /// Another version of a message is shown: the next message first tells the new session what
    /// is shown.
    tell_shown: bool,
}

/// How an agent logs in.
#[derive(Default)]
struct Login {
    /// Variables the person gave to log in (kept for this run only; hidden in logs).
    env: std::collections::BTreeMap<String, String>,
    /// The way to log in the person chose, used at the next start.
    method: Option<String>,
}

/// An agent's thread as shared with other processes (ADR 0029).
#[derive(Default)]
struct SharedThread {
    /// Its thread's lock, while it answers there.
    answering: Option<super::thread_lock::ThreadLock>,
    /// Who holds its thread, while messages wait for it.
    held_by: Option<String>,
    /// Messages waiting for another process to let go of its thread.
    waiting: Vec<shared_thread::Waiting>,
    /// When another process had last written its thread, as it was read here.
    seen_others: Option<i64>,
}

/// What happens to an agent once what it is doing (a turn, a start, a stop) ends. Each later
/// variant wins over the earlier ones: an agent that left the config is never started again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Then {
    /// Carry on.
    Carry,
    /// Its config changed while it was busy or starting: stop, and start with the new entry if
    /// messages wait.
    Renew,
    /// Start again once stopped (Restart, or a message while stopping).
    Restart,
    /// Forget the slot once stopped (it left the config).
    Forget,
}

impl Slot {
    /// Asks for `then` unless something that wins over it is already asked.
    fn then(&mut self, then: Then) {
        self.then = self.then.max(then);
    }

    /// Takes back a restart (Stop, Kill, another file, shutdown).
    fn no_restart(&mut self) {
        if self.then == Then::Restart {
            self.then = Then::Carry;
        }
    }

    fn new(config: AgentConfig) -> Self {
        Self {
            config,
            state: AgentState::Stopped,
            running: None,
            last_used: Instant::now(),
            queue: VecDeque::new(),
            generation: 0,
            turn: None,
            next_turn: 0,
            then: Then::Carry,
            conversation_id: None,
            memory: SessionMemory::default(),
            stopping_pid: None,
            login: Login::default(),
            said: retry::Said::default(),
            reviewed: None,
            shared: SharedThread::default(),
        }
    }

    fn is_running(&self) -> bool {
        self.state.is_running()
    }
}

struct Manager {
    settings: ManagerSettings,
    events: EventSink,
    defaults: Defaults,
    slots: Vec<Slot>,
    internal_tx: mpsc::Sender<Internal>,
    shutting_down: bool,
    /// Questions Sidekicks asks the person on an agent's behalf (`AskPerson`), waiting: by agent
    /// and id.
    asked: std::collections::HashSet<(String, u64)>,
    /// Remembered permission answers, per agent and workspace.
    rules: HashMap<(String, PathBuf), Arc<dyn PermissionRules>>,
    store: Option<Arc<Store>>,
    /// The config file in force (conversations are stored per file).
    config_path: Option<PathBuf>,
    /// Another config file to open once every agent has stopped.
    opening: Option<(PathBuf, crate::model::config_check::LoadResult)>,
    /// Team members, by name: agents of their own, each an instance of an agent of the config.
    members: std::collections::BTreeMap<String, crate::protocol::teams::MemberAgent>,
    /// The `sidekicks-team` server of each team lead (ADR 0035).
    lead_tools: std::collections::BTreeMap<String, crate::model::config::McpConfig>,
    /// Who says whether a member's write meets another member's change.
    leases: Option<crate::runtime::acp::leases::LeasesHandle>,
    /// The config as loaded, before the members are added.
    loaded: Option<Config>,
    /// The config in force, members added, for whoever follows it.
    applied: tokio::sync::watch::Sender<Option<Config>>,
    /// The history's `data_version` at the last look: it moves when another process writes.
    data_version: i64,
}

impl Manager {
    async fn run(mut self, mut commands: mpsc::Receiver<ManagerCommand>, mut internal: mpsc::Receiver<Internal>) {
        let mut tick = tokio::time::interval(self.settings.tick);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                cmd = commands.recv() => match cmd {
                    Some(cmd) => self.command(cmd).await,
                    None => self.begin_shutdown().await,
                },
                Some(msg) = internal.recv() => self.internal(msg).await,
                _ = tick.tick() => {
                    self.stop_idle().await;
                    self.look_at_threads().await;
                }
            }
            for slot in &mut self.slots {
                slot.let_go_if_done();
            }
            let all_stopped = self
                .slots
                .iter()
                .all(|s| s.running.is_none() && s.state != AgentState::Stopping && s.state != AgentState::Starting);
            if all_stopped && let Some((path, result)) = self.opening.take() {
                self.open(path, result).await;
            }
            if self.shutting_down && all_stopped {
                // The history's last batch is saved before the window may close.
                self.events.flush_history().await;
                self.events.send(Event::ShutdownComplete).await;
                return;
            }
        }
    }

    /// Tells which git branch `agent`'s workspace is on (read off the manager's loop: the
    /// folder on this computer, which a container sees mounted).
    fn tell_branch(&self, agent: &str) {
        if !self.settings.watching {
            return;
        }
        let Some(folder) = self.slots.iter().find(|s| s.config.name == agent).map(|s| s.config.workspace.clone())
        else {
            return;
        };
        let (events, agent) = (self.events.clone(), agent.to_string());
        tokio::spawn(async move {
            let read = move || super::git::head::branch(&folder);
            let branch = tokio::task::spawn_blocking(read).await.ok().flatten();
            events.send(Event::Agent(agent.into(), AgentEvent::Branch { branch })).await;
        });
    }

    fn slot(&mut self, name: &str) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|s| s.config.name == name)
    }

    /// The store and the home of agent `name` (its workspace: what its threads, choices and
    /// abilities are kept under, see `store::homes`), when history is kept.
    fn home(&self, name: &str) -> Option<(Arc<Store>, PathBuf)> {
        let slot = self.slots.iter().find(|s| s.config.name == name)?;
        Some((self.store.clone()?, slot.config.workspace.clone()))
    }

    async fn set_state(&mut self, name: &str, state: AgentState) {
        if let Some(slot) = self.slot(name) {
            slot.state = state.clone();
            self.events.send(Event::Agent(name.into(), AgentEvent::State { state })).await;
        }
    }

    /// Loads the current thread of a new slot (its choices and what it could do too); returns
    /// the thread and its messages.
    fn restore(&self, slot: &mut Slot) -> Option<(i64, Vec<crate::model::conversation::Message>)> {
        let (store, path) = (self.store.as_ref()?, &slot.config.workspace);
        match store.choices(path, &slot.config.name) {
            Ok(chosen) => slot.memory.chosen = chosen,
            Err(e) => tracing::warn!("{e}"),
        }
        match store.abilities(path, &slot.config.name) {
            Ok(abilities) => slot.memory.abilities = abilities,
            Err(e) => tracing::warn!("{e}"),
        }
        match store.conversation(path, &slot.config.name) {
            Ok(stored) => {
                slot.conversation_id = Some(stored.id);
                slot.shared.seen_others = self.others_wrote(stored.id);
                if !stored.messages.is_empty() {
                    slot.memory.resume = stored
                        .session_id
                        .map(|session_id| super::acp::client::Reopen { session_id, show_replay: false });
                    slot.memory.restored = true;
                }
                Some((stored.id, stored.messages))
            }
            Err(e) => {
                tracing::warn!("{e}");
                None
            }
        }
    }

    async fn config_loaded(&mut self, path: PathBuf, result: crate::model::config_check::LoadResult) {
        if self.config_path.as_ref() != Some(&path) {
            self.config_path = Some(path.clone());
        }
        let config = result.config.clone();
        let language = Language::pick(None, sys_locale::get_locale().as_deref());
        self.events.send(Event::Config(ConfigEvent::Loaded { path, result, language })).await;
        if let Some(config) = config {
            self.apply(config).await;
        }
    }

    async fn apply(&mut self, mut config: Config) {
        self.loaded = Some(config.clone());
        let members = members::agents(&config, &self.members);
        config.agents.extend(members);
        self.defaults = config.defaults.clone();
        self.follow_homes(&config.agents);
        let mut to_stop = Vec::new();
        for slot in &mut self.slots {
            match config.agent(&slot.config.name) {
                None => {
                    slot.then(Then::Forget);
                    to_stop.push(slot.config.name.clone());
                }
                Some(new) if *new != slot.config => {
                    slot.config = new.clone();
                    match slot.state {
                        AgentState::Idle => to_stop.push(new.name.clone()),
                        AgentState::Busy | AgentState::Starting => slot.then(Then::Renew),
                        _ => {}
                    }
                }
                Some(_) => {}
            }
        }
        for agent in &config.agents {
            if !self.slots.iter().any(|s| s.config.name == agent.name) {
                let mut slot = Slot::new(agent.clone());
                let restored = self.restore(&mut slot);
                let offer = slot.memory.restored && slot.memory.abilities.is_some_and(|a| !a.reopens());
                self.slots.push(slot);
                if let Some((thread, messages)) = restored {
                    if let Some(slot) = self.slot(&agent.name) {
                        slot.said.thread(&messages);
                    }
                    // Sent before ConfigApplied, so the UI has the history when it lists the agent.
                    self.events
                        .send(Event::Agent(agent.name.clone().into(), AgentEvent::ThreadOpened { thread, messages }))
                        .await;
                    self.send_threads(&agent.name).await;
                }
                if offer {
                    // Known not to remember: offered before the person's next message.
                    self.events
                        .send(Event::Agent(agent.name.clone().into(), AgentEvent::TranscriptOffer { offered: true }))
                        .await;
                }
            }
        }
        // Keep the file's order.
        self.slots.sort_by_key(|s| config.agents.iter().position(|a| a.name == s.config.name).unwrap_or(usize::MAX));
        for name in to_stop {
            self.stop(&name).await;
        }
        self.slots.retain(|s| !(s.then == Then::Forget && s.running.is_none() && s.state != AgentState::Stopping));
        let names: Vec<String> = config.agents.iter().map(|a| a.name.clone()).collect();
        self.applied.send_replace(Some(config.clone()));
        let language = Language::pick(config.defaults.language, sys_locale::get_locale().as_deref());
        self.events.send(Event::Config(ConfigEvent::Applied { config, language })).await;
        for name in names {
            self.tell_branch(&name);
            self.send_rules(&name).await;
        }
    }

    async fn dispatch(&mut self, name: &str) {
        let (checkpointer, events) = (self.checkpointer(name), self.events.clone());
        let Some(slot) = self.slot(name) else { return };
        let (Some(running), Some((id, text, attachments))) = (&slot.running, slot.queue.pop_front()) else {
            return;
        };
        let prompt = running.conn.prompt(text, attachments);
        slot.next_turn += 1;
        let turn = slot.next_turn;
        slot.turn = Some(turn);
        slot.last_used = Instant::now();
        self.set_state(name, AgentState::Busy).await;
        self.events.send(Event::Agent(name.into(), AgentEvent::TurnStarted)).await;
        let internal = self.internal_tx.clone();
        let agent = name.to_string();
        tokio::spawn(async move {
            // The workspace as the turn finds it, before the agent hears the prompt.
            let recorded = checkpoints::record_before_turn(&events, &agent, id, checkpointer.clone()).await;
            let end = prompt.await;
            if let Some(checkpoint) = recorded {
                checkpoints::count_after_turn(&events, &agent, checkpoint, checkpointer).await;
            }
            let _ = internal.send(Internal::TurnDone { agent, turn, end }).await;
        });
    }

    /// Switches to another config file: its agents, its conversations.
    async fn open(&mut self, path: PathBuf, result: crate::model::config_check::LoadResult) {
        self.slots.clear();
        self.loaded = None;
        self.applied.send_replace(None);
        self.config_path = Some(path.clone());
        self.events.send(Event::Config(ConfigEvent::Opened { path: path.clone() })).await;
        self.config_loaded(path, result).await;
    }

    async fn begin_shutdown(&mut self) {
        if self.shutting_down {
            return;
        }
        self.shutting_down = true;
        let names: Vec<String> = self.slots.iter().map(|s| s.config.name.clone()).collect();
        for name in names {
            if let Some(slot) = self.slot(&name) {
                slot.queue.clear();
                slot.no_restart();
            }
            self.stop(&name).await;
        }
    }
}

#[cfg(test)]
mod then_tests {
    use super::*;

    fn new_slot() -> Slot {
        Slot::new(AgentConfig {
            name: "a".into(),
            command: "a".into(),
            args: Vec::new(),
            env: Default::default(),
            workspace: "/".into(),
            runtime: Default::default(),
            channels: Vec::new(),
            policy: Default::default(),
            registry: None,
        })
    }

    #[test]
    fn what_happens_next_keeps_the_strongest_wish() {
        let mut slot = new_slot();
        slot.then(Then::Restart);
        slot.then(Then::Renew);
        assert_eq!(slot.then, Then::Restart, "a config change while restarting still restarts");
        slot.then(Then::Forget);
        slot.then(Then::Restart);
        assert_eq!(slot.then, Then::Forget, "an agent that left the config never starts again");
        slot.no_restart();
        assert_eq!(slot.then, Then::Forget, "Stop does not bring it back");
        let mut slot = new_slot();
        slot.then(Then::Restart);
        slot.no_restart();
        assert_eq!(slot.then, Then::Carry);
    }
}
