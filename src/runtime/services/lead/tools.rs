//! The `sidekicks-team` tools (the contract: names and arguments are stable; docs/CONFIG.md
//! lists them): `members`, `assign`, `wait`, `diff`, `message`, `merge`. Each acts through the
//! lead's [`Door`] and answers a small JSON object; a long diff comes in pages.

use std::time::Duration;

use serde_json::{Value, json};

use super::door::{ANSWER_WITHIN, Door};
use crate::model::member_name;
use crate::protocol::teams::{FilePatch, Task, TeamCommand};
use crate::protocol::{TeamEvent, TeamInfo};

/// Characters of diff text in one page of `diff`.
pub const PAGE_CHARS: usize = 16_000;
/// Characters of a member's answer given by `wait`.
pub const ANSWER_CHARS: usize = 4_000;
/// Files whose line counts `members` reads (the rest are listed by name).
const COUNTED_FILES: usize = 50;
/// The longest `wait`.
const LONGEST_WAIT: u64 = 3_600;

/// The tools, as `tools/list` gives them.
pub fn list() -> Value {
    let team =
        json!({"type": "string", "description": "The team (its name or id); needed only when you lead more than one"});
    let member = json!({"type": "string", "description": "The member: its name, or the agent it was made from"});
    json!([
        {"name": "members", "description": "Your team's members: each one's state (idle, working, needs you, crashed), its task, its changed files with line counts, and where two members change the same lines.",
         "inputSchema": {"type": "object", "properties": {"team": team}}},
        {"name": "assign", "description": "Gives a member a task (it is sent with the team channel's catch-up) and returns at once with the task's id.",
         "inputSchema": {"type": "object", "properties": {"team": team, "member": member, "task": {"type": "string", "description": "What the member is to do"}}, "required": ["member", "task"]}},
        {"name": "wait", "description": "Waits until the tasks finish (default: the team's tasks still running, and those that finished since you last waited) or the time is up; gives each finished task's answer and changed files, and what still runs.",
         "inputSchema": {"type": "object", "properties": {"team": team, "tasks": {"type": "array", "items": {"type": "string"}}, "timeout_s": {"type": "number", "description": "At most this many seconds (default 600, at most 3600)"}}}},
        {"name": "diff", "description": "A member's changes against its base, as a unified diff, in pages (pass next_offset as offset for the next).",
         "inputSchema": {"type": "object", "properties": {"team": team, "member": member, "paths": {"type": "array", "items": {"type": "string"}}, "offset": {"type": "integer", "minimum": 0}}, "required": ["member"]}},
        {"name": "message", "description": "Sends a member a follow-up (a review comment, a fix to make); it is a task too: wait for it by its id.",
         "inputSchema": {"type": "object", "properties": {"team": team, "member": member, "text": {"type": "string"}}, "required": ["member", "text"]}},
        {"name": "merge", "description": "Merges members' work into the project (default: every member with changes). Conflicts are told to their member; the recipe's check runs. The person is asked first unless the team allows the lead to merge.",
         "inputSchema": {"type": "object", "properties": {"team": team, "members": {"type": "array", "items": {"type": "string"}}}}},
    ])
}

/// Calls tool `name` for `lead` with `args`: its answer, or why not (in words).
pub async fn call(door: &Door, lead: &str, name: &str, args: &Value) -> Result<Value, String> {
    let team = team(door, lead, args)?;
    match name {
        "members" => members(door, &team).await,
        "assign" => assign(door, lead, &team, args, "task").await,
        "message" => assign(door, lead, &team, args, "text").await,
        "wait" => wait(door, lead, &team, args).await,
        "diff" => diff(door, &team, args).await,
        "merge" => merge(door, lead, &team, args).await,
        _ => Err(format!("there is no tool {name}: the tools are members, assign, wait, diff, message, merge")),
    }
}

