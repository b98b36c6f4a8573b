//! Desktop notifications: what the window asks the runtime to show when it is not focused, and
//! what a click on one brings back.

/// What a notification is about: clicking it shows this.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NoteTarget {
    /// An agent's conversation (by name).
    Agent(String),
    /// A team's page (by id).
    Team(String),
}

/// The kinds of notification, each with its switch in `[notifications]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteKind {
    /// A permission, a question or a login waits for the person.
    NeedsYou,
    /// A turn finished.
    Finished,
    /// An agent crashed.
    Crashed,
    /// A merge conflicted.
    Conflict,
}

/// One desktop notification, in the person's language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopNote {
    /// What clicking it shows; a later note for the same target replaces this one.
    pub target: NoteTarget,
    /// Its kind.
    pub kind: NoteKind,
    /// The first line.
    pub summary: String,
    /// The text under it.
    pub body: String,
    /// The label of the action that opens the target ("Open").
    pub open_label: String,
}
