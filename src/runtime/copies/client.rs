//! The near side: a copy service started by a command (`sidekicks serve-copies` here, or through
//! `ssh`, `docker exec -i`, `podman exec -i`, `kubectl exec -i` there), asked one thing at a time.

use std::io::{BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use super::wire::{self, Answer, Header, Request, VERSION, WireError};
use crate::model::merge::Side;
use crate::protocol::teams::{Change, ProviderKind};

/// Where the far side runs, as it said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FarSide {
    /// Its Sidekicks' version.
    pub sidekicks: String,
    /// Its OS.
    pub os: String,
    /// Its CPU architecture.
    pub arch: String,
}

/// Bytes this process sent to and received from copy services (for measures: bytes per merge).
static SENT: AtomicU64 = AtomicU64::new(0);
static RECEIVED: AtomicU64 = AtomicU64::new(0);

/// The bytes sent to and received from every copy service so far.
pub fn traffic() -> (u64, u64) {
    (SENT.load(Ordering::Relaxed), RECEIVED.load(Ordering::Relaxed))
}

/// The far side's stdin, counting.
struct Counted<T>(T);

impl<T: Write> Write for Counted<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        SENT.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl<T: Read> Read for Counted<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        RECEIVED.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A running copy service.
pub struct CopyClient {
    child: Child,
    input: std::io::BufWriter<Counted<ChildStdin>>,
    output: BufReader<Counted<ChildStdout>>,
    /// Where it runs.
    pub far: FarSide,
}

