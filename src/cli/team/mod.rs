//! `sidekicks team …`: teams from the command line, through the same front door as the window
//! (`runtime::services`): it reattaches the stored teams, makes members agents of their own,
//! serialises writes into a project (also with a window open in another process), tells members
//! about conflicts. Each subcommand prints words, or JSON with `--json`.

use crate::cli::out::{err, errln, jsonln, out, outln};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use clap::{Subcommand, ValueEnum};
use serde_json::json;
use tokio::sync::mpsc::{Receiver, Sender};

use crate::cli::prompt::{Allow, Output, follow_turn, shut_down};
use crate::model::config::{Config, Language};
use crate::protocol::AgentCommand;
use crate::protocol::AgentEvent;
use crate::protocol::ConfigEvent;
use crate::protocol::teams::{DiscardedWork, MemberCopy, MergeReport, ProviderKind, TeamCommand, TeamError};
use crate::protocol::{Command, Event, TeamEvent, TeamInfo};
use crate::runtime::config::file::AppDirs;
use crate::runtime::events::EventSink;
use crate::runtime::host::{Host, Startup};

mod best;
mod lead;
mod verbs;
use verbs::team_json;

/// How members' copies are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Provider {
    /// A git worktree of the project (a git repository with a commit).
    Worktree,
    /// A copy of the sources (dependency folders linked).
    Copy,
    /// A copy-on-write clone (btrfs, XFS, APFS).
    Clone,
}

