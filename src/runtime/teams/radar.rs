//! The conflict radar's trial merges (issue 47): where the members' current changes will collide
//! — with each other, or with what the project became since their base — before any of them
//! merges. Each member's changed files are read (base, now), the places where changes meet are
//! found by their base lines (`model::radar`), and each is tried with the merge itself (git's
//! 3-way text merge, in memory, nothing written): two members collide when merging one and then
//! the other conflicts, in either order; a member collides with the project when its own merge
//! would conflict now. Changes that meet but merge cleanly (the same edit twice) are not told.

use std::collections::BTreeMap;

use super::{MemberCopy, Side, changes, read_bases, read_mine, read_side};
use crate::model::merge::{Outcome, decide, is_binary};
use crate::model::radar::{MemberChanges, Overlap, overlaps, ranges_between};

/// One changed file of a member: its base, its version now, and the base lines its hunks replace.
struct Changed {
    base: Side,
    now: Side,
    ranges: Vec<(usize, usize)>,
}

/// What one member changed (at most `limit` files read; the rest are not tried): read again only
/// when its copy changed — the others' readings are kept — so a copy's change costs one member's
/// reading and the trial merges.
pub struct Reading {
    name: String,
    files: BTreeMap<String, Changed>,
}

impl Reading {
    /// The member read.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Where the changes of `members` collide, with each other and with the project (every member
/// read now).
pub fn radar(members: &[MemberCopy], limit: usize) -> Vec<Overlap> {
    let read: Vec<Reading> = members.iter().filter_map(|m| read(m, limit)).collect();
    let Some(project) = members.first().map(|m| m.project.clone()) else { return Vec::new() };
    collisions(&read.iter().collect::<Vec<_>>(), &project)
}

/// Where the changes read in `read` collide, with each other and with `project` as it is now.
pub fn collisions(read: &[&Reading], project: &std::path::Path) -> Vec<Overlap> {
    let mut projects: BTreeMap<String, Side> = BTreeMap::new();
    let mut project_side = |path: &str| {
        projects.entry(path.to_string()).or_insert_with(|| read_side(project, path).unwrap_or(Side::Absent)).clone()
    };
    let input: Vec<MemberChanges<'_>> = read
        .iter()
        .map(|m| (m.name.as_str(), m.files.iter().map(|(p, c)| (p.as_str(), c.ranges.as_slice())).collect()))
        .collect();
    let mut found = Vec::new();
    for mut candidate in overlaps(&input) {
        let main = project_side(&candidate.path);
        let file = |name: &str| read.iter().find(|m| m.name == name).and_then(|m| m.files.get(&candidate.path));
        let names = candidate.members.clone();
        let mut colliding: Vec<String> = Vec::new();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                if let (Some(x), Some(y)) = (file(a), file(b))
                    && collide(&main, x, y)
                {
                    for name in [a, b] {
                        if !colliding.contains(name) {
                            colliding.push(name.clone());
                        }
                    }
                }
            }
        }
        if colliding.len() >= 2 {
            candidate.members.retain(|m| colliding.contains(m));
            found.push(candidate);
        }
    }
    // Each member against what the project became since its base.
    for member in read {
        for (path, changed) in &member.files {
            let main = project_side(path);
            if main == changed.base || !conflicts(&changed.base, &main, &changed.now) {
                continue;
            }
            let theirs = ranges_between(text(&changed.base).unwrap_or_default(), text(&main).unwrap_or_default());
            let lines = crate::model::radar::meet(&changed.ranges, &theirs).flatten();
            found.push(Overlap { members: vec![member.name.clone()], path: path.clone(), lines, project: true });
        }
    }
    found
}

/// What `member` changed now (its first `limit` files), or `None` when its copy cannot be read.
pub fn read(member: &MemberCopy, limit: usize) -> Option<Reading> {
    let list = changes(member).ok()?;
    let list = &list[..list.len().min(limit)];
    let paths: Vec<String> = list.iter().map(|c| c.path.clone()).collect();
    // A rename is tried as its new path, from no base (its lines meet whole).
    let bases = read_bases(member, &paths).ok()?;
    let mut files = BTreeMap::new();
    for (path, base) in paths.into_iter().zip(bases) {
        let now = read_mine(member, &path).unwrap_or(Side::Absent);
        let ranges = match (text(&base), text(&now)) {
            (Some(old), Some(new)) if !old.is_empty() => ranges_between(old, new),
            _ => Vec::new(),
        };
        files.insert(path, Changed { base, now, ranges });
    }
    Some(Reading { name: member.name.clone(), files })
}

/// The text of a side (absent: empty), `None` when it is not text.
fn text(side: &Side) -> Option<&str> {
    match side {
        Side::Absent => Some(""),
        Side::File { content, .. } if !is_binary(content) => std::str::from_utf8(content).ok(),
        _ => None,
    }
}

/// Whether `x`'s and `y`'s changes of one file conflict: merged over their common base when they
/// share one; else merging one into the project as it is (`main`) and then the other.
fn collide(main: &Side, x: &Changed, y: &Changed) -> bool {
    if x.now == y.now {
        return false;
    }
    if x.base != y.base {
        for (first, second) in [(x, y), (y, x)] {
            if let Some(merged) = merged(main, first) {
                return self::merged(&merged, second).is_none();
            }
        }
    }
    merged(&x.now, y).is_none()
}

/// `c`'s change (from its base to now) merged into `into`, as the merge decides it (git's 3-way
/// merge for text; deletions, links and binaries as its rules say); `None` when it conflicts.
fn merged(into: &Side, c: &Changed) -> Option<Side> {
    match decide(&c.base, into, &c.now, "") {
        Outcome::Unchanged => Some(into.clone()),
        Outcome::Apply(side) => Some(side),
        Outcome::Conflict { .. } => None,
    }
}

/// Whether `now`, made from `base`, conflicts with the project's `main`.
fn conflicts(base: &Side, main: &Side, now: &Side) -> bool {
    merged(main, &Changed { base: base.clone(), now: now.clone(), ranges: Vec::new() }).is_none()
}
