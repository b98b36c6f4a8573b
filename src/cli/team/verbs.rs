//! The verbs of `sidekicks team` that show and change a team: new, status, diff, merge, prompt,
//! restore; words for a person, or JSON.

use super::*;

impl Door {
    /// A new team's name (default: the project folder's), absolute project and way of copying,
    /// once every agent (and the lead) is one of the config's own.
    pub(super) fn checked_new(
        &self,
        project: PathBuf,
        agents: &[String],
        name: Option<String>,
        provider: Provider,
        lead: Option<String>,
    ) -> anyhow::Result<(String, PathBuf, ProviderKind, Option<String>)> {
        let is_own = |a: &str| {
            self.config.agent(a).is_some() && !self.teams.iter().any(|t| t.record.members.iter().any(|m| m.agent == a))
        };
        for agent in agents.iter().chain(lead.iter()) {
            if !is_own(agent) {
                let own: Vec<&str> = self.config.agents.iter().map(|a| a.name.as_str()).filter(|a| is_own(a)).collect();
                bail!("no agent {agent:?} in the config (agents: {})", own.join(", "));
            }
        }
        // A project on another machine (`host:path`, `ssh://host/path`) stays as written (ADR 0039).
        let project = match project.to_str().and_then(crate::model::project_at::normalized) {
            Some(far) => PathBuf::from(far),
            None => std::path::absolute(&project).unwrap_or(project),
        };
        let name = name.unwrap_or_else(|| {
            project.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "team".into())
        });
        let provider = match provider {
            Provider::Worktree => ProviderKind::GitWorktree,
            Provider::Copy => ProviderKind::Copy,
            Provider::Clone => ProviderKind::Clone,
        };
        Ok((name, project, provider, lead))
    }

    /// `team prepare`: copies of `project` made ahead for its next team.
    pub(super) async fn prepare(&mut self, project: PathBuf, members: usize, json: bool) -> anyhow::Result<u8> {
        let project = std::path::absolute(&project).unwrap_or(project);
        let provider = ProviderKind::GitWorktree;
        self.send(TeamCommand::Prepare { project: project.clone(), provider, members }).await?;
        let asked = project.clone();
        let wanted = |e: &TeamEvent| matches!(e, TeamEvent::Prepared { project, .. } if *project == asked);
        let TeamEvent::Prepared { result, .. } = self.team_event(wanted).await? else { unreachable!() };
        let ready = result.map_err(|e| anyhow::anyhow!("{}", crate::i18n::team_error_text(self.lang, &e)))?;
        match json {
            true => jsonln!("{}", json!({"project": project, "ready": ready})),
            false => outln!("{ready} copies of {} ready for its next team", project.display()),
        }
        Ok(0)
    }

    pub(super) async fn new_team(
        &mut self,
        project: PathBuf,
        agents: Vec<String>,
        name: Option<String>,
        provider: Provider,
        lead: Option<String>,
        json: bool,
    ) -> anyhow::Result<u8> {
        let (name, project, provider, lead) = self.checked_new(project, &agents, name, provider, lead)?;
        self.send(TeamCommand::Create { name, project, provider, agents, lead }).await?;
        let TeamEvent::Created { result } = self.team_event(|e| matches!(e, TeamEvent::Created { .. })).await? else {
            unreachable!()
        };
        let mut team = result.map_err(|e| anyhow::anyhow!("{}", crate::i18n::team_error_text(self.lang, &e)))?;
        // Members whose copy needs the recipe's setup first: its output streams to stderr.
        let mut waiting: Vec<String> =
            team.members.iter().filter(|(_, m)| m.as_ref().is_ok_and(|m| !m.ready)).map(|(n, _)| n.clone()).collect();
        let mut code = 0;
        while !waiting.is_empty() {
            let id = team.record.id.clone();
            let event = self.team_event(|e| matches!(e, TeamEvent::SetupDone { team, .. } if *team == id)).await?;
            let TeamEvent::SetupDone { agent, result, .. } = event else { unreachable!() };
            waiting.retain(|w| *w != agent);
            match result {
                Ok(member) => {
                    if let Some((_, m)) = team.members.iter_mut().find(|(n, _)| *n == agent) {
                        *m = Ok(member);
                    }
                }
                Err(why) => {
                    errln!("the setup of {agent} failed: {why}");
                    code = 1;
                }
            }
        }
        match json {
            true => jsonln!("{}", team_json(&team)),
            false => {
                outln!("team {} ({}) made for {}", team.record.name, team.record.id, team.record.project.display());
                for (name, member) in &team.members {
                    match member {
                        Ok(m) => {
                            outln!("  {name}: {}{}", m.copy_shown(), if m.ready { "" } else { " (setup failed)" })
                        }
                        Err(e) => outln!("  {name}: {e}"),
                    }
                }
            }
        }
        self.teams.push(team);
        Ok(code)
    }

    pub(super) async fn status(&mut self, which: &str, json: bool) -> anyhow::Result<u8> {
        let team = self.team(which)?;
        let mut members = Vec::new();
        for (name, member) in &team.members {
            let Ok(member) = member else {
                members.push(json!({"name": name, "error": member.as_ref().err().map(|e| e.to_string())}));
                continue;
            };
            self.send(TeamCommand::Changes { team: team.record.id.clone(), member: name.clone() }).await?;
            let event = self.team_event(|e| matches!(e, TeamEvent::Changes { agent, .. } if agent == name)).await?;
            let TeamEvent::Changes { result, .. } = event else { unreachable!() };
            let changes: Vec<serde_json::Value> = match &result {
                Ok(changes) => changes.iter().map(|c| json!({"path": c.path, "kind": change_kind(&c.kind)})).collect(),
                Err(e) => vec![json!({"error": e.to_string()})],
            };
            let state = if member.ready { "ready" } else { "setup needed" };
            members.push(json!({"name": name, "agent": member.agent, "copy": member.copy, "state": state,
                "kept": member.far.as_ref().map(|f| f.place()),
                "container": member.container.as_ref().map(|c| &c.name), "changes": changes}));
        }
        // Where their changes meet (the radar), read now.
        let id = team.record.id.clone();
        self.send(TeamCommand::Radar { team: id.clone() }).await?;
        let event = self.team_event(|e| matches!(e, TeamEvent::Radar { team, .. } if *team == id)).await?;
        let TeamEvent::Radar { overlaps, .. } = event else { unreachable!() };
        let short = crate::model::member_name::in_team;
        if json {
            let mut value = team_json(&team);
            value["members"] = serde_json::Value::Array(members);
            value["overlaps"] = overlaps
                .iter()
                .map(|o| json!({"members": o.members, "path": o.path, "lines": o.lines, "project": o.project, "said": o.said(short)}))
                .collect();
            jsonln!("{value}");
            return Ok(0);
        }
        outln!("{} ({})  {}", team.record.name, team.record.id, team.record.project.display());
        for m in &members {
            // A copy kept elsewhere is said with its place (`ssh build-1:/…`), as `team new` says it.
            let copy = m["copy"].as_str().map(|c| match m["kept"].as_str() {
                Some(place) => format!("{place}:{c}"),
                None => c.to_string(),
            });
            outln!(
                "  {} — {} — {}",
                m["name"].as_str().unwrap_or_default(),
                m["state"].as_str().unwrap_or("error"),
                copy.as_deref().or(m["error"].as_str()).unwrap_or_default()
            );
            let changes = m["changes"].as_array().cloned().unwrap_or_default();
            if changes.is_empty() {
                outln!("    no changes");
            }
            for c in changes {
                match c["error"].as_str() {
                    Some(e) => outln!("    {e}"),
                    None => outln!(
                        "    {} {}",
                        c["kind"].as_str().unwrap_or_default(),
                        c["path"].as_str().unwrap_or_default()
                    ),
                }
            }
        }
        for o in &overlaps {
            outln!("  overlap: {}", o.said(short));
        }
        if let Some(undoable) = &team.undoable {
            outln!("  the merge of {undoable} can be undone (`sidekicks team undo`)");
        }
        Ok(0)
    }

    pub(super) async fn diff(&mut self, which: &str, member: &str, json: bool) -> anyhow::Result<u8> {
        let team = self.team(which)?;
        let member = Self::member(&team, member)?;
        let id = team.record.id.clone();
        self.send(TeamCommand::Changes { team: id.clone(), member: member.name.clone() }).await?;
        let name = member.name.clone();
        let event = self.team_event(|e| matches!(e, TeamEvent::Changes { agent, .. } if *agent == name)).await?;
        let TeamEvent::Changes { result, .. } = event else { unreachable!() };
        let changes = result.map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut files = Vec::new();
        for change in &changes {
            let path = change.path.clone();
            self.send(TeamCommand::Diff { team: id.clone(), member: member.name.clone(), path: path.clone() }).await?;
            let event = self.team_event(|e| matches!(e, TeamEvent::Diff { path: p, .. } if *p == path)).await?;
            let TeamEvent::Diff { base, member: mine, .. } = event else { unreachable!() };
            let text = match (&base, &mine) {
                (None, None) => format!("Binary or special file {path} differs\n"),
                _ => {
                    let (old, new) = (base.as_deref().unwrap_or_default(), mine.as_deref().unwrap_or_default());
                    let (a, b) = match change.kind {
                        crate::protocol::teams::ChangeKind::Renamed { ref from } => (from.clone(), path.clone()),
                        _ => (path.clone(), path.clone()),
                    };
                    let a = if base.is_some() { format!("a/{a}") } else { "/dev/null".into() };
                    let b = if mine.is_some() { format!("b/{b}") } else { "/dev/null".into() };
                    similar::TextDiff::from_lines(old, new).unified_diff().header(&a, &b).to_string()
                }
            };
            files.push((path, change_kind(&change.kind), text));
        }
        match json {
            true => {
                let files: Vec<_> = files.iter().map(|(p, k, d)| json!({"path": p, "kind": k, "diff": d})).collect();
                jsonln!("{}", json!({"member": member.name, "files": files}));
            }
            false => files.iter().for_each(|(_, _, d)| out!("{d}")),
        }
        Ok(0)
    }

    pub(super) async fn merge(
        &mut self,
        which: &str,
        names: &[String],
        paths: &[String],
        allow: Allow,
        json: bool,
    ) -> anyhow::Result<u8> {
        let team = self.team(which)?;
        let members: Vec<MemberCopy> = match names {
            [] => team.members.iter().filter_map(|(_, m)| m.as_ref().ok().cloned()).collect(),
            names => names.iter().map(|n| Self::member(&team, n)).collect::<anyhow::Result<_>>()?,
        };
        let mut code = 0;
        let mut told = Vec::new();
        for member in members {
            let selected = (!paths.is_empty()).then(|| paths.to_vec());
            let (id, name) = (team.record.id.clone(), member.name.clone());
            self.send(TeamCommand::Merge { team: id, member: member.name, selected }).await?;
            // The merge's one final event: its result, what the member was told, the check's.
            let ended = |e: &TeamEvent| matches!(e, TeamEvent::MergeEnded { agent, .. } if *agent == name);
            let TeamEvent::MergeEnded { result, told: message, check, .. } = self.team_event(ended).await? else {
                unreachable!()
            };
            code = code.max(self.merge_said(&name, &result, check.as_ref(), json));
            if let Some(message) = message {
                told.push((name.clone(), message));
            }
        }
        // Members told of conflicts answer now: their answers stream here.
        for (name, message) in told {
            if self.shut {
                break;
            }
            if !json {
                errln!("\n[{name} was told:]\n{}\n[{name} answers:]", message.text);
            }
            let runtime = self.config.agent(&name).map(|a| a.runtime.clone()).unwrap_or_default();
            let out = Output::new(json, self.lang, name.clone(), runtime);
            let (_, shut) =
                follow_turn(&self.commands, &mut self.events, out, allow, &[], &mut Default::default()).await?;
            self.shut |= shut;
        }
        Ok(code)
    }

    /// Says what a merge of `name` did; returns its exit code.
    pub(super) fn merge_said(
        &self,
        name: &str,
        result: &Result<MergeReport, TeamError>,
        check: Option<&Result<(), String>>,
        json: bool,
    ) -> u8 {
        let check_json = check.map(|c| match c {
            Ok(()) => json!({"passed": true}),
            Err(why) => json!({"passed": false, "why": why}),
        });
        let failed_check = matches!(check, Some(Err(_)));
        match result {
            Ok(report) => {
                let conflicts: Vec<_> = report
                    .conflicts
                    .iter()
                    .map(|(p, k)| json!({"path": p, "kind": format!("{k:?}").to_lowercase()}))
                    .collect();
                if json {
                    jsonln!(
                        "{}",
                        json!({"member": name, "applied": report.applied, "unchanged": report.unchanged.len(),
                        "conflicts": conflicts, "refused": report.refused, "check": check_json,
                        "names_not_utf8": report.unreadable_names})
                    );
                } else if report.conflicts.is_empty() && report.applied.is_empty() && !report.refused.is_empty() {
                    outln!("{name}: not merged, still holding conflict markers: {}", report.refused.join(", "));
                } else if report.conflicts.is_empty() {
                    outln!("{name}: merged: {} applied, {} unchanged", report.applied.len(), report.unchanged.len());
                    if !report.refused.is_empty() {
                        outln!("  not merged, still holding conflict markers: {}", report.refused.join(", "));
                    }
                } else {
                    outln!("{name}: conflicts: {} (nothing applied)", report.conflicts.len());
                    for (path, kind) in &report.conflicts {
                        outln!("  {path}: {}", crate::i18n::conflict_text(self.lang, *kind));
                    }
                }
                if let (false, Some(Err(why))) = (json, check) {
                    outln!("  the check after the merge failed ({why}); `sidekicks team undo` takes the merge back");
                }
                if !json && !report.unreadable_names.is_empty() {
                    outln!(
                        "  not merged, their names are not UTF-8 (rename them in the member's copy): {}",
                        report.unreadable_names.join(", ")
                    );
                }
                let unresolved =
                    !report.conflicts.is_empty() || !report.refused.is_empty() || !report.unreadable_names.is_empty();
                if unresolved || failed_check { 1 } else { 0 }
            }
            Err(TeamError::CheckFailed { why, .. }) => {
                match json {
                    true => jsonln!("{}", json!({"member": name, "error": "check failed", "why": why})),
                    false => outln!("{name}: the check failed in a scratch copy ({why}); nothing was merged"),
                }
                1
            }
            Err(e) => {
                let words = crate::i18n::team_error_text(self.lang, e);
                match json {
                    true => jsonln!("{}", json!({"member": name, "error": words})),
                    false => errln!("{name}: error: {words} (nothing was changed)"),
                }
                2
            }
        }
    }

    pub(super) async fn prompt(&mut self, which: &str, asked: crate::cli::prompt::Asked) -> anyhow::Result<u8> {
        let crate::cli::prompt::Asked { agent: member, allow, json, chosen, thread, attach, transcript, text } = asked;
        let team = self.team(which)?;
        let member = Self::member(&team, &member)?;
        let name = member.name.clone();
        if !member.ready {
            bail!("{name} cannot work yet: its copy's setup has not succeeded (the window's team page runs it again)");
        }
        let mut attachments = Vec::new();
        for path in &attach {
            attachments
                .push(crate::runtime::attach::from_file(path, &member.copy).map_err(|e| anyhow::anyhow!("{e}"))?);
        }
        // The member is an agent once the manager has it (with its threads).
        let by_name = thread.as_deref().is_some_and(|t| t != "new");
        while self.config.agent(&name).is_none() || (by_name && !self.threads.contains_key(&name)) {
            if self.config.agent(&member.agent).is_none() {
                bail!("{name} cannot start: its agent {:?} is not in the config", member.agent);
            }
            let event = self.events.recv().await.context("the runtime ended")?;
            self.note(&event);
        }
        if let Some(wanted) = thread {
            let threads = self.threads.get(&name).cloned().unwrap_or_default();
            let op = crate::cli::prompt::find_thread(&threads, &name, &wanted).map_err(anyhow::Error::msg)?;
            self.commands
                .send(Command::Agent(name.clone().into(), AgentCommand::Thread { op }))
                .await
                .context("the runtime ended")?;
        }
        // Choices first: the session opens with them, before the message is sent.
        for c in chosen.clone() {
            let set = Command::Agent(name.clone().into(), AgentCommand::SetOption { key: c.key, value: c.value });
            self.commands.send(set).await.context("the runtime ended")?;
        }
        let runtime = self.config.agent(&name).map(|a| a.runtime.clone()).unwrap_or_default();
        let prompt = Command::Agent(
            name.clone().into(),
            AgentCommand::Prompt { text, context: None, with_transcript: transcript, id: None, attachments },
        );
        self.commands.send(prompt).await.context("the runtime ended")?;
        let out = Output::new(json, self.lang, name, runtime);
        let (code, shut) =
            follow_turn(&self.commands, &mut self.events, out, allow, &chosen, &mut Default::default()).await?;
        self.shut |= shut;
        Ok(code)
    }

    pub(super) async fn restore(&mut self, which: &str, json: bool) -> anyhow::Result<u8> {
        let live = self.team(which).ok();
        let kept = self.discarded.iter().find(|w| match &live {
            Some(team) => w.team == team.record.id,
            None => w.team == which || w.team_name.eq_ignore_ascii_case(which),
        });
        let Some(kept) = kept.cloned() else { bail!("no discarded work of team {which:?} is kept") };
        self.send(TeamCommand::RestoreDiscarded { id: kept.id.clone() }).await?;
        let id = kept.id.clone();
        let event = self.team_event(|e| matches!(e, TeamEvent::WorkRestored { id: i, .. } if *i == id)).await?;
        let TeamEvent::WorkRestored { result, .. } = event else { unreachable!() };
        let team = result.map_err(|e| anyhow::anyhow!("{}", crate::i18n::team_error_text(self.lang, &e)))?;
        match json {
            true => jsonln!("{}", team_json(&team)),
            false => {
                let members: Vec<String> =
                    kept.members.iter().map(|(m, n)| format!("{m} ({n} {})", files(*n))).collect();
                outln!("restored into {}: {}", team.record.name, members.join(", "));
            }
        }
        Ok(0)
    }
}

