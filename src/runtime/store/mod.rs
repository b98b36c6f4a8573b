//! The store: one SQLite file (WAL) in the user data folder holding conversations (messages with
//! their parts, saved as they stream), the ACP session of each, and remembered permission answers.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, params};

mod body;
mod found;
mod homes;
mod kept;
mod migrate;
mod rules;
mod search;
mod teams;
mod threads;

pub use homes::{OwnedThread, Seen};
pub use rules::StoredRules;
use rules::drop_inexact_rules;
pub use search::SearchScope;

use migrate::{add_times, migrate, migrate_messages};

use crate::model::conversation::Message;

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

pub use crate::protocol::HistoryNote;

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

/// How long a use of the store waits for another process (the window while `sidekicks prompt`
/// runs) before it fails as busy.
pub const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The SQLite store, shared by the manager, the history recorder and the permission rules.
pub struct Store {
    conn: Mutex<Connection>,
    /// Its file (none in memory).
    path: Option<PathBuf>,
    /// When each answer still streaming was last indexed (see `search::index`).
    streaming: Mutex<std::collections::HashMap<i64, std::time::Instant>>,
    /// Remembered answers dropped when the store was opened (said once).
    dropped_rules: usize,
}

const SCHEMA: &str = "
-- `config_path` of conversations, current_threads, agent_choices and agent_abilities holds the
-- agent's home, its workspace folder (see homes.rs); a config file's path in rows older than
-- issue 48, until that config is loaded again. The name stays so an older Sidekicks still opens it.
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY,
    config_path TEXT NOT NULL,
    agent TEXT NOT NULL,
    session_id TEXT,
    title TEXT,
    agent_title TEXT,
    updated_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS conversations_by_agent ON conversations (config_path, agent);
CREATE TABLE IF NOT EXISTS current_threads (
    config_path TEXT NOT NULL,
    agent TEXT NOT NULL,
    thread INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    PRIMARY KEY (config_path, agent)
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY, -- the message's place: thread << 24 | seq (see `place`)
    body TEXT NOT NULL,
    at INTEGER -- when it was written (Unix seconds) if its body is tagged text (JSON holds its own)
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
CREATE TABLE IF NOT EXISTS agent_abilities (
    config_path TEXT NOT NULL,
    agent TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (config_path, agent)
);
CREATE TABLE IF NOT EXISTS teams (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS team_tasks (
    id TEXT PRIMARY KEY,
    team TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS team_tasks_by_team ON team_tasks (team);
CREATE TABLE IF NOT EXISTS agents_seen ( -- each agent applied: its home, name, what it runs, its config file (homes.rs)
    home TEXT NOT NULL,
    agent TEXT NOT NULL,
    runs TEXT NOT NULL,
    config TEXT NOT NULL,
    PRIMARY KEY (home, agent)
);
CREATE TABLE IF NOT EXISTS thread_writers (
    thread INTEGER NOT NULL,
    writer TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (thread, writer)
);
";

/// Whether the store is at this version's schema with nothing for [`search::settle`] to index
/// (read without a write transaction).
fn settled(conn: &Connection) -> Result<bool, StoreError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version != SCHEMA_VERSION {
        return Ok(false);
    }
    let streaming: bool = conn.query_row("SELECT EXISTS (SELECT 1 FROM streaming_words)", [], |r| r.get(0))?;
    Ok(!streaming)
}

/// Keeps the write-ahead log's files (`-wal`, `-shm`) when the last connection closes (SQLite
/// removes them then, by default): each command line's process would make both files again at
/// its start and remove them at its end, and making files is what costs on ext4 (issue 50). The
/// log is still checkpointed into the database at each close, and emptied (`journal_size_limit`).
fn keep_wal(conn: &Connection) {
    let mut on: std::ffi::c_int = 1;
    // SAFETY: the handle is the open connection's (valid while `conn` lives); this opcode reads
    // an int through the pointer, which outlives the call.
    let _ = unsafe {
        rusqlite::ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            rusqlite::ffi::SQLITE_FCNTL_PERSIST_WAL,
            (&raw mut on).cast(),
        )
    };
}

/// The version of the schema above (`PRAGMA user_version`). 2: the full-text index. 3: a
/// message's place is its rowid (no second index on `(conversation_id, seq)`), and the index keeps
/// no per-message sizes (see `search`). 4: when each message was written (`messages.at`). 5: remembered
/// answers that name no exact target dropped (`drop_inexact_rules`).
const SCHEMA_VERSION: i64 = 5;

/// The place of message `seq` of thread `thread`: the `messages` rowid, and its index entry's.
/// A thread holds up to 2^24 messages.
pub(crate) fn place(thread: i64, seq: i64) -> i64 {
    (thread << 24) | seq
}

/// The places of thread `thread`'s messages: `place(thread, 0)..=last`.
fn places(thread: i64) -> (i64, i64) {
    (place(thread, 0), place(thread, 0xff_ffff))
}

/// One thread as listed: enough to name it and sort it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadRow {
    /// Its row id.
    pub id: i64,
    /// The title the person gave, if any.
    pub title: Option<String>,
    /// The title the agent gave (`session_info_update`), if any.
    pub agent_title: Option<String>,
    /// The start of its first message of the person's, if any.
    pub first_message: Option<String>,
    /// When a message of it was last saved (seconds since 1970; 0: never).
    pub updated_at: i64,
    /// Its ACP session, if one was opened.
    pub session_id: Option<String>,
}

