//! What waits for the person, oldest first: the inbox read over the agents and teams.

use super::AppState;
use crate::app::inbox::InboxKey;

impl AppState {
    /// What waits, oldest first ("not now" ones after, in the order they were put off).
    pub fn inbox(&self) -> Vec<InboxKey> {
        let mut keys: Vec<InboxKey> = self.arrivals.iter().filter(|k| self.waits(k)).cloned().collect();
        // Anything waiting that arrived unseen (e.g. restored) goes last.
        for key in self.waiting() {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// Notes that `key` arrived (the inbox lists it from now on, after the older ones).
    pub(in crate::app) fn arrived(&mut self, key: InboxKey) {
        self.prune_arrivals();
        if !self.arrivals.contains(&key) {
            self.arrivals.push(key.clone());
            self.alert(crate::app::alerts::Alert::Waits(key));
        }
    }

    /// Moves `key` to the end of the inbox without answering it.
    pub(in crate::app) fn not_now(&mut self, key: InboxKey) {
        self.prune_arrivals();
        self.arrivals.retain(|k| *k != key);
        self.arrivals.push(key);
    }

    fn prune_arrivals(&mut self) {
        let arrivals = std::mem::take(&mut self.arrivals);
        self.arrivals = arrivals.into_iter().filter(|k| self.waits(k)).collect();
    }

    /// Whether `key` still waits for the person.
    pub fn waits(&self, key: &InboxKey) -> bool {
        match key {
            InboxKey::Permission { agent, id } => {
                self.agent(agent).is_some_and(|a| a.waiting_permissions().any(|c| c.request.id == *id))
            }
            InboxKey::Question { agent, id } => self
                .agent(agent)
                .is_some_and(|a| a.elicitations.iter().any(|e| e.request.id == *id && e.answer.is_none())),
            InboxKey::Login { agent } => self.agent(agent).is_some_and(|a| a.login.is_some()),
            InboxKey::Conflict { team, member } => self.teams.teams.iter().any(|t| {
                t.info.record.id == *team
                    && t.merges.get(member).is_some_and(|r| r.as_ref().is_ok_and(|r| !r.conflicts.is_empty()))
            }),
        }
    }

    /// Every item waiting now, in the state's order.
    fn waiting(&self) -> Vec<InboxKey> {
        let mut keys = Vec::new();
        for a in &self.agents {
            let agent = &a.config.name;
            keys.extend(
                a.waiting_permissions().map(|c| InboxKey::Permission { agent: agent.clone(), id: c.request.id }),
            );
            keys.extend(
                a.elicitations
                    .iter()
                    .filter(|e| e.answer.is_none())
                    .map(|e| InboxKey::Question { agent: agent.clone(), id: e.request.id }),
            );
            if a.login.is_some() {
                keys.push(InboxKey::Login { agent: agent.clone() });
            }
        }
        for t in &self.teams.teams {
            for (member, merge) in &t.merges {
                if merge.as_ref().is_ok_and(|r| !r.conflicts.is_empty()) {
                    keys.push(InboxKey::Conflict { team: t.info.record.id.clone(), member: member.clone() });
                }
            }
        }
        keys
    }
}
