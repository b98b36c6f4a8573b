//! The names a team's folders and records are made of: a team's id, a member's folder name.

use std::path::Path;

use super::{MemberCopy, MemberRecord};

/// A new team's id.
pub(super) fn new_id() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    format!("{}-{}", now.as_secs(), now.subsec_nanos() % 1_000_000)
}

/// What the store keeps of a member.
pub(super) fn record_of(m: &MemberCopy) -> MemberRecord {
    MemberRecord { agent: m.name.clone(), state: m.state.clone(), from: m.agent.clone() }
}

/// A member's name as the name of its folders in team folder `dir` (`Demo · squad` →
/// `Demo-squad`), unlike those there.
pub(super) fn folder_name(dir: &Path, member: &str) -> String {
    let dashed: String = member.chars().map(|c| if c.is_alphanumeric() || c == '-' { c } else { '-' }).collect();
    let base = dashed.split('-').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-");
    let base = if base.is_empty() { "member".to_string() } else { base };
    let taken = |name: &str| dir.join(name).exists() || dir.join(".state").join(name).exists();
    (1..).map(|n| if n == 1 { base.clone() } else { format!("{base}-{n}") }).find(|n| !taken(n)).unwrap_or(base)
}
