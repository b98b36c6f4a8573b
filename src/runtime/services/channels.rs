//! The channel service (ADR 0028): an actor owning every channel's timeline — the config's
//! channels and one per team. It sends what the person says to the members it is for, each with
//! its catch-up; hears what agents say (`events::Said`, from the event sink) and keeps each
//! member's answer in the timeline when it ends, so the channel shows it whatever thread the
//! member opens later; relays a team lead's hand-overs to the members it @mentions; adds the
//! conflict messages the team service sends; remembers timelines in the store. The window only
//! folds `Event::Channels` and `Event::ChannelUpdated`, and sends `Command::Say`.

use crate::runtime::agents::ManagerCommand;
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::tasks::{Tasks, now};
use super::team_book::TeamBook;
use crate::model::channel::{Entry, Timeline, recipients};
use crate::model::config::Config;
use crate::model::conversation::MessageId;
use crate::protocol::AgentCommand;
use crate::protocol::ChannelEvent;
use crate::protocol::TeamEvent;
use crate::protocol::teams::{Task, TaskState, Told};
use crate::protocol::{ChannelInfo, Event};
use crate::runtime::events::{EventSink, Said};
use crate::runtime::store::Store;

/// What the front door and the team service ask of the channel service.
pub(super) enum ChannelCommand {
    /// The config in force changed (its file's path: the key of its channels in the store).
    Config(Option<Config>, Option<PathBuf>),
    /// The teams changed.
    Teams,
    /// The person says `text` in `channel`.
    Say {
        /// The channel.
        channel: String,
        /// What is said.
        text: String,
    },
    /// Give a member a task (`TeamCommand::Assign`).
    Assign {
        /// The team.
        team: String,
        /// The member.
        member: String,
        /// What to do.
        text: String,
        /// The lead that asks, or the person.
        by: Option<String>,
        /// The task's id.
        id: String,
    },
    /// Tell the tasks of team `team`.
    Tasks {
        /// The team.
        team: String,
    },
    /// A merge of a member's work ended (`conflicts`: it met some, and the member was told).
    Merged {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// It met conflicts.
        conflicts: bool,
    },
    /// A member of team `team` was told about its merge's conflicts.
    Told {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// The message.
        told: Told,
    },
}

/// An agent's answer as it comes.
#[derive(Default)]
struct Answering {
    /// Its queued messages, oldest first.
    queued: VecDeque<MessageId>,
    /// The message its current turn answers, and the text so far.
    current: Option<(MessageId, String)>,
    /// What its current turn took so far (a task's `work`).
    work: crate::protocol::teams::TaskWork,
    /// The permission requests of its current turn not answered yet (an answer is counted once).
    asking: std::collections::HashSet<u64>,
    /// The session's cost it reported last (a turn's cost is what it adds).
    cost: Option<crate::model::conversation::Cost>,
}

struct Channels {
    sink: EventSink,
    manager: mpsc::Sender<ManagerCommand>,
    store: Option<Arc<Store>>,
    book: Arc<Mutex<TeamBook>>,
    /// The channels, the config's first, in its order.
    channels: Vec<ChannelInfo>,
    /// The config file whose channels these are.
    path: Option<PathBuf>,
    answering: HashMap<String, Answering>,
    /// The teams' tasks.
    tasks: Tasks,
    /// The teams' folder (a task's change marks it for other processes).
    teams_dir: PathBuf,
}

/// Starts the channel service, hearing what agents say from `heard` (the event sink's `Said`);
/// returns where to send its commands.
pub(super) fn spawn(
    sink: EventSink,
    manager: mpsc::Sender<ManagerCommand>,
    store: Option<Arc<Store>>,
    book: Arc<Mutex<TeamBook>>,
    mut heard: mpsc::Receiver<Said>,
    teams_dir: PathBuf,
) -> mpsc::Sender<ChannelCommand> {
    let (commands, mut rx) = mpsc::channel(256);
    let tasks = Tasks::new(store.clone());
    let mut service = Channels {
        sink,
        manager,
        store,
        book,
        channels: Vec::new(),
        path: None,
        answering: HashMap::new(),
        tasks,
        teams_dir,
    };
    tokio::spawn(async move {
        loop {
            tokio::select! {
                // Commands first: a command sent before an agent was prompted (a merge's message to
                // its member, followed as a task) is handled before what the agent says to it.
                biased;
                command = rx.recv() => match command {
                    Some(command) => service.command(command).await,
                    None => return,
                },
                Some(said) = heard.recv() => service.heard(said).await,
            }
        }
    });
    commands
}

