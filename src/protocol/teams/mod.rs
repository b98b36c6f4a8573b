//! The plain data of teams that crosses between the runtime and the app: a member's copy, a team's
//! record, the changes in a copy, a merge's report, and what can go wrong. (How copies are made
//! and merged is in `runtime::teams`.)

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::merge::ConflictKind;

mod command;
pub mod compare;
mod event;
mod tasks;

pub use command::{Pick, TeamCommand};
pub use event::TeamEvent;
pub use tasks::{Task, TaskState, TaskWork};

/// The kinds of isolation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// A detached git worktree.
    GitWorktree,
    /// A copy of the sources.
    Copy,
    /// A copy-on-write clone (reflinks).
    Clone,
}

/// A member's isolated copy, as stored (`member.json` in its state folder, and in SQLite).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberCopy {
    /// Unique id.
    pub id: String,
    /// The member's name (conflict markers say it): an agent of its own, e.g. `Demo · squad`.
    pub name: String,
    /// The agent definition it is an instance of (its name in the config). Empty for copies made
    /// before members were agents of their own (migrated at load: ADR 0028).
    #[serde(default)]
    pub agent: String,
    /// The person's project folder (the main folder).
    pub project: PathBuf,
    /// The member's copy.
    pub copy: PathBuf,
    /// The member's private state: its base, the merge journal.
    pub state: PathBuf,
    /// Which provider made it.
    pub provider: ProviderKind,
    /// The base: the git commit for a worktree; empty for copies (the base is in `state/base`).
    pub base: String,
    /// The dependency folders linked or cloned into the copy.
    pub dependencies: Vec<String>,
    /// Its number in the team (from 1; 0 for copies made before numbers): its block of ports.
    #[serde(default)]
    pub number: usize,
    /// Variables its processes get (its ports, from the project's recipe).
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The recipe's setup command succeeded in the copy (or there is none): the member works there.
    #[serde(default = "ready_by_default")]
    pub ready: bool,
    /// The member's own container, when its agent runs in one (the copy is bound into it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<MemberContainer>,
    /// Where the copy is when it is not on this computer (`copy` is then its path there): the
    /// copy service there keeps it (ADR 0037).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far: Option<FarCopy>,
}

/// A member's copy kept by the copy service where its agent runs: another machine, a container,
/// a sandbox, a pod.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FarCopy {
    /// The agent's runtime there, as the config names it (`ssh`, `container`, `podman`, `sbx`,
    /// `kubectl`).
    pub runtime: String,
    /// The host, container, sandbox or pod.
    pub target: String,
    /// The member's state folder there (its base).
    pub state: PathBuf,
}

impl MemberCopy {
    /// Where the copy is, in words: its folder, after its place when it is kept elsewhere
    /// (`ssh build-1:/home/ci/…`).
    pub fn copy_shown(&self) -> String {
        match &self.far {
            Some(far) => format!("{}:{}", far.place(), self.copy.display()),
            None => self.copy.display().to_string(),
        }
    }
}

impl FarCopy {
    /// The place in words: `ssh build-1`, `kubectl web-0`.
    pub fn place(&self) -> String {
        format!("{} {}", self.runtime, self.target)
    }
}

/// A team member as the agent manager runs it: the agent definition it is an instance of, and
/// where it works.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberAgent {
    /// The agent definition (its name in the config).
    pub from: String,
    /// Its team's id.
    pub team: String,
    /// Its copy.
    pub workspace: PathBuf,
    /// Variables added to its environment (its ports).
    pub env: std::collections::BTreeMap<String, String>,
    /// Its own container, for an agent that runs in one: it runs there, its workspace path
    /// unchanged (the copy is bound at it).
    pub container: Option<String>,
    /// Its copy is kept where its agent runs (`workspace` is its path there).
    pub far: bool,
}

/// A team member's own container: made from its agent's container, with the member's copy bound
/// at the agent's workspace path (ADR 0025).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberContainer {
    /// `docker` or `podman`.
    pub engine: ContainerEngine,
    /// Its name.
    pub name: String,
    /// The agent's own container it was made from.
    pub from: String,
    /// Where the copy is bound inside it (the agent's workspace path).
    pub workspace_path: PathBuf,
}