/// This process, as the history names who saved a thread: its id and when it began (ids are reused).
pub fn writer() -> &'static str {
    static WRITER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    WRITER.get_or_init(|| {
        let began = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        format!("{}-{began}", std::process::id())
    })
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// Opens (creating) the store at `path`.
    /// The folder is made private to the user (0700) and the database file too (0600; SQLite
    /// gives its journal files the same mode): conversations hold whatever agents printed.
    pub fn open(path: &Path) -> Result<Arc<Self>, StoreError> {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        if let Some(dir) = path.parent() {
            super::config::file::private_dir(dir)?;
        }
        std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(path)?;
        for file in [path.to_path_buf(), path.with_extension("db-wal"), path.with_extension("db-shm")] {
            if std::fs::metadata(&file).is_ok_and(|m| m.permissions().mode() & 0o077 != 0) {
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
            }
        }
        // Several processes opening a new file at once race to switch it to WAL: SQLite answers
        // "busy" at once (not after waiting) where waiting could deadlock. Opening again succeeds
        // once the first has switched it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match Self::init(Connection::open(path)?, Some(path.to_path_buf())) {
                Err(StoreError::Sqlite(e))
                    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                        && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                opened => return opened,
            }
        }
    }

    /// Opens the history at `path`; one SQLite cannot read (not a database, damaged) is kept
    /// aside (renamed `NAME.damaged-YYYY-MM-DD-HHMM`, with its journal files) and a fresh one started.
    pub fn open_or_recover(path: &Path) -> Result<(Arc<Self>, Option<HistoryNote>), StoreError> {
        match Self::open(path) {
            Ok(store) => {
                let note = (store.dropped_rules > 0).then(|| HistoryNote::RulesDropped { count: store.dropped_rules });
                Ok((store, note))
            }
            Err(StoreError::Sqlite(e))
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
                ) =>
            {
                // Named by when it was found (local time), so a person reads which one it is.
                let c = crate::model::when::civil(now(), crate::model::when::utc_offset());
                let stamp = format!("{:04}-{:02}-{:02}-{:02}{:02}", c.year, c.month, c.day, c.hour, c.minute);
                let mut aside = path.with_extension(format!("db.damaged-{stamp}"));
                for n in 2.. {
                    if !aside.exists() {
                        break;
                    }
                    aside = path.with_extension(format!("db.damaged-{stamp}-{n}"));
                }
                std::fs::rename(path, &aside)?;
                for journal in ["db-wal", "db-shm"] {
                    let from = path.with_extension(journal);
                    if from.exists() {
                        let _ = std::fs::rename(&from, PathBuf::from(format!("{}-{journal}", aside.display())));
                    }
                }
                tracing::warn!("the history {} could not be read ({e}): kept as {}", path.display(), aside.display());
                let store = Self::open(path)?;
                Ok((store, Some(HistoryNote::Recovered { path: path.into(), kept_as: aside, error: e.to_string() })))
            }
            Err(e) => Err(e),
        }
    }

    /// A store in memory (tests, or when the file cannot be opened).
    pub fn in_memory() -> Arc<Self> {
        Self::init(Connection::open_in_memory().expect("sqlite in memory"), None).expect("schema in memory")
    }

    fn init(mut conn: Connection, path: Option<PathBuf>) -> Result<Arc<Self>, StoreError> {
        // Another Sidekicks (the window while `sidekicks prompt` runs, two prompts at once) may
        // hold the database a moment: wait for it rather than fail with "database is locked".
        conn.busy_timeout(BUSY_WAIT)?;
        // WAL + NORMAL: a commit survives the process being killed; only a power loss may lose
        // the last commits.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // Kept, but emptied when the last connection closes: frames left in a kept log would be
        // read by the next process as the database's pages (over a file replaced meanwhile).
        conn.pragma_update(None, "journal_size_limit", 0)?;
        keep_wal(&conn);
        // Off while migrating (the bundled SQLite turns them on by default): moving a table
        // must not cascade to its messages.
        conn.pragma_update(None, "foreign_keys", "OFF")?;
        migrate(&conn)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // A store as this version leaves it, with no answer left streaming, is opened without
        // writing (issue 50: each command-line start wrote a transaction, and the log of them
        // grew for the next start to read back).
        if settled(&conn)? {
            return Ok(Arc::new(Self { conn: Mutex::new(conn), path, streaming: Mutex::default(), dropped_rules: 0 }));
        }
        // Brings older stores to version 3 and indexes what they hold, once: the version is read
        // and raised in one write transaction, so two processes opening the file together do not
        // both do it.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version < 3 {
            migrate_messages(&tx)?;
        }
        tx.execute_batch(SCHEMA)?;
        if version < 4 {
            add_times(&tx)?;
        }
        let dropped_rules = if version < 5 { drop_inexact_rules(&tx)? } else { 0 };
        tx.execute_batch(search::SCHEMA)?;
        if version < 3 {
            search::backfill(&tx)?;
        } else {
            search::settle(&tx)?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        tx.commit()?;
        Ok(Arc::new(Self { conn: Mutex::new(conn), path, streaming: Mutex::default(), dropped_rules }))
    }

    /// How many remembered answers opening the store dropped (made by an earlier Sidekicks from a
    /// title or nothing: see `model::permission::rule_key_is_exact`).
    pub fn dropped_rules(&self) -> usize {
        self.dropped_rules
    }

    /// Its file (none in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Limits the file to `pages` pages, as a full disk would (SQLite then answers "database or
    /// disk is full"); for tests of a full disk.
    pub fn limit_pages(&self, pages: i64) {
        let _ = self.conn().pragma_update(None, "max_page_count", pages);
    }

    /// How many pages the file holds now.
    pub fn pages(&self) -> i64 {
        self.conn().pragma_query_value(None, "page_count", |r| r.get(0)).unwrap_or(0)
    }

    /// A number that changes when another process (or connection) wrote to the file.
    pub fn data_version(&self) -> i64 {
        self.conn().pragma_query_value(None, "data_version", |r| r.get(0)).unwrap_or(0)
    }

    /// When another process (than this one: [`writer`]) last saved messages of `thread`
    /// (nanoseconds since 1970), if one ever did.
    pub fn others_wrote(&self, thread: i64) -> Result<Option<i64>, StoreError> {
        let conn = self.conn();
        let at = conn.query_row(
            "SELECT MAX(at) FROM thread_writers WHERE thread = ?1 AND writer != ?2",
            params![thread, writer()],
            |r| r.get(0),
        );
        Ok(at?)
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::conversation::{Delivery, Role};
    use crate::model::permission::Decision;
    use crate::runtime::permission_rules::PermissionRules;

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
            // Times: beside tagged text, inside a JSON body (a queued message).
            (m[0].at, m[1].at) = (Some(1_000), Some(2_000));
            m.push(Message { delivery: Delivery::Queued, at: Some(3_000), ..Message::new(Role::User, "later") });
            store.save_messages(c.id, 1, &m).unwrap();
            store.set_session(c.id, Some("s-1")).unwrap();
            store.set_rule("demo", Path::new("/ws"), "execute:ls", Some(Decision::Allow)).unwrap();
        }
        let store = Store::open(&path).unwrap();
        let c = store.conversation(config, "demo").unwrap();
        assert_eq!(c.messages.len(), 3);
        assert_eq!(c.messages[1].text(), "hello");
        let times: Vec<Option<u64>> = c.messages.iter().map(|m| m.at).collect();
        assert_eq!(times, [None, Some(2_000), Some(3_000)], "message 0 was saved before it had a time");
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

    #[test]
    fn threads_are_made_listed_named_switched_and_deleted() {
        let store = Store::in_memory();
        let config = Path::new("/cfg/sidekicks.toml");
        let first = store.current_thread(config, "demo").unwrap();
        assert_eq!(store.current_thread(config, "demo").unwrap(), first, "the current thread stays");
        store.save_messages(first, 0, &[Message::new(Role::User, "fix the build please")]).unwrap();
        let second = store.new_thread(config, "demo", Some("s-9")).unwrap();
        assert_ne!(first, second);
        assert_eq!(store.current_thread(config, "demo").unwrap(), second, "a new thread is the current one");
        assert_eq!(store.thread(second).unwrap().session_id.as_deref(), Some("s-9"));
        store.set_agent_title(second, Some("Agent's title")).unwrap();
        let rows = store.threads(config, "demo").unwrap();
        assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>().len(), 2);
        let row = |id| rows.iter().find(|r: &&ThreadRow| r.id == id).unwrap().clone();
        assert_eq!(row(first).first_message.as_deref(), Some("fix the build please"));
        assert_eq!(row(second).agent_title.as_deref(), Some("Agent's title"));
        assert_eq!(row(second).first_message, None);
        // A thread named by its first message, more said since: a later session's title does not
        // rename it.
        store
            .save_messages(first, 1, &[Message::new(Role::Agent, "on it"), Message::new(Role::User, "and the docs")])
            .unwrap();
        store.set_agent_title(first, Some("and the docs")).unwrap();
        assert_eq!(store.threads(config, "demo").unwrap().iter().find(|r| r.id == first).unwrap().agent_title, None);
        store.rename_thread(first, Some("Build")).unwrap();
        store.set_current_thread(first).unwrap();
        assert_eq!(store.conversation(config, "demo").unwrap().messages[0].text(), "fix the build please");
        assert_eq!(
            store.threads(config, "demo").unwrap().iter().find(|r| r.id == first).unwrap().title.as_deref(),
            Some("Build")
        );
        store.delete_thread(first).unwrap();
        assert_eq!(store.threads(config, "demo").unwrap().len(), 1);
        let made = store.current_thread(config, "demo").unwrap();
        assert!(made != first && made != second, "deleting the current thread leaves none: a new one is made");
        assert!(store.threads(config, "other").unwrap().is_empty());
    }

    #[test]
    fn a_store_of_the_one_conversation_era_keeps_its_messages_as_threads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "PRAGMA foreign_keys = ON;
                 CREATE TABLE conversations (id INTEGER PRIMARY KEY, config_path TEXT NOT NULL,
                     agent TEXT NOT NULL, session_id TEXT, UNIQUE (config_path, agent));
                 CREATE TABLE messages (conversation_id INTEGER NOT NULL REFERENCES conversations(id)
                     ON DELETE CASCADE, seq INTEGER NOT NULL, body TEXT NOT NULL,
                     PRIMARY KEY (conversation_id, seq));
                 INSERT INTO conversations VALUES (7, '/cfg.toml', 'demo', 'demo-1');",
            )
            .unwrap();
            let body = serde_json::to_string(&Message::new(Role::User, "old words")).unwrap();
            conn.execute("INSERT INTO messages VALUES (7, 0, ?1)", [body]).unwrap();
        }
        let store = Store::open(&path).unwrap();
        let c = store.conversation(Path::new("/cfg.toml"), "demo").unwrap();
        assert_eq!((c.id, c.session_id.as_deref()), (7, Some("demo-1")));
        assert_eq!(c.messages[0].text(), "old words");
        // The unique constraint is gone: a second thread of the same agent is allowed.
        let second = store.new_thread(Path::new("/cfg.toml"), "demo", None).unwrap();
        assert_ne!(second, 7);
        assert_eq!(store.threads(Path::new("/cfg.toml"), "demo").unwrap().len(), 2);
        // The moved table keeps times too (the column added by version 4).
        let said = Message { at: Some(42), ..Message::new(Role::User, "new words") };
        store.save_messages(7, 1, &[c.messages[0].clone(), said]).unwrap();
        drop(store);
        // Opening again migrates nothing twice.
        let store = Store::open(&path).unwrap();
        let times: Vec<Option<u64>> = store.thread(7).unwrap().messages.iter().map(|m| m.at).collect();
        assert_eq!(times, [None, Some(42)]);
    }

    #[test]
    fn two_processes_worth_of_connections_write_at_once_without_locking_errors() {
        // The window and `sidekicks prompt` share the file: each opens its own connection.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.db");
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let store = Store::open(&path).expect("open while others write");
                    let agent = format!("agent-{w}");
                    for i in 0..50 {
                        let thread = store.new_thread(Path::new("/cfg.toml"), &agent, None).unwrap();
                        let message = Message::new(Role::User, format!("message {i}"));
                        store.save_messages(thread, 0, &[message]).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().expect("no writer failed");
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.threads(Path::new("/cfg.toml"), "agent-3").unwrap().len(), 50);
    }
}
