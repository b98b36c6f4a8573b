//! Commands of the project's team recipe, run on the runtime with their output sent to the team
//! page as it comes: the setup command in a new member's copy (`sh -c`, in the copy, with the
//! member's variables — inside its own container when it has one; the member starts working in its copy only when it succeeds: `SetupDone`
//! with the member, now ready, and the team service makes it an agent of its own), and the check after a merge (in
//! the project; a failure is told to the member that merged, with the output's end).

use std::path::Path;

use tokio::io::AsyncReadExt;

use crate::protocol::Event;
use crate::protocol::teams::{MemberCopy, TeamEvent};
use crate::runtime::events::EventSink;
use crate::runtime::teams;
use crate::runtime::teams::lock::ProjectLock;

/// `sh -c command` in `cwd` with `env` on this computer.
fn here(command: &str, cwd: &Path, env: &std::collections::BTreeMap<String, String>) -> tokio::process::Command {
    let mut sh = tokio::process::Command::new("sh");
    sh.arg("-c").arg(command).current_dir(cwd).envs(env);
    sh
}

/// `sh -c command` where `member` works: in its copy, or in its own container (`exec`, in the
/// folder the copy is bound at) when it has one.
fn in_member(command: &str, member: &MemberCopy) -> tokio::process::Command {
    if let Some(far) = &member.far {
        return there(command, member, far);
    }
    let Some(c) = &member.container else { return here(command, &member.copy, &member.env) };
    let mut exec = tokio::process::Command::new(c.engine.program());
    exec.arg("exec").arg("--workdir").arg(&c.workspace_path);
    for (key, value) in &member.env {
        exec.arg("--env").arg(format!("{key}={value}"));
    }
    exec.arg(&c.name).arg("sh").arg("-c").arg(command);
    exec
}

/// `sh -c command` in a far member's copy, where it is (its machine, sandbox or pod), through its
/// runtime's own command line; its variables are set by `env` there.
fn there(command: &str, member: &MemberCopy, far: &crate::protocol::teams::FarCopy) -> tokio::process::Command {
    const IN_COPY: &str = r#"cd "$1" || exit 127; exec sh -c "$2""#;
    let place = crate::runtime::copies::place::Place::of(far);
    let mut words = vec!["env".to_string()];
    words.extend(member.env.iter().map(|(k, v)| format!("{k}={v}")));
    words.extend(["sh", "-c", IN_COPY, "sidekicks"].map(String::from));
    words.extend([member.copy.display().to_string(), command.to_string()]);
    let argv = match place.far() {
        Ok(through) => through.argv(words),
        Err(e) => ["sh", "-c", r#"printf '%s\n' "$1" >&2; exit 127"#, "sidekicks"]
            .map(String::from)
            .into_iter()
            .chain([e.to_string()])
            .collect(),
    };
    let mut run = tokio::process::Command::new(&argv[0]);
    run.args(&argv[1..]);
    run
}

/// Runs `command` (shown as `shown`), sending what it writes through `output`; `Err` says how
/// it failed.
async fn run_streaming(
    sink: &EventSink,
    shown: &str,
    mut command: tokio::process::Command,
    output: impl Fn(String) -> Option<TeamEvent>,
) -> Result<(), String> {
    let send = |event: Option<TeamEvent>| async move {
        if let Some(event) = event {
            sink.send(Event::Team(event)).await;
        }
    };
    send(output(format!("$ {shown}\n"))).await;
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| e.to_string())?;
    let (mut out, mut err) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
    let (mut a, mut b) = ([0u8; 4096], [0u8; 4096]);
    let (mut out_open, mut err_open) = (true, true);
    // Until the command exits (not until its pipes close: a server it started keeps them).
    let status = loop {
        tokio::select! {
            n = out.read(&mut a), if out_open => match n {
                Ok(0) | Err(_) => out_open = false,
                Ok(n) => send(output(String::from_utf8_lossy(&a[..n]).into_owned())).await,
            },
            n = err.read(&mut b), if err_open => match n {
                Ok(0) | Err(_) => err_open = false,
                Ok(n) => send(output(String::from_utf8_lossy(&b[..n]).into_owned())).await,
            },
            status = child.wait() => break status,
        }
    };
    // What it wrote just before it exited; a process it left running may hold the pipes open,
    // so only until they are empty for a moment.
    let pipes: [(&mut (dyn tokio::io::AsyncRead + Unpin + Send), bool); 2] =
        [(&mut out, out_open), (&mut err, err_open)];
    for (pipe, _) in pipes.into_iter().filter(|(_, open)| *open) {
        let mut buf = [0u8; 4096];
        loop {
            match tokio::time::timeout(std::time::Duration::from_millis(300), pipe.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => send(output(String::from_utf8_lossy(&buf[..n]).into_owned())).await,
                _ => break,
            }
        }
    }
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(s.code().map_or_else(|| "it was killed".to_string(), |c| format!("exit code {c}"))),
        Err(e) => Err(e.to_string()),
    }
}

