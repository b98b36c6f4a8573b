//! The full-text index of every stored message (SQLite FTS5) and the search across them.
//!
//! The index holds no copy of the text (`content=''`), no word positions (`detail=none`) and no
//! per-message sizes (`columnsize=0`): a message's words point to its place (`thread << 24 | seq`,
//! also its `messages` rowid), and the text is read back from the message itself to check the
//! words and cut the snippet. Such an index forgets an entry only when told the words it was made
//! of, so that text must always be known: for a finished message it is its stored body's
//! (`index_text` of it: a change to `index_text` must make the index again, see `SCHEMA_VERSION`);
//! for an answer still streaming, indexed only now and then, the text last indexed is kept in
//! `streaming_words` until the answer ends.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::found::{Found, NEWEST, SNIPPET, cannot_hold};
use super::{Store, StoreError};
use crate::model::conversation::{Message, Role};
use crate::model::search::{
    Place, SearchHit, fts_query, index_finds, index_text, searchable_text, short_start, snippet, words,
};

/// The index, and the words of the answers still streaming as they were last indexed.
pub(super) const SCHEMA: &str = "
CREATE VIRTUAL TABLE IF NOT EXISTS message_words USING fts5(
    text, content='', columnsize=0, detail=none, tokenize='unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS streaming_words (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
";

/// How often an answer still streaming is indexed again, at most: each fragment is saved, but
/// indexing each would write the index many times a second for words found a moment later anyway.
const STREAMING_EVERY: Duration = Duration::from_millis(500);

/// Indexes `message` as the message at place `id`, replacing what was indexed there; call it
/// before its body is replaced (the old entry is forgotten by the old body's words). An answer
/// still streaming is indexed at most every [`STREAMING_EVERY`] (`streaming` remembers when), and
/// whole once it ends.
pub(super) fn index(
    tx: &Transaction<'_>,
    streaming: &mut HashMap<i64, Instant>,
    id: i64,
    message: &Message,
) -> Result<(), StoreError> {
    let still = message.role == Role::Agent && message.end.is_none();
    let recorded: Option<String> = tx
        .prepare_cached("SELECT text FROM streaming_words WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    let now = Instant::now();
    // Skipped only while the words indexed are on record: then the body may change freely.
    if still && recorded.is_some() && streaming.get(&id).is_some_and(|at| now.duration_since(*at) < STREAMING_EVERY) {
        return Ok(());
    }
    let had_record = recorded.is_some();
    let old = match recorded {
        Some(text) => Some(text),
        None => body_words(tx, id)?,
    };
    let new = index_text(&searchable_text(message));
    if old.as_deref() != Some(new.as_str()) {
        if let Some(old) = old.filter(|t| !t.is_empty()) {
            forget(tx, id, &old)?;
        }
        if !new.is_empty() {
            tx.prepare_cached("INSERT INTO message_words (rowid, text) VALUES (?1, ?2)")?.execute(params![id, new])?;
        }
    }
    if still {
        streaming.insert(id, now);
        tx.prepare_cached("INSERT OR REPLACE INTO streaming_words (id, text) VALUES (?1, ?2)")?
            .execute(params![id, new])?;
    } else {
        streaming.remove(&id);
        if had_record {
            tx.prepare_cached("DELETE FROM streaming_words WHERE id = ?1")?.execute([id])?;
        }
    }
    Ok(())
}

/// The words the stored body at place `id` was indexed with (`None`: no body, or a damaged one,
/// whose entry, if any, cannot be forgotten: its words stay, and the search's check of the text
/// leaves them out).
fn body_words(tx: &Transaction<'_>, id: i64) -> Result<Option<String>, StoreError> {
    let body: Option<String> =
        tx.prepare_cached("SELECT body FROM messages WHERE id = ?1")?.query_row([id], |r| r.get(0)).optional()?;
    Ok(body.and_then(|b| super::body::decode(&b).ok()).map(|m| index_text(&searchable_text(&m))))
}

/// Forgets the entry of place `id`, made of `words`.
fn forget(tx: &Transaction<'_>, id: i64, words: &str) -> Result<(), StoreError> {
    tx.prepare_cached("INSERT INTO message_words (message_words, rowid, text) VALUES ('delete', ?1, ?2)")?
        .execute(params![id, words])?;
    Ok(())
}

/// Forgets the entries of the messages at places `first..=last` (a thread being deleted).
pub(super) fn unindex_range(tx: &Transaction<'_>, first: i64, last: i64) -> Result<(), StoreError> {
    let ids: Vec<i64> = tx
        .prepare("SELECT id FROM messages WHERE id BETWEEN ?1 AND ?2")?
        .query_map([first, last], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for id in ids {
        let recorded: Option<String> = tx
            .prepare_cached("SELECT text FROM streaming_words WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        let words = match recorded {
            Some(text) => Some(text),
            None => body_words(tx, id)?,
        };
        if let Some(words) = words.filter(|t| !t.is_empty()) {
            forget(tx, id, &words)?;
        }
    }
    tx.execute("DELETE FROM streaming_words WHERE id BETWEEN ?1 AND ?2", [first, last])?;
    Ok(())
}

/// Indexes whole the answers left streaming by a Sidekicks that stopped mid-turn (their words on
/// record are the last indexed, the end of their text is not). An answer that another process is
/// still streaming is indexed whole too, which its next save takes from.
pub(super) fn settle(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let recorded: Vec<(i64, String)> = tx
        .prepare("SELECT id, text FROM streaming_words")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (id, words) in recorded {
        let now = body_words(tx, id)?.unwrap_or_default();
        if words != now {
            if !words.is_empty() {
                forget(tx, id, &words)?;
            }
            if !now.is_empty() {
                tx.execute("INSERT INTO message_words (rowid, text) VALUES (?1, ?2)", params![id, now])?;
            }
        }
    }
    tx.execute("DELETE FROM streaming_words", [])?;
    Ok(())
}

/// Indexes every stored message (a store made before this index existed), in `tx`.
pub(super) fn backfill(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute("DELETE FROM streaming_words", [])?;
    let mut rows = tx.prepare("SELECT id, body FROM messages")?;
    let mut insert = tx.prepare("INSERT INTO message_words (rowid, text) VALUES (?1, ?2)")?;
    let mut rows = rows.query([])?;
    while let Some(row) = rows.next()? {
        let (id, body): (i64, String) = (row.get(0)?, row.get(1)?);
        // A damaged message is left out of the index, not a reason to refuse the store.
        let Ok(message) = super::body::decode(&body) else { continue };
        let text = index_text(&searchable_text(&message));
        if !text.is_empty() {
            insert.execute(params![id, text])?;
        }
    }
    Ok(())
}

/// How many index entries are looked at, at most, to find the results asked for.
const CANDIDATES: usize = 2000;

impl Store {
    /// What the person said in the channels of the scope's config file, then the messages of its
    /// agents' threads, holding every word of `query` (the last one may be cut), newest thread
    /// first, at most `limit` in all.
    pub fn search(&self, scope: &SearchScope, query: &str, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        let words = words(query);
        let conn = self.conn();
        let mut found = Found::default();
        found.hits = channel_hits(&conn, &scope.config, &words, limit)?;
        // A short start of a word is looked for in the newest messages first: nearly every one
        // holds a word it starts, where the index would merge the lists of all those words.
        if short_start(query) {
            let start = words.last().map(String::as_str).unwrap_or_default();
            let mut newest = conn.prepare_cached("SELECT id, body FROM messages ORDER BY id DESC LIMIT ?1")?;
            let mut rows = newest.query([NEWEST as i64])?;
            while let Some(row) = rows.next()? {
                if found.hits.len() >= limit {
                    break;
                }
                let (place, body): (i64, String) = (row.get(0)?, row.get(1)?);
                // Looked at: the index does not give it again (the order stays newest first).
                if !found.seen.insert(place) || cannot_hold(&body, start) {
                    continue;
                }
                found.offer(&conn, scope, &words, place, Some(body), |text| index_finds(text, query, true))?;
            }
        }
        // The last word as a whole word first (one list of the index), then as the start of longer
        // words for what is still missing (the lists of every word it starts: costly for a short
        // start of a frequent word, so only when needed).
        for prefix in [false, true] {
            if found.hits.len() >= limit {
                break;
            }
            let Some(fts) = fts_query(query, prefix) else { return Ok(found.hits) };
            let mut candidates = conn.prepare_cached(
                "SELECT rowid FROM message_words WHERE message_words MATCH ?1 ORDER BY rowid DESC LIMIT ?2",
            )?;
            let mut ids = candidates.query(params![fts, CANDIDATES as i64])?;
            while let Some(row) = ids.next()? {
                if found.hits.len() >= limit {
                    break;
                }
                let place: i64 = row.get(0)?;
                if !found.seen.insert(place) {
                    continue;
                }
                found.offer(&conn, scope, &words, place, None, |_| true)?;
            }
        }
        Ok(found.hits)
    }
}

/// What the person said in the channels of `config_path` holding every word (the timelines are
/// few and small: read whole, not indexed).
fn channel_hits(
    conn: &Connection,
    config_path: &str,
    words: &[String],
    limit: usize,
) -> Result<Vec<SearchHit>, StoreError> {
    let mut rows = conn.prepare_cached("SELECT name, body FROM channels WHERE config_path = ?1 ORDER BY name")?;
    let timelines: Vec<(String, String)> =
        rows.query_map([config_path], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    let mut hits = Vec::new();
    for (name, body) in timelines {
        let Ok(timeline) = serde_json::from_str::<crate::model::channel::Timeline>(&body) else { continue };
        for (entry, said) in timeline.entries.iter().enumerate().rev() {
            let crate::model::channel::Entry::User { text, .. } = said else { continue };
            if let Some((snippet, ranges)) = snippet(text, words, SNIPPET) {
                let place = Place::Channel { name: name.clone(), entry };
                hits.push(SearchHit { place, updated_at: 0, role: Role::User, snippet, ranges });
                if hits.len() >= limit {
                    return Ok(hits);
                }
            }
        }
    }
    Ok(hits)
}

/// Where a search looks: the channels of a config file and the threads of its agents (each its
/// home and name: see `homes`).
#[derive(Clone, Debug, Default)]
pub struct SearchScope {
    config: String,
    pub(super) agents: std::collections::HashSet<(String, String)>,
}

impl SearchScope {
    /// The channels of `config` and the threads of `agents` (home, name).
    pub fn new<'a>(config: &Path, agents: impl IntoIterator<Item = (&'a Path, &'a str)>) -> Self {
        let agents = agents.into_iter().map(|(home, name)| (home.display().to_string(), name.to_string())).collect();
        Self { config: config.display().to_string(), agents }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The config `cfg` with its agent ada, kept at `cfg` as homes were before issue 48.
    fn scope(cfg: &Path) -> SearchScope {
        SearchScope::new(cfg, [(cfg, "ada")])
    }

    fn said(role: Role, text: &str) -> Message {
        Message::new(role, text)
    }

    #[test]
    fn messages_are_found_as_they_stream_and_forgotten_with_their_thread() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("h.db")).unwrap();
        let (cfg, other) = (Path::new("/c/sidekicks.toml"), Path::new("/other.toml"));
        let a = store.current_thread(cfg, "ada").unwrap();
        let mut messages = vec![said(Role::User, "Fix the flaky build"), said(Role::Agent, "Looking")];
        store.save_messages(a, 0, &messages).unwrap();
        assert_eq!(store.search(&scope(cfg), "looking", 10).unwrap().len(), 1, "found while it streams");
        // The answer grows as it streams: at most every half second the index follows the text,
        // and the whole answer once the turn ends.
        messages[1] = said(Role::Agent, "Looking at the linker");
        store.save_messages(a, 1, &messages).unwrap();
        messages[1] = said(Role::Agent, "Looking at the linker error now");
        messages[1].end = Some(crate::model::conversation::TurnEnd::EndTurn);
        store.save_messages(a, 1, &messages).unwrap();
        let b = store.current_thread(other, "ada").unwrap();
        store.save_messages(b, 0, &[said(Role::User, "the build elsewhere")]).unwrap();

        let hits = store.search(&scope(cfg), "build", 10).unwrap();
        assert_eq!(hits.len(), 1, "only this config's threads: {hits:?}");
        let title = Some("Fix the flaky build".to_string());
        assert_eq!(hits[0].place, Place::Thread { agent: "ada".into(), thread: a, title, seq: 0 });
        assert_eq!(&hits[0].snippet[hits[0].ranges[0].clone()], "build");
        let seq = |hit: &SearchHit| match hit.place {
            Place::Thread { seq, .. } => seq,
            Place::Channel { .. } => usize::MAX,
        };
        assert_eq!(seq(&store.search(&scope(cfg), "linker err", 10).unwrap()[0]), 1, "the last word is a prefix");
        assert!(store.search(&scope(cfg), "looking flaky", 10).unwrap().is_empty(), "every word, in one message");
        messages[1] = said(Role::Agent, "Done");
        messages[1].end = Some(crate::model::conversation::TurnEnd::EndTurn);
        store.save_messages(a, 1, &messages).unwrap();
        assert!(store.search(&scope(cfg), "linker", 10).unwrap().is_empty(), "the replaced text is forgotten");

        assert_eq!(words_indexed(&store), words_of_bodies(&store), "the index holds the bodies' words, no more");

        store.delete_thread(a).unwrap();
        assert!(store.search(&scope(cfg), "build", 10).unwrap().is_empty());
        assert_eq!(words_indexed(&store), words_of_bodies(&store), "the deleted thread's entries went with it");
        assert_eq!(words_indexed(&store), vec![("build".to_string(), 1), ("elsewhere".to_string(), 1)]);
    }

    /// Each word of the index and how many messages it points to.
    fn words_indexed(store: &Store) -> Vec<(String, i64)> {
        let conn = store.conn();
        conn.execute_batch(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, message_words, 'row');",
        )
        .unwrap();
        let mut stmt = conn.prepare("SELECT term, doc FROM temp.vocab ORDER BY term").unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap()
    }

    /// The same for an index made afresh of the stored messages.
    fn words_of_bodies(store: &Store) -> Vec<(String, i64)> {
        let conn = store.conn();
        conn.execute_batch(
            "DROP TABLE IF EXISTS temp.fresh_vocab; DROP TABLE IF EXISTS temp.fresh;
             CREATE VIRTUAL TABLE temp.fresh USING fts5(text, content='', columnsize=0, detail=none,
                 tokenize='unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE temp.fresh_vocab USING fts5vocab(temp, fresh, 'row');",
        )
        .unwrap();
        let bodies: Vec<(i64, String)> = conn
            .prepare("SELECT id, body FROM messages")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (id, body) in bodies {
            let text = index_text(&searchable_text(&super::super::body::decode(&body).unwrap()));
            conn.execute("INSERT INTO temp.fresh (rowid, text) VALUES (?1, ?2)", params![id, text]).unwrap();
        }
        let mut stmt = conn.prepare("SELECT term, doc FROM temp.fresh_vocab ORDER BY term").unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap()
    }

    #[test]
    fn an_answer_indexed_while_it_streams_leaves_no_stale_words() {
        // Many fragments inside one half second: only the first is indexed until the answer ends;
        // the body moves on meanwhile, so forgetting the entry needs the words on record.
        let store = Store::in_memory();
        let cfg = Path::new("/c/sidekicks.toml");
        let a = store.current_thread(cfg, "ada").unwrap();
        let mut messages = vec![said(Role::User, "Refactor the parser")];
        let mut answer = String::new();
        for word in ["Reading", "parser", "tokens", "lexer", "grammar"] {
            answer.push_str(word);
            answer.push(' ');
            messages.truncate(1);
            messages.push(said(Role::Agent, &answer));
            store.save_messages(a, 1, &messages).unwrap();
        }
        assert_eq!(store.search(&scope(cfg), "reading", 10).unwrap().len(), 1, "the first fragment was indexed");
        let recorded = |store: &Store| -> i64 {
            store.conn().query_row("SELECT count(*) FROM streaming_words", [], |r| r.get(0)).unwrap()
        };
        assert_eq!(recorded(&store), 1, "the words indexed while it streams are on record");
        // A thread deleted mid-stream forgets the words indexed, not the body's.
        let b = store.new_thread(cfg, "ada", None).unwrap();
        store.save_messages(b, 0, &[said(Role::Agent, "Half an answer about sockets")]).unwrap();
        store.save_messages(b, 0, &[said(Role::Agent, "Half an answer about sockets and pipes")]).unwrap();
        store.delete_thread(b).unwrap();
        assert!(store.search(&scope(cfg), "sockets", 10).unwrap().is_empty());
        // The answer ends: indexed whole, the record goes.
        messages[1].end = Some(crate::model::conversation::TurnEnd::EndTurn);
        store.save_messages(a, 1, &messages).unwrap();
        assert_eq!(store.search(&scope(cfg), "grammar", 10).unwrap().len(), 1);
        assert_eq!(recorded(&store), 0);
        assert_eq!(words_indexed(&store), words_of_bodies(&store));
    }

    #[test]
    fn an_answer_left_streaming_is_indexed_whole_when_the_store_opens_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let cfg = Path::new("/c/sidekicks.toml");
        {
            let store = Store::open(&path).unwrap();
            let a = store.current_thread(cfg, "ada").unwrap();
            store.save_messages(a, 0, &[said(Role::Agent, "Checking the")]).unwrap();
            store.save_messages(a, 0, &[said(Role::Agent, "Checking the migrations")]).unwrap();
            // Sidekicks stops here, mid-turn: the second fragment came within half a second of
            // the first, so (unless the machine stalled) only "checking" is indexed.
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.search(&scope(cfg), "migrations", 10).unwrap().len(), 1);
        let recorded: i64 = store.conn().query_row("SELECT count(*) FROM streaming_words", [], |r| r.get(0)).unwrap();
        assert_eq!(recorded, 0);
        assert_eq!(words_indexed(&store), words_of_bodies(&store));
    }

    #[test]
    fn a_version_2_store_is_keyed_by_place_and_indexed_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE conversations (id INTEGER PRIMARY KEY, config_path TEXT NOT NULL, agent TEXT NOT NULL,
                     session_id TEXT, title TEXT, agent_title TEXT, updated_at INTEGER NOT NULL DEFAULT 0);
                 CREATE TABLE messages (conversation_id INTEGER NOT NULL REFERENCES conversations(id)
                     ON DELETE CASCADE, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (conversation_id, seq));
                 CREATE VIRTUAL TABLE message_words USING fts5(text, content='', contentless_delete=1, detail=none);
                 CREATE TRIGGER messages_unindexed AFTER DELETE ON messages BEGIN
                     DELETE FROM message_words WHERE rowid = (old.conversation_id << 24) | old.seq;
                 END;
                 INSERT INTO conversations (id, config_path, agent) VALUES (5, '/c.toml', 'ada');
                 INSERT INTO message_words (rowid, text) VALUES (83886080, 'cache'), (83886081, 'src cache rs');
                 PRAGMA user_version = 2;",
            )
            .unwrap();
            for (seq, body) in [(0, "\u{1}uwhere is the cache"), (1, "\u{1}AIn src/cache.rs")] {
                conn.execute("INSERT INTO messages VALUES (5, ?1, ?2)", params![seq, body]).unwrap();
            }
        }
        let store = Store::open(&path).unwrap();
        let texts: Vec<String> = store.thread(5).unwrap().messages.iter().map(|m| m.text()).collect();
        assert_eq!(texts, ["where is the cache", "In src/cache.rs"]);
        assert_eq!(store.search(&scope(Path::new("/c.toml")), "cache", 10).unwrap().len(), 2);
        assert_eq!(words_indexed(&store), words_of_bodies(&store));
        store.delete_thread(5).unwrap();
        assert!(words_indexed(&store).is_empty());
        let left: i64 = store.conn().query_row("SELECT count(*) FROM messages", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0, "the thread's messages went with it");
    }

    #[test]
    fn what_the_person_said_in_a_channel_is_found() {
        let store = Store::in_memory();
        let cfg = Path::new("/c/sidekicks.toml");
        let mut timeline = crate::model::channel::Timeline::default();
        timeline.entries.push(crate::model::channel::Entry::User {
            text: "Who owns the deploy script?".into(),
            to: vec!["ada".into()],
            from: None,
            at: None,
        });
        store.save_channel(cfg, "ops", &timeline).unwrap();
        store.save_channel(Path::new("/other.toml"), "ops", &timeline).unwrap();
        let hits = store.search(&scope(cfg), "deploy", 10).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].place, Place::Channel { name: "ops".into(), entry: 0 });
        assert_eq!(&hits[0].snippet[hits[0].ranges[0].clone()], "deploy");
    }

    #[test]
    fn a_store_made_before_the_index_is_indexed_when_opened() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let cfg = Path::new("/c/sidekicks.toml");
        {
            let store = Store::open(&path).unwrap();
            let a = store.current_thread(cfg, "ada").unwrap();
            store.save_messages(a, 0, &[said(Role::Agent, "an old answer about tokio")]).unwrap();
            // As a version 1 store was: no index.
            store.conn().execute_batch("DROP TABLE message_words; PRAGMA user_version = 1;").unwrap();
        }
        let store = Store::open(&path).unwrap();
        let hits = store.search(&scope(cfg), "tokio", 10).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].role, Role::Agent);
    }
}
