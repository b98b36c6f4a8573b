//! The attention inbox: everything that waits for the person, oldest first, each answerable here
//! with the same card as in its conversation (so answering it here answers it there), or opened
//! where it lives; "Not now" puts one at the end.

use egui::RichText;

use super::i18n::{Key, tr, trf};
use crate::app::inbox::InboxKey;
use crate::app::{AppState, Request};

/// Where the person asked to go from the inbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Go {
    /// An agent's conversation.
    Agent(String),
    /// A team (its id).
    Team(String),
}

/// The inbox; what it asks for, and where to go.
pub fn inbox_ui(ui: &mut egui::Ui, state: &AppState) -> (Vec<Request>, Option<Go>) {
    let lang = state.language;
    let mut requests = Vec::new();
    let mut go = None;
    ui.heading(tr(lang, Key::Inbox));
    ui.separator();
    let items = state.inbox();
    if items.is_empty() {
        ui.label(RichText::new(tr(lang, Key::InboxEmpty)).weak());
        return (requests, go);
    }
    egui::ScrollArea::vertical().show(ui, |ui| {
        for key in items {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.horizontal(|ui| {
                    let (place, target) = match &key {
                        InboxKey::Conflict { team, .. } => {
                            let name = state.teams.teams.iter().find(|t| t.info.record.id == *team);
                            (name.map_or(team.clone(), |t| t.info.record.name.clone()), Go::Team(team.clone()))
                        }
                        InboxKey::Permission { agent, .. }
                        | InboxKey::Question { agent, .. }
                        | InboxKey::Login { agent } => (agent.clone(), Go::Agent(agent.clone())),
                    };
                    ui.label(RichText::new(place).strong());
                    if ui.small_button(tr(lang, Key::OpenThere)).clicked() {
                        go = Some(target);
                    }
                    if ui.small_button(tr(lang, Key::NotNow)).clicked() {
                        requests.push(Request::NotNow(key.clone()));
                    }
                });
                item_ui(ui, state, &key, &mut requests);
            });
            ui.add_space(6.0);
        }
    });
    (requests, go)
}

fn item_ui(ui: &mut egui::Ui, state: &AppState, key: &InboxKey, requests: &mut Vec<Request>) {
    let lang = state.language;
    match key {
        InboxKey::Permission { agent, id } => {
            let Some(a) = state.agent(agent) else { return };
            if let Some(card) = a.permissions.iter().find(|c| c.request.id == *id) {
                let answer = super::permission_card::permission_card_ui(ui, lang, agent, &a.config.runtime, card);
                requests.extend(answer.map(Request::from));
            }
        }
        InboxKey::Question { agent, id } => {
            let Some(a) = state.agent(agent) else { return };
            if let Some(card) = a.elicitations.iter().find(|c| c.request.id == *id) {
                let answer = super::elicitation_card::elicitation_card_ui(ui, lang, agent, card);
                requests.extend(answer.map(Request::from));
            }
        }
        InboxKey::Login { agent } => {
            ui.label(trf(lang, Key::InboxLogin, &[("agent", agent)]));
        }
        InboxKey::Conflict { team, member } => {
            let files: Vec<String> = state
                .teams
                .teams
                .iter()
                .find(|t| t.info.record.id == *team)
                .and_then(|t| t.merges.get(member))
                .and_then(|m| m.as_ref().ok())
                .map_or_else(Vec::new, |r| r.conflicts.iter().map(|(p, _)| p.clone()).collect());
            ui.label(trf(lang, Key::InboxConflict, &[("member", member), ("files", &files.join(", "))]));
        }
    }
}
