//! The plain data of teams that crosses between the runtime and the app: a member's copy, a team's
//! record, the changes in a copy, a merge's report, and what can go wrong. (How copies are made
//! and merged is in `runtime::teams`.)

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::merge::ConflictKind;

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
#[derive(Clone, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The path (relative, `/`-separated).
    pub path: String,
    /// What changed.
    pub kind: ChangeKind,
    /// The member's version is binary.
    pub binary: bool,
    /// The member's version is a symbolic link.
    pub symlink: bool,
}

/// Errors of teams, in words the UI can show.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
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
    /// The member's container could not be made, started or removed.
    #[error("the container of {agent}: {message}")]
    Container {
        /// The member.
        agent: String,
        /// What the engine said.
        message: String,
    },
    /// The agent runs where Sidekicks cannot make a member its own place (a sandbox, a pod).
    #[error(
        "{agent} runs where Sidekicks cannot make a team member a place of its own ({kind}): only Docker and Podman containers can"
    )]
    NoPlaceOfItsOwn {
        /// The agent.
        agent: String,
        /// `sbx` or `kubectl`.
        kind: String,
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
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
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

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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

/// A team operation asked of the runtime's team service (the answer is a `TeamEvent`). Teams and
/// members are named by id and name: the service holds the records.
#[derive(Clone, Debug, PartialEq)]
pub enum TeamCommand {
    /// Follow the copies of this team's members (their change lists come as `TeamEvent::Changes`
    /// as they work), and no other team's; `None` follows none.
    Follow {
        /// The team (its id).
        team: Option<String>,
    },
    /// Make a team of `agents` on `project`.
    Create {
        /// The name.
        name: String,
        /// The project folder.
        project: PathBuf,
        /// How copies are made.
        provider: ProviderKind,
        /// The agents (their names).
        agents: Vec<String>,
        /// The lead, if any.
        lead: Option<String>,
    },
    /// List a member's changes.
    Changes {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
    },
    /// Read a changed file's base and member versions.
    Diff {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
        /// The path it is about.
        path: String,
    },
    /// Merge a member's work (all, or the `selected` paths) into the project.
    Merge {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
        /// The paths chosen (`None`: all).
        selected: Option<Vec<String>>,
    },
    /// The person accepts the project's team recipe as it is now (one a member's merged work
    /// wrote is not used until then).
    AcceptRecipe {
        /// The team (its id).
        team: String,
    },
    /// Undo the team's last merge, which was this member's.
    UndoMerge {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
    },
    /// Discard one member's copy (`Some`) or the whole team.
    Discard {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: Option<String>,
    },
    /// Read every changed file of a member with its diff, for the review panel.
    Review {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
    },
    /// Accept (merge into the project) or reject (take out of the member's copy) one hunk.
    DecideHunk {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
        /// The file.
        path: String,
        /// The hunk as the person saw it.
        hunk: crate::model::review::Hunk,
        /// Accept (true) or reject.
        accept: bool,
    },
    /// Put these files of the member's copy back as in its base.
    RejectFiles {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
        /// The changes to take back.
        changes: Vec<Change>,
    },
    /// Run the recipe's setup command in a member's copy again (after it failed).
    Setup {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
    },
    /// Bring kept work back into its team, or a team made again when the team is gone.
    RestoreDiscarded {
        /// The kept work (its id).
        id: String,
    },
    /// The review of a member of team `team` is closed: it is not read again as the member works.
    CloseReview {
        /// The team (its id).
        team: String,
    },
    /// Remove leftover team folders (found at start and shown first).
    Reap {
        /// Their ids.
        ids: Vec<String>,
    },
    /// Remove kept work for good.
    ForgetDiscarded {
        /// The kept work (its id).
        id: String,
    },
    /// Make branch `branch` of the project from the member's work, with `message`.
    CommitBranch {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
        /// The branch's name.
        branch: String,
        /// The commit's message.
        message: String,
    },
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

/// Results of team operations.
#[derive(Clone, Debug, PartialEq)]
pub enum TeamEvent {
    /// Something changed in a member's copy (the team shown is followed: `TeamCommand::Follow`).
    CopyChanged {
        /// The team (its id).
        team: String,
        /// The member.
        agent: String,
    },
    /// The stored teams, reattached (at start), and the work kept from discarded members.
    Loaded {
        /// The teams.
        teams: Vec<TeamInfo>,
        /// Kept work, newest first.
        discarded: Vec<DiscardedWork>,
        /// Folders of teams that are gone, to show before removing them.
        leftovers: Vec<Leftover>,
    },
    /// Leftover team folders were removed (their ids), or one could not be.
    Reaped {
        /// The ones removed.
        ids: Vec<String>,
        /// Why one could not be.
        error: Option<TeamError>,
    },
    /// A team was made (or could not be).
    Created {
        /// How it went.
        result: Result<TeamInfo, TeamError>,
    },
    /// A member's changes.
    Changes {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// Its changed files.
        result: Result<Vec<Change>, TeamError>,
    },
    /// One changed file of a member: its base and its version (text; `None` when absent or binary).
    Diff {
        /// The team (its id).
        team: String,
        /// The agent (its name).
        agent: String,
        /// The path it is about.
        path: String,
        /// The base version.
        base: Option<String>,
        /// The member.
        member: Option<String>,
    },
    /// A merge of a member's work finished.
    Merged {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// What was applied, or the conflicts.
        result: Result<MergeReport, TeamError>,
        /// What the member was told of the conflicts (sent as its next message).
        told: Option<Told>,
    },
    /// Output of the setup command running in a member's copy, as it comes.
    SetupOutput {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// The bytes read, as text.
        text: String,
    },
    /// The setup command ended: the member, ready (it works in its copy now), or why not.
    SetupDone {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// The member ready, or the failure (its output was sent before).
        result: Result<MemberCopy, String>,
    },
    /// Output of the recipe's check running in the project after a member's merge (empty: it
    /// starts).
    CheckOutput {
        /// The team.
        team: String,
        /// The member whose merge it checks.
        agent: String,
        /// The bytes read, as text.
        text: String,
    },
    /// An operation on a member could not start (the member is gone).
    Failed {
        /// The team (its id).
        team: String,
        /// The member.
        agent: String,
        /// Why.
        error: TeamError,
    },
    /// A member has an operation writing its copy or the project running (`busy`), or not any
    /// more. (Reading its changes does not make it busy.)
    Busy {
        /// The team (its id).
        team: String,
        /// The member.
        agent: String,
        /// Running or done.
        busy: bool,
    },
    /// A merge into a project that a crash interrupted (another Sidekicks, the command line) was
    /// found while this one runs: finished (`Ok(true)`), rolled back (`Ok(false)`), or it could
    /// not be (the project stays half-merged until it is).
    Interrupted {
        /// The project.
        project: PathBuf,
        /// The member whose merge it was.
        agent: String,
        /// What became of it.
        result: Result<bool, TeamError>,
    },
    /// An operation waits for another to finish writing the project (`Some`: what that one
    /// does, e.g. "merging Bob's work"), or stopped waiting (`None`).
    Waiting {
        /// The project.
        project: PathBuf,
        /// What the operation it waits for does.
        holder: Option<String>,
    },
    /// The check after a merge ended: passed, or how it failed (the member was told).
    CheckDone {
        /// The team.
        team: String,
        /// The member whose merge it checked.
        agent: String,
        /// Passed, or how it failed.
        result: Result<(), String>,
    },
    /// A merge is over, with all it did: its result, what the member was told of it, and the
    /// recipe's check (`None`: none ran). `Merged`, `CheckOutput` and `CheckDone` told the same
    /// as it happened; a door that only waits for the end waits for this.
    MergeEnded {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// What was applied, or the conflicts.
        result: Result<MergeReport, TeamError>,
        /// What the member was told of the conflicts (sent as its next message).
        told: Option<Told>,
        /// The check's result, when one ran (before the merge in a scratch copy, or after it).
        check: Option<Result<(), String>>,
    },
    /// A member's changed files with their diffs.
    Review {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// The files, or why they could not be read.
        result: Result<Vec<ReviewFile>, TeamError>,
    },
    /// A hunk or files were taken out of a member's copy, or could not be.
    Rejected {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// How it went.
        result: Result<(), TeamError>,
    },
    /// The project's recipe was not used (no setup, no check) because a member's merged work wrote
    /// it and the person has not accepted it.
    RecipeRefused {
        /// The team.
        team: String,
        /// The member whose work wrote it.
        member: String,
        /// What it would run, as the person must see before accepting ("setup: …", "check: …").
        commands: Vec<String>,
    },
    /// The project's recipe was accepted: the member who wrote it (`None`: it was not a
    /// member's), or why not.
    RecipeAccepted {
        /// The team.
        team: String,
        /// The member who wrote the recipe.
        result: Result<Option<String>, TeamError>,
    },
    /// The team's last merge (this member's) was undone: the paths put back, or why not.
    MergeUndone {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// The paths put back.
        result: Result<Vec<String>, TeamError>,
    },
    /// A member's work was made a branch of the project (its commit), or could not be.
    Branched {
        /// The team.
        team: String,
        /// The member.
        agent: String,
        /// The branch.
        branch: String,
        /// The commit, or why not.
        result: Result<String, TeamError>,
    },
    /// Members (or the whole team) were discarded; they work in their own folders again.
    Discarded {
        /// The team.
        team: String,
        /// The members discarded.
        agents: Vec<String>,
        /// The whole team is gone.
        whole_team: bool,
        /// Their work not merged, kept (none when there was none).
        kept: Option<DiscardedWork>,
    },
    /// Nothing was discarded: the members' work could not be kept.
    DiscardRefused {
        /// The team.
        team: String,
        /// Why.
        error: TeamError,
    },
    /// Kept work was brought back into its team (made again if it was gone), or could not be.
    WorkRestored {
        /// The kept work (its id).
        id: String,
        /// The team as it is now.
        result: Result<TeamInfo, TeamError>,
    },
    /// Kept work was removed for good.
    WorkForgotten {
        /// The kept work (its id).
        id: String,
    },
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
