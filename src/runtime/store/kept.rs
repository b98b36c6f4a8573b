//! What the store keeps beside the threads: channels' timelines, each agent's choices (model,
//! mode) and what it said it can do with sessions.

use std::path::Path;

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};

impl Store {
    /// The stored timeline of channel `name` of the config file `config_path`.
    pub fn channel(
        &self,
        config_path: &Path,
        name: &str,
    ) -> Result<Option<crate::model::channel::Timeline>, StoreError> {
        let body: Option<String> = self
            .conn()
            .query_row(
                "SELECT body FROM channels WHERE config_path = ?1 AND name = ?2",
                params![config_path.display().to_string(), name],
                |r| r.get(0),
            )
            .optional()?;
        Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
    }

    /// Saves a channel's timeline.
    pub fn save_channel(
        &self,
        config_path: &Path,
        name: &str,
        timeline: &crate::model::channel::Timeline,
    ) -> Result<(), StoreError> {
        let body = serde_json::to_string(timeline)?;
        self.conn().execute(
            "INSERT OR REPLACE INTO channels (config_path, name, body) VALUES (?1, ?2, ?3)",
            params![config_path.display().to_string(), name, body],
        )?;
        Ok(())
    }

    /// The choices (model, mode, …) remembered for agent `agent` at home `home` (its workspace).
    pub fn choices(&self, home: &Path, agent: &str) -> Result<Vec<crate::model::session_config::Chosen>, StoreError> {
        Ok(self.agent_body("agent_choices", home, agent)?.unwrap_or_default())
    }

    /// Remembers the choices for agent `agent` at home `home` (its workspace).
    pub fn save_choices(
        &self,
        home: &Path,
        agent: &str,
        chosen: &[crate::model::session_config::Chosen],
    ) -> Result<(), StoreError> {
        self.save_agent_body("agent_choices", home, agent, &chosen)
    }

    /// What agent `agent` at home `home` (its workspace) said it can do with sessions when it
    /// last started (`None`: it never started).
    pub fn abilities(
        &self,
        home: &Path,
        agent: &str,
    ) -> Result<Option<crate::protocol::threads::SessionAbilities>, StoreError> {
        self.agent_body("agent_abilities", home, agent)
    }

    /// Remembers what agent `agent` can do with sessions.
    pub fn save_abilities(
        &self,
        home: &Path,
        agent: &str,
        abilities: &crate::protocol::threads::SessionAbilities,
    ) -> Result<(), StoreError> {
        self.save_agent_body("agent_abilities", home, agent, abilities)
    }

    /// The JSON kept for `agent` at `home` in `table` (one of this file's per-agent tables).
    fn agent_body<T: serde::de::DeserializeOwned>(
        &self,
        table: &'static str,
        home: &Path,
        agent: &str,
    ) -> Result<Option<T>, StoreError> {
        let body: Option<String> = self
            .conn()
            .query_row(
                &format!("SELECT body FROM {table} WHERE config_path = ?1 AND agent = ?2"),
                params![home.display().to_string(), agent],
                |r| r.get(0),
            )
            .optional()?;
        Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
    }

    /// Keeps `value` as JSON for `agent` at `home` in `table`.
    fn save_agent_body(
        &self,
        table: &'static str,
        home: &Path,
        agent: &str,
        value: &impl serde::Serialize,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            &format!("INSERT OR REPLACE INTO {table} (config_path, agent, body) VALUES (?1, ?2, ?3)"),
            params![home.display().to_string(), agent, serde_json::to_string(value)?],
        )?;
        Ok(())
    }
}