/// The container engines a member's container can be made with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContainerEngine {
    /// Docker.
    Docker,
    /// Podman.
    Podman,
}

impl ContainerEngine {
    /// The program.
    pub fn program(self) -> &'static str {
        match self {
            ContainerEngine::Docker => "docker",
            ContainerEngine::Podman => "podman",
        }
    }
}

fn ready_by_default() -> bool {
    true
}

/// What kind of change a member made to a path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChangeKind {
    /// New.
    Added,
    /// Content changed.
    Modified,
    /// Removed.
    Deleted,
    /// Moved (same content) from another path.
    Renamed {
        /// Where it was.
        from: String,
    },
    /// Only the executable bit changed.
    Mode,
    /// A file became a symbolic link or the other way round.
    Type,
}

/// One changed path of a member's copy, against its base.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The path (relative, `/`-separated).
    pub path: String,
    /// What changed.
    pub kind: ChangeKind,
    /// The member's version is binary.
    pub binary: bool,
    /// The member's version is a symbolic link.
    pub symlink: bool,
    /// The member's version still holds conflict markers as a merge wrote them.
    pub markers: bool,
}

/// Errors of teams, in words the UI can show. (Serialized: a far side's copy service sends its
/// own, ADR 0039.)
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum TeamError {
    /// The provider cannot work here.
    #[error("this kind of copy is not available here: {reason}")]
    Unavailable {
        /// Why.
        reason: Unavailable,
    },
    /// A git command failed.
    #[error("git {command} failed: {message}")]
    Git {
        /// The git subcommand.
        command: String,
        /// What git said.
        message: String,
    },
    /// A file operation failed.
    #[error("{path}: {message}")]
    Io {
        /// Where.
        path: String,
        /// What happened.
        message: String,
    },
    /// The member's copy is missing (deleted outside Sidekicks).
    #[error("the member's copy {0} is gone")]
    CopyGone(String),
    /// A path that leads out of the folder.
    #[error("refused path {0}")]
    BadPath(String),
    /// The file changed since the person saw the hunk: nothing was done.
    #[error("{0} changed since it was shown; look at it again")]
    ReviewStale(String),
    /// The hunk does not merge cleanly with the project's version.
    #[error(
        "this change to {0} conflicts with the project's version; merge the file to send the conflict to the member"
    )]
    HunkConflicts(String),
    /// Two hunks chosen from different attempts change the same lines: nothing was merged.
    #[error("{first} and {second} change the same lines of {path}: choose one of the two; nothing was merged")]
    PicksOverlap {
        /// The file.
        path: String,
        /// The first member (its name).
        first: String,
        /// The second.
        second: String,
    },
    /// The recipe's check failed in a scratch copy with the merge applied: nothing was merged.
    #[error("the check failed in a scratch copy ({why}); nothing was merged")]
    CheckFailed {
        /// How it failed.
        why: String,
        /// What it wrote.
        output: String,
    },
    /// The project's team recipe (`.sidekicks/team.toml`) cannot be used.
    #[error("the team recipe .sidekicks/team.toml: {0}")]
    Recipe(String),
    /// The project's recipe was written by a member's merged work and the person has not accepted
    /// it: none of it is used (its commands never run) until they do.
    #[error(
        "the team recipe .sidekicks/team.toml was written by {member}'s merged work: until you accept it (`sidekicks team accept-recipe TEAM`, or Accept recipe on the team page), it is not used, its commands do not run and nothing more is merged"
    )]
    RecipeFromMember {
        /// The member whose work wrote it.
        member: String,
    },
    /// The agent is a member of the team already.
    #[error("{0} is a member of the team already")]
    AlreadyMember(String),
    /// Another team has this name already (names tell teams apart at every door).
    #[error("a team named {0} exists already: choose another name")]
    NameTaken(String),
    /// The member's container could not be made, started or removed.
    #[error("the container of {agent}: {message}")]
    Container {
        /// The member.
        agent: String,
        /// What the engine said.
        message: String,
    },
    /// The member's copy is kept elsewhere and could not be reached, or refused, in its words.
    #[error("the copy on {place}: {message}")]
    Far {
        /// Where (`ssh build-1`).
        place: String,
        /// What happened.
        message: String,
    },
    /// The files still hold the markers of a conflict: not merged until the member resolves it.
    #[error("these files still hold conflict markers, resolve them in the member's copy first: {}", .0.join(", "))]
    StillConflicted(Vec<String>),
    /// No such member (discarded meanwhile, or its team is gone).
    #[error("no member {0} (it was discarded, or its team is gone)")]
    NoSuchMember(String),
    /// No merge of this member to undo (another merge came after it, or it was undone).
    #[error("there is no merge of this member to undo")]
    NothingToUndo,
    /// The project's files changed after the merge: undoing it would lose those changes.
    #[error("these files changed after the merge, undoing it would lose that: {}", .0.join(", "))]
    ChangedSinceMerge(Vec<String>),
    /// A file of a member's copy is bigger than Sidekicks reads to show or merge.
    #[error(
        "{path} is {size} bytes, more than Sidekicks reads to show or merge ({limit} bytes): copy it by hand; nothing was merged"
    )]
    TooBig {
        /// The file.
        path: String,
        /// Its size.
        size: u64,
        /// The most read.
        limit: u64,
    },
}

