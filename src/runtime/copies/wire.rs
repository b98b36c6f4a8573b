//! The copy service's messages and how they are framed (see the module above).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::model::merge::Side;
use crate::protocol::teams::{Change, ProviderKind};
use crate::runtime::teams::MAX_FILE;

/// The protocol's version: both sides say theirs first, and a difference is refused in words.
pub const VERSION: u32 = 2;

/// The most bytes of a file in one chunk.
pub const CHUNK: usize = 256 * 1024;

/// The longest line read (a chunk in base64 and its framing): a longer one is refused, not kept.
pub const MAX_LINE: usize = CHUNK * 4 / 3 + 4096;

/// What the near side asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The first message: the version spoken.
    Hello {
        /// The protocol's version.
        version: u32,
    },
    /// Make a copy of `project` at `copy` for member `name` (state in `state`).
    Make {
        /// The project there.
        project: PathBuf,
        /// Where the copy goes.
        copy: PathBuf,
        /// The member's state folder there.
        state: PathBuf,
        /// The member's id.
        id: String,
        /// The member's name.
        name: String,
        /// How the copy is made.
        provider: ProviderKind,
    },
    /// The copy's changes against its base.
    Changes {
        /// The member's state folder there.
        state: PathBuf,
    },
    /// What `path` is in the copy (`base`: in its base).
    Read {
        /// The member's state folder there.
        state: PathBuf,
        /// The path, relative.
        path: String,
        /// At the base, not now.
        base: bool,
    },
    /// Write these paths into the copy, all or nothing; each file's bytes follow as chunks, in
    /// order.
    Write {
        /// The member's state folder there.
        state: PathBuf,
        /// The paths and what they become.
        steps: Vec<(String, Header)>,
        /// Not into the copy: these are the member's bases of the paths from now on (a member
        /// whose project is there: its restored work's bases, ADR 0039).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rebase: bool,
    },
    /// Remove the copy and its state.
    Discard {
        /// The member's state folder there.
        state: PathBuf,
    },
    /// The paths the copy changed against its original base (the near side keeps what was
    /// rebased since).
    Paths {
        /// The member's state folder there.
        state: PathBuf,
    },
    /// Which of these paths could not be written into the copy (a file or link where a folder
    /// of theirs is, a folder in the way): `true` for a path to delete.
    Obstacles {
        /// The member's state folder there.
        state: PathBuf,
        /// The paths, each with whether it is deleted.
        paths: Vec<(String, bool)>,
    },
    /// Make a member's copy there from the files that follow (`entry` messages, each file's
    /// bytes as chunks, then `end`), in the far side's own teams folder.
    Receive {
        /// The team's id (its folder there).
        team: String,
        /// The member's folder name.
        folder: String,
        /// The member's id.
        id: String,
        /// The member's name.
        name: String,
    },
    /// Make a member's copy of a project that is there (ADR 0039), in the far side's own teams
    /// folder, by the far side's own provider (a git worktree, a copy).
    MakeThere {
        /// The project there (relative to the far side's folder when not absolute).
        project: PathBuf,
        /// The team's id (its folder there).
        team: String,
        /// The member's folder name.
        folder: String,
        /// The member's id.
        id: String,
        /// The member's name.
        name: String,
        /// How the copy is made.
        provider: ProviderKind,
    },
    /// What `path` is in a project there (ADR 0039): its bytes follow as chunks.
    ReadProject {
        /// The project there.
        project: PathBuf,
        /// The path, relative.
        path: String,
    },
    /// Do there what the team service does to a project there (ADR 0039).
    Project {
        /// The project there.
        project: PathBuf,
        /// What to do.
        call: ProjectCall,
    },
    /// Do there what the team service does to a member whose project is there (ADR 0039).
    Call {
        /// The member's state folder there.
        state: PathBuf,
        /// What to do.
        call: Call,
    },
    /// One path of a copy being received; a file's bytes follow as chunks.
    Entry {
        /// The path, relative.
        path: String,
        /// What it is.
        header: Header,
    },
    /// The copy being received is complete.
    End,
    /// Some of a file's bytes.
    Chunk {
        /// Base64.
        data: String,
        /// The bytes are deflated (raw DEFLATE; at most a chunk once inflated).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        z: bool,
    },
}

