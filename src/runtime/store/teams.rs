//! The store's teams and their channels.

use std::path::Path;

use rusqlite::params;

use super::{Store, StoreError};

impl Store {
    /// The timeline of a team's channel (stored with the team, whatever the config file).
    pub fn team_channel(&self, team: &str) -> Result<Option<crate::model::channel::Timeline>, StoreError> {
        self.channel(Path::new(""), &format!("team:{team}"))
    }

    /// Saves a team channel's timeline.
    pub fn save_team_channel(&self, team: &str, timeline: &crate::model::channel::Timeline) -> Result<(), StoreError> {
        self.save_channel(Path::new(""), &format!("team:{team}"), timeline)
    }

    /// Saves (or replaces) a team.
    pub fn save_team(&self, team: &crate::runtime::teams::TeamRecord) -> Result<(), StoreError> {
        let body = serde_json::to_string(team)?;
        self.conn().execute("INSERT OR REPLACE INTO teams (id, body) VALUES (?1, ?2)", params![team.id, body])?;
        Ok(())
    }

    /// Every team, oldest first.
    pub fn teams(&self) -> Result<Vec<crate::runtime::teams::TeamRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached("SELECT body FROM teams ORDER BY id")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(serde_json::from_str(&row?)?);
        }
        Ok(out)
    }

    /// Forgets a team.
    pub fn delete_team(&self, id: &str) -> Result<(), StoreError> {
        self.conn().execute("DELETE FROM teams WHERE id = ?1", params![id])?;
        self.conn().execute("DELETE FROM team_tasks WHERE team = ?1", params![id])?;
        Ok(())
    }

    /// Saves (or replaces) a team's task.
    pub fn save_task(&self, task: &crate::protocol::teams::Task) -> Result<(), StoreError> {
        let body = serde_json::to_string(task)?;
        self.conn().execute(
            "INSERT INTO team_tasks (id, team, body) VALUES (?1, ?2, ?3)
             ON CONFLICT (id) DO UPDATE SET body = excluded.body",
            params![task.id, task.team, body],
        )?;
        Ok(())
    }

    /// The tasks of team `team`, oldest first.
    pub fn team_tasks(&self, team: &str) -> Result<Vec<crate::protocol::teams::Task>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached("SELECT body FROM team_tasks WHERE team = ?1 ORDER BY rowid")?;
        let rows = stmt.query_map(params![team], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(serde_json::from_str(&row?)?);
        }
        Ok(out)
    }
}
