//! The lead's door onto the runtime: it sends the same `Command`s as the window and `sidekicks
//! team`, and reads the answers from the events the runtime tells every door (a copy of them,
//! `EventSink::with_tap`). What it shows of teams is the team service's own record (the book the
//! events are folded into); what it shows of agents is folded here from their events.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc};

use super::super::team_book::TeamBook;
use crate::protocol::teams::{Task, TeamCommand};
use crate::protocol::{AgentEvent, AgentState, Command, Event, TeamEvent, TeamInfo};

/// What the door folded from agents' events.
#[derive(Default)]
struct Seen {
    /// Each agent's state.
    states: HashMap<String, AgentState>,
    /// Each agent's permission requests waiting for the person.
    asking: HashMap<String, usize>,
    /// The finished tasks each lead's `wait` gave already.
    reported: HashMap<String, std::collections::HashSet<String>>,
}

/// The door.
#[derive(Clone)]
pub struct Door {
    commands: mpsc::Sender<Command>,
    tap: broadcast::Sender<Event>,
    book: Arc<Mutex<TeamBook>>,
    seen: Arc<Mutex<Seen>>,
    /// When the door opened (seconds since the epoch).
    started: u64,
}

/// How long a command waits for its answer (a merge waits for its check).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(600);

impl Door {
    /// A door sending into `commands`, hearing `tap`, reading the team service's `book`.
    pub(in crate::runtime::services) fn new(
        commands: mpsc::Sender<Command>,
        tap: broadcast::Sender<Event>,
        book: Arc<Mutex<TeamBook>>,
    ) -> Self {
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let mut heard = tap.subscribe();
        let folded = seen.clone();
        tokio::spawn(async move {
            loop {
                match heard.recv().await {
                    Ok(Event::Agent(agent, event)) => fold(&folded, agent.0, event),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs();
        Self { commands, tap, book, seen, started }
    }

    /// When the door opened (seconds since the epoch): tasks that ended before are old news.
    pub fn started(&self) -> u64 {
        self.started
    }

    /// Whether `lead`'s `wait` gave finished task `id` already.
    pub fn reported(&self, lead: &str, id: &str) -> bool {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.reported.get(lead).is_some_and(|r| r.contains(id))
    }

    /// `lead`'s `wait` gave finished tasks `ids`.
    pub fn report(&self, lead: &str, ids: impl IntoIterator<Item = String>) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.reported.entry(lead.to_string()).or_default().extend(ids);
    }

    /// The teams `lead` leads.
    pub fn teams_of(&self, lead: &str) -> Vec<TeamInfo> {
        let book = self.book.lock().unwrap_or_else(|e| e.into_inner());
        book.teams.iter().filter(|t| t.record.lead.as_deref() == Some(lead)).cloned().collect()
    }

    /// `agent`'s state as the tools name it: idle, working, needs you, crashed, stopped.
    pub fn state_of(&self, agent: &str) -> &'static str {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.asking.get(agent).is_some_and(|n| *n > 0) {
            return "needs you";
        }
        match seen.states.get(agent) {
            Some(AgentState::Busy) => "working",
            Some(AgentState::Idle) => "idle",
            Some(AgentState::Starting) => "starting",
            Some(AgentState::Crashed(_)) => "crashed",
            Some(AgentState::Stopping) | Some(AgentState::Stopped) | None => "stopped",
        }
    }

    /// Hears what the runtime tells from now on (before a command is sent: its answer is not
    /// missed).
    pub fn hear(&self) -> broadcast::Receiver<Event> {
        self.tap.subscribe()
    }

    /// Sends `command` and waits for the team event `want` picks, within `within`.
    pub async fn ask<T>(
        &self,
        command: TeamCommand,
        within: Duration,
        mut want: impl FnMut(&TeamEvent) -> Option<T>,
    ) -> Result<T, String> {
        let mut heard = self.hear();
        self.send(command).await?;
        let wait = async {
            loop {
                match heard.recv().await {
                    Ok(Event::Team(event)) => {
                        if let Some(found) = want(&event) {
                            return Ok(found);
                        }
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(n)) => tracing::warn!("the lead's door missed {n} events"),
                    Err(broadcast::error::RecvError::Closed) => return Err("Sidekicks is shutting down".to_string()),
                }
            }
        };
        tokio::time::timeout(within, wait).await.map_err(|_| format!("no answer within {} s", within.as_secs()))?
    }

    /// Sends `command` to the front door.
    pub async fn send(&self, command: TeamCommand) -> Result<(), String> {
        self.commands.send(Command::Team(Box::new(command))).await.map_err(|_| "Sidekicks is shutting down".to_string())
    }

    /// Asks the person `request` on `agent`'s behalf (a card on its conversation; a door with no
    /// person answers with its `--allow`) and waits for the answer.
    pub async fn ask_person(
        &self,
        agent: &str,
        request: crate::model::permission::PermissionRequest,
    ) -> Result<crate::model::permission::PermissionAnswer, String> {
        let id = request.id;
        let mut heard = self.hear();
        let ask = Command::Agent(agent.into(), crate::protocol::AgentCommand::AskPerson { request: Box::new(request) });
        self.commands.send(ask).await.map_err(|_| "Sidekicks is shutting down".to_string())?;
        let wait = async {
            loop {
                match heard.recv().await {
                    Ok(Event::Agent(a, AgentEvent::PermissionResolved { id: i, answer })) if a == agent && i == id => {
                        return Ok(answer);
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return Err("Sidekicks is shutting down".to_string()),
                }
            }
        };
        tokio::time::timeout(ANSWER_WITHIN, wait).await.map_err(|_| "the person did not answer in time".to_string())?
    }

    /// The tasks of `team`, as the team service records them.
    pub async fn tasks(&self, team: &str) -> Result<Vec<Task>, String> {
        let id = team.to_string();
        self.ask(TeamCommand::Tasks { team: id.clone() }, Duration::from_secs(30), |e| match e {
            TeamEvent::Tasks { team, tasks } if *team == id => Some(tasks.clone()),
            _ => None,
        })
        .await
    }
}

/// Folds one agent event into what the door shows.
fn fold(seen: &Mutex<Seen>, agent: String, event: AgentEvent) {
    let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
    match event {
        AgentEvent::State { state } => {
            if !state.is_running() {
                seen.asking.remove(&agent);
            }
            seen.states.insert(agent, state);
        }
        AgentEvent::PermissionRequested { .. } => *seen.asking.entry(agent).or_default() += 1,
        AgentEvent::PermissionResolved { .. } => {
            let n = seen.asking.entry(agent).or_default();
            *n = n.saturating_sub(1);
        }
        AgentEvent::TurnEnded { .. } => {
            seen.asking.remove(&agent);
        }
        _ => {}
    }
}