/// What the far side answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    /// Its version and where it runs.
    Hello {
        /// The protocol's version.
        version: u32,
        /// Its Sidekicks' version.
        sidekicks: String,
        /// `uname`'s OS, as Rust names it (`linux`).
        os: String,
        /// Its CPU architecture (`x86_64`).
        arch: String,
    },
    /// The copy was made: its base.
    Made {
        /// The base commit (empty for a plain copy).
        base: String,
    },
    /// The copy's changes.
    Changes {
        /// The changes.
        changes: Vec<Change>,
    },
    /// What a path is (a file's bytes follow as chunks).
    Side {
        /// Its header.
        header: Header,
    },
    /// Some of a file's bytes.
    Chunk {
        /// Base64.
        data: String,
        /// The bytes are deflated (raw DEFLATE; at most a chunk once inflated).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        z: bool,
    },
    /// Done.
    Done,
    /// Paths.
    Paths {
        /// The paths.
        paths: Vec<String>,
    },
    /// A copy was received: where it and its state are there.
    Received {
        /// The copy.
        copy: PathBuf,
        /// The member's state folder.
        state: PathBuf,
    },
    /// A copy of a project there was made.
    MadeThere {
        /// The project there (its canonical path).
        project: PathBuf,
        /// The copy.
        copy: PathBuf,
        /// The member's state folder.
        state: PathBuf,
        /// The base commit (empty for a plain copy).
        base: String,
    },
    /// What a call gave: its value as the team service gives it, or the team service's error.
    Called {
        /// The value, or why not.
        result: Result<serde_json::Value, crate::protocol::teams::TeamError>,
    },
    /// Why not, in words.
    Error {
        /// The words.
        message: String,
    },
}

/// What the team service does to a member whose project is there, done there under the
/// project's lock there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum Call {
    /// Merge its work (all, or these paths) as the project's recipe says: a `MergeReport`.
    Merge {
        /// The paths, or all.
        selected: Option<Vec<String>>,
    },
    /// Undo its last merge: the paths put back.
    Undo,
    /// Merge these changes of one file (as shown to the person): a `MergeReport`.
    AcceptHunks {
        /// The file.
        path: String,
        /// The changes.
        hunks: Vec<crate::model::review::Hunk>,
    },
    /// Take one change of a file out of the copy.
    RejectHunk {
        /// The file.
        path: String,
        /// The change.
        hunk: crate::model::review::Hunk,
    },
    /// Commit the copy's work as a new branch of the project: the commit.
    Branch {
        /// The branch.
        branch: String,
        /// The commit's message.
        message: String,
    },
    /// Take these changed files out of the copy (back to its base).
    RejectFiles {
        /// The changes.
        changes: Vec<Change>,
    },
}

/// What the team service does to a project there (ADR 0039), done there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum ProjectCall {
    /// The text of its team recipe (`null`: none), refused as the recipe's loading refuses it (a
    /// recipe a member wrote and the person has not accepted).
    Recipe,
    /// Accept its recipe as it is now: the member whose merge wrote it, if any.
    AcceptRecipe,
    /// What its recipe would run, whatever its mark.
    CommandsToAccept,
    /// Run its recipe's check in the project, under the project's lock: `null` when it has
    /// none, else `{ok, why, output}`.
    Check,
    /// Merge changes chosen from several members' copies (state there, file, change), all or
    /// none, under the project's lock: each member's `MergeReport`.
    TakeHunks {
        /// The picks.
        picks: Vec<(PathBuf, String, crate::model::review::Hunk)>,
    },
}

/// What a path is, without a file's bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Header {
    /// Not there.
    Absent,
    /// A file: its size and sha256 (hex); its bytes follow.
    File {
        /// Bytes.
        size: u64,
        /// sha256, hex.
        sha256: String,
        /// The executable bit.
        executable: bool,
    },
    /// A symbolic link (never followed).
    Symlink {
        /// Where it points.
        target: String,
    },
}

/// Errors of the wire, in words.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// Reading or writing the stream failed.
    #[error("the copy service's connection: {0}")]
    Io(#[from] std::io::Error),
    /// The other side said something that is not a message of this protocol.
    #[error("the copy service sent what is not a message of its protocol: {0}")]
    Garbled(String),
    /// The other side ended.
    #[error("the copy service's connection was closed")]
    Closed,
    /// A file's bytes were not what its header said.
    #[error("{path} arrived damaged (its size or sha256 is not what was announced)")]
    Damaged {
        /// The path.
        path: String,
    },
    /// The other side refused, in its words.
    #[error("{0}")]
    Refused(String),
}

/// sha256 of `bytes`, hex.
pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The header of `side`, and the bytes to send after it.
pub fn header_of(side: &Side) -> (Header, &[u8]) {
    match side {
        Side::Absent => (Header::Absent, &[]),
        Side::File { content, executable } => (
            Header::File { size: content.len() as u64, sha256: sha256(content), executable: *executable },
            content.as_slice(),
        ),
        Side::Symlink { target } => (Header::Symlink { target: target.clone() }, &[]),
    }
}

/// Writes one message as a line.
pub fn send(out: &mut impl Write, message: &impl Serialize) -> Result<(), WireError> {
    let mut line = serde_json::to_vec(message).map_err(|e| WireError::Garbled(e.to_string()))?;
    line.push(b'\n');
    out.write_all(&line)?;
    Ok(())
}

/// Writes `bytes` as chunk messages made by `chunk` (its data in base64, and whether it is
/// deflated: each piece is, when that makes it smaller).
pub fn send_bytes<M: Serialize>(
    out: &mut impl Write,
    bytes: &[u8],
    chunk: impl Fn(String, bool) -> M,
) -> Result<(), WireError> {
    use base64::engine::general_purpose::STANDARD;
    for piece in bytes.chunks(CHUNK) {
        let deflated = deflate(piece).filter(|d| d.len() < piece.len());
        let message = match &deflated {
            Some(d) => chunk(STANDARD.encode(d), true),
            None => chunk(STANDARD.encode(piece), false),
        };
        send(out, &message)?;
    }
    Ok(())
}