/// The team the call is about: the one `lead` leads, or the one it names.
fn team(door: &Door, lead: &str, args: &Value) -> Result<TeamInfo, String> {
    let teams = door.teams_of(lead);
    let named = args.get("team").and_then(Value::as_str);
    let names = || teams.iter().map(|t| t.record.name.clone()).collect::<Vec<_>>().join(", ");
    match named {
        Some(n) => teams
            .iter()
            .find(|t| t.record.id == n || t.record.name.eq_ignore_ascii_case(n))
            .cloned()
            .ok_or_else(|| format!("you do not lead a team named {n}; you lead: {}", names())),
        None if teams.len() == 1 => Ok(teams[0].clone()),
        None if teams.is_empty() => Err(format!("{lead} leads no team now")),
        None => Err(format!("you lead {} teams: name one with \"team\" ({})", teams.len(), names())),
    }
}

/// The member of `team` that `name` names.
fn member(team: &TeamInfo, name: &str) -> Result<String, String> {
    let names: Vec<&String> = team.record.members.iter().map(|m| &m.agent).collect();
    names.iter().find(|m| member_name::names(m, name)).map(|m| m.to_string()).ok_or_else(|| {
        let all = names.iter().map(|m| member_name::in_team(m)).collect::<Vec<_>>().join(", ");
        format!("{} has no member {name}; its members are {all}", team.record.name)
    })
}

fn text_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    args.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| format!("\"{key}\" is missing"))
}

fn list_arg(args: &Value, key: &str) -> Option<Vec<String>> {
    args.get(key).and_then(Value::as_array).map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
}

/// A member's changed files with line counts (the first [`COUNTED_FILES`]).
async fn patches(door: &Door, team: &str, agent: &str, paths: Option<Vec<String>>) -> Result<Vec<FilePatch>, String> {
    let (t, a) = (team.to_string(), agent.to_string());
    let command = TeamCommand::Patch { team: t.clone(), member: a.clone(), paths, limit: COUNTED_FILES };
    door.ask(command, ANSWER_WITHIN, |e| match e {
        TeamEvent::Patch { team, agent, result } if *team == t && *agent == a => Some(result.clone()),
        _ => None,
    })
    .await?
    .map_err(|e| e.to_string())
}

fn task_json(task: &Task) -> Value {
    json!({"task": task.id, "member": member_name::in_team(&task.member), "state": task.state.code(), "text": task.text})
}

async fn members(door: &Door, team: &TeamInfo) -> Result<Value, String> {
    let tasks = door.tasks(&team.record.id).await?;
    let mut out = Vec::new();
    for m in &team.record.members {
        let files = patches(door, &team.record.id, &m.agent, None).await.unwrap_or_default();
        let task = tasks.iter().rev().find(|t| t.member == m.agent);
        out.push(json!({
            "name": member_name::in_team(&m.agent),
            "agent": m.from,
            "state": door.state_of(&m.agent),
            "task": task.map(task_json),
            "changed": files.iter().map(|f| json!({"path": f.path, "added": f.added, "removed": f.removed})).collect::<Vec<_>>(),
        }));
    }
    let id = team.record.id.clone();
    let overlaps = door
        .ask(TeamCommand::Radar { team: id.clone() }, ANSWER_WITHIN, |e| match e {
            TeamEvent::Radar { team, overlaps } if *team == id => Some(overlaps.clone()),
            _ => None,
        })
        .await?;
    let short = member_name::in_team;
    let overlaps: Vec<Value> = overlaps
        .iter()
        .map(|o| {
            let members: Vec<&str> = o.members.iter().map(|m| short(m)).collect();
            json!({"members": members, "with_project": o.project, "path": o.path, "lines": o.lines.map(|(a, b)| format!("{a}–{b}")), "said": o.said(short)})
        })
        .collect();
    Ok(json!({"team": team.record.name, "members": out, "overlaps": overlaps}))
}

async fn assign(door: &Door, lead: &str, team: &TeamInfo, args: &Value, key: &str) -> Result<Value, String> {
    let agent = member(team, text_arg(args, "member")?)?;
    let text = text_arg(args, key)?.to_string();
    let id = Task::new_id();
    let command = TeamCommand::Assign {
        team: team.record.id.clone(),
        member: agent,
        text,
        by: Some(lead.to_string()),
        id: id.clone(),
    };
    let task = door
        .ask(command, Duration::from_secs(30), |e| match e {
            TeamEvent::Task { task } if task.id == id => Some(task.clone()),
            _ => None,
        })
        .await?;
    match &task.state {
        crate::protocol::teams::TaskState::Failed { why } => Err(why.clone()),
        _ => Ok(task_json(&task)),
    }
}