impl Channels {
    async fn command(&mut self, command: ChannelCommand) {
        match command {
            ChannelCommand::Config(config, path) => self.config(config, path).await,
            ChannelCommand::Teams => self.teams().await,
            ChannelCommand::Say { channel, text } => self.say(&channel, &text).await,
            ChannelCommand::Assign { team, member, text, by, id } => self.assign(team, member, text, by, id).await,
            ChannelCommand::Tasks { team } => {
                let tasks = self.tasks.of_read(&team).await;
                self.sink.send(Event::Team(TeamEvent::Tasks { team, tasks })).await;
            }
            ChannelCommand::Merged { team, agent, conflicts } => {
                for task in self.tasks.merged(&team, &agent, conflicts).await {
                    self.tell_task(task).await;
                }
            }
            ChannelCommand::Told { team, agent, told } => {
                let Some(c) = self.channels.iter_mut().find(|c| c.team.as_deref() == Some(team.as_str())) else {
                    return;
                };
                c.timeline.entries.push(Entry::Notice { text: told.text.clone(), to: vec![agent.clone()] });
                let id = Some(told.id.clone());
                c.timeline.entries.push(Entry::Answer {
                    agent: agent.clone(),
                    prompt: told.text.clone(),
                    id,
                    text: None,
                });
                let c = c.clone();
                self.changed(c).await;
                // Resolving is a task of its own: `wait` and the page follow it like any other.
                let task = resolve_task(team, agent, &told.text);
                let task = self.tasks.add(task, Some(told.id)).await;
                self.tell_task(task).await;
            }
        }
    }

    /// Follows the config: its channels and their members (the agents listing them), timelines
    /// read from the store for a new file.
    async fn config(&mut self, config: Option<Config>, path: Option<PathBuf>) {
        let new_file = path != self.path;
        self.path = path;
        let Some(config) = config else { return };
        let mut channels = Vec::new();
        for c in &config.channels {
            let members =
                config.agents.iter().filter(|a| a.channels.contains(&c.name)).map(|a| a.name.clone()).collect();
            let old = self.channels.iter().find(|o| o.name == c.name && o.team.is_none()).filter(|_| !new_file);
            let timeline = match old {
                Some(old) => old.timeline.clone(),
                None => self.stored(c.name.clone()).await,
            };
            channels.push(ChannelInfo {
                name: c.name.clone(),
                title: c.name.clone(),
                team: None,
                lead: None,
                description: c.description.clone(),
                members,
                timeline,
            });
        }
        channels.extend(self.channels.iter().filter(|c| c.team.is_some()).cloned());
        self.channels = channels;
        self.send_all().await;
    }

    /// A config channel's stored timeline.
    async fn stored(&self, name: String) -> Timeline {
        let (Some(store), Some(path)) = (self.store.clone(), self.path.clone()) else { return Timeline::default() };
        let read = tokio::task::spawn_blocking(move || store.channel(&path, &name)).await;
        match read {
            Ok(Ok(timeline)) => timeline.unwrap_or_default(),
            Ok(Err(e)) => {
                tracing::warn!("cannot read a channel: {e}");
                Timeline::default()
            }
            Err(_) => Timeline::default(),
        }
    }

    /// Follows the teams: one channel per team, its lead first, then its members.
    async fn teams(&mut self) {
        // Each team's channel as it would be new: its stored timeline.
        let teams: Vec<ChannelInfo> = {
            let book = self.book.lock().unwrap_or_else(|e| e.into_inner());
            book.teams
                .iter()
                .map(|t| {
                    let r = &t.record;
                    ChannelInfo {
                        name: format!("team:{}", r.id),
                        title: r.name.clone(),
                        team: Some(r.id.clone()),
                        lead: r.lead.clone(),
                        description: None,
                        members: r.lead.iter().cloned().chain(r.members.iter().map(|m| m.agent.clone())).collect(),
                        timeline: t.channel.clone().unwrap_or_default(),
                    }
                })
                .collect()
        };
        let ids: Vec<String> = teams.iter().filter_map(|t| t.team.clone()).collect();
        for team in self.tasks.reload(ids.clone()).await {
            let tasks = self.tasks.of(&team);
            self.sink.send(Event::Team(TeamEvent::Tasks { team, tasks })).await;
        }
        self.tasks.keep_teams(&ids);
        self.channels.retain(|c| c.team.is_none() || teams.iter().any(|t| t.team == c.team));
        for team in teams {
            match self.channels.iter_mut().find(|c| c.team == team.team) {
                Some(c) => c.members = team.members,
                None => self.channels.push(team),
            }
        }
        self.send_all().await;
    }

