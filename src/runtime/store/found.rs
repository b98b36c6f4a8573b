//! A search's results as they are found: each candidate message checked against the scope and
//! the words asked (`Store::search`), and the newest messages passed over when they surely do not
//! hold a short start of a word asked.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use super::{SearchScope, StoreError};
use crate::model::search::{Place, SearchHit, searchable_text, snippet};

/// The length of a snippet, in characters (about).
pub(super) const SNIPPET: usize = 140;

/// Whether a stored `body` surely holds no indexed word starting with `start` (no word there
/// starts with those letters in any case, but common ones such as "there" for "the"): then it is
/// not read. Only said of plain ASCII (a letter with an accent, or one written `\u…`, may match
/// without its accent).
pub(super) fn cannot_hold(body: &str, start: &str) -> bool {
    if start.is_empty() || !start.is_ascii() || !body.is_ascii() || body.contains("\\u") {
        return false;
    }
    let bytes = body.as_bytes();
    let word_at = |i: usize| {
        let end = bytes[i..].iter().position(|b| !b.is_ascii_alphanumeric()).map_or(bytes.len(), |n| i + n);
        body[i..end].to_ascii_lowercase()
    };
    !(0..=bytes.len().saturating_sub(start.len())).any(|i| {
        // After a separator, or after an escape in the body's JSON (`\n` then a word).
        (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() || (i >= 2 && bytes[i - 2] == b'\\'))
            && bytes[i..i + start.len()].eq_ignore_ascii_case(start.as_bytes())
            && !crate::model::search::is_common(&word_at(i))
    })
}

/// How many of the newest messages are looked at for a short start of a word before the index.
pub(super) const NEWEST: usize = 500;

/// The results of a search so far: the hits, the places looked at, the threads read.
#[derive(Default)]
pub(super) struct Found {
    pub(super) hits: Vec<SearchHit>,
    pub(super) seen: std::collections::HashSet<i64>,
    threads: HashMap<i64, Option<ThreadInfo>>,
}

impl Found {
    /// Adds the message at `place` (its `body` when already read) if its thread is in `scope`, its
    /// text holds every word asked and `finds` takes it.
    pub(super) fn offer(
        &mut self,
        conn: &Connection,
        scope: &SearchScope,
        words: &[String],
        place: i64,
        body: Option<String>,
        finds: impl Fn(&str) -> bool,
    ) -> Result<(), StoreError> {
        let (thread, seq) = (place >> 24, place & 0xff_ffff);
        let info = match self.threads.get(&thread) {
            Some(info) => info.clone(),
            None => {
                let info = thread_info(conn, thread, scope)?;
                self.threads.insert(thread, info.clone());
                info
            }
        };
        let Some(info) = info else { return Ok(()) };
        let body = match body {
            Some(body) => body,
            None => {
                let mut read = conn.prepare_cached("SELECT body FROM messages WHERE id = ?1")?;
                match read.query_row([place], |r| r.get(0)).optional()? {
                    Some(body) => body,
                    None => return Ok(()),
                }
            }
        };
        let Ok(message) = super::body::decode(&body) else { return Ok(()) };
        let text = searchable_text(&message);
        if !finds(&text) {
            return Ok(());
        }
        let Some((snippet, ranges)) = snippet(&text, words, SNIPPET) else { return Ok(()) };
        self.hits.push(SearchHit {
            place: Place::Thread { agent: info.agent, thread, title: info.title, seq: seq as usize },
            updated_at: info.updated_at,
            role: message.role,
            snippet,
            ranges,
        });
        Ok(())
    }
}

#[derive(Clone)]
struct ThreadInfo {
    agent: String,
    title: Option<String>,
    updated_at: i64,
}

/// Agent, title and date of thread `thread`, if one of the scope's agents owns it. The title
/// is the person's, else the agent's, else the start of the thread's first message of the person's
/// (as the thread list says it).
fn thread_info(conn: &Connection, thread: i64, scope: &SearchScope) -> Result<Option<ThreadInfo>, StoreError> {
    let row = conn
        .prepare_cached(&format!(
            "SELECT agent, coalesce(title, agent_title), updated_at,
                    (SELECT body FROM messages m WHERE m.id BETWEEN c.id << 24 AND (c.id << 24) | 16777215
                       AND {} ORDER BY m.id LIMIT 1),
                    config_path
             FROM conversations c WHERE id = ?1",
            super::body::IS_USER
        ))?
        .query_row(params![thread], |r| {
            Ok((r.get(0)?, r.get::<_, Option<String>>(1)?, r.get(2)?, r.get::<_, Option<String>>(3)?, r.get(4)?))
        })
        .optional()?;
    let row = row.filter(|(agent, _, _, _, home): &(String, _, i64, _, String)| {
        scope.agents.contains(&(home.clone(), agent.clone()))
    });
    Ok(row.map(|(agent, title, updated_at, first, _)| {
        let first = first
            .and_then(|body| super::body::decode(&body).ok())
            .map(|m| m.text().lines().next().unwrap_or_default().chars().take(60).collect::<String>())
            .filter(|t| !t.trim().is_empty());
        ThreadInfo { agent, title: title.or(first), updated_at }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_passed_over_only_when_no_indexed_word_can_start_so() {
        assert!(cannot_hold(r#"{"text":"there is the thing, then them"}"#, "the"), "common words only");
        assert!(!cannot_hold(r#"{"text":"a Theory of it"}"#, "the"), "any case");
        assert!(cannot_hold(r#"{"text":"within reach"}"#, "in"), "inside a word is not its start");
        assert!(!cannot_hold(r#"{"text":"first line\nindex"}"#, "in"), "a word after an escaped new line");
        assert!(!cannot_hold(r#"{"text":"Ça marche"}"#, "ca"), "accents: read it");
        assert!(!cannot_hold(r#"{"text":"\u00c7a marche"}"#, "ca"), "an escaped letter: read it");
    }
}
