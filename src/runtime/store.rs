//! The store: one SQLite file (WAL) in the user data folder holding conversations (messages with
//! their parts, saved as they stream), the ACP session of each, and remembered permission answers.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};

use super::permission_rules::PermissionRules;
use crate::model::conversation::Message;
use crate::model::permission::Decision;

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("history database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored message could not be read back.
    #[error("history database: a stored message is damaged: {0}")]
    Damaged(#[from] serde_json::Error),
    /// The folder could not be created.
    #[error("history database folder: {0}")]
    Io(#[from] std::io::Error),
}

/// A conversation as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredConversation {
    /// Its row id.
    pub id: i64,
    /// Its messages, in order.
    pub messages: Vec<Message>,
    /// The ACP session it last used, if any.
    pub session_id: Option<String>,
}

/// The SQLite store, shared by the manager, the history recorder and the permission rules.
pub struct Store {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY,
    config_path TEXT NOT NULL,
    agent TEXT NOT NULL,
    session_id TEXT,
    UNIQUE (config_path, agent)
);
CREATE TABLE IF NOT EXISTS messages (
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
CREATE TABLE IF NOT EXISTS permission_rules (
    agent TEXT NOT NULL,
    workspace TEXT NOT NULL,
    rule_key TEXT NOT NULL,
    decision TEXT NOT NULL,
    PRIMARY KEY (agent, workspace, rule_key)
);
CREATE TABLE IF NOT EXISTS channels (
    config_path TEXT NOT NULL,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (config_path, name)
);
CREATE TABLE IF NOT EXISTS agent_choices (
    config_path TEXT NOT NULL,
    agent TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (config_path, agent)
);
CREATE TABLE IF NOT EXISTS teams (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
";

impl Store {
    /// Opens (creating) the store at `path`.
    /// The folder is made private to the user (0700) and the database file too (0600; SQLite
    /// gives its journal files the same mode): conversations hold whatever agents printed.
    pub fn open(path: &Path) -> Result<Arc<Self>, StoreError> {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        if let Some(dir) = path.parent() {
            super::config_file::private_dir(dir)?;
        }
        std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(path)?;
        for file in [path.to_path_buf(), path.with_extension("db-wal"), path.with_extension("db-shm")] {
            if std::fs::metadata(&file).is_ok_and(|m| m.permissions().mode() & 0o077 != 0) {
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
            }
        }
        Self::init(Connection::open(path)?)
    }

    /// A store in memory (tests, or when the file cannot be opened).
    pub fn in_memory() -> Arc<Self> {
        Self::init(Connection::open_in_memory().expect("sqlite in memory")).expect("schema in memory")
    }

    fn init(conn: Connection) -> Result<Arc<Self>, StoreError> {
        // WAL + NORMAL: a commit survives the process being killed; only a power loss may lose
        // the last commits.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.execute_batch(SCHEMA)?;
        Ok(Arc::new(Self { conn: Mutex::new(conn) }))
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The conversation of `agent` in the config file `config_path`, created if new.
    pub fn conversation(&self, config_path: &Path, agent: &str) -> Result<StoredConversation, StoreError> {
        let conn = self.conn();
        let path = config_path.display().to_string();
        conn.execute(
            "INSERT INTO conversations (config_path, agent) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            params![path, agent],
        )?;
        let (id, session_id): (i64, Option<String>) = conn.query_row(
            "SELECT id, session_id FROM conversations WHERE config_path = ?1 AND agent = ?2",
            params![path, agent],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let mut stmt = conn.prepare_cached("SELECT body FROM messages WHERE conversation_id = ?1 ORDER BY seq")?;
        let bodies: Vec<String> = stmt.query_map([id], |r| r.get(0))?.collect::<Result<_, _>>()?;
        let messages = bodies.iter().map(|b| serde_json::from_str(b)).collect::<Result<_, _>>()?;
        Ok(StoredConversation { id, messages, session_id })
    }

    /// Saves messages `from..` of a conversation (replacing what was stored there) in one
    /// transaction.
    pub fn save_messages(&self, conversation: i64, from: usize, messages: &[Message]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut stmt =
                tx.prepare_cached("INSERT OR REPLACE INTO messages (conversation_id, seq, body) VALUES (?1, ?2, ?3)")?;
            for (i, message) in messages.iter().enumerate().skip(from) {
                stmt.execute(params![conversation, i as i64, serde_json::to_string(message)?])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Records the ACP session a conversation uses.
    pub fn set_session(&self, conversation: i64, session_id: Option<&str>) -> Result<(), StoreError> {
        self.conn()
            .execute("UPDATE conversations SET session_id = ?2 WHERE id = ?1", params![conversation, session_id])?;
        Ok(())
    }

    /// The remembered answers of `agent` in `workspace`.
    pub fn rules(&self, agent: &str, workspace: &Path) -> Result<Vec<(String, Decision)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT rule_key, decision FROM permission_rules WHERE agent = ?1 AND workspace = ?2 ORDER BY rule_key",
        )?;
        let rows = stmt.query_map(params![agent, workspace.display().to_string()], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (key, decision) = row?;
            out.push((key, if decision == "allow" { Decision::Allow } else { Decision::Reject }));
        }
        Ok(out)
    }

    /// Remembers (or, with `None`, forgets) an answer.
    pub fn set_rule(
        &self,
        agent: &str,
        workspace: &Path,
        key: &str,
        decision: Option<Decision>,
    ) -> Result<(), StoreError> {
        let conn = self.conn();
        let ws = workspace.display().to_string();
        match decision {
            Some(d) => {
                let d = if d == Decision::Allow { "allow" } else { "reject" };
                conn.execute(
                    "INSERT OR REPLACE INTO permission_rules (agent, workspace, rule_key, decision) VALUES (?1, ?2, ?3, ?4)",
                    params![agent, ws, key, d],
                )?;
            }
            None => {
                conn.execute(
                    "DELETE FROM permission_rules WHERE agent = ?1 AND workspace = ?2 AND rule_key = ?3",
                    params![agent, ws, key],
                )?;
            }
        }
        Ok(())
    }

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

    /// The choices (model, mode, …) remembered for agent `agent` of the config file `config_path`.
    pub fn choices(
        &self,
        config_path: &Path,
        agent: &str,
    ) -> Result<Vec<crate::model::session_config::Chosen>, StoreError> {
        let body: Option<String> = self
            .conn()
            .query_row(
                "SELECT body FROM agent_choices WHERE config_path = ?1 AND agent = ?2",
                params![config_path.display().to_string(), agent],
                |r| r.get(0),
            )
            .optional()?;
        Ok(body.map(|b| serde_json::from_str(&b)).transpose()?.unwrap_or_default())
    }

    /// Remembers the choices for agent `agent` of the config file `config_path`.
    pub fn save_choices(
        &self,
        config_path: &Path,
        agent: &str,
        chosen: &[crate::model::session_config::Chosen],
    ) -> Result<(), StoreError> {
        let body = serde_json::to_string(chosen)?;
        self.conn().execute(
            "INSERT OR REPLACE INTO agent_choices (config_path, agent, body) VALUES (?1, ?2, ?3)",
            params![config_path.display().to_string(), agent, body],
        )?;
        Ok(())
    }

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
        Ok(())
    }

    fn rule(&self, agent: &str, workspace: &Path, key: &str) -> Result<Option<Decision>, StoreError> {
        let decision: Option<String> = self
            .conn()
            .query_row(
                "SELECT decision FROM permission_rules WHERE agent = ?1 AND workspace = ?2 AND rule_key = ?3",
                params![agent, workspace.display().to_string(), key],
                |r| r.get(0),
            )
            .optional()?;
        Ok(decision.map(|d| if d == "allow" { Decision::Allow } else { Decision::Reject }))
    }
}

/// The remembered answers of one agent in one workspace, in the store.
pub struct StoredRules {
    /// The store.
    pub store: Arc<Store>,
    /// The agent.
    pub agent: String,
    /// Its workspace.
    pub workspace: PathBuf,
}

impl PermissionRules for StoredRules {
    fn decide(&self, key: &str) -> Option<Decision> {
        self.store.rule(&self.agent, &self.workspace, key).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            None
        })
    }

    fn remember(&self, key: &str, decision: Decision) {
        if let Err(e) = self.store.set_rule(&self.agent, &self.workspace, key, Some(decision)) {
            tracing::warn!("{e}");
        }
    }

    fn forget(&self, key: &str) {
        if let Err(e) = self.store.set_rule(&self.agent, &self.workspace, key, None) {
            tracing::warn!("{e}");
        }
    }

    fn list(&self) -> Vec<(String, Decision)> {
        self.store.rules(&self.agent, &self.workspace).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            Vec::new()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::conversation::{Delivery, Role};

    #[test]
    fn messages_rules_and_sessions_round_trip_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db/sidekicks.db");
        let config = Path::new("/cfg/sidekicks.toml");
        {
            let store = Store::open(&path).unwrap();
            let c = store.conversation(config, "demo").unwrap();
            assert!(c.messages.is_empty());
            let mut m = vec![Message::new(Role::User, "hi"), Message::new(Role::Agent, "hel")];
            store.save_messages(c.id, 0, &m).unwrap();
            m[1] = Message::new(Role::Agent, "hello");
            m[0].delivery = Delivery::Sent;
            store.save_messages(c.id, 1, &m).unwrap();
            store.set_session(c.id, Some("s-1")).unwrap();
            store.set_rule("demo", Path::new("/ws"), "execute:ls", Some(Decision::Allow)).unwrap();
        }
        let store = Store::open(&path).unwrap();
        let c = store.conversation(config, "demo").unwrap();
        assert_eq!(c.messages.len(), 2);
        assert_eq!(c.messages[1].text(), "hello");
        assert_eq!(c.session_id.as_deref(), Some("s-1"));
        let rules = StoredRules { store: store.clone(), agent: "demo".into(), workspace: "/ws".into() };
        assert_eq!(rules.decide("execute:ls"), Some(Decision::Allow));
        assert_eq!(rules.decide("execute:rm"), None);
        assert_eq!(store.rules("demo", Path::new("/other")).unwrap(), vec![]);
        store.set_rule("demo", Path::new("/ws"), "execute:ls", None).unwrap();
        assert_eq!(rules.decide("execute:ls"), None);
        // Another config file has its own conversation.
        assert!(store.conversation(Path::new("/other.toml"), "demo").unwrap().messages.is_empty());
    }
}