    async fn send_all(&self) {
        self.sink.send(Event::Channel(ChannelEvent::Listed { channels: self.channels.clone() })).await;
    }

    /// Channel `c` changed: remembered, and told.
    async fn changed(&mut self, c: ChannelInfo) {
        if let Some(store) = self.store.clone() {
            let (team, name, timeline, path) = (c.team.clone(), c.name.clone(), c.timeline.clone(), self.path.clone());
            tokio::task::spawn_blocking(move || {
                let saved = match (&team, &path) {
                    (Some(team), _) => store.save_team_channel(team, &timeline),
                    (None, Some(path)) => store.save_channel(path, &name, &timeline),
                    (None, None) => Ok(()),
                };
                if let Err(e) = saved {
                    tracing::warn!("cannot remember the channel {name}: {e}");
                }
            });
        }
        self.sink.send(Event::Channel(ChannelEvent::Updated { channel: c })).await;
    }

    /// The person says `text` in channel `name`: a prompt for each member it is for, with its
    /// catch-up.
    async fn say(&mut self, name: &str, text: &str) {
        let Some(i) = self.channels.iter().position(|c| c.name == name) else {
            tracing::warn!("said in {name}, which is not a channel");
            return;
        };
        let to = recipients(text, &self.channels[i].members);
        self.send_to(i, None, text, &to).await;
    }

    /// Records `text` of `from` (the person, or a lead) to `to` in channel `i` and sends each its
    /// prompt with its catch-up.
    async fn send_to(&mut self, i: usize, from: Option<&str>, text: &str, to: &[String]) -> Vec<MessageId> {
        let c = &mut self.channels[i];
        let title = c.title.clone();
        let catch_ups: Vec<Option<String>> =
            to.iter().map(|agent| c.timeline.catch_up(&title, agent, |_, _, _| String::new())).collect();
        let prompts = c.timeline.say_as(from, &title, text, to);
        let ids = prompts.iter().map(|p| p.id.clone()).collect();
        let commands: Vec<ManagerCommand> = prompts
            .into_iter()
            .zip(catch_ups)
            .map(|(p, context)| {
                ManagerCommand::Agent(
                    p.agent,
                    AgentCommand::Prompt {
                        text: p.text,
                        context,
                        with_transcript: false,
                        id: Some(p.id),
                        attachments: Vec::new(),
                    },
                )
            })
            .collect();
        // Sent from a task of their own: the manager may be waiting for this service to hear it.
        let manager = self.manager.clone();
        tokio::spawn(async move {
            for command in commands {
                let _ = manager.send(command).await;
            }
        });
        let c = self.channels[i].clone();
        self.changed(c).await;
        ids
    }

    /// Gives `member` of `team` a task: sent in the team's channel, recorded, told.
    async fn assign(&mut self, team: String, member: String, text: String, by: Option<String>, id: String) {
        let at = now();
        let mut task = Task {
            id,
            team: team.clone(),
            member: member.clone(),
            text: text.clone(),
            by: by.clone(),
            state: TaskState::Assigned,
            assigned_at: at,
            updated_at: at,
            answer: None,
            message: None,
            work: Default::default(),
        };
        let channel = self.channels.iter().position(|c| c.team.as_deref() == Some(team.as_str()));
        let Some(i) = channel.filter(|i| self.channels[*i].members.contains(&member) && by.as_ref() != Some(&member))
        else {
            task.state = TaskState::Failed { why: format!("{member} is not a member of this team") };
            return self.sink.send(Event::Team(TeamEvent::Task { task })).await;
        };
        let message = self.send_to(i, by.as_deref(), &text, std::slice::from_ref(&member)).await.pop();
        let task = self.tasks.add(task, message).await;
        self.tell_task(task).await;
    }

    /// A task changed: other processes read the teams again, and it is told.
    async fn tell_task(&self, task: Task) {
        super::marks::mark_teams_changed(self.teams_dir.clone()).await;
        self.sink.send(Event::Team(TeamEvent::Task { task })).await;
    }