/// `sidekicks team …`.
#[derive(Debug, Subcommand)]
pub enum TeamCli {
    /// Make a team: a copy of the project for each member, each member a new instance of an agent
    /// of the config. Exit 0 made, 2 not.
    New {
        /// The project folder; on another machine `HOST:PATH` or `ssh://HOST/PATH` (its members
        /// are then agents that run on HOST over SSH, their copies made there).
        #[arg(long)]
        project: PathBuf,
        /// An agent of the config to make a member of (repeat it for more members).
        #[arg(long = "agent", required = true)]
        agents: Vec<String>,
        /// The team's name (default: the project folder's).
        #[arg(long)]
        name: Option<String>,
        /// How copies are made.
        #[arg(long, value_enum, default_value = "worktree")]
        provider: Provider,
        /// The lead of the team's channel (an agent of the config, working in its own folder).
        #[arg(long)]
        lead: Option<String>,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// Make copies of a project ahead for its next team, as the window does while a team's form
    /// is written: git worktrees of the project kept ready (at most 8, for a day), which the next
    /// team of that project takes instead of writing every file. Exit 0 ready, 2 not.
    Prepare {
        /// The project folder (a git repository with a commit, on this computer).
        #[arg(long)]
        project: PathBuf,
        /// How many members the team will have (1 to 8).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=8))]
        members: u8,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// List the teams.
    List {
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// A team's members: their copies, whether they are ready, their changed files.
    Status {
        /// The team (its name or id).
        team: String,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// Send a member a message and stream its answer (as `sidekicks prompt`; same exit codes).
    Prompt {
        /// The team (its name or id).
        team: String,
        /// The member: its name, or the agent it was made from.
        member: String,
        /// What to say, and how.
        #[command(flatten)]
        args: crate::cli::prompt::PromptArgs,
    },
    /// A member's changes against its base, as a unified diff.
    Diff {
        /// The team (its name or id).
        team: String,
        /// The member: its name, or the agent it was made from.
        member: String,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Merge members' work into the project (all members by default). A member whose merge
    /// conflicts is told, and its answer is streamed. Exit 0 merged, 1 conflicts or files still
    /// holding conflict markers (listed) or a failed check, 2 an error.
    Merge {
        /// The team (its name or id).
        team: String,
        /// Members to merge (their names, or the agents they were made from).
        members: Vec<String>,
        /// Merge only these paths.
        #[arg(long = "path")]
        paths: Vec<String>,
        /// How the permission requests of a member answering its conflicts are answered.
        #[arg(long, value_enum, default_value = "reject")]
        allow: Allow,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// Accept the project's team recipe as it is now. A recipe that a member's merged work wrote
    /// is not used (its setup and check never run) until the person accepts it. Exit 0 accepted
    /// (or nothing to accept), 2 not.
    AcceptRecipe {
        /// The team (its name or id).
        team: String,
    },
    /// Undo the team's last merge. Exit 0 undone, 2 not.
    Undo {
        /// The team (its name or id).
        team: String,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// Discard a member, or the whole team; their work not merged is kept (see `restore`).
    Discard {
        /// The team (its name or id).
        team: String,
        /// The member (default: the whole team).
        member: Option<String>,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// A team's tasks: each member's work given by the person or the lead, and where it is.
    Tasks {
        /// The team (its name or id).
        team: String,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// Give a member a task (sent in the team's channel, followed until merged) and stream its
    /// answer. Exit codes as `sidekicks prompt`.
    Assign {
        /// The team (its name or id).
        team: String,
        /// The member: its name, or the agent it was made from.
        member: String,
        /// The task.
        task: String,
        /// How the member's permission requests are answered.
        #[arg(long, value_enum, default_value = "reject")]
        allow: Allow,
        /// JSON lines instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run the team's lead on a goal with its team tools (members, assign, wait, diff, message,
    /// merge): its turn and the members' turns it starts stream (each line named), then the
    /// tasks are printed. `--allow` answers every permission request and lets the lead merge.
    /// Exit codes as `sidekicks prompt`.
    Lead {
        /// The team (its name or id).
        team: String,
        /// The goal.
        goal: String,
        /// How permission requests are answered (and whether the lead may merge).
        #[arg(long, value_enum, default_value = "reject")]
        allow: Allow,
        /// JSON lines instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Best of N: a team whose members (one per `--agent`; an agent may come twice) all get the
    /// same task; their turns stream (each line named) until every one ended, then the attempts
    /// are compared (`compare`). Exit 0 every attempt ended, 1 one failed, 2 an error.
    Try {
        /// The project folder.
        #[arg(long)]
        project: PathBuf,
        /// An agent of the config to try (repeat it: two or more).
        #[arg(long = "agent", required = true)]
        agents: Vec<String>,
        /// The team's name (default: the project folder's, with `-try`).
        #[arg(long)]
        name: Option<String>,
        /// How copies are made.
        #[arg(long, value_enum, default_value = "worktree")]
        provider: Provider,
        /// The task every member gets.
        task: String,
        /// How permission requests are answered.
        #[arg(long, value_enum, default_value = "reject")]
        allow: Allow,
        /// JSON lines while they work, then the comparison as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// A team's attempts side by side: each member's task, changes, the recipe's check run in its
    /// copy, time, tokens and cost (where the agent reports them), permissions; and each changed
    /// file's hunks, numbered for `take`.
    Compare {
        /// The team (its name or id).
        team: String,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// Merge hunks chosen from several members' attempts, each named MEMBER:PATH:N (`compare`
    /// numbers them). Two that change the same or adjacent lines are refused, and nothing is
    /// merged. Exit 0 merged, 1 refused, 2 an error.
    Take {
        /// The team (its name or id).
        team: String,
        /// The hunks: MEMBER:PATH:N.
        #[arg(required = true)]
        hunks: Vec<String>,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
    /// Bring back the work last discarded from a team (the team too, if it was discarded).
    Restore {
        /// The team (its name or id).
        team: String,
        /// JSON instead of words.
        #[arg(long)]
        json: bool,
    },
}

impl TeamCli {
    /// The one team a subcommand works on, when it needs no other loaded: making a team needs
    /// every team's name, bringing one back every member's, listing them all of them.
    fn one_team(&self) -> Option<String> {
        match self {
            TeamCli::New { .. }
            | TeamCli::Prepare { .. }
            | TeamCli::List { .. }
            | TeamCli::Try { .. }
            | TeamCli::Restore { .. } => None,
            TeamCli::Status { team, .. }
            | TeamCli::Prompt { team, .. }
            | TeamCli::Diff { team, .. }
            | TeamCli::Merge { team, .. }
            | TeamCli::AcceptRecipe { team }
            | TeamCli::Undo { team, .. }
            | TeamCli::Discard { team, .. }
            | TeamCli::Tasks { team, .. }
            | TeamCli::Assign { team, .. }
            | TeamCli::Lead { team, .. }
            | TeamCli::Compare { team, .. }
            | TeamCli::Take { team, .. } => Some(team.clone()),
        }
    }
}

/// Runs a `team` subcommand with config file `config`; returns the exit code.
pub fn run(config: PathBuf, dirs: Option<AppDirs>, command: TeamCli) -> anyhow::Result<u8> {
    let dirs = dirs.context("no home folder: teams are kept in the user's data folder")?;
    let rt = crate::runtime::host::runtime()?;
    rt.block_on(async move {
        // The door's `--allow`, carried out by the runtime (the same as `sidekicks prompt`'s).
        let unattended = match &command {
            TeamCli::Prompt { args, .. } => args.allow,
            TeamCli::Merge { allow, .. }
            | TeamCli::Assign { allow, .. }
            | TeamCli::Lead { allow, .. }
            | TeamCli::Try { allow, .. } => *allow,
            _ => Allow::Reject,
        };
        let brief = !matches!(
            command,
            TeamCli::Prompt { .. } | TeamCli::Lead { .. } | TeamCli::Assign { .. } | TeamCli::Try { .. }
        );
        let mut door = Door::open(config, dirs, unattended.into(), command.one_team(), brief).await?;
        let code = match door.serve(command).await {
            Ok(code) => code,
            Err(e) => {
                errln!("error: {e:#}");
                2
            }
        };
        door.close().await;
        Ok(code)
    })
}

/// The front door, opened for the command line.
struct Door {
    commands: Sender<Command>,
    events: Receiver<Event>,
    history: EventSink,
    config: Config,
    teams: Vec<TeamInfo>,
    discarded: Vec<DiscardedWork>,
    lang: Language,
    /// The runtime shut down (a second Ctrl+C).
    shut: bool,
    /// Each agent's threads, as the manager listed them.
    threads: std::collections::HashMap<String, Vec<crate::protocol::threads::ThreadSummary>>,
    /// The history (the names of teams not loaded, for a command naming none of them).
    store: Arc<crate::runtime::store::Store>,
}

impl Door {
    /// Starts the services on `config` and waits for the config and the stored teams.
    async fn open(
        config_path: PathBuf,
        dirs: AppDirs,
        unattended: crate::model::permission::Unattended,
        teams_only: Option<String>,
        brief: bool,
    ) -> anyhow::Result<Self> {
        let (store, note) = crate::runtime::host::open_history(&dirs)?;
        if let Some(note) = note {
            errln!("[{}]", crate::i18n::history_note_text(crate::model::config::Language::En, &note));
        }
        let startup = Startup {
            dirs: Some(dirs),
            store: Some(store.clone()),
            // A command that ends in a moment reads the config once and starts no lead (one that
            // streams a member's turns lasts, as `sidekicks prompt` does).
            lasting: !brief,
            // What a subcommand shows it asks for (no door here watches what moves).
            watching: false,
            teams_only,
            terminal_host: std::env::current_exe().unwrap_or_else(|_| "sidekicks".into()),
            settings: crate::runtime::agents::ManagerSettings { unattended: Some(unattended), ..Default::default() },
            ..Startup::new(config_path.clone())
        };
        let Host { commands, mut events, history: sink } = Host::start(startup, Arc::new(|| {}));
        let (mut config, mut loaded) = (None, None);
        let mut threads = std::collections::HashMap::new();
        while config.is_none() || loaded.is_none() {
            match events.recv().await.context("the runtime ended")? {
                Event::Agent(agent, AgentEvent::Threads { threads: listed }) => {
                    threads.insert(agent.0, listed);
                }
                Event::Config(ConfigEvent::Loaded { result, .. }) if result.config.is_none() => {
                    bail!("{} has problems: `sidekicks check` lists them", config_path.display())
                }
                Event::Config(ConfigEvent::Applied { config: c, language }) => config = Some((c, language)),
                Event::Team(TeamEvent::Loaded { teams, discarded, .. }) => loaded = Some((teams, discarded)),
                _ => {}
            }
        }
        let ((config, lang), (teams, discarded)) = (config.unwrap_or_default(), loaded.unwrap_or_default());
        Ok(Self { commands, events, history: sink, config, teams, discarded, lang, shut: false, threads, store })
    }

    /// Keeps what an event says of the agents: the config in force, their threads.
    fn note(&mut self, event: &Event) {
        match event {
            Event::Config(ConfigEvent::Applied { config, .. }) => self.config = config.clone(),
            Event::Agent(agent, AgentEvent::Threads { threads }) => {
                self.threads.insert(agent.clone().0, threads.clone());
            }
            _ => {}
        }
    }

    /// Stops what was started and waits until what was said is stored.
    async fn close(mut self) {
        if !self.shut {
            shut_down(&self.commands, &mut self.events).await;
        }
        self.history.flush_history().await;
    }

    async fn send(&self, command: TeamCommand) -> anyhow::Result<()> {
        self.commands.send(Command::Team(Box::new(command))).await.context("the runtime ended")
    }

    /// The next team event `wanted` takes (the config in force is followed meanwhile).
    async fn team_event(&mut self, wanted: impl Fn(&TeamEvent) -> bool) -> anyhow::Result<TeamEvent> {
        loop {
            let event = self.events.recv().await.context("the runtime ended")?;
            self.note(&event);
            match event {
                Event::Team(TeamEvent::Waiting { holder: Some(holder), .. }) => {
                    errln!("busy: {holder}; waiting");
                }
                Event::Team(TeamEvent::SetupOutput { text, .. } | TeamEvent::CheckOutput { text, .. }) => {
                    err!("{text}");
                }
                Event::Team(TeamEvent::Failed { agent, error, .. }) => bail!("{agent}: {error}"),
                Event::Team(event) if wanted(&event) => return Ok(event),
                _ => {}
            }
        }
    }

    /// The team named `which` (its name, in any case, or its id).
    fn team(&self, which: &str) -> anyhow::Result<TeamInfo> {
        let found: Vec<&TeamInfo> = self.teams.iter().filter(|t| t.record.answers_to(which)).collect();
        match found.as_slice() {
            [team] => Ok((*team).clone()),
            [] => {
                // A team discarded whose work is kept: how to bring it back.
                let discarded = |w: &&DiscardedWork| w.team == which || w.team_name.eq_ignore_ascii_case(which.trim());
                if let Some(gone) = self.discarded.iter().find(discarded) {
                    bail!(
                        "no team {which:?}: it was discarded (`sidekicks team restore {}` brings it back)",
                        gone.team_name
                    );
                }
                // Only the team named was loaded: the others' names are read from the history.
                let records = self.store.teams().unwrap_or_default();
                let mut names: Vec<&str> = records.iter().map(|t| t.name.as_str()).collect();
                names.sort_by_key(|n| n.to_lowercase());
                match names.is_empty() {
                    true => bail!("no team {which:?}: there are no teams (`sidekicks team new` makes one)"),
                    false => bail!("no team {which:?} (teams: {})", names.join(", ")),
                }
            }
            _ => bail!("{} teams are named {which:?}: give its id (`sidekicks team list`)", found.len()),
        }
    }

    /// The member of `team` named `which` (its name, or the agent it was made from).
    fn member(team: &TeamInfo, which: &str) -> anyhow::Result<MemberCopy> {
        let names = |m: &str| crate::model::member_name::names(m, which);
        let found: Vec<&(String, Result<MemberCopy, TeamError>)> =
            team.members.iter().filter(|(m, _)| names(m)).collect();
        let exact = found.iter().find(|(m, _)| m.eq_ignore_ascii_case(which));
        match (exact, found.as_slice()) {
            (Some((_, member)), _) | (None, [(_, member)]) => member.clone().map_err(|e| anyhow::anyhow!("{e}")),
            (None, []) => {
                let names: Vec<&str> = team.members.iter().map(|(m, _)| m.as_str()).collect();
                bail!("no member {which:?} in {} (members: {})", team.record.name, names.join(", "))
            }
            (None, _) => {
                let names: Vec<&str> = found.iter().map(|(m, _)| m.as_str()).collect();
                bail!(
                    "{} members of {} answer to {which:?}: give the member's name ({})",
                    found.len(),
                    team.record.name,
                    names.join(", ")
                )
            }
        }
    }

    async fn serve(&mut self, command: TeamCli) -> anyhow::Result<u8> {
        match command {
            TeamCli::New { project, agents, name, provider, lead, json } => {
                self.new_team(project, agents, name, provider, lead, json).await
            }
            TeamCli::Prepare { project, members, json } => self.prepare(project, members.into(), json).await,
            TeamCli::List { json } => {
                let teams: Vec<serde_json::Value> = self.teams.iter().map(team_json).collect();
                if json {
                    jsonln!("{}", serde_json::Value::Array(teams));
                } else if self.teams.is_empty() {
                    outln!("no teams");
                }
                for t in self.teams.iter().filter(|_| !json) {
                    let members: Vec<&str> = t.record.members.iter().map(|m| m.agent.as_str()).collect();
                    outln!(
                        "{} ({})  {}  members: {}",
                        t.record.name,
                        t.record.id,
                        t.record.project.display(),
                        members.join(", ")
                    );
                }
                Ok(0)
            }
            TeamCli::Status { team, json } => self.status(&team, json).await,
            TeamCli::Prompt { team, member, args } => self.prompt(&team, args.asked(member)).await,
            TeamCli::Diff { team, member, json } => self.diff(&team, &member, json).await,
            TeamCli::Merge { team, members, paths, allow, json } => {
                self.merge(&team, &members, &paths, allow, json).await
            }
            TeamCli::AcceptRecipe { team } => {
                let team = self.team(&team)?;
                self.send(TeamCommand::AcceptRecipe { team: team.record.id.clone() }).await?;
                let event = self.team_event(|e| matches!(e, TeamEvent::RecipeAccepted { .. })).await?;
                let TeamEvent::RecipeAccepted { result, .. } = event else { unreachable!() };
                match result.map_err(|e| anyhow::anyhow!("{e}"))? {
                    Some(member) => {
                        outln!("accepted: the team recipe written by {member}; its commands run from now on")
                    }
                    None => outln!("the team recipe is yours already: nothing to accept"),
                }
                Ok(0)
            }
            TeamCli::Undo { team, json } => {
                let team = self.team(&team)?;
                let Some(name) = team.undoable.clone() else {
                    bail!("nothing to undo: the team's last merge was undone already, or a later merge came after it")
                };
                let member = Self::member(&team, &name)?;
                let id = team.record.id.clone();
                self.send(TeamCommand::UndoMerge { team: id, member: member.name }).await?;
                let event = self.team_event(|e| matches!(e, TeamEvent::MergeUndone { .. })).await?;
                let TeamEvent::MergeUndone { result, .. } = event else { unreachable!() };
                let paths = result.map_err(|e| anyhow::anyhow!("{e}"))?;
                match json {
                    true => jsonln!("{}", json!({"member": name, "undone": paths})),
                    false => {
                        outln!("undone: the merge of {name} ({} {} put back)", paths.len(), verbs::files(paths.len()))
                    }
                }
                Ok(0)
            }
            TeamCli::Discard { team, member, json } => {
                let team = self.team(&team)?;
                let member = member.map(|m| Self::member(&team, &m)).transpose()?.map(|m| m.name);
                self.send(TeamCommand::Discard { team: team.record.id.clone(), member }).await?;
                let wanted =
                    |e: &TeamEvent| matches!(e, TeamEvent::Discarded { .. } | TeamEvent::DiscardRefused { .. });
                match self.team_event(wanted).await? {
                    TeamEvent::Discarded { agents, whole_team, kept, .. } => {
                        let kept_files: usize = kept.iter().flat_map(|k| k.members.iter().map(|(_, n)| n)).sum();
                        match json {
                            true => jsonln!(
                                "{}",
                                json!({"discarded": agents, "whole_team": whole_team, "kept_files": kept_files})
                            ),
                            false => outln!(
                                "discarded: {} ({kept_files} {} not merged kept: `sidekicks team restore` brings them back)",
                                agents.join(", "),
                                verbs::files(kept_files)
                            ),
                        }
                        Ok(0)
                    }
                    TeamEvent::DiscardRefused { error, .. } => bail!("not discarded: {error}"),
                    _ => unreachable!(),
                }
            }
            TeamCli::Restore { team, json } => self.restore(&team, json).await,
            TeamCli::Tasks { team, json } => self.tasks(&team, json).await,
            TeamCli::Assign { team, member, task, allow, json } => self.assign(&team, &member, task, allow, json).await,
            TeamCli::Lead { team, goal, allow, json } => self.lead(&team, goal, allow, json).await,
            TeamCli::Try { project, agents, name, provider, task, allow, json } => {
                self.try_agents(project, agents, name, provider, task, allow, json).await
            }
            TeamCli::Compare { team, json } => self.compare_team(&team, json).await,
            TeamCli::Take { team, hunks, json } => self.take(&team, &hunks, json).await,
        }
    }
}
