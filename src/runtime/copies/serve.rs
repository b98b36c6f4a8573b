//! The far side: `sidekicks serve-copies` answers the near side's requests on stdin/stdout until
//! stdin closes. Each member is its state folder there (`member.json`, as a local member's), so
//! the same code makes, reads and writes copies whichever side it runs on.

use std::io::{BufRead, Write};
use std::path::Path;

use super::wire::{self, Answer, Request, VERSION, WireError};
use crate::model::merge::Side;
use crate::runtime::teams::journal::Step;
use crate::runtime::teams::{MemberCopy, TeamError};

/// Serves requests from `input` to `output` until `input` ends. The first must be `Hello` with
/// this version.
pub fn serve(input: &mut impl BufRead, output: &mut impl Write) -> Result<(), WireError> {
    match wire::receive::<Request>(input)? {
        Request::Hello { version } if version == VERSION => {
            let hello = Answer::Hello {
                version: VERSION,
                sidekicks: env!("CARGO_PKG_VERSION").to_string(),
                os: std::env::consts::OS.to_string(),
                arch: std::env::consts::ARCH.to_string(),
            };
            wire::send(output, &hello)?;
        }
        Request::Hello { version } => {
            let message = format!("this Sidekicks speaks version {VERSION} of the copy protocol, not {version}");
            wire::send(output, &Answer::Error { message: message.clone() })?;
            return Err(WireError::Refused(message));
        }
        _ => return Err(WireError::Garbled("the first message is not hello".into())),
    }
    output.flush()?;
    loop {
        let request = match wire::receive::<Request>(input) {
            Err(WireError::Closed) => return Ok(()),
            other => other?,
        };
        answer(request, input, output)?;
        output.flush()?;
    }
}

/// Answers one request (a refusal in words is an answer, not an end).
fn answer(request: Request, input: &mut impl BufRead, output: &mut impl Write) -> Result<(), WireError> {
    use crate::runtime::teams;
    match request {
        Request::Hello { .. } | Request::Chunk { .. } | Request::Entry { .. } | Request::End => {
            Err(WireError::Garbled("a hello, a chunk or a copy's file where a request was expected".into()))
        }
        Request::Receive { team, folder, id, name } => {
            let received = super::receive::receive(input, (&team, &folder, &id, &name))?;
            reply(output, received, |m| Answer::Received { copy: m.copy, state: m.state })
        }
        Request::Paths { state } => {
            let paths = member(&state).and_then(|m| m.provider().changed_paths(&m));
            reply(output, paths, |paths| Answer::Paths { paths })
        }
        Request::Obstacles { state, paths } => reply(output, obstacles(&state, paths), |paths| Answer::Paths { paths }),
        Request::Make { project, copy, state, id, name, provider } => {
            let made = std::fs::create_dir_all(&state)
                .map_err(|e| TeamError::Io { path: state.display().to_string(), message: e.to_string() })
                .and_then(|()| provider.provider().create(&project, &copy, &state, &id, &name))
                .and_then(|member| member.save().map(|()| member));
            reply(output, made, |m| Answer::Made { base: m.base })
        }
        Request::Changes { state } => {
            let changes = member(&state).and_then(|m| teams::changes(&m));
            reply(output, changes, |changes| Answer::Changes { changes })
        }
        Request::Read { state, path, base } => {
            let side = member(&state).and_then(|m| match base {
                true => teams::read_bases(&m, std::slice::from_ref(&path)).map(|mut s| s.remove(0)),
                false => teams::read_side(&m.copy, &path),
            });
            send_side(output, side)
        }
        Request::Write { state, steps, rebase } => write(input, output, &state, steps, rebase),
        Request::MakeThere { project, team, folder, id, name, provider } => {
            let made = super::there::make(&project, (&team, &folder, &id, &name), provider);
            reply(output, made, |m| Answer::MadeThere {
                project: m.project,
                copy: m.copy,
                state: m.state,
                base: m.base,
            })
        }
        Request::ReadProject { project, path } => {
            // A project here is a folder of this machine.
            let side = match crate::model::project_at::far(&project) {
                Some(_) => Err(TeamError::BadPath(project.display().to_string())),
                None => teams::read_side(&project, &path),
            };
            send_side(output, side)
        }
        Request::Project { project, call } => {
            wire::send(output, &Answer::Called { result: super::there::project_call(&project, call) })
        }
        Request::Call { state, call } => {
            wire::send(output, &Answer::Called { result: super::there::call(&state, call) })
        }
        Request::Discard { state } => reply(output, discard(&state), |()| Answer::Done),
    }
}

