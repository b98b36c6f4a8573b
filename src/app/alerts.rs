//! What deserves a desktop notification: something began to wait for the person, a turn ended, an
//! agent crashed, a merge conflicted. Events leave alerts here as they are applied; the window takes
//! them each frame and, when it is not focused, turns those the config's `[notifications]` switches
//! allow into notes (in the person's language) for the runtime to show.

use super::inbox::InboxKey;
use crate::model::config::Notifications;
use crate::model::conversation::TurnEnd;
use crate::protocol::notify::NoteKind;

/// Something that happened which may be worth a notification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alert {
    /// Something began to wait for the person.
    Waits(InboxKey),
    /// `agent`'s turn ended (`failed`: with an error).
    Finished {
        /// The agent.
        agent: String,
        /// It failed.
        failed: bool,
    },
    /// `agent` crashed.
    Crashed {
        /// The agent.
        agent: String,
    },
}

impl Alert {
    /// The alert for a turn that ended so (none for one the person cancelled, or one that ended
    /// with a crash or a login request: those have their own).
    pub fn turn_ended(agent: &str, end: &TurnEnd) -> Option<Alert> {
        let failed = match end {
            TurnEnd::EndTurn | TurnEnd::MaxTokens | TurnEnd::MaxTurnRequests | TurnEnd::Refusal => false,
            TurnEnd::Failed { .. } => true,
            _ => return None,
        };
        Some(Alert::Finished { agent: agent.to_string(), failed })
    }

    pub(super) fn kind(&self) -> NoteKind {
        match self {
            Alert::Waits(InboxKey::Conflict { .. }) => NoteKind::Conflict,
            Alert::Waits(_) => NoteKind::NeedsYou,
            Alert::Finished { .. } => NoteKind::Finished,
            Alert::Crashed { .. } => NoteKind::Crashed,
        }
    }
}

/// Whether the switches let notes of `kind` through.
pub fn allowed(switches: &Notifications, kind: NoteKind) -> bool {
    switches.enabled
        && match kind {
            NoteKind::NeedsYou => switches.needs_you,
            NoteKind::Finished => switches.finished,
            NoteKind::Crashed => switches.crashed,
            NoteKind::Conflict => switches.conflict,
        }
}

/// A line at most `max` characters long (an ellipsis where it was cut).
pub(super) fn line(text: &str, max: usize) -> String {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    if first.chars().count() <= max {
        first.to_string()
    } else {
        first.chars().take(max.saturating_sub(1)).chain(['…']).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_let_through_only_their_kind() {
        let mut s = Notifications::default();
        assert!(allowed(&s, NoteKind::Finished));
        s.finished = false;
        assert!(!allowed(&s, NoteKind::Finished));
        assert!(allowed(&s, NoteKind::Crashed));
        s.enabled = false;
        assert!(!allowed(&s, NoteKind::Crashed));
    }

    #[test]
    fn a_cancelled_turn_is_not_announced() {
        assert_eq!(Alert::turn_ended("a", &TurnEnd::Cancelled), None);
        assert_eq!(
            Alert::turn_ended("a", &TurnEnd::Failed { message: "x".into() }),
            Some(Alert::Finished { agent: "a".into(), failed: true })
        );
    }

    #[test]
    fn lines_are_first_and_short() {
        assert_eq!(line("\n  hello  \nworld", 10), "hello");
        assert_eq!(line("abcdefghijkl", 5), "abcd…");
    }
}
