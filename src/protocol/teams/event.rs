//! What the team service tells.

use std::path::PathBuf;

use super::*;

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
    /// Copies of a project made ahead (`TeamCommand::Prepare`): how many are ready.
    Prepared {
        /// The project folder, as asked.
        project: PathBuf,
        /// How many copies are ready (0 when none are made ahead for this kind of copy).
        result: Result<usize, TeamError>,
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
    /// A task was assigned or changed state.
    Task {
        /// The task as it is now.
        task: Task,
    },
    /// The tasks of a team, oldest first (asked with `TeamCommand::Tasks`, or read again).
    Tasks {
        /// The team (its id).
        team: String,
        /// Its tasks.
        tasks: Vec<Task>,
    },
    /// A member's changed files as patches.
    Patch {
        /// The team (its id).
        team: String,
        /// The member.
        agent: String,
        /// The patches, or why not.
        result: Result<Vec<FilePatch>, TeamError>,
    },
    /// Where the members' changes meet: files two or more members change at the same or
    /// adjacent lines of the base (the radar; read again as a followed team's members work).
    Radar {
        /// The team (its id).
        team: String,
        /// The overlaps.
        overlaps: Vec<crate::model::radar::Overlap>,
    },
    /// The recipe's check ran in a member's copy (`None`: the recipe has no check).
    CopyChecked {
        /// The team (its id).
        team: String,
        /// The member.
        agent: String,
        /// Its result, and the end of what it wrote.
        result: Option<(Result<(), String>, String)>,
    },
    /// Hunks chosen from several members were merged (each member's report), or none was.
    HunksTaken {
        /// The team (its id).
        team: String,
        /// The reports, member by member, or why nothing was merged.
        result: Result<Vec<(String, MergeReport)>, TeamError>,
    },
}