/// "file" or "files", as agrees with `n`.
pub(super) fn files(n: usize) -> &'static str {
    crate::i18n::plural(crate::model::config::Language::En, n as u64, "file", "files")
}

/// A change's kind in one word.
pub(super) fn change_kind(kind: &crate::protocol::teams::ChangeKind) -> &'static str {
    use crate::protocol::teams::ChangeKind as K;
    match kind {
        K::Added => "added",
        K::Modified => "modified",
        K::Deleted => "deleted",
        K::Renamed { .. } => "renamed",
        K::Mode => "mode",
        K::Type => "type",
    }
}

/// A team as JSON: id, name, project, provider, lead, members (name, agent, copy, ready).
pub(super) fn team_json(team: &TeamInfo) -> serde_json::Value {
    let members: Vec<serde_json::Value> = team
        .members
        .iter()
        .map(|(name, m)| match m {
            Ok(m) => json!({"name": name, "agent": m.agent, "copy": m.copy, "ready": m.ready,
                "kept": m.far.as_ref().map(|f| f.place())}),
            Err(e) => json!({"name": name, "error": e.to_string()}),
        })
        .collect();
    json!({"id": team.record.id, "name": team.record.name, "project": team.record.project,
        "provider": team.record.provider, "lead": team.record.lead, "members": members, "undoable": team.undoable})
}
