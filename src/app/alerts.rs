//! What deserves a desktop notification: something began to wait for the person, a turn ended, an
//! agent crashed, a merge conflicted. Events leave alerts here as they are applied; the window takes
//! them each frame and, when it is not focused, turns those the config's `[notifications]` switches
//! allow into notes (in the person's language) for the runtime to show.

use super::inbox::InboxKey;
use super::state::AppState;
use crate::i18n::{Key, crash_text, tr, trf};
use crate::model::config::Notifications;
use crate::model::conversation::{Role, TurnEnd};
use crate::protocol::AgentState;
use crate::protocol::notify::{DesktopNote, NoteKind, NoteTarget};

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

    fn kind(&self) -> NoteKind {
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
fn line(text: &str, max: usize) -> String {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    if first.chars().count() <= max {
        first.to_string()
    } else {
        first.chars().take(max.saturating_sub(1)).chain(['…']).collect()
    }
}

impl AppState {
    /// Leaves an alert for the window.
    pub(super) fn alert(&mut self, alert: Alert) {
        // Nobody takes them without a window; keep the list bounded all the same.
        if self.alerts.len() < 256 {
            self.alerts.push(alert);
        }
    }

    /// The notes for the alerts left since the last call: none while the window is focused (the
    /// sidebar and the title say it), else those the config's switches allow.
    pub fn take_notes(&mut self, focused: bool) -> Vec<DesktopNote> {
        let alerts = std::mem::take(&mut self.alerts);
        if focused {
            return Vec::new();
        }
        let switches = self.config.as_ref().map(|c| c.notifications.clone()).unwrap_or_default();
        alerts.into_iter().filter(|a| allowed(&switches, a.kind())).filter_map(|a| self.note(&a)).collect()
    }

    fn note(&self, alert: &Alert) -> Option<DesktopNote> {
        let lang = self.language;
        let (target, summary, body) = match alert {
            Alert::Waits(InboxKey::Permission { agent, id }) => {
                let card = self.agent(agent)?.permissions.iter().find(|c| c.request.id == *id)?;
                let body = trf(lang, Key::NoteAsks, &[("tool", &line(&card.request.tool.title, 120))]);
                (NoteTarget::Agent(agent.clone()), trf(lang, Key::NoteNeedsYou, &[("agent", agent)]), body)
            }
            Alert::Waits(InboxKey::Question { agent, id }) => {
                let card = self.agent(agent)?.elicitations.iter().find(|c| c.request.id == *id)?;
                let body = line(&card.request.message, 160);
                (NoteTarget::Agent(agent.clone()), trf(lang, Key::NoteNeedsYou, &[("agent", agent)]), body)
            }
            Alert::Waits(InboxKey::Login { agent }) => (
                NoteTarget::Agent(agent.clone()),
                trf(lang, Key::NoteNeedsYou, &[("agent", agent)]),
                tr(lang, Key::NoteLogin).to_string(),
            ),
            Alert::Waits(InboxKey::Conflict { team, member }) => {
                let state = self.teams.team(team)?;
                let files = state
                    .merges
                    .get(member)
                    .and_then(|m| m.as_ref().ok())
                    .map_or_else(Vec::new, |r| r.conflicts.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>());
                let body = trf(lang, Key::InboxConflict, &[("member", member), ("files", &files.join(", "))]);
                let summary = trf(lang, Key::NoteConflict, &[("team", &state.info.record.name)]);
                (NoteTarget::Team(team.clone()), summary, line(&body, 160))
            }
            Alert::Finished { agent, failed } => {
                let view = self.agent(agent)?;
                let last = view.conversation.messages.iter().rev().find(|m| m.role == Role::Agent);
                let body = match last.and_then(|m| m.end.as_ref()) {
                    Some(TurnEnd::Failed { message }) => line(message, 160),
                    _ => last.map(|m| line(&m.text(), 160)).unwrap_or_default(),
                };
                let key = if *failed { Key::NoteFailed } else { Key::NoteFinished };
                (NoteTarget::Agent(agent.clone()), trf(lang, key, &[("agent", agent)]), body)
            }
            Alert::Crashed { agent } => {
                let AgentState::Crashed(report) = &self.agent(agent)?.state else { return None };
                let body = crash_text(lang, &report.reason);
                (NoteTarget::Agent(agent.clone()), trf(lang, Key::NoteCrashed, &[("agent", agent)]), line(&body, 160))
            }
        };
        Some(DesktopNote {
            target,
            kind: alert.kind(),
            summary,
            body,
            open_label: tr(lang, Key::OpenThere).to_string(),
        })
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