async fn wait(door: &Door, lead: &str, team: &TeamInfo, args: &Value) -> Result<Value, String> {
    let within = args.get("timeout_s").and_then(Value::as_f64).map_or(600, |s| s.max(0.0) as u64).min(LONGEST_WAIT);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(within);
    let mut heard = door.hear();
    let all = door.tasks(&team.record.id).await?;
    let wanted: Vec<String> = match list_arg(args, "tasks") {
        Some(ids) => {
            if let Some(unknown) = ids.iter().find(|id| !all.iter().any(|t| t.id == **id)) {
                return Err(format!("there is no task {unknown} in {}", team.record.name));
            }
            ids
        }
        // Those still running, and those that finished since this process began and were not
        // given by an earlier wait (a task may end before the lead waits for it).
        None => {
            let since = door.started();
            let new = |t: &&Task| !t.state.finished() || (t.updated_at >= since && !door.reported(lead, &t.id));
            all.iter().filter(new).map(|t| t.id.clone()).collect()
        }
    };
    let mut now: Vec<Task> = all.into_iter().filter(|t| wanted.contains(&t.id)).collect();
    while now.iter().any(|t| !t.state.finished()) {
        let event = match tokio::time::timeout_at(deadline, heard.recv()).await {
            Err(_) => break,
            Ok(Ok(event)) => event,
            Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {
                now = door.tasks(&team.record.id).await?.into_iter().filter(|t| wanted.contains(&t.id)).collect();
                continue;
            }
            Ok(Err(_)) => return Err("Sidekicks is shutting down".into()),
        };
        if let crate::protocol::Event::Team(TeamEvent::Task { task }) = event
            && let Some(t) = now.iter_mut().find(|t| t.id == task.id)
        {
            *t = task;
        }
    }
    let (finished, running): (Vec<Task>, Vec<Task>) = now.into_iter().partition(|t| t.state.finished());
    door.report(lead, finished.iter().map(|t| t.id.clone()));
    let mut done = Vec::new();
    for task in &finished {
        let files = patches(door, &team.record.id, &task.member, None).await.unwrap_or_default();
        let answer = task.answer.as_deref().map(|a| clip(a, ANSWER_CHARS));
        let mut entry = task_json(task);
        entry["answer"] = json!(answer);
        entry["changed"] = json!(files.iter().map(|f| f.path.clone()).collect::<Vec<_>>());
        if let crate::protocol::teams::TaskState::Failed { why } = &task.state {
            entry["why"] = json!(why);
        }
        done.push(entry);
    }
    Ok(json!({"finished": done, "running": running.iter().map(task_json).collect::<Vec<_>>()}))
}

async fn diff(door: &Door, team: &TeamInfo, args: &Value) -> Result<Value, String> {
    let agent = member(team, text_arg(args, "member")?)?;
    let offset = args.get("offset").and_then(Value::as_u64).unwrap_or(0) as usize;
    let all = patches(door, &team.record.id, &agent, list_arg(args, "paths")).await?;
    let names: Vec<String> = all.iter().map(|f| f.path.clone()).collect();
    let mut text = String::new();
    let mut next = offset;
    while next < names.len() {
        let page = names[next..names.len().min(next + COUNTED_FILES)].to_vec();
        let files = patches(door, &team.record.id, &agent, Some(page)).await?;
        let mut full = false;
        for f in files {
            let patch = f.text.unwrap_or_default();
            if !text.is_empty() && text.len() + patch.len() > PAGE_CHARS {
                full = true;
                break;
            }
            text.push_str(&clip(&patch, PAGE_CHARS));
            next += 1;
        }
        if full {
            break;
        }
    }
    let more = (next < names.len()).then_some(next);
    Ok(
        json!({"member": member_name::in_team(&agent), "files": names.len(), "offset": offset, "text": text, "next_offset": more}),
    )
}