/// Why a provider cannot work for a project.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum Unavailable {
    /// The project is not a folder.
    #[error("the project is not a folder")]
    NotAFolder,
    /// Not a git repository (or git missing).
    #[error("the folder is not a git repository (or git is not installed)")]
    NotGit,
    /// Inside a repository, not its top folder.
    #[error("the folder is inside a git repository but not its top folder")]
    NotTopFolder,
    /// A repository without a commit.
    #[error("the repository has no commit yet")]
    NoCommit,
    /// The filesystem cannot clone.
    #[error("this filesystem cannot make copy-on-write clones (btrfs, XFS and APFS can; ext4 cannot)")]
    NoClone,
    /// The copies would be on another filesystem.
    #[error("the copies' folder is on another filesystem than the project")]
    OtherFilesystem,
    /// Cloning failed otherwise.
    #[error("cloning failed: {0}")]
    CloneFailed(String),
}

impl Change {
    /// The paths the change touches (both ends of a rename).
    pub fn paths(&self) -> Vec<String> {
        match &self.kind {
            ChangeKind::Renamed { from } => vec![from.clone(), self.path.clone()],
            _ => vec![self.path.clone()],
        }
    }
}

/// A member as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberRecord {
    /// The member's name (an agent of its own, e.g. `Demo · squad`).
    pub agent: String,
    /// Its state folder (holds `member.json`).
    pub state: PathBuf,
    /// The agent definition it is an instance of (empty in records of earlier versions, where
    /// `agent` was the person's own agent working in the copy).
    #[serde(default)]
    pub from: String,
}

/// A team as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamRecord {
    /// Unique id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The person's project folder.
    pub project: PathBuf,
    /// How members are isolated.
    pub provider: ProviderKind,
    /// The members.
    pub members: Vec<MemberRecord>,
    /// The lead of the team's channel (one of the person's agents, working in its own folder), if any.
    #[serde(default)]
    pub lead: Option<String>,
}

impl TeamRecord {
    /// Whether the person means this team by `which`: its id, or its name in any case (every
    /// door names a team so).
    pub fn answers_to(&self, which: &str) -> bool {
        self.id == which || self.name.eq_ignore_ascii_case(which)
    }
}

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeReport {
    /// Paths written to (or removed from) the main folder.
    pub applied: Vec<String>,
    /// Paths the main folder already had as the member made them.
    pub unchanged: Vec<String>,
    /// Paths that could not be merged (nothing was applied then).
    pub conflicts: Vec<(String, ConflictKind)>,
    /// Paths of an earlier conflict that still hold its markers: not merged (the rest was).
    pub refused: Vec<String>,
    /// What the recipe's check wrote in a scratch copy before the merge was applied (it passed).
    pub checked: Option<String>,
    /// Files not merged because their names are not UTF-8 (shown with U+FFFD for the bytes).
    pub unreadable_names: Vec<String>,
}

/// A changed file under review: the change and its diff (none for binary files, links and very
/// large files: those are decided per file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewFile {
    /// What changed.
    pub change: Change,
    /// The diff against the member's base.
    pub diff: Option<crate::model::review::FileDiff>,
}

