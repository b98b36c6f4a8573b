//! What the window knows of an agent's workspace under review: the checkpoint it is compared
//! with, the changed files with their diffs (the runtime reads them again after a revert and after
//! each turn, until the review is closed), and why the last revert failed.

use crate::protocol::teams::ReviewFile;

/// An agent's changes since a checkpoint, under review.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkspaceReview {
    /// The checkpoint compared with.
    pub checkpoint: String,
    /// The changed files (`None`: being read), or why they could not be read.
    pub files: Option<Result<Vec<ReviewFile>, String>>,
    /// Counts the results received (the panel lays out its rows again when it changes).
    pub generation: u64,
    /// Why the last revert was not done.
    pub error: Option<String>,
    /// The last revert was done (said until the next one).
    pub done: bool,
}
