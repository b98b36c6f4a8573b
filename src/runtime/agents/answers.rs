//! The manager's side of the person's answers and choices: session settings, cancelling a turn
//! (and what waited for the person in it), and remembered permission answers.

use super::*;
use crate::protocol::AgentEvent;

impl Manager {
    /// Remembers a choice for `name`'s sessions and, if a session is open, asks the agent for it
    /// (the answer comes back as a report; the manager never waits on an agent).
    pub(super) fn set_option(&mut self, name: &str, key: OptionKey, value: OptionValue) {
        let Some(slot) = self.slot(name) else { return };
        slot.memory.chosen.retain(|c| c.key != key);
        slot.memory.chosen.push(Chosen { key: key.clone(), value: value.clone() });
        let chosen = slot.memory.chosen.clone();
        if let Some((store, path)) = self.home(name)
            && let Err(e) = store.save_choices(&path, name, &chosen)
        {
            tracing::warn!("cannot remember the choices of {name}: {e}");
        }
        let Some(slot) = self.slot(name) else { return };
        let Some(conn) = slot.running.as_ref().map(|r| r.conn.clone()) else { return };
        let generation = slot.generation;
        let option = match &key {
            OptionKey::Id(id) => conn.options().into_iter().find(|o| o.id == *id),
            OptionKey::Category(cat) => conn.options().into_iter().find(|o| o.category.as_ref() == Some(cat)),
        };
        let (setting, job): (
            String,
            futures::future::BoxFuture<'static, Result<crate::model::conversation::Update, String>>,
        ) = match (option, &key, value) {
            (Some(o), _, value) => {
                let asked = conn.set_option(o.id.clone(), value);
                (o.name.clone(), Box::pin(async move { asked.await.map(crate::model::conversation::Update::Options) }))
            }
            (None, OptionKey::Category(Category::Mode) | OptionKey::Id(_), OptionValue::Choice(mode))
                if conn.modes().is_some() =>
            {
                let asked = conn.set_mode(mode.clone());
                (
                    "mode".into(),
                    Box::pin(async move { asked.await.map(|()| crate::model::conversation::Update::Mode(mode)) }),
                )
            }
            _ => return,
        };
        let internal = self.internal_tx.clone();
        let agent = name.to_string();
        tokio::spawn(async move {
            let result = job.await;
            let _ = internal.send(Internal::OptionSet { agent, generation, setting, result }).await;
        });
    }

    /// Drops the messages waiting for `name` and says so.
    pub(super) async fn drop_queue(&mut self, name: &str) {
        let Some(slot) = self.slot(name) else { return };
        if slot.queue.is_empty() {
            return;
        }
        slot.queue.clear();
        self.events.send(Event::Agent(name.into(), AgentEvent::QueueDropped)).await;
    }

    /// Cancels the turn of `name`: session/cancel, waiting permission requests answered
    /// "cancelled", queue dropped. Late updates of the agent are still shown.
    pub(super) async fn cancel(&mut self, name: &str) {
        self.drop_queue(name).await;
        self.return_waiting(name).await;
        let Some(slot) = self.slot(name) else { return };
        let (Some(running), Some(turn)) = (&slot.running, slot.turn) else { return };
        let ids = (running.conn.cancel(), running.conn.cancel_elicitations());
        self.report_cancelled(name, ids).await;
        // An agent that does not end its turn when asked is stopped after a grace.
        let internal = self.internal_tx.clone();
        let (agent, grace) = (name.to_string(), self.settings.cancel_grace);
        tokio::spawn(async move {
            tokio::time::sleep(grace).await;
            let _ = internal.send(Internal::CancelDeadline { agent, turn }).await;
        });
    }

    pub(super) async fn report_cancelled(&self, name: &str, ids: (Vec<u64>, Vec<u64>)) {
        for id in ids.0 {
            let event =
                Event::Agent(name.into(), AgentEvent::PermissionResolved { id, answer: PermissionAnswer::Cancelled });
            self.events.send(event).await;
        }
        for id in ids.1 {
            let answer = crate::model::elicitation::ElicitAnswer::Cancel;
            self.events.send(Event::Agent(name.into(), AgentEvent::ElicitationResolved { id, answer })).await;
        }
    }

    /// Tells the UI the remembered answers of `name`.
    pub(super) async fn send_rules(&mut self, name: &str) {
        let Some(config) = self.slot(name).map(|s| s.config.clone()) else { return };
        let rules = self.rules_for(&config).list();
        self.events.send(Event::Agent(name.into(), AgentEvent::RulesChanged { rules })).await;
    }

    pub(super) fn rules_for(&mut self, agent: &AgentConfig) -> Arc<dyn PermissionRules> {
        let store = self.store.clone();
        self.rules
            .entry((agent.name.clone(), agent.workspace.clone()))
            .or_insert_with(|| match store {
                Some(store) => {
                    Arc::new(StoredRules { store, agent: agent.name.clone(), workspace: agent.workspace.clone() })
                }
                None => Arc::new(MemoryRules::default()),
            })
            .clone()
    }
}
