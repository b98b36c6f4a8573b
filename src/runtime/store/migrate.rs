//! Bringing a store written by an older Sidekicks to the current schema (`SCHEMA_VERSION`).

use rusqlite::Connection;

use super::StoreError;

/// Version 2 kept messages keyed by `(conversation_id, seq)` (a table and its index); version 3
/// keys them by their place. The full-text index is dropped, to be made again (`search::SCHEMA`,
/// then `backfill`).
pub(super) fn migrate_messages(conn: &Connection) -> Result<(), StoreError> {
    let old: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'messages'
         AND sql LIKE '%conversation_id%'",
        [],
        |r| r.get(0),
    )?;
    conn.execute_batch("DROP TRIGGER IF EXISTS messages_unindexed; DROP TABLE IF EXISTS message_words;")?;
    if old {
        conn.execute_batch(
            "CREATE TABLE messages_v3 (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
             INSERT INTO messages_v3 (id, body)
                 SELECT (conversation_id << 24) | seq, body FROM messages
                 WHERE conversation_id IN (SELECT id FROM conversations);
             DROP TABLE messages;
             ALTER TABLE messages_v3 RENAME TO messages;",
        )?;
    }
    Ok(())
}

/// Version 3 kept no time per message: the column is added (older messages have none).
pub(super) fn add_times(conn: &Connection) -> Result<(), StoreError> {
    let has: bool =
        conn.query_row("SELECT count(*) > 0 FROM pragma_table_info('messages') WHERE name = 'at'", [], |r| r.get(0))?;
    if !has {
        conn.execute_batch("ALTER TABLE messages ADD COLUMN at INTEGER")?;
    }
    Ok(())
}

/// Brings a store written by an older Sidekicks to the schema above. Version 0 had one
/// conversation per agent (`UNIQUE (config_path, agent)`); each becomes that agent's current
/// thread. Runs with foreign keys off, so moving the table keeps its messages.
pub(super) fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let old: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'conversations'
         AND sql NOT LIKE '%agent_title%'",
        [],
        |r| r.get(0),
    )?;
    if version >= 1 || !old {
        return Ok(());
    }
    conn.execute_batch(
        "BEGIN;
         CREATE TABLE conversations_v1 (
             id INTEGER PRIMARY KEY,
             config_path TEXT NOT NULL,
             agent TEXT NOT NULL,
             session_id TEXT,
             title TEXT,
             agent_title TEXT,
             updated_at INTEGER NOT NULL DEFAULT 0
         );
         INSERT INTO conversations_v1 (id, config_path, agent, session_id)
             SELECT id, config_path, agent, session_id FROM conversations;
         DROP TABLE conversations;
         ALTER TABLE conversations_v1 RENAME TO conversations;
         CREATE TABLE current_threads (
             config_path TEXT NOT NULL,
             agent TEXT NOT NULL,
             thread INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
             PRIMARY KEY (config_path, agent)
         );
         INSERT INTO current_threads (config_path, agent, thread) SELECT config_path, agent, id FROM conversations;
         COMMIT;",
    )?;
    Ok(())
}
