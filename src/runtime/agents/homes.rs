//! History follows the agent (issue 48, item 9): an agent's threads, choices, abilities and
//! remembered answers are kept under its name and its home, the workspace folder (see
//! `store::homes`). Each time the config is applied, what was kept goes with the agent that was
//! renamed or whose folder moved (the form's rename, or the same edit by hand, with or without a
//! Sidekicks running meanwhile), and rows older than issue 48, keyed by the config file's path,
//! are taken over — before any agent reads its thread.

use super::Manager;
use crate::model::config::AgentConfig;
use crate::runtime::store::Seen;

/// What `agent` runs, as the history compares it: command, arguments and runtime.
fn runs(agent: &AgentConfig) -> String {
    serde_json::to_string(&(&agent.command, &agent.args, &agent.runtime)).unwrap_or_default()
}

impl Manager {
    /// Gives the agents of the config applied what is kept for them.
    pub(super) fn follow_homes(&self, agents: &[AgentConfig]) {
        let (Some(store), Some(config)) = (&self.store, &self.config_path) else { return };
        let seen: Vec<Seen> =
            agents.iter().map(|a| Seen { home: &a.workspace, name: &a.name, runs: runs(a) }).collect();
        match store.follow(config, &seen) {
            Ok(0) => {}
            Ok(moved) => tracing::info!("{moved} thread(s) followed their agent"),
            Err(e) => tracing::warn!("cannot give the agents their history: {e}"),
        }
    }
}