/// A team's folder left behind: its team is not stored any more, or its project is gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leftover {
    /// The team's id (its folder's name).
    pub id: String,
    /// The folder.
    pub dir: PathBuf,
    /// The members whose copies are in it.
    pub members: Vec<String>,
    /// The project it was made from, if known.
    pub project: Option<PathBuf>,
    /// A stored team whose project is gone (removing it forgets the team too).
    pub stored: bool,
    /// Bytes it uses.
    pub bytes: u64,
    /// Its members' containers still there.
    pub containers: Vec<String>,
}

/// Work not merged that was kept when its members were discarded ("Restore discarded work").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscardedWork {
    /// Its id (a folder name).
    pub id: String,
    /// The team's id.
    pub team: String,
    /// The team's name.
    pub team_name: String,
    /// The team's project.
    pub project: PathBuf,
    /// The members kept, each with the number of paths kept.
    pub members: Vec<(String, usize)>,
    /// When it was discarded (seconds since the epoch).
    pub at: u64,
}

/// A message Sidekicks sent a member (about its merge's conflicts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Told {
    /// The message's id in the member's conversation.
    pub id: crate::model::conversation::MessageId,
    /// Its text.
    pub text: String,
}

/// A team as the UI shows it: its record and each member's copy (or why it is unusable).
#[derive(Clone, Debug, PartialEq)]
pub struct TeamInfo {
    /// The stored record.
    pub record: TeamRecord,
    /// Each member's copy, in the record's order.
    pub members: Vec<(String, Result<MemberCopy, TeamError>)>,
    /// The team channel's stored timeline.
    pub channel: Option<crate::model::channel::Timeline>,
    /// The member whose merge can still be undone (the team's last merge), if any.
    pub undoable: Option<String>,
    /// Bytes its folder uses (copies, state; not linked dependency folders), when measured.
    pub bytes: Option<u64>,
}

/// The member whose merge can be undone after a merge attempt of `agent` ended with `result`,
/// when it was `before`: a merge that applied files can be undone itself; one that applied
/// nothing and met no conflict changes nothing; conflicts leave another member's undo, and end
/// their own member's.
pub fn undoable_after(before: Option<String>, agent: &str, result: &Result<MergeReport, TeamError>) -> Option<String> {
    match result {
        Ok(r) if r.conflicts.is_empty() && !r.applied.is_empty() => Some(agent.to_string()),
        Ok(r) if r.conflicts.is_empty() => before,
        _ => before.filter(|b| b != agent),
    }
}

/// One changed file of a member as a patch: its lines added and removed, the base lines its
/// hunks replace (for the radar), and its unified diff.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilePatch {
    /// The path (its new name when renamed).
    pub path: String,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The ranges of base lines the hunks replace (`[start, end)`, 0-based; empty: the whole
    /// file — added, binary, a link).
    pub base_lines: Vec<(usize, usize)>,
    /// The unified diff (`None`: not read, past the limit asked).
    pub text: Option<String>,
}

impl FilePatch {
    /// The patch of `change`, from its base and its version (`None`: absent, or not text).
    pub fn of(change: &Change, base: Option<&str>, mine: Option<&str>) -> Self {
        let path = change.path.clone();
        let (a, b) = match &change.kind {
            ChangeKind::Renamed { from } => (from.clone(), path.clone()),
            _ => (path.clone(), path.clone()),
        };
        if base.is_none() && mine.is_none() {
            let text = Some(format!("Binary or special file {path} differs\n"));
            return Self { path, text, ..Self::default() };
        }
        let (old, new) = (base.unwrap_or_default(), mine.unwrap_or_default());
        let diff = similar::TextDiff::from_lines(old, new);
        let (mut added, mut removed, mut base_lines) = (0, 0, Vec::new());
        for op in diff.ops() {
            let (tag, before, after) = op.as_tag_tuple();
            if tag == similar::DiffTag::Equal {
                continue;
            }
            added += after.len();
            removed += before.len();
            if base.is_some() {
                base_lines.push((before.start, before.end));
            }
        }
        let a = if base.is_some() { format!("a/{a}") } else { "/dev/null".into() };
        let b = if mine.is_some() { format!("b/{b}") } else { "/dev/null".into() };
        let text = Some(diff.unified_diff().header(&a, &b).to_string());
        Self { path, added, removed, base_lines, text }
    }
}