impl CopyClient {
    /// Starts `command` (which runs `sidekicks serve-copies` somewhere) and says hello.
    pub fn start(mut command: Command) -> Result<Self, WireError> {
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn()?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(WireError::Closed);
        };
        let (input, output) = (std::io::BufWriter::new(Counted(input)), BufReader::new(Counted(output)));
        let mut client = Self { child, input, output, far: FarSide::default() };
        wire::send(&mut client.input, &Request::Hello { version: VERSION })?;
        client.input.flush()?;
        match client.answer()? {
            Answer::Hello { version: VERSION, sidekicks, os, arch } => client.far = FarSide { sidekicks, os, arch },
            Answer::Hello { version, .. } => {
                return Err(WireError::Refused(format!("the far side speaks version {version} of the copy protocol")));
            }
            other => return Err(unexpected(other)),
        }
        Ok(client)
    }

    fn ask(&mut self, request: &Request) -> Result<Answer, WireError> {
        wire::send(&mut self.input, request)?;
        self.input.flush()?;
        self.answer()
    }

    fn answer(&mut self) -> Result<Answer, WireError> {
        match wire::receive::<Answer>(&mut self.output)? {
            Answer::Error { message } => Err(WireError::Refused(message)),
            answer => Ok(answer),
        }
    }

    /// Makes a copy of `project` there; its base.
    pub fn make(
        &mut self,
        project: PathBuf,
        copy: PathBuf,
        state: PathBuf,
        (id, name): (&str, &str),
        provider: ProviderKind,
    ) -> Result<String, WireError> {
        let request = Request::Make { project, copy, state, id: id.into(), name: name.into(), provider };
        match self.ask(&request)? {
            Answer::Made { base } => Ok(base),
            other => Err(unexpected(other)),
        }
    }

    /// Makes member `name`'s copy of `project`, a project there (ADR 0039): the project's
    /// canonical path there, the copy's, its state's, and its base.
    pub fn make_there(
        &mut self,
        project: PathBuf,
        (team, folder, id, name): (&str, &str, &str, &str),
        provider: ProviderKind,
    ) -> Result<(PathBuf, PathBuf, PathBuf, String), WireError> {
        let (team, folder, id, name) = (team.into(), folder.into(), id.into(), name.into());
        match self.ask(&Request::MakeThere { project, team, folder, id, name, provider })? {
            Answer::MadeThere { project, copy, state, base } => Ok((project, copy, state, base)),
            other => Err(unexpected(other)),
        }
    }

    /// Does `call` there to the member whose state is `state` there: what the team service gave,
    /// or its error (`Ok(Err(…))`).
    pub fn call(
        &mut self,
        state: PathBuf,
        call: wire::Call,
    ) -> Result<Result<serde_json::Value, crate::protocol::teams::TeamError>, WireError> {
        match self.ask(&Request::Call { state, call })? {
            Answer::Called { result } => Ok(result),
            other => Err(unexpected(other)),
        }
    }

    /// Does `call` there to project `project` there: what it gave, or its error (`Ok(Err(…))`).
    pub fn project_call(
        &mut self,
        project: PathBuf,
        call: wire::ProjectCall,
    ) -> Result<Result<serde_json::Value, crate::protocol::teams::TeamError>, WireError> {
        match self.ask(&Request::Project { project, call })? {
            Answer::Called { result } => Ok(result),
            other => Err(unexpected(other)),
        }
    }

    /// The copy's changes against its base.
    pub fn changes(&mut self, state: PathBuf) -> Result<Vec<Change>, WireError> {
        match self.ask(&Request::Changes { state })? {
            Answer::Changes { changes } => Ok(changes),
            other => Err(unexpected(other)),
        }
    }

    /// What `path` is in the copy, or in its base; checked against its announced size and sha256.
    pub fn read(&mut self, state: PathBuf, path: &str, base: bool) -> Result<Side, WireError> {
        self.read_side(&Request::Read { state, path: path.into(), base }, path)
    }

    /// What `path` is in project `project` there; checked as [`Self::read`] checks it.
    pub fn read_project(&mut self, project: PathBuf, path: &str) -> Result<Side, WireError> {
        self.read_side(&Request::ReadProject { project, path: path.into() }, path)
    }

    fn read_side(&mut self, request: &Request, path: &str) -> Result<Side, WireError> {
        let header = match self.ask(request)? {
            Answer::Side { header } => header,
            other => return Err(unexpected(other)),
        };
        wire::receive_side::<Answer>(&mut self.output, path, header, |m| match m {
            Answer::Chunk { data, z } => Some((data, z)),
            _ => None,
        })
    }

    /// Writes `steps` into the copy, all or nothing.
    pub fn write(&mut self, state: PathBuf, steps: &[(String, Side)]) -> Result<(), WireError> {
        self.write_as(state, steps, false)
    }

    /// Records `steps` as the member's bases of their paths there (not in the copy).
    pub fn rebase(&mut self, state: PathBuf, steps: &[(String, Side)]) -> Result<(), WireError> {
        self.write_as(state, steps, true)
    }

    fn write_as(&mut self, state: PathBuf, steps: &[(String, Side)], rebase: bool) -> Result<(), WireError> {
        let headers: Vec<(String, Header)> = steps.iter().map(|(p, s)| (p.clone(), wire::header_of(s).0)).collect();
        wire::send(&mut self.input, &Request::Write { state, steps: headers, rebase })?;
        for (_, side) in steps {
            wire::send_bytes(&mut self.input, wire::header_of(side).1, |data, z| Request::Chunk { data, z })?;
        }
        self.input.flush()?;
        match self.answer()? {
            Answer::Done => Ok(()),
            other => Err(unexpected(other)),
        }
    }

    /// The paths the copy changed against its original base.
    pub fn paths(&mut self, state: PathBuf) -> Result<Vec<String>, WireError> {
        match self.ask(&Request::Paths { state })? {
            Answer::Paths { paths } => Ok(paths),
            other => Err(unexpected(other)),
        }
    }

    /// Which of `paths` (each with whether it is deleted) cannot be written into the copy.
    pub fn obstacles(&mut self, state: PathBuf, paths: Vec<(String, bool)>) -> Result<Vec<String>, WireError> {
        match self.ask(&Request::Obstacles { state, paths })? {
            Answer::Paths { paths } => Ok(paths),
            other => Err(unexpected(other)),
        }
    }

    /// Makes a member's copy there from `entries` (read one at a time; the first that cannot be
    /// read ends the stream and is the error, and what was made there is discarded): where the
    /// copy and its state are there.
    pub fn push(
        &mut self,
        (team, folder, id, name): (&str, &str, &str, &str),
        entries: impl Iterator<Item = Result<(String, Side), String>>,
    ) -> Result<(PathBuf, PathBuf), WireError> {
        let start = Request::Receive { team: team.into(), folder: folder.into(), id: id.into(), name: name.into() };
        wire::send(&mut self.input, &start)?;
        let mut failed = None;
        for entry in entries {
            let (path, side) = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            let (header, bytes) = wire::header_of(&side);
            wire::send(&mut self.input, &Request::Entry { path, header })?;
            wire::send_bytes(&mut self.input, bytes, |data, z| Request::Chunk { data, z })?;
        }
        wire::send(&mut self.input, &Request::End)?;
        self.input.flush()?;
        let (copy, state) = match self.answer()? {
            Answer::Received { copy, state } => (copy, state),
            other => return Err(unexpected(other)),
        };
        match failed {
            None => Ok((copy, state)),
            Some(why) => {
                let _ = self.discard(state);
                Err(WireError::Refused(why))
            }
        }
    }

    /// Removes the copy and its state there.
    pub fn discard(&mut self, state: PathBuf) -> Result<(), WireError> {
        match self.ask(&Request::Discard { state })? {
            Answer::Done => Ok(()),
            other => Err(unexpected(other)),
        }
    }
}

impl Drop for CopyClient {
    fn drop(&mut self) {
        // Its stdin closes with the client: the far side ends on its own; it is waited for.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unexpected(answer: Answer) -> WireError {
    WireError::Garbled(format!("an answer that does not fit the question: {answer:?}"))
}