/// `piece` deflated (fast), or `None` should that fail.
fn deflate(piece: &[u8]) -> Option<Vec<u8>> {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(piece).ok()?;
    encoder.finish().ok()
}

/// A deflated piece inflated, refused when it would be more than a chunk (a small message that
/// inflates to gigabytes is not read).
fn inflate(piece: &[u8], path: &str) -> Result<Vec<u8>, WireError> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(piece)
        .take(CHUNK as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|_| WireError::Damaged { path: path.into() })?;
    if out.len() > CHUNK {
        return Err(WireError::Damaged { path: path.into() });
    }
    Ok(out)
}

/// Reads one message; a line longer than [`MAX_LINE`] or not a message is refused.
pub fn receive<M: for<'de> Deserialize<'de>>(input: &mut impl BufRead) -> Result<M, WireError> {
    let mut line = Vec::new();
    let read = std::io::Read::take(&mut *input, MAX_LINE as u64 + 1).read_until(b'\n', &mut line)?;
    if read == 0 {
        return Err(WireError::Closed);
    }
    if line.len() > MAX_LINE {
        return Err(WireError::Garbled(format!("a line longer than {MAX_LINE} bytes")));
    }
    serde_json::from_slice(&line).map_err(|e| WireError::Garbled(e.to_string()))
}

/// Reads the bytes of a file announced by `header` (chunks taken out by `data`: their base64
/// and whether they are deflated), checks their size and sha256, and gives the side.
pub fn receive_side<M: for<'de> Deserialize<'de>>(
    input: &mut impl BufRead,
    path: &str,
    header: Header,
    data: impl Fn(M) -> Option<(String, bool)>,
) -> Result<Side, WireError> {
    let (size, expected, executable) = match header {
        Header::Absent => return Ok(Side::Absent),
        Header::Symlink { target } => return Ok(Side::Symlink { target }),
        Header::File { size, sha256, executable } => (size, sha256, executable),
    };
    if size > MAX_FILE {
        return Err(WireError::Refused(format!("{path} is {size} bytes, more than the {MAX_FILE} a copy moves")));
    }
    let mut content = Vec::with_capacity(size as usize);
    while (content.len() as u64) < size {
        let Some((text, deflated)) = data(receive(input)?) else {
            return Err(WireError::Garbled(format!("{path}: a file's bytes were cut short")));
        };
        let piece = base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map_err(|e| WireError::Garbled(e.to_string()))?;
        let piece = if deflated { inflate(&piece, path)? } else { piece };
        if piece.len() > CHUNK || content.len() as u64 + piece.len() as u64 > size {
            return Err(WireError::Damaged { path: path.into() });
        }
        content.extend_from_slice(&piece);
    }
    if sha256(&content) != expected {
        return Err(WireError::Damaged { path: path.into() });
    }
    Ok(Side::File { content, executable })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side_back(message_lines: &[u8], header: Header) -> Result<Side, WireError> {
        let mut input = message_lines;
        receive_side::<Request>(&mut input, "f.txt", header, |m| match m {
            Request::Chunk { data, z } => Some((data, z)),
            _ => None,
        })
    }

    #[test]
    fn files_travel_deflated_when_smaller_and_come_back_whole() {
        let text = "fn main() { println!(\"hello\"); }\n".repeat(20_000);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..CHUNK + 77)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        for bytes in [text.as_bytes(), noise.as_slice()] {
            let side = Side::File { content: bytes.to_vec(), executable: false };
            let (header, content) = header_of(&side);
            let mut out = Vec::new();
            send_bytes(&mut out, content, |data, z| Request::Chunk { data, z }).unwrap();
            assert_eq!(side_back(&out, header).unwrap(), side);
            let deflated =
                out.split(|b| *b == b'\n').filter(|l| !l.is_empty()).any(|l| l.windows(6).any(|w| w == b"\"z\":tr"));
            assert_eq!(deflated, bytes == text.as_bytes(), "text is deflated, noise is not");
        }
        let text_sent = {
            let mut out = Vec::new();
            send_bytes(&mut out, text.as_bytes(), |data, z| Request::Chunk { data, z }).unwrap();
            out.len()
        };
        assert!(text_sent * 10 < text.len(), "{text_sent} bytes sent for {}", text.len());
    }

    #[test]
    fn a_small_message_that_inflates_past_a_chunk_is_refused() {
        let zeros = vec![0u8; 64 * CHUNK];
        let bomb = deflate(&zeros).unwrap();
        assert!(bomb.len() < CHUNK);
        let header = Header::File { size: zeros.len() as u64, sha256: sha256(&zeros), executable: false };
        let mut out = Vec::new();
        send(&mut out, &Request::Chunk { data: base64::engine::general_purpose::STANDARD.encode(&bomb), z: true })
            .unwrap();
        assert!(matches!(side_back(&out, header), Err(WireError::Damaged { .. })));
    }
}
