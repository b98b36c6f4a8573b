//! The store's threads: each agent's conversations (an agent is its name and its home, the
//! workspace folder: issue 48, item 9), the current one, their
//! messages (saved as they stream) and ACP sessions.

use std::path::Path;

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError, StoredConversation, ThreadRow, body, now, place, places, search, writer};
use crate::model::conversation::Message;

impl Store {
    /// The current thread of `agent` at `home` (created if it has none).
    pub fn conversation(&self, home: &Path, agent: &str) -> Result<StoredConversation, StoreError> {
        let id = self.current_thread(home, agent)?;
        self.thread(id)
    }

    /// The id of the current thread of `agent` (created if it has none).
    pub fn current_thread(&self, home: &Path, agent: &str) -> Result<i64, StoreError> {
        let path = home.display().to_string();
        let current: Option<i64> = self
            .conn()
            .query_row(
                "SELECT thread FROM current_threads WHERE config_path = ?1 AND agent = ?2",
                params![path, agent],
                |r| r.get(0),
            )
            .optional()?;
        match current {
            Some(id) => Ok(id),
            None => self.new_thread(home, agent, None),
        }
    }

    /// A thread by id: its messages and session.
    pub fn thread(&self, id: i64) -> Result<StoredConversation, StoreError> {
        let conn = self.conn();
        let session_id: Option<String> =
            conn.query_row("SELECT session_id FROM conversations WHERE id = ?1", [id], |r| r.get(0))?;
        let mut stmt = conn.prepare_cached("SELECT body, at FROM messages WHERE id BETWEEN ?1 AND ?2 ORDER BY id")?;
        let (first, last) = places(id);
        let rows: Vec<(String, Option<i64>)> =
            stmt.query_map([first, last], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
        let mut messages = Vec::with_capacity(rows.len());
        for (body, at) in rows {
            let mut message = body::decode(&body)?;
            message.at = message.at.or(at.map(|at| at as u64));
            messages.push(message);
        }
        Ok(StoredConversation { id, messages, session_id })
    }

    /// Starts a new thread of `agent` (with an agent's `session_id` when it reopens one of its
    /// sessions) and makes it the current one.
    pub fn new_thread(&self, home: &Path, agent: &str, session_id: Option<&str>) -> Result<i64, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let path = home.display().to_string();
        tx.execute(
            "INSERT INTO conversations (config_path, agent, session_id, updated_at) VALUES (?1, ?2, ?3, ?4)",
            params![path, agent, session_id, now()],
        )?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "INSERT OR REPLACE INTO current_threads (config_path, agent, thread) VALUES (?1, ?2, ?3)",
            params![path, agent, id],
        )?;
        tx.commit()?;
        Ok(id)
    }

    /// Makes thread `id` the current one of its agent.
    pub fn set_current_thread(&self, id: i64) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT OR REPLACE INTO current_threads (config_path, agent, thread)
             SELECT config_path, agent, id FROM conversations WHERE id = ?1",
            [id],
        )?;
        Ok(())
    }

    /// The threads of `agent`, most recently used first.
    pub fn threads(&self, home: &Path, agent: &str) -> Result<Vec<ThreadRow>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT c.id, c.title, c.agent_title, c.updated_at, c.session_id,
                    (SELECT body FROM messages m WHERE m.id BETWEEN c.id << 24 AND (c.id << 24) | 16777215
                       AND {} ORDER BY m.id LIMIT 1)
             FROM conversations c WHERE c.config_path = ?1 AND c.agent = ?2
             ORDER BY c.updated_at DESC, c.id DESC",
            body::IS_USER
        ))?;
        let rows = stmt.query_map(params![home.display().to_string(), agent], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get::<_, Option<String>>(5)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, title, agent_title, updated_at, session_id, first) = row?;
            let first_message = super::homes::first_words(first)?;
            out.push(ThreadRow { id, title, agent_title, first_message, updated_at, session_id });
        }
        Ok(out)
    }

    /// Names thread `id` (the person's title; `None` goes back to the agent's or the first message).
    pub fn rename_thread(&self, id: i64, title: Option<&str>) -> Result<(), StoreError> {
        self.conn().execute("UPDATE conversations SET title = ?2 WHERE id = ?1", params![id, title])?;
        Ok(())
    }

    /// Keeps the title the agent gave thread `id`, when the thread has none yet: a later session
    /// in the thread (`sidekicks prompt` speaking in it, an agent that could not reopen it) names
    /// itself after its own first words, which must not rename the thread (issue 48, item 2).
    /// Nor does it rename a thread shown by its first message when later ones followed (a thread
    /// kept from an agent that named nothing): only a thread of one message of the person's.
    pub fn set_agent_title(&self, id: i64, title: Option<&str>) -> Result<(), StoreError> {
        let (first, last) = places(id);
        self.conn().execute(
            &format!(
                "UPDATE conversations SET agent_title = ?2 WHERE id = ?1 AND title IS NULL AND agent_title IS NULL
                 AND (SELECT count(*) FROM messages m WHERE m.id BETWEEN ?3 AND ?4 AND {}) <= 1",
                body::IS_USER
            ),
            params![id, title, first, last],
        )?;
        Ok(())
    }

    /// Deletes thread `id` and its messages. If it was its agent's current thread, the agent has
    /// none until one is asked for (the next `current_thread` makes one).
    pub fn delete_thread(&self, id: i64) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let (first, last) = places(id);
        search::unindex_range(&tx, first, last)?;
        tx.execute("DELETE FROM messages WHERE id BETWEEN ?1 AND ?2", [first, last])?;
        tx.execute("DELETE FROM conversations WHERE id = ?1", [id])?;
        tx.commit()?;
        Ok(())
    }

    /// Drops the messages of a conversation from `len` on (an edit, a version shown: the thread
    /// goes on from there).
    pub fn cut_messages(&self, conversation: i64, len: usize) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let (_, last) = super::places(conversation);
        let first = place(conversation, len as i64);
        search::unindex_range(&tx, first, last)?;
        tx.execute("DELETE FROM messages WHERE id BETWEEN ?1 AND ?2", [first, last])?;
        tx.commit()?;
        Ok(())
    }

    /// Saves messages `from..` of a conversation (replacing what was stored there) in one
    /// transaction.
    pub fn save_messages(&self, conversation: i64, from: usize, messages: &[Message]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        // A write from the start: it reads (the old words) before it writes, and a read turned
        // into a write fails at once, without waiting, when another process wrote meanwhile.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        {
            // The index first: replacing an entry needs the text it was made of (the old body).
            let mut streaming = self.streaming.lock().unwrap_or_else(|e| e.into_inner());
            let mut stmt = tx.prepare_cached("INSERT OR REPLACE INTO messages (id, body, at) VALUES (?1, ?2, ?3)")?;
            for (i, message) in messages.iter().enumerate().skip(from) {
                let id = place(conversation, i as i64);
                search::index(&tx, &mut streaming, id, message)?;
                let body = body::encode(message)?;
                // A JSON body holds its time; tagged text has it beside.
                let at = message.at.filter(|_| body::is_tagged(&body)).map(|at| at as i64);
                stmt.execute(params![id, body, at])?;
            }
        }
        tx.execute("UPDATE conversations SET updated_at = ?2 WHERE id = ?1", params![conversation, now()])?;
        let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64);
        tx.execute(
            "INSERT OR REPLACE INTO thread_writers (thread, writer, at) VALUES (?1, ?2, ?3)",
            params![conversation, writer(), at],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Records the ACP session a conversation uses.
    pub fn set_session(&self, conversation: i64, session_id: Option<&str>) -> Result<(), StoreError> {
        self.conn()
            .execute("UPDATE conversations SET session_id = ?2 WHERE id = ?1", params![conversation, session_id])?;
        Ok(())
    }
}