/// Tells the window that the project's recipe is `member`'s and waits for the person, with what
/// it would run.
pub(super) async fn tell_refused(sink: &EventSink, team: &str, project: &Path, member: &str) {
    let read = project.to_path_buf();
    let commands = tokio::task::spawn_blocking(move || teams::recipe::commands_to_accept(&read)).await;
    let (team, member) = (team.to_string(), member.to_string());
    let refused = TeamEvent::RecipeRefused { team, member, commands: commands.unwrap_or_default() };
    sink.send(Event::Team(refused)).await;
}

/// The recipe of `project` (read on a blocking thread); one a member wrote that the person has
/// not accepted is refused in words, and the window told whose it is (`RecipeRefused`).
async fn recipe(sink: &EventSink, team: &str, project: &Path) -> Result<Option<crate::model::recipe::Recipe>, String> {
    let project = project.to_path_buf();
    let read = project.clone();
    match tokio::task::spawn_blocking(move || teams::recipe::load(&read)).await {
        Ok(Err(crate::protocol::teams::TeamError::RecipeFromMember { member })) => {
            tell_refused(sink, team, &project, &member).await;
            Err(crate::protocol::teams::TeamError::RecipeFromMember { member }.to_string())
        }
        Ok(loaded) => loaded.map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs the setup of `member` of team `team`; returns the `SetupDone` event (the output was sent).
pub(super) async fn run_setup(sink: &EventSink, team: &str, mut member: MemberCopy) -> TeamEvent {
    let name = member.name.clone();
    let done = |result| TeamEvent::SetupDone { team: team.to_string(), agent: name.clone(), result };
    let recipe = match recipe(sink, team, &member.project).await {
        Ok(recipe) => recipe,
        Err(e) => return done(Err(e)),
    };
    if let Some(setup) = recipe.and_then(|r| r.setup) {
        let output = |text: String| Some(TeamEvent::SetupOutput { team: team.to_string(), agent: name.clone(), text });
        if let Err(why) = run_streaming(sink, &setup, in_member(&setup, &member), output).await {
            return done(Err(why));
        }
    }
    member.ready = true;
    let saved = member.clone();
    match tokio::task::spawn_blocking(move || saved.save()).await {
        Ok(Ok(())) => done(Ok(member)),
        Ok(Err(e)) => done(Err(e.to_string())),
        Err(e) => done(Err(e.to_string())),
    }
}

/// Runs the recipe's check in `member`'s copy, where it works (best of N compares them): its
/// result and the last lines it wrote; `None` in the event when the recipe has no check.
pub(super) async fn check_copy(sink: &EventSink, team: &str, member: &MemberCopy) -> TeamEvent {
    let done = |result| TeamEvent::CopyChecked { team: team.into(), agent: member.name.clone(), result };
    let check = match recipe(sink, team, &member.project).await {
        Ok(recipe) => match recipe.and_then(|r| r.check) {
            Some(check) => check,
            None => return done(None),
        },
        Err(e) => return done(Some((Err(e), String::new()))),
    };
    let kept = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let output = {
        let kept = kept.clone();
        move |text: String| {
            if let Ok(mut kept) = kept.lock() {
                kept.push_str(&text);
            }
            None
        }
    };
    let result = run_streaming(sink, &check.command, in_member(&check.command, member), output).await;
    let all = kept.lock().map(|k| k.clone()).unwrap_or_default();
    // What it wrote, without the command's echo.
    let all = all.strip_prefix(&format!("$ {}\n", check.command)).unwrap_or(&all);
    let tail: Vec<&str> = all.lines().rev().take(20).collect();
    let tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
    done(Some((result, tail)))
}

/// Runs the recipe's check in the project after `member`'s merge; `None` when the recipe has none.
/// Returns the `CheckDone` event and, on failure, the end of its output.
pub(super) async fn run_check(
    sink: &EventSink,
    team: &str,
    member: &MemberCopy,
) -> Option<(TeamEvent, Option<String>)> {
    let name = member.name.clone();
    if teams::there::place_of(&member.project).is_some() {
        return check_there(sink, team, member).await;
    }
    let check = match recipe(sink, team, &member.project).await {
        // A check in a scratch copy ran before the merge (see `teams::merge_as_recipe_says`).
        Ok(recipe) => recipe?.check.filter(|c| c.place == crate::model::recipe::CheckPlace::Project)?,
        Err(e) => return Some((TeamEvent::CheckDone { team: team.into(), agent: name, result: Err(e) }, None)),
    };
    let kept = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let output = {
        let (kept, team, name) = (kept.clone(), team.to_string(), name.clone());
        move |text: String| {
            if let Ok(mut kept) = kept.lock() {
                kept.push_str(&text);
            }
            Some(TeamEvent::CheckOutput { team: team.clone(), agent: name.clone(), text })
        }
    };
    sink.send(Event::Team(TeamEvent::CheckOutput { team: team.into(), agent: name.clone(), text: String::new() }))
        .await;
    // Nothing else writes the project while its check runs (the lock is taken off the runtime's
    // threads: it may wait for another merge).
    let (project, what) = (member.project.clone(), format!("checking the project after {name}'s merge"));
    let lock = tokio::task::spawn_blocking(move || ProjectLock::acquire(&project, &what)).await;
    let _lock = match lock {
        Ok(Ok(lock)) => lock,
        Ok(Err(e)) => {
            let done = TeamEvent::CheckDone { team: team.into(), agent: name, result: Err(e.to_string()) };
            return Some((done, None));
        }
        Err(_) => return None,
    };
    let command = here(&check.command, &member.project, &Default::default());
    let result = run_streaming(sink, &check.command, command, output).await;
    let all = kept.lock().map(|k| k.clone()).unwrap_or_default();
    let failed = result.as_ref().err().map(|why| failure_message(member, why, &all, true));
    Some((TeamEvent::CheckDone { team: team.into(), agent: name, result }, failed))
}

/// [`run_check`] for a project on another machine: the check runs there, under the project's
/// lock there; what it wrote comes when it ends.
async fn check_there(sink: &EventSink, team: &str, member: &MemberCopy) -> Option<(TeamEvent, Option<String>)> {
    let (name, project) = (member.name.clone(), member.project.clone());
    let checked = tokio::task::spawn_blocking(move || teams::there::check(&project)).await.ok()??;
    let done = |result| TeamEvent::CheckDone { team: team.into(), agent: name.clone(), result };
    let checked = match checked {
        Ok(Some(checked)) => checked,
        Ok(None) => return None,
        Err(e) => return Some((done(Err(e.to_string())), None)),
    };
    let text = checked.output.clone();
    sink.send(Event::Team(TeamEvent::CheckOutput { team: team.into(), agent: name.clone(), text })).await;
    let result = if checked.ok { Ok(()) } else { Err(checked.why.clone()) };
    let failed = result.as_ref().err().map(|why| failure_message(member, why, &checked.output, true));
    Some((done(result), failed))
}

/// What the member whose merge failed the recipe's check is told: the command, how it failed, the
/// last 40 lines of what it wrote, and whether the merge was applied (it can be undone) or not.
pub(super) fn failure_message(member: &MemberCopy, why: &str, output: &str, applied: bool) -> String {
    let command = crate::runtime::teams::recipe::load(&member.project)
        .ok()
        .flatten()
        .and_then(|r| r.check)
        .map_or_else(String::new, |c| c.command);
    let all = crate::model::ansi::strip_lines(output);
    let lines: Vec<&str> = all.lines().collect();
    let tail = lines[lines.len().saturating_sub(40)..].join("\n");
    let after = if applied {
        "The merge can be undone on the team page. Please fix this in your copy; your work will be merged again."
    } else {
        "It ran in a scratch copy with your work merged: nothing was merged into the project. Please fix this in your copy; your work will be merged again."
    };
    format!(
        "The check after merging your work into the project failed (`{command}`, {why}). The end of its output:\n```\n{tail}\n```\n{after}"
    )
}