async fn merge(door: &Door, lead: &str, team: &TeamInfo, args: &Value) -> Result<Value, String> {
    let agents: Vec<String> = match list_arg(args, "members") {
        Some(names) => names.iter().map(|n| member(team, n)).collect::<Result<_, _>>()?,
        None => team.record.members.iter().map(|m| m.agent.clone()).collect(),
    };
    // Only members with changes are merged (and named to the person).
    let mut files = Vec::new();
    let mut with_changes = Vec::new();
    for agent in agents {
        let changed = patches(door, &team.record.id, &agent, None).await.unwrap_or_default();
        if !changed.is_empty() {
            files.extend(changed.into_iter().map(|f| f.path));
            with_changes.push(agent);
        }
    }
    if with_changes.is_empty() {
        return Ok(json!({"merged": [], "said": "nothing to merge: no member named has changes"}));
    }
    let agents = with_changes;
    if !crate::runtime::teams::recipe::lead_merges(&team.record.project) {
        ask_to_merge(door, lead, team, &agents, &files).await?;
    }
    let mut merged = Vec::new();
    for agent in agents {
        let (t, a) = (team.record.id.clone(), agent.clone());
        let command = TeamCommand::Merge { team: t.clone(), member: a.clone(), selected: None };
        let ended = door
            .ask(command, ANSWER_WITHIN, |e| match e {
                TeamEvent::MergeEnded { team, agent, result, told, check } if *team == t && *agent == a => {
                    Some((result.clone(), told.clone(), check.clone()))
                }
                _ => None,
            })
            .await?;
        let (result, told, check) = ended;
        let mut entry = json!({"member": member_name::in_team(&agent)});
        match result {
            Ok(report) => {
                entry["applied"] = json!(report.applied);
                entry["conflicts"] = json!(report.conflicts.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>());
                entry["still_marked"] = json!(report.refused);
            }
            Err(e) => entry["error"] = json!(e.to_string()),
        }
        entry["told"] = json!(told.map(|t| t.text));
        entry["check"] = json!(check.map(|c| match c {
            Ok(()) => "passed".to_string(),
            Err(why) => format!("failed: {why}"),
        }));
        merged.push(entry);
    }
    Ok(json!({"merged": merged}))
}

/// Asks the person whether `lead` may merge the work of `agents` (a card on the lead's
/// conversation naming them and their files); `Err` unless allowed.
async fn ask_to_merge(
    door: &Door,
    lead: &str,
    team: &TeamInfo,
    agents: &[String],
    files: &[String],
) -> Result<(), String> {
    use crate::model::permission::{OptionKind, PermissionAnswer, PermissionOption, PermissionRequest};
    use std::sync::atomic::{AtomicU64, Ordering};
    // Apart from the ids of agents' own requests.
    static NEXT: AtomicU64 = AtomicU64::new(1 << 52);
    let whose: Vec<String> = agents.iter().map(|a| format!("{}'s", member_name::in_team(a))).collect();
    // A path two members changed is one file of the project.
    let mut files = files.to_vec();
    files.sort();
    files.dedup();
    let count = match files.len() {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    let title =
        format!("{lead} wants to merge {} work into {}: {count}", whose.join(", "), team.record.project.display());
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let option = |id: &str, kind, label: &str| PermissionOption { id: id.into(), kind, agent_label: label.into() };
    let request = PermissionRequest {
        id,
        tool: crate::model::tool::ToolCall {
            id: format!("sidekicks-merge-{id}"),
            title,
            // Said by its title (the files listed under it), not as one agent's file edit.
            kind: crate::model::tool::ToolKind::Other,
            content: files.clone(),
            ..Default::default()
        },
        options: vec![
            option("merge", OptionKind::AllowOnce, "Merge"),
            option("no", OptionKind::RejectOnce, "Do not merge"),
        ],
    };
    match door.ask_person(lead, request).await? {
        PermissionAnswer::Selected { kind: OptionKind::AllowOnce | OptionKind::AllowAlways, .. } => Ok(()),
        _ => Err(format!(
            "the person did not allow the merge ({}): tell them the work is ready, or ask again later",
            agents.iter().map(|a| member_name::in_team(a)).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// `text` cut to about `max` characters, said so.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n… ({} more characters)\n", &text[..end], text.len() - end)
}
