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
    let refused = |output: &mut dyn Write, e: TeamError| {
        let mut output = output;
        wire::send(&mut output, &Answer::Error { message: e.to_string() })
    };
    match request {
        Request::Hello { .. } | Request::Chunk { .. } | Request::Entry { .. } | Request::End => {
            Err(WireError::Garbled("a hello, a chunk or a copy's file where a request was expected".into()))
        }
        Request::Receive { team, folder, id, name } => {
            match super::receive::receive(input, (&team, &folder, &id, &name))? {
                Ok(member) => wire::send(output, &Answer::Received { copy: member.copy, state: member.state }),
                Err(e) => refused(output, e),
            }
        }
        Request::Paths { state } => match member(&state).and_then(|m| m.provider().changed_paths(&m)) {
            Ok(paths) => wire::send(output, &Answer::Paths { paths }),
            Err(e) => refused(output, e),
        },
        Request::Obstacles { state, paths } => match member(&state) {
            Ok(m) => {
                let steps: Vec<Step> = paths
                    .into_iter()
                    .map(|(path, deleted)| Step {
                        path,
                        side: if deleted {
                            Side::Absent
                        } else {
                            Side::File { content: Vec::new(), executable: false }
                        },
                    })
                    .collect();
                let paths = crate::runtime::teams::journal::obstacles(&m.copy, &steps);
                wire::send(output, &Answer::Paths { paths })
            }
            Err(e) => refused(output, e),
        },
        Request::Make { project, copy, state, id, name, provider } => {
            let made = std::fs::create_dir_all(&state)
                .map_err(|e| TeamError::Io { path: state.display().to_string(), message: e.to_string() })
                .and_then(|()| provider.provider().create(&project, &copy, &state, &id, &name))
                .and_then(|member| member.save().map(|()| member));
            match made {
                Ok(member) => wire::send(output, &Answer::Made { base: member.base }),
                Err(e) => refused(output, e),
            }
        }
        Request::Changes { state } => match member(&state).and_then(|m| crate::runtime::teams::changes(&m)) {
            Ok(changes) => wire::send(output, &Answer::Changes { changes }),
            Err(e) => refused(output, e),
        },
        Request::Read { state, path, base } => {
            let side = member(&state).and_then(|m| match base {
                true => crate::runtime::teams::read_bases(&m, std::slice::from_ref(&path)).map(|mut s| s.remove(0)),
                false => crate::runtime::teams::read_side(&m.copy, &path),
            });
            match side {
                Ok(side) => {
                    let (header, bytes) = wire::header_of(&side);
                    wire::send(output, &Answer::Side { header })?;
                    wire::send_bytes(output, bytes, |data, z| Answer::Chunk { data, z })
                }
                Err(e) => refused(output, e),
            }
        }
        Request::Write { state, steps, rebase } => {
            // Every file's bytes are read (the stream stays in step) before anything is written.
            let mut sides = Vec::with_capacity(steps.len());
            for (path, header) in steps {
                let side = wire::receive_side::<Request>(input, &path, header, |m| match m {
                    Request::Chunk { data, z } => Some((data, z)),
                    _ => None,
                })?;
                sides.push(Step { path, side });
            }
            let written = member(&state).and_then(|m| match rebase {
                true => {
                    let sides: Vec<(String, Side)> = sides.into_iter().map(|s| (s.path, s.side)).collect();
                    crate::runtime::teams::rebase_paths(&m, &sides)
                }
                false => crate::runtime::teams::review::write_copy(&m, &sides),
            });
            match written {
                Ok(()) => wire::send(output, &Answer::Done),
                Err(e) => refused(output, e),
            }
        }
        Request::MakeThere { project, team, folder, id, name, provider } => {
            match super::there::make(&project, (&team, &folder, &id, &name), provider) {
                Ok(m) => wire::send(
                    output,
                    &Answer::MadeThere { project: m.project, copy: m.copy, state: m.state, base: m.base },
                ),
                Err(e) => refused(output, e),
            }
        }
        Request::ReadProject { project, path } => {
            // A project here is a folder of this machine.
            let side = match crate::model::project_at::far(&project) {
                Some(_) => Err(TeamError::BadPath(project.display().to_string())),
                None => crate::runtime::teams::read_side(&project, &path),
            };
            match side {
                Ok(side) => {
                    let (header, bytes) = wire::header_of(&side);
                    wire::send(output, &Answer::Side { header })?;
                    wire::send_bytes(output, bytes, |data, z| Answer::Chunk { data, z })
                }
                Err(e) => refused(output, e),
            }
        }
        Request::Project { project, call } => {
            wire::send(output, &Answer::Called { result: super::there::project_call(&project, call) })
        }
        Request::Call { state, call } => {
            wire::send(output, &Answer::Called { result: super::there::call(&state, call) })
        }
        // A copy already gone is discarded all the same (its state goes).
        Request::Discard { state } => match MemberCopy::load(&state).and_then(|m| m.provider().discard(&m)) {
            Ok(()) => {
                // The team's folders there go with its last member (`remove_dir` takes only empty ones).
                let states = state.parent();
                for dir in [states, states.and_then(Path::parent)].into_iter().flatten() {
                    let _ = std::fs::remove_dir(dir);
                }
                wire::send(output, &Answer::Done)
            }
            Err(e) => refused(output, e),
        },
    }
}

/// The member whose state folder is `state` there.
fn member(state: &Path) -> Result<MemberCopy, TeamError> {
    let member = MemberCopy::load(state)?;
    member.ensure_copy()?;
    Ok(member)
}