/// Sends what `result` gave as `ok` makes it an answer, or the refusal in words.
fn reply<T>(
    output: &mut impl Write,
    result: Result<T, TeamError>,
    ok: impl FnOnce(T) -> Answer,
) -> Result<(), WireError> {
    match result {
        Ok(value) => wire::send(output, &ok(value)),
        Err(e) => wire::send(output, &Answer::Error { message: e.to_string() }),
    }
}

/// Sends a side: its header, then its bytes as chunks.
fn send_side(output: &mut impl Write, side: Result<Side, TeamError>) -> Result<(), WireError> {
    match side {
        Ok(side) => {
            let (header, bytes) = wire::header_of(&side);
            wire::send(output, &Answer::Side { header })?;
            wire::send_bytes(output, bytes, |data, z| Answer::Chunk { data, z })
        }
        Err(e) => wire::send(output, &Answer::Error { message: e.to_string() }),
    }
}

/// Which of `paths` (each with whether it is deleted) cannot be written into the member's copy.
fn obstacles(state: &Path, paths: Vec<(String, bool)>) -> Result<Vec<String>, TeamError> {
    let m = member(state)?;
    let steps: Vec<Step> = paths
        .into_iter()
        .map(|(path, deleted)| Step {
            path,
            side: if deleted { Side::Absent } else { Side::File { content: Vec::new(), executable: false } },
        })
        .collect();
    Ok(crate::runtime::teams::journal::obstacles(&m.copy, &steps))
}

/// Reads the files of a `write` and writes them into the copy (or, `rebase`, records them as
/// the member's bases), all or nothing.
fn write(
    input: &mut impl BufRead,
    output: &mut impl Write,
    state: &Path,
    steps: Vec<(String, wire::Header)>,
    rebase: bool,
) -> Result<(), WireError> {
    // Every file's bytes are read (the stream stays in step) before anything is written.
    let mut sides = Vec::with_capacity(steps.len());
    for (path, header) in steps {
        let side = wire::receive_side::<Request>(input, &path, header, |m| match m {
            Request::Chunk { data, z } => Some((data, z)),
            _ => None,
        })?;
        sides.push(Step { path, side });
    }
    let written = member(state).and_then(|m| match rebase {
        true => {
            let sides: Vec<(String, Side)> = sides.into_iter().map(|s| (s.path, s.side)).collect();
            crate::runtime::teams::rebase_paths(&m, &sides)
        }
        false => crate::runtime::teams::review::write_copy(&m, &sides),
    });
    reply(output, written, |()| Answer::Done)
}

/// Removes the member's copy and state there; a copy already gone is discarded all the same (its
/// state goes), and the team's folders go with its last member.
fn discard(state: &Path) -> Result<(), TeamError> {
    let m = MemberCopy::load(state)?;
    m.provider().discard(&m)?;
    // `remove_dir` takes only empty folders.
    let states = state.parent();
    for dir in [states, states.and_then(Path::parent)].into_iter().flatten() {
        let _ = std::fs::remove_dir(dir);
    }
    Ok(())
}

/// The member whose state folder is `state` there.
fn member(state: &Path) -> Result<MemberCopy, TeamError> {
    let member = MemberCopy::load(state)?;
    member.ensure_copy()?;
    Ok(member)
}
