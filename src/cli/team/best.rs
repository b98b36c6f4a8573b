//! Best of N from the command line (issue 47): `try` makes a team whose members all get the same
//! task and streams their turns (each line named) until every one ended, then compares them;
//! `compare` prints a team's attempts side by side (with each file's hunks, numbered); `take`
//! merges hunks chosen from several attempts — or nothing, when two of them meet.

use std::collections::HashMap;

use super::*;
use crate::protocol::teams::compare::Attempt;
use crate::protocol::teams::{Pick, ReviewFile, Task};

impl Door {
    /// `sidekicks team try`: a team of `agents` on `project`, the same `task` for each member.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn try_agents(
        &mut self,
        project: PathBuf,
        agents: Vec<String>,
        name: Option<String>,
        provider: Provider,
        task: String,
        allow: Allow,
        json: bool,
    ) -> anyhow::Result<u8> {
        if agents.len() < 2 {
            bail!("best of N needs two agents or more (repeat --agent; one agent may come twice)");
        }
        let project = std::path::absolute(&project).unwrap_or(project);
        let name = name.unwrap_or_else(|| {
            let folder = project.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "team".into());
            format!("{folder}-try")
        });
        let (name, project, provider, _) = self.checked_new(project, &agents, Some(name), provider, None)?;
        self.send(TeamCommand::Try { name, project, provider, agents, task }).await?;
        let TeamEvent::Created { result } = self.team_event(|e| matches!(e, TeamEvent::Created { .. })).await? else {
            unreachable!()
        };
        let team = result.map_err(|e| anyhow::anyhow!("{}", crate::i18n::team_error_text(self.lang, &e)))?;
        errln!("[team {} made: {} attempts]", team.record.name, team.members.len());
        self.teams.push(team.clone());
        let code = self.follow_attempts(&team, allow, json).await?;
        if self.shut {
            return Ok(code);
        }
        let shown = self.compare(&team.record.id, json).await?;
        Ok(code.max(shown))
    }

    /// Streams every member's turn on its task until each ended; 1 when one failed.
    async fn follow_attempts(&mut self, team: &TeamInfo, allow: Allow, json: bool) -> anyhow::Result<u8> {
        let id = team.record.id.clone();
        let mut outs: HashMap<String, Output> = HashMap::new();
        let mut waiting: Vec<String> = Vec::new();
        for (name, member) in &team.members {
            if member.is_ok() {
                let runtime = self.config.agent(name).map(|a| a.runtime.clone()).unwrap_or_default();
                outs.insert(name.clone(), Output::for_member(json, self.lang, name.clone(), runtime));
                waiting.push(name.clone());
            }
        }
        let mut ended: HashMap<String, Task> = HashMap::new();
        while waiting.iter().any(|m| !ended.get(m).is_some_and(|t| t.state.finished())) {
            let event = self.events.recv().await.context("the runtime ended")?;
            self.note(&event);
            let Some(event) = crate::cli::prompt::beside(&self.commands, &mut outs, event, allow, false).await? else {
                continue;
            };
            match event {
                Event::Team(TeamEvent::Task { task }) if task.team == id => {
                    ended.insert(task.member.clone(), task);
                }
                Event::Team(TeamEvent::SetupOutput { team, text, .. }) if team == id => err!("{text}"),
                Event::Team(TeamEvent::SetupDone { team, agent, result: Err(why) }) if team == id => {
                    errln!("the setup of {agent} failed: {why}");
                    waiting.retain(|w| *w != agent);
                }
                Event::ShutdownComplete => {
                    self.shut = true;
                    return Ok(1);
                }
                _ => {}
            }
        }
        let failed = ended.values().any(|t| matches!(t.state, crate::protocol::teams::TaskState::Failed { .. }));
        Ok(u8::from(failed || waiting.len() < outs.len()))
    }

    /// `sidekicks team compare`: the team's attempts side by side, each file's hunks numbered.
    pub(super) async fn compare_team(&mut self, which: &str, json: bool) -> anyhow::Result<u8> {
        let id = self.team(which)?.record.id;
        self.compare(&id, json).await
    }

    async fn compare(&mut self, id: &str, json: bool) -> anyhow::Result<u8> {
        let team = self.teams.iter().find(|t| t.record.id == id).cloned().context("the team is gone")?;
        let tasks = self.tasks_of(&team).await?;
        let mut rows = Vec::new();
        for (name, member) in &team.members {
            let Ok(member) = member else { continue };
            let files = self.patches(id, name).await?;
            let check = self.check_copy(id, name).await?;
            let review = self.review(id, name).await?;
            rows.push((Attempt::of(name, &member.agent, &files, &tasks, check), review));
        }
        let task = rows.iter().find_map(|(a, _)| a.task.as_ref().map(|t| t.text.clone())).unwrap_or_default();
        if json {
            let attempts: Vec<serde_json::Value> = rows
                .iter()
                .map(|(a, review)| {
                    let mut value = a.json();
                    value["hunks"] = hunks_json(review);
                    value
                })
                .collect();
            jsonln!("{}", json!({"team": team.record.name, "task": task, "attempts": attempts}));
            return Ok(0);
        }
        outln!("{}: {} attempts at {:?}", team.record.name, rows.len(), first_line(&task));
        for (a, review) in &rows {
            outln!("  {}", attempt_line(a));
            for (path, n, hunk) in numbered(review) {
                let (added, removed) = hunk.counts();
                outln!("    {}:{path}:{n}  {} (+{added} −{removed})", short(&a.member), hunk.header());
            }
        }
        outln!(
            "merge one attempt: sidekicks team merge {} MEMBER; take hunks from several: sidekicks team take {} MEMBER:PATH:N …",
            team.record.name,
            team.record.name
        );
        Ok(0)
    }

    /// `sidekicks team take`: merges the hunks named `MEMBER:PATH:N` (as `compare` numbers them).
    pub(super) async fn take(&mut self, which: &str, specs: &[String], json: bool) -> anyhow::Result<u8> {
        let team = self.team(which)?;
        let id = team.record.id.clone();
        let mut reviews: HashMap<String, Vec<ReviewFile>> = HashMap::new();
        let mut picks = Vec::new();
        for spec in specs {
            let (member, rest) = spec.split_once(':').context(format!("{spec:?}: give MEMBER:PATH:N"))?;
            let (path, n) = rest.rsplit_once(':').context(format!("{spec:?}: give MEMBER:PATH:N"))?;
            let n: usize =
                n.parse().ok().filter(|n| *n > 0).context(format!("{spec:?}: N is a hunk's number, from 1"))?;
            let member = Self::member(&team, member)?.name;
            if !reviews.contains_key(&member) {
                let review = self.review(&id, &member).await?;
                reviews.insert(member.clone(), review);
            }
            let file = reviews[&member].iter().find(|f| f.change.path == path);
            let hunks = file.and_then(|f| f.diff.as_ref()).map(|d| d.hunks.clone()).unwrap_or_default();
            let Some(hunk) = hunks.get(n - 1).cloned() else {
                bail!(
                    "{} has no hunk {n} in {path} (it has {}): `sidekicks team compare` numbers them",
                    short(&member),
                    hunks.len()
                )
            };
            picks.push(Pick { member, path: path.to_string(), hunk });
        }
        self.send(TeamCommand::TakeHunks { team: id.clone(), picks }).await?;
        let event = self.team_event(|e| matches!(e, TeamEvent::HunksTaken { team, .. } if *team == id)).await?;
        let TeamEvent::HunksTaken { result, .. } = event else { unreachable!() };
        match result {
            Ok(reports) => {
                if json {
                    let merged: Vec<serde_json::Value> = reports
                        .iter()
                        .map(|(m, r)| json!({"member": m, "applied": r.applied, "unchanged": r.unchanged}))
                        .collect();
                    jsonln!("{}", json!({"merged": merged}));
                }
                for (member, report) in reports.iter().filter(|_| !json) {
                    outln!("{member}: merged {}", report.applied.join(", "));
                }
                Ok(0)
            }
            Err(e) => {
                let said = crate::i18n::team_error_text(self.lang, &e);
                if json {
                    jsonln!("{}", json!({"error": said}));
                }
                errln!("not merged: {said}");
                Ok(1)
            }
        }
    }

    async fn patches(&mut self, id: &str, member: &str) -> anyhow::Result<Vec<crate::protocol::teams::FilePatch>> {
        let (t, m) = (id.to_string(), member.to_string());
        self.send(TeamCommand::Patch { team: t.clone(), member: m.clone(), paths: None, limit: 1000 }).await?;
        let event =
            self.team_event(|e| matches!(e, TeamEvent::Patch { team, agent, .. } if *team == t && *agent == m)).await?;
        let TeamEvent::Patch { result, .. } = event else { unreachable!() };
        result.map_err(|e| anyhow::anyhow!("{e}"))
    }

    async fn check_copy(&mut self, id: &str, member: &str) -> anyhow::Result<Option<Result<(), String>>> {
        let (t, m) = (id.to_string(), member.to_string());
        self.send(TeamCommand::CheckCopy { team: t.clone(), member: m.clone() }).await?;
        let wanted =
            |e: &TeamEvent| matches!(e, TeamEvent::CopyChecked { team, agent, .. } if *team == t && *agent == m);
        let TeamEvent::CopyChecked { result, .. } = self.team_event(wanted).await? else { unreachable!() };
        Ok(result.map(|(result, tail)| {
            result.map_err(
                |why| if tail.is_empty() { why } else { format!("{why}: {}", tail.lines().last().unwrap_or("")) },
            )
        }))
    }

    async fn review(&mut self, id: &str, member: &str) -> anyhow::Result<Vec<ReviewFile>> {
        let (t, m) = (id.to_string(), member.to_string());
        self.send(TeamCommand::Review { team: t.clone(), member: m.clone() }).await?;
        let wanted = |e: &TeamEvent| matches!(e, TeamEvent::Review { team, agent, .. } if *team == t && *agent == m);
        let TeamEvent::Review { result, .. } = self.team_event(wanted).await? else { unreachable!() };
        result.map_err(|e| anyhow::anyhow!("{e}"))
    }
}

