//! Alerts left for the window, and the desktop notes made of them.

use super::AppState;
use crate::app::alerts::*;
use crate::app::inbox::InboxKey;
use crate::i18n::{Key, crash_text, tr, trf};
use crate::model::conversation::{Role, TurnEnd};
use crate::protocol::AgentState;
use crate::protocol::notify::{DesktopNote, NoteTarget};

impl AppState {
    /// Leaves an alert for the window.
    pub(in crate::app) fn alert(&mut self, alert: Alert) {
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
