//! Whose the stored threads are. An agent is its name and its home, the workspace folder on this
//! computer (the key of its threads, choices and abilities, as of its remembered answers): its
//! conversations follow it to a copy of the config or a moved config. Each agent applied is
//! noted with what it runs and the config file it was last in (`agents_seen`), so that what is
//! kept goes with it when it is renamed or its folder moves in that file, whether or not a
//! Sidekicks ran meanwhile (`follow`). An agent of another config file that runs the same is
//! another agent (a project's "Claude" does not take another project's threads). Rows written before
//! issue 48 are keyed by the config file's path; the agent of that name takes them over the first
//! time that config is loaded again. Threads no agent of the loaded config owns are listed by
//! `all_threads`.

use std::path::Path;

use rusqlite::params;

use super::{Store, StoreError, ThreadRow, body};

/// An agent as the history knows it: its home, its name, and what it runs (command, arguments,
/// runtime: the same agent under another name or in another folder runs the same).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen<'a> {
    /// Its workspace folder.
    pub home: &'a Path,
    /// Its name.
    pub name: &'a str,
    /// What it runs, as text.
    pub runs: String,
}

/// A stored thread with its owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedThread {
    /// The agent's name.
    pub agent: String,
    /// Its home: a workspace folder (or, for a row older than issue 48, a config file's path).
    pub home: String,
    /// The thread.
    pub row: ThreadRow,
}

/// Whether anything is kept for an agent (`?2`) at a home (`?1`): threads, the current one,
/// choices, abilities, remembered answers, or its being seen.
const KEPT_AT: &str = "SELECT EXISTS (SELECT 1 FROM conversations WHERE config_path = ?1 AND agent = ?2)
    OR EXISTS (SELECT 1 FROM current_threads WHERE config_path = ?1 AND agent = ?2)
    OR EXISTS (SELECT 1 FROM agent_choices WHERE config_path = ?1 AND agent = ?2)
    OR EXISTS (SELECT 1 FROM agent_abilities WHERE config_path = ?1 AND agent = ?2)
    OR EXISTS (SELECT 1 FROM agents_seen WHERE home = ?1 AND agent = ?2)
    OR EXISTS (SELECT 1 FROM permission_rules WHERE workspace = ?1 AND agent = ?2)";

