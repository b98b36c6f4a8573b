//! Leases (issue 47, ADR 0035): before an agent that is a team member writes a file through
//! Sidekicks, whoever keeps the teams says whether another member has changed that file, and what
//! the team's recipe wants then (`overlap = "ask" | "tell"`). The connection asks through this
//! trait; the team service answers it (`runtime::services::leases`).

use std::path::Path;
use std::sync::Arc;

use crate::model::recipe::OverlapRule;

/// Another member of the writer's team changed the file it is about to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meeting {
    /// The file, relative to the copy.
    pub path: String,
    /// The writer's team (its name).
    pub team: String,
    /// The other members that changed it (their short names).
    pub others: Vec<String>,
    /// What the recipe wants: `Ask` or `Tell` (never `Off`: then there is no meeting).
    pub rule: OverlapRule,
    /// For `Tell`: this is the first write of the file by this agent since it was told (it is
    /// refused with who else changed it; the next goes on).
    pub first: bool,
}

/// Who else changed a file an agent writes.
pub trait Leases: Send + Sync {
    /// The meeting, when `agent` (a member) writing `path` (absolute, in its copy) meets another
    /// member's change and the recipe says to ask or tell. Blocking (reads the copies).
    fn meeting(&self, agent: &str, path: &Path) -> Option<Meeting>;
}

/// A shared [`Leases`], carried by commands.
#[derive(Clone)]
pub struct LeasesHandle(pub Arc<dyn Leases>);

impl std::fmt::Debug for LeasesHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LeasesHandle")
    }
}

impl Meeting {
    /// Who else changed it, in words: "bob", "bob and cy".
    pub fn who(&self) -> String {
        match self.others.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => "another member".into(),
        }
    }
}
