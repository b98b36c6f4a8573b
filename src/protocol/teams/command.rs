//! What a door asks of the team service.

use std::path::PathBuf;

use super::*;

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
    /// Make copies of `project` ahead, for a team the person is still writing (the form knows
    /// the project): `members` of them kept ready for the team's members to take
    /// (`TeamEvent::Prepared` when done). Only git worktrees of a project on this computer are
    /// made ahead; for anything else nothing is done.
    Prepare {
        /// The project folder.
        project: PathBuf,
        /// How copies are to be made.
        provider: ProviderKind,
        /// How many members the team will have.
        members: usize,
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
    /// Give `member` a task: it is sent as a message of the team's channel (with its
    /// catch-up) and followed until its work is merged (`TeamEvent::Task`).
    Assign {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
        /// What to do.
        text: String,
        /// Who asks: the lead's name, or `None` for the person.
        by: Option<String>,
        /// The task's id, made by the door (`Task::new_id`).
        id: String,
    },
    /// The tasks of team `team` (`TeamEvent::Tasks`).
    Tasks {
        /// The team (its id).
        team: String,
    },
    /// A member's changed files as patches (`TeamEvent::Patch`): all, or those of `paths`; the
    /// diffs of the first `limit` are read, the rest only listed.
    Patch {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
        /// Only these paths.
        paths: Option<Vec<String>>,
        /// How many files' diffs to read.
        limit: usize,
    },
    /// Where the members' changes meet (`TeamEvent::Radar`): read now.
    Radar {
        /// The team (its id).
        team: String,
    },
    /// Best of N: make team `name` of `agents` on `project` (as `Create`) and give every member
    /// the same `task` as soon as it can work (`TeamEvent::Created`, then a `Task` each).
    Try {
        /// The team's name.
        name: String,
        /// The project folder.
        project: PathBuf,
        /// How copies are made.
        provider: ProviderKind,
        /// The agents, one member each (an agent may come more than once).
        agents: Vec<String>,
        /// The task every member gets.
        task: String,
    },
    /// Run the recipe's check in a member's copy, where it works (`TeamEvent::CopyChecked`).
    CheckCopy {
        /// The team (its id).
        team: String,
        /// The member (its name).
        member: String,
    },
    /// Merge hunks chosen from several members' attempts (`TeamEvent::HunksTaken`): refused,
    /// nothing written, when two of them change the same or adjacent lines of a file.
    TakeHunks {
        /// The team (its id).
        team: String,
        /// Each chosen hunk: member, file, the hunk as the person saw it.
        picks: Vec<Pick>,
    },
}

/// A hunk chosen from a member's attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// The member (its name).
    pub member: String,
    /// The file.
    pub path: String,
    /// The hunk, as the person saw it.
    pub hunk: crate::model::review::Hunk,
}
