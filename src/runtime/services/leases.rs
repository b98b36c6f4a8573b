//! The team service's answer to a member's write (leases, ADR 0035): whether another member of
//! its team changed the same file (its copy's version differs from its base), and what the
//! team's recipe wants then. Read from the team book on the connection's blocking thread.

use std::path::Path;
use std::sync::{Arc, Mutex};

use super::team_book::TeamBook;
use crate::model::member_name::short_name;
use crate::model::recipe::OverlapRule;
use crate::runtime::acp::leases::{Leases, Meeting};
use crate::runtime::teams::{self, MemberCopy, Side};

/// Leases read from the teams' records.
pub(super) struct BookLeases {
    book: Arc<Mutex<TeamBook>>,
    /// One told-list written at a time.
    telling: Mutex<()>,
}

/// The files a member was told of (`tell`: told once, then its writes go on), one per line, in
/// its state folder: every process (the window, each `sidekicks team` run) reads the same.
const TOLD: &str = "overlaps-told";

impl BookLeases {
    pub fn new(book: Arc<Mutex<TeamBook>>) -> Self {
        Self { book, telling: Mutex::default() }
    }

    /// Records that `member` was told of `rel`; false if it was already.
    fn tell_once(&self, member: &MemberCopy, rel: &str) -> bool {
        let _one = self.telling.lock().unwrap_or_else(|e| e.into_inner());
        let path = member.state.join(TOLD);
        let told = std::fs::read_to_string(&path).unwrap_or_default();
        if told.lines().any(|l| l == rel) {
            return false;
        }
        use std::io::Write;
        let appended =
            std::fs::OpenOptions::new().create(true).append(true).open(&path).and_then(|mut f| writeln!(f, "{rel}"));
        if let Err(e) = appended {
            tracing::warn!("cannot remember that {} was told of {rel}: {e}", member.name);
        }
        true
    }
}

impl Leases for BookLeases {
    fn meeting(&self, agent: &str, path: &Path) -> Option<Meeting> {
        let (team, me, others) = {
            let book = self.book.lock().unwrap_or_else(|e| e.into_inner());
            let team = book.teams.iter().find(|t| t.members.iter().any(|(n, m)| n == agent && m.is_ok()))?;
            let copies = |keep: bool| -> Vec<MemberCopy> {
                team.members.iter().filter(|(n, _)| (n == agent) == keep).filter_map(|(_, m)| m.clone().ok()).collect()
            };
            (team.record.name.clone(), copies(true).pop()?, copies(false))
        };
        let rel = path.strip_prefix(&me.copy).ok()?;
        let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let rel = rel.join("/");
        if rel.is_empty() {
            return None;
        }
        let rule = teams::recipe::overlap(&me.project);
        if rule == OverlapRule::Off {
            return None;
        }
        let others: Vec<String> =
            others.iter().filter(|o| changed(o, &rel)).map(|o| short_name(&o.name).to_string()).collect();
        if others.is_empty() {
            return None;
        }
        let first = rule == OverlapRule::Tell && self.tell_once(&me, &rel);
        Some(Meeting { path: rel, team, others, rule, first })
    }
}

/// Whether `member`'s copy changed `rel` from its base.
fn changed(member: &MemberCopy, rel: &str) -> bool {
    let now = teams::read_mine(member, rel).unwrap_or(Side::Absent);
    let base = teams::read_bases(member, &[rel.to_string()]).ok().and_then(|b| b.into_iter().next());
    base.is_some_and(|base| base != now)
}
