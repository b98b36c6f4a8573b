//! The demo agent's sessions (`sidekicks demo-agent --sessions`), so threads can be tried offline:
//! it lists them (`session/list`), resumes one it knows (`session/resume`), closes and deletes
//! them, and names each after the first words said in it (`session_info_update`). It keeps them
//! while it runs (a restarted demo agent knows none of them, as an agent that lost its sessions
//! would), and starts with one from before, as an agent used from its own command line has.

use std::path::PathBuf;
use std::sync::Mutex;

use agent_client_protocol::v1::schema::{
    SessionCapabilities, SessionCloseCapabilities, SessionDeleteCapabilities, SessionId, SessionInfo,
    SessionInfoUpdate, SessionListCapabilities, SessionResumeCapabilities, SessionUpdate,
};

/// Words of the first message that make a session's title, at most.
const TITLE_WORDS: usize = 6;

/// One session it keeps.
#[derive(Clone, Debug)]
struct Kept {
    id: SessionId,
    cwd: PathBuf,
    title: Option<String>,
    updated_at: String,
}

/// The sessions it keeps, oldest first.
#[derive(Default)]
pub struct Sessions {
    kept: Mutex<Vec<Kept>>,
}

/// The id of the session it has from before (as an agent used from its own command line would).
pub const EARLIER: &str = "demo-0";

/// What it advertises with `--sessions`.
pub fn capabilities() -> SessionCapabilities {
    SessionCapabilities::new()
        .list(SessionListCapabilities::new())
        .resume(SessionResumeCapabilities::new())
        .close(SessionCloseCapabilities::new())
        .delete(SessionDeleteCapabilities::new())
}

impl Sessions {
    /// Its sessions when it starts in `folder`: one from before, which it can resume.
    pub fn starting_in(folder: PathBuf) -> Self {
        let earlier = Kept {
            id: SessionId::new(EARLIER),
            cwd: folder,
            title: Some("An earlier session, from before Sidekicks".into()),
            updated_at: now(),
        };
        Self { kept: Mutex::new(vec![earlier]) }
    }

    /// A new session opened.
    pub fn opened(&self, id: SessionId, cwd: PathBuf) {
        self.lock().push(Kept { id, cwd, title: None, updated_at: now() });
    }

    /// Whether it knows session `id` (so it can resume it).
    pub fn knows(&self, id: &SessionId) -> bool {
        self.lock().iter().any(|s| s.id == *id)
    }

    /// Its sessions in `cwd` (every one without), most recent first.
    pub fn list(&self, cwd: Option<&PathBuf>) -> Vec<SessionInfo> {
        let mut kept: Vec<Kept> = self.lock().iter().filter(|s| cwd.is_none_or(|c| *c == s.cwd)).cloned().collect();
        kept.reverse();
        kept.into_iter().map(|s| SessionInfo::new(s.id, s.cwd).title(s.title).updated_at(s.updated_at)).collect()
    }

    /// Forgets session `id`; false if it did not know it.
    pub fn delete(&self, id: &SessionId) -> bool {
        let mut kept = self.lock();
        let before = kept.len();
        kept.retain(|s| s.id != *id);
        kept.len() != before
    }

    /// Someone spoke in session `id`: its title, the first time (to send as an update).
    pub fn spoken(&self, id: &SessionId, words: &str) -> Option<SessionUpdate> {
        let mut kept = self.lock();
        let session = kept.iter_mut().find(|s| s.id == *id)?;
        session.updated_at = now();
        if session.title.is_some() {
            return None;
        }
        let title: Vec<&str> = words.split_whitespace().take(TITLE_WORDS).collect();
        if title.is_empty() {
            return None;
        }
        let title = title.join(" ");
        session.title = Some(title.clone());
        Some(SessionUpdate::SessionInfoUpdate(
            SessionInfoUpdate::new().title(title).updated_at(session.updated_at.clone()),
        ))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Kept>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Now, in ISO 8601 (UTC, to the second).
fn now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil(days as i64);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// The calendar date `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_titles() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_454), (2026, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
        let sessions = Sessions::default();
        let id = SessionId::new("demo-1");
        sessions.opened(id.clone(), "/w".into());
        assert!(sessions.spoken(&id, "please fix the build of the whole project now").is_some());
        assert!(sessions.spoken(&id, "again").is_none(), "named once");
        let listed = sessions.list(Some(&"/w".into()));
        assert_eq!(listed[0].title.as_deref(), Some("please fix the build of the"));
        assert!(sessions.list(Some(&"/elsewhere".into())).is_empty());
        assert!(sessions.delete(&id) && !sessions.knows(&id));
    }
}