    /// What an agent said.
    async fn heard(&mut self, said: Said) {
        match said {
            Said::Queued { agent, id } => self.answering.entry(agent).or_default().queued.push_back(id),
            Said::Dropped { agent, id } => {
                let a = self.answering.entry(agent).or_default();
                let dropped: Vec<MessageId> = match id {
                    Some(id) => a.queued.iter().filter(|q| **q == id).cloned().collect(),
                    None => a.queued.iter().cloned().collect(),
                };
                a.queued.retain(|q| !dropped.contains(q));
                for id in dropped {
                    if let Some(task) = self.tasks.dropped(&id).await {
                        self.tell_task(task).await;
                    }
                }
            }
            Said::Started { agent } => {
                let a = self.answering.entry(agent).or_default();
                a.current = a.queued.pop_front().map(|id| (id, String::new()));
                a.work = crate::protocol::teams::TaskWork { started_ms: Some(now_ms()), ..Default::default() };
                a.asking.clear();
                let current = a.current.as_ref().map(|(id, _)| id.clone());
                if let Some(id) = current
                    && let Some(task) = self.tasks.started(&id).await
                {
                    self.tell_task(task).await;
                }
            }
            Said::Text { agent, text } => {
                if let Some((_, so_far)) = self.answering.get_mut(&agent).and_then(|a| a.current.as_mut()) {
                    so_far.push_str(&text);
                }
            }
            Said::Usage { agent, used, cost } => {
                let a = self.answering.entry(agent).or_default();
                if a.current.is_some() {
                    a.work.tokens = Some(used);
                    if let Some(now) = &cost {
                        let before = a.cost.as_ref().filter(|c| c.currency == now.currency).map_or(0, |c| c.millionths);
                        a.work.cost_millionths = Some(now.millionths - before);
                        a.work.currency = Some(now.currency.clone());
                    }
                } else if cost.is_some() {
                    a.cost = cost;
                }
            }
            Said::Asked { agent, id } => {
                let a = self.answering.entry(agent).or_default();
                if a.asking.insert(id) {
                    a.work.asked += 1;
                }
            }
            Said::Answered { agent, id, allowed } => {
                let a = self.answering.entry(agent).or_default();
                if a.asking.remove(&id) && allowed {
                    a.work.allowed += 1;
                }
            }
            Said::Ended { agent, failed } => {
                let Some(a) = self.answering.get_mut(&agent) else { return };
                let Some((id, text)) = a.current.take() else { return };
                let mut work = std::mem::take(&mut a.work);
                work.ended_ms = Some(now_ms());
                // The next turn's cost is counted from here.
                if let (Some(spent), Some(currency)) = (work.cost_millionths, &work.currency) {
                    let before = a.cost.as_ref().filter(|c| c.currency == *currency).map_or(0, |c| c.millionths);
                    a.cost = Some(crate::model::conversation::Cost {
                        millionths: before + spent,
                        currency: currency.clone(),
                    });
                }
                if let Some(task) = self.tasks.ended(&id, &text, failed, work).await {
                    self.tell_task(task).await;
                }
                self.ended(&agent, &id, &text).await;
            }
        }
    }

    /// `agent`'s answer to message `id` ended with `text`: kept in the channel that asked; a
    /// team lead's answer that @mentions members hands the work over to them. Members' answers
    /// are never relayed, so agents cannot keep one another talking.
    async fn ended(&mut self, agent: &str, id: &MessageId, text: &str) {
        let Some(i) = self.channels.iter_mut().position(|c| c.timeline.answered(id, text)) else { return };
        let c = self.channels[i].clone();
        self.changed(c).await;
        let c = &self.channels[i];
        if c.lead.as_deref() != Some(agent) {
            return;
        }
        // Handed over once: the lead's answer is the last entry.
        let last = matches!(c.timeline.entries.last(), Some(Entry::Answer { id: Some(last), .. }) if last == id);
        let others: Vec<String> = c.members.iter().filter(|m| m.as_str() != agent).cloned().collect();
        let to = recipients(text, &others);
        let mentioned = |m: &String| {
            let short = crate::model::member_name::short_name(m);
            let lower = text.to_lowercase();
            [m.as_str(), short].iter().any(|n| lower.contains(&format!("@{}", n.to_lowercase())))
        };
        // No mention: the lead answered the person.
        if !last || (to.len() == others.len() && !others.iter().any(mentioned)) {
            return;
        }
        self.send_to(i, Some(agent), text.trim(), &to).await;
    }
}

/// The task of resolving what a merge told `member` of `team` (`told`: the message, one `- PATH…`
/// line per file), given by Sidekicks.
fn resolve_task(team: String, member: String, told: &str) -> Task {
    let files = told.lines().filter(|l| l.starts_with("- ")).count();
    let at = now();
    Task {
        id: Task::new_id(),
        team,
        member,
        text: match files {
            1 => "Resolve the conflicts of the merge (1 file)".to_string(),
            n => format!("Resolve the conflicts of the merge ({n} files)"),
        },
        by: Some("Sidekicks".to_string()),
        state: TaskState::Assigned,
        assigned_at: at,
        updated_at: at,
        answer: None,
        message: None,
        work: Default::default(),
    }
}

/// Milliseconds since the epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}