impl Store {
    /// Gives each of `agents` (the config `config` applied) what is kept for it: rows of
    /// `config`'s path under its name (older than issue 48); and, when it has no thread yet, those
    /// of the one agent last seen in this config file that runs the same and is now gone from it,
    /// with either the same folder (renamed) or the same name (its folder moved). Returns how
    /// many threads moved.
    pub fn follow(&self, config: &Path, agents: &[Seen]) -> Result<usize, StoreError> {
        let mut moved = 0;
        for agent in agents {
            moved += self.rekey(config, agent.name, agent.home, agent.name)?;
        }
        let present: std::collections::HashSet<(String, &str)> =
            agents.iter().map(|a| (a.home.display().to_string(), a.name)).collect();
        for agent in agents {
            let home = agent.home.display().to_string();
            let has: bool = self
                .conn()
                .prepare_cached("SELECT count(*) > 0 FROM conversations WHERE config_path = ?1 AND agent = ?2")?
                .query_row(params![home, agent.name], |r| r.get(0))?;
            if has {
                continue;
            }
            let alike: Vec<(String, String)> = {
                let conn = self.conn();
                let mut stmt = conn.prepare_cached(
                    "SELECT home, agent FROM agents_seen
                     WHERE runs = ?1 AND config = ?4 AND (home = ?2) != (agent = ?3)",
                )?;
                let rows = stmt
                    .query_map(params![agent.runs, home, agent.name, config.display().to_string()], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })?;
                rows.collect::<Result<Vec<(String, String)>, _>>()?
                    .into_iter()
                    .filter(|(h, a)| !present.contains(&(h.clone(), a.as_str())))
                    .collect()
            };
            if let [(from, from_name)] = alike.as_slice() {
                moved += self.rekey(Path::new(from), from_name, agent.home, agent.name)?;
            }
        }
        let conn = self.conn();
        // A row as it was is not written again (each apply notes every agent).
        let mut note = conn.prepare_cached(
            "INSERT INTO agents_seen (home, agent, runs, config) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (home, agent) DO UPDATE SET runs = excluded.runs, config = excluded.config
             WHERE runs != excluded.runs OR config != excluded.config",
        )?;
        for agent in agents {
            note.execute(params![
                agent.home.display().to_string(),
                agent.name,
                agent.runs,
                config.display().to_string()
            ])?;
        }
        Ok(moved)
    }

    /// Gives what is kept for agent `from_agent` at `from` (threads, the current one, choices,
    /// abilities, remembered answers) to `to_agent` at `to`: a rename, a moved workspace, or an
    /// older row keyed by the config file's path taken over. Where `to` already has its own current
    /// thread, choices or answers, those stay. Returns how many threads moved.
    pub fn rekey(&self, from: &Path, from_agent: &str, to: &Path, to_agent: &str) -> Result<usize, StoreError> {
        let (from, to) = (from.display().to_string(), to.display().to_string());
        if (from.as_str(), from_agent) == (to.as_str(), to_agent) {
            return Ok(0);
        }
        let mut conn = self.conn();
        // Most of the time nothing is kept there (each apply asks, for every agent): no write
        // transaction is begun then (issue 50: a command line's start).
        let kept: bool = conn.prepare_cached(KEPT_AT)?.query_row(params![from, from_agent], |r| r.get(0))?;
        if !kept {
            return Ok(0);
        }
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let moved = tx
            .prepare_cached(
                "UPDATE conversations SET config_path = ?3, agent = ?4 WHERE config_path = ?1 AND agent = ?2",
            )?
            .execute(params![from, from_agent, to, to_agent])?;
        for table in ["current_threads", "agent_choices", "agent_abilities"] {
            tx.prepare_cached(&format!(
                "UPDATE OR IGNORE {table} SET config_path = ?3, agent = ?4 WHERE config_path = ?1 AND agent = ?2"
            ))?
            .execute(params![from, from_agent, to, to_agent])?;
            tx.prepare_cached(&format!("DELETE FROM {table} WHERE config_path = ?1 AND agent = ?2"))?
                .execute(params![from, from_agent])?;
        }
        // Gone under its old name and folder: not a candidate for another agent any more.
        tx.prepare_cached("DELETE FROM agents_seen WHERE home = ?1 AND agent = ?2")?
            .execute(params![from, from_agent])?;
        tx.prepare_cached(
            "UPDATE OR IGNORE permission_rules SET workspace = ?3, agent = ?4 WHERE workspace = ?1 AND agent = ?2",
        )?
        .execute(params![from, from_agent, to, to_agent])?;
        tx.prepare_cached("DELETE FROM permission_rules WHERE workspace = ?1 AND agent = ?2")?
            .execute(params![from, from_agent])?;
        tx.commit()?;
        Ok(moved)
    }

    /// Every stored thread with its owner, most recently used first.
    pub fn all_threads(&self) -> Result<Vec<OwnedThread>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT c.id, c.title, c.agent_title, c.updated_at, c.session_id,
                    (SELECT body FROM messages m WHERE m.id BETWEEN c.id << 24 AND (c.id << 24) | 16777215
                       AND {} ORDER BY m.id LIMIT 1),
                    c.agent, c.config_path
             FROM conversations c ORDER BY c.updated_at DESC, c.id DESC",
            body::IS_USER
        ))?;
        let rows = stmt.query_map([], |r| {
            Ok((
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get::<_, Option<String>>(5)?),
                r.get(6)?,
                r.get(7)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let ((id, title, agent_title, updated_at, session_id, first), agent, home) = row?;
            let row = ThreadRow { id, title, agent_title, first_message: first_words(first)?, updated_at, session_id };
            out.push(OwnedThread { agent, home, row });
        }
        Ok(out)
    }
}

