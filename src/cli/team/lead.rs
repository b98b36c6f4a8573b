//! The verbs of `sidekicks team` about tasks (issue 47): `tasks` lists them, `assign` gives a
//! member one (and streams its answer), `lead` runs the team's lead headless with its team tools
//! — its turn streamed, with the members' turns it starts, each line named — then prints the
//! tasks.

use super::*;
use crate::protocol::teams::Task;

impl Door {
    /// The tasks of `team`, as the team service records them.
    pub(super) async fn tasks_of(&mut self, team: &TeamInfo) -> anyhow::Result<Vec<Task>> {
        let id = team.record.id.clone();
        self.send(TeamCommand::Tasks { team: id.clone() }).await?;
        let event = self.team_event(|e| matches!(e, TeamEvent::Tasks { team, .. } if *team == id)).await?;
        let TeamEvent::Tasks { tasks, .. } = event else { unreachable!() };
        Ok(tasks)
    }

    pub(super) async fn tasks(&mut self, which: &str, json: bool) -> anyhow::Result<u8> {
        let team = self.team(which)?;
        let tasks = self.tasks_of(&team).await?;
        print_tasks(&tasks, json);
        Ok(0)
    }

    /// Gives `member` a task (by the person) and streams its answer, as `team prompt` does.
    pub(super) async fn assign(
        &mut self,
        which: &str,
        member: &str,
        text: String,
        allow: Allow,
        json: bool,
    ) -> anyhow::Result<u8> {
        let team = self.team(which)?;
        let member = Self::member(&team, member)?;
        let name = member.name.clone();
        if !member.ready {
            bail!("{name} cannot work yet: its copy's setup has not succeeded (the window's team page runs it again)");
        }
        self.wait_for_agent(&name, &member.agent).await?;
        let id = Task::new_id();
        let (team_id, task_id) = (team.record.id.clone(), id.clone());
        self.send(TeamCommand::Assign { team: team_id, member: name.clone(), text, by: None, id }).await?;
        let event = self.team_event(|e| matches!(e, TeamEvent::Task { task } if task.id == task_id)).await?;
        let TeamEvent::Task { task } = event else { unreachable!() };
        if let crate::protocol::teams::TaskState::Failed { why } = &task.state {
            bail!("not assigned: {why}");
        }
        errln!("[task {} assigned to {name}]", task.id);
        let runtime = self.config.agent(&name).map(|a| a.runtime.clone()).unwrap_or_default();
        let out = Output::new(json, self.lang, name, runtime);
        let (code, shut) =
            follow_turn(&self.commands, &mut self.events, out, allow, &[], &mut Default::default()).await?;
        self.shut |= shut;
        Ok(code)
    }

    /// Runs `team`'s lead on `goal` with its team tools: streams its turn and the members' turns
    /// (each line named), then prints the tasks.
    pub(super) async fn lead(&mut self, which: &str, goal: String, allow: Allow, json: bool) -> anyhow::Result<u8> {
        let team = self.team(which)?;
        let Some(lead) = team.record.lead.clone() else {
            bail!("{} has no lead: make the team with `--lead AGENT`", team.record.name)
        };
        self.wait_for_agent(&lead, &lead).await?;
        let mut members = std::collections::HashMap::new();
        for m in &team.record.members {
            let runtime = self.config.agent(&m.agent).map(|a| a.runtime.clone()).unwrap_or_default();
            members.insert(m.agent.clone(), Output::for_member(json, self.lang, m.agent.clone(), runtime));
        }
        let prompt = Command::Agent(
            lead.clone().into(),
            AgentCommand::Prompt {
                text: goal,
                context: None,
                with_transcript: false,
                id: None,
                attachments: Vec::new(),
            },
        );
        self.commands.send(prompt).await.context("the runtime ended")?;
        let runtime = self.config.agent(&lead).map(|a| a.runtime.clone()).unwrap_or_default();
        let out = Output::new(json, self.lang, lead, runtime);
        let (code, shut) = follow_turn(&self.commands, &mut self.events, out, allow, &[], &mut members).await?;
        self.shut |= shut;
        if !shut {
            let tasks = self.tasks_of(&team).await?;
            if !json {
                jsonln!();
            }
            print_tasks(&tasks, json);
        }
        Ok(code)
    }

    /// Waits until the manager has `name` as an agent (a member is one once its team is read).
    async fn wait_for_agent(&mut self, name: &str, from: &str) -> anyhow::Result<()> {
        while self.config.agent(name).is_none() {
            if self.config.agent(from).is_none() {
                bail!("{name} cannot start: its agent {from:?} is not in the config");
            }
            let event = self.events.recv().await.context("the runtime ended")?;
            self.note(&event);
        }
        Ok(())
    }
}

/// Prints tasks: one line each, or a JSON array.
fn print_tasks(tasks: &[Task], json: bool) {
    if json {
        jsonln!("{}", serde_json::to_value(tasks).unwrap_or_default());
        return;
    }
    if tasks.is_empty() {
        outln!("no tasks");
    }
    for t in tasks {
        let by = t.by.as_deref().map(|b| format!(" (from {b})")).unwrap_or_default();
        let why = match &t.state {
            crate::protocol::teams::TaskState::Failed { why } => format!(": {why}"),
            _ => String::new(),
        };
        let member = crate::model::member_name::short_name(&t.member);
        outln!("{}  {:<9} {member}{by}: {}{why}", t.id, t.state.code(), first_line(&t.text));
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.chars().count() > 72 {
        true => format!("{}…", line.chars().take(71).collect::<String>()),
        false => line.to_string(),
    }
}
