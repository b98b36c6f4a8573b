//! What the composer of an agent holds besides its text: the images and files to send with the
//! next message, why a file could not be attached, and the workspace's paths for `@`.

use crate::protocol::attachments::Attachment;

/// The most paths asked of a workspace for `@` (a bigger project completes from the first ones).
pub const MENTION_PATHS: usize = 50_000;

/// The composer's attachments and `@` paths, per agent.
#[derive(Clone, Debug, Default)]
pub struct Composing {
    /// Sent with the next message.
    pub pending: Vec<Attachment>,
    /// Files that could not be attached, in words.
    pub errors: Vec<String>,
    /// The workspace's files and folders, once asked for (`@`).
    pub paths: Option<Result<Vec<(String, bool)>, String>>,
}

/// A change to the composer's attachments.
#[derive(Clone, Debug)]
pub enum AttachOp {
    /// Add one (a `@` completion).
    Add(Attachment),
    /// Remove the one at this index.
    Remove(usize),
    /// Forget them all (sent).
    Clear,
    /// Forget the errors shown.
    DismissErrors,
    /// The paths for `@` are old: ask again next time.
    ForgetPaths,
}