fn short(member: &str) -> &str {
    crate::model::member_name::in_team(member)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Every hunk of `review` with its file and its number in that file (from 1).
fn numbered(review: &[ReviewFile]) -> Vec<(&str, usize, &crate::model::review::Hunk)> {
    review
        .iter()
        .filter_map(|f| Some((f.change.path.as_str(), f.diff.as_ref()?)))
        .flat_map(|(path, d)| d.hunks.iter().enumerate().map(move |(i, h)| (path, i + 1, h)))
        .collect()
}

fn hunks_json(review: &[ReviewFile]) -> serde_json::Value {
    numbered(review)
        .into_iter()
        .map(|(path, n, h)| {
            let (added, removed) = h.counts();
            json!({"path": path, "n": n, "header": h.header(), "added": added, "removed": removed})
        })
        .collect()
}

/// One attempt in words.
fn attempt_line(a: &Attempt) -> String {
    let mut parts = vec![
        format!("{:<12} {:<8}", short(&a.member), a.state()),
        format!("{} {} +{} −{}", a.files, super::verbs::files(a.files), a.added, a.removed),
    ];
    parts.push(match &a.check {
        Some(Ok(())) => "check passed".into(),
        Some(Err(why)) => format!("check failed ({why})"),
        None => "no check".into(),
    });
    if let Some(s) = a.seconds() {
        parts.push(format!("{s:.1} s"));
    }
    let work = a.task.as_ref().map(|t| t.work.clone()).unwrap_or_default();
    if let Some(tokens) = work.tokens {
        parts.push(format!("{tokens} tokens"));
    }
    if let Some(cost) = a.cost() {
        parts.push(cost.text());
    }
    parts.push(format!("permissions {} asked, {} allowed", work.asked, work.allowed));
    parts.join("  ")
}