impl ThreadRow {
    /// The thread as lists show it.
    pub fn summary(self) -> crate::protocol::threads::ThreadSummary {
        crate::protocol::threads::ThreadSummary {
            title: crate::protocol::threads::title(
                self.title.as_deref(),
                self.agent_title.as_deref(),
                self.first_message.as_deref(),
            ),
            renamed: self.title.is_some(),
            id: self.id,
            updated_at: self.updated_at,
            session_id: self.session_id,
        }
    }
}

/// The text of a stored first message of the person's, if it says something.
pub(super) fn first_words(body: Option<String>) -> Result<Option<String>, StoreError> {
    Ok(body.map(|body| body::decode(&body)).transpose()?.map(|m| m.text()).filter(|t| !t.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::model::conversation::{Message, Role};
    use crate::model::permission::Decision;

    #[test]
    fn a_rename_takes_threads_choices_and_answers_and_keeps_what_the_new_name_had() {
        let store = Store::in_memory();
        let (ws, other) = (Path::new("/ws"), Path::new("/other"));
        let old = store.new_thread(ws, "ada", None).unwrap();
        store.save_messages(old, 0, &[Message::new(Role::User, "hello")]).unwrap();
        store.set_rule("ada", ws, "execute:ls", Some(Decision::Allow)).unwrap();
        let theirs = store.new_thread(ws, "bob", None).unwrap();
        let elsewhere = store.new_thread(other, "ada", None).unwrap();
        assert_eq!(store.rekey(ws, "ada", ws, "bob").unwrap(), 1);
        let ids: Vec<i64> = store.threads(ws, "bob").unwrap().into_iter().map(|t| t.id).collect();
        assert_eq!(ids.len(), 2);
        assert!(ids.contains(&old) && ids.contains(&theirs));
        // Bob's own current thread stays current; Ada at another home keeps hers.
        assert_eq!(store.current_thread(ws, "bob").unwrap(), theirs);
        assert_eq!(store.threads(other, "ada").unwrap()[0].id, elsewhere);
        assert!(store.threads(ws, "ada").unwrap().is_empty());
        assert_eq!(store.rules("bob", ws).unwrap(), vec![("execute:ls".to_string(), Decision::Allow)]);
        assert!(store.rules("ada", ws).unwrap().is_empty());
        let all = store.all_threads().unwrap();
        assert_eq!(all.len(), 3);
        let hello = all.iter().find(|t| t.row.id == old).unwrap();
        assert_eq!((hello.agent.as_str(), hello.home.as_str()), ("bob", "/ws"));
        assert_eq!(hello.row.first_message.as_deref(), Some("hello"));
    }

    #[test]
    fn threads_follow_a_rename_a_moved_folder_and_older_rows_but_not_another_configs_agent() {
        let store = Store::in_memory();
        let (c1, c2) = (Path::new("/c1.toml"), Path::new("/c2.toml"));
        let (p, q) = (Path::new("/p"), Path::new("/q"));
        let seen = |home, name| Seen { home, name, runs: "claude".into() };
        assert_eq!(store.follow(c1, &[seen(p, "demo")]).unwrap(), 0);
        let id = store.new_thread(p, "demo", None).unwrap();
        // Renamed in the file, no Sidekicks running meanwhile.
        assert_eq!(store.follow(c1, &[seen(p, "helper")]).unwrap(), 1);
        assert_eq!(store.current_thread(p, "helper").unwrap(), id);
        // Another config's agent that runs the same in the same folder is another agent.
        assert_eq!(store.follow(c2, &[seen(p, "review")]).unwrap(), 0);
        // Its folder moved, in the same file.
        assert_eq!(store.follow(c1, &[seen(q, "helper")]).unwrap(), 1);
        assert_eq!(store.threads(q, "helper").unwrap()[0].id, id);
        // Something else run: not the same agent.
        let other = Seen { home: p, name: "helper", runs: "gemini".into() };
        assert_eq!(store.follow(c1, &[other]).unwrap(), 0);
        // A row kept under the config file's path (before issue 48) goes to the agent of its name.
        let old = store.new_thread(c1, "zed", None).unwrap();
        assert_eq!(store.follow(c1, &[seen(Path::new("/r"), "zed")]).unwrap(), 1);
        assert_eq!(store.current_thread(Path::new("/r"), "zed").unwrap(), old);
    }
}
