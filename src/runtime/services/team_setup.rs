//! The recipe's setup command in a new member's copy (`sh -c`, in the copy, with the member's
//! variables): its output goes to the team page as it comes (`TeamEvent::SetupOutput`), and the
//! member starts working in its copy only when the command succeeds (`SetupDone` with the member,
//! now ready: the front door moves it in). A failure leaves the member out of its copy, with the
//! output shown and "Run setup again".

use tokio::io::AsyncReadExt;

use crate::protocol::Event;
use crate::protocol::teams::{MemberCopy, TeamEvent};
use crate::runtime::events::EventSink;
use crate::runtime::teams;

/// Runs the setup of `member` of team `team`; returns the `SetupDone` event (the output was sent).
pub(super) async fn run_setup(sink: &EventSink, team: &str, mut member: MemberCopy) -> TeamEvent {
    let name = member.name.clone();
    let done = |result| TeamEvent::SetupDone { team: team.to_string(), agent: name.clone(), result };
    let project = member.project.clone();
    let recipe = match tokio::task::spawn_blocking(move || teams::recipe::load(&project)).await {
        Ok(Ok(recipe)) => recipe,
        Ok(Err(e)) => return done(Err(e.to_string())),
        Err(e) => return done(Err(e.to_string())),
    };
    if let Some(setup) = recipe.and_then(|r| r.setup) {
        let output = |text: String| TeamEvent::SetupOutput { team: team.to_string(), agent: name.clone(), text };
        sink.send(Event::Team(output(format!("$ {setup}\n")))).await;
        let spawned = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(&setup)
            .current_dir(&member.copy)
            .envs(&member.env)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => return done(Err(e.to_string())),
        };
        let (mut out, mut err) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
        let (mut a, mut b) = ([0u8; 4096], [0u8; 4096]);
        let (mut out_open, mut err_open) = (true, true);
        // Until the command exits (not until its pipes close: a server it started keeps them).
        let status = loop {
            tokio::select! {
                n = out.read(&mut a), if out_open => match n {
                    Ok(0) | Err(_) => out_open = false,
                    Ok(n) => sink.send(Event::Team(output(String::from_utf8_lossy(&a[..n]).into_owned()))).await,
                },
                n = err.read(&mut b), if err_open => match n {
                    Ok(0) | Err(_) => err_open = false,
                    Ok(n) => sink.send(Event::Team(output(String::from_utf8_lossy(&b[..n]).into_owned()))).await,
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
                    Ok(Ok(n)) if n > 0 => {
                        sink.send(Event::Team(output(String::from_utf8_lossy(&buf[..n]).into_owned()))).await
                    }
                    _ => break,
                }
            }
        }
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                let why = s.code().map_or_else(|| "it was killed".to_string(), |c| format!("exit code {c}"));
                return done(Err(why));
            }
            Err(e) => return done(Err(e.to_string())),
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
