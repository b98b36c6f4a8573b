//! The merge layer, one implementation for every provider: for each path the member changed, a
//! three-way decision between its base, the main folder now and the member's copy now
//! (`model::merge::decide`). Without conflicts, every result is applied to the main folder at once
//! through the journal. With any conflict, the main folder is left untouched: text conflicts get
//! their markers written into the member's copy, a file the member deleted but the main folder
//! changed is put back in the member's copy (so nothing is lost without the member deciding), and
//! every conflicted path is rebased on the main folder's version, so resubmitting after resolving
//! merges cleanly. Members merge one after another, each against the then-current main folder.

use super::journal::{self, Step};
use super::{MemberCopy, TeamError, changes, read_bases, read_side, rebase_paths};
use crate::model::merge::{ConflictKind, Outcome, Side, decide};

/// A path, its main and member versions, and what happens to it.
type Decided = (String, Side, Side, Outcome);

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Paths written to (or removed from) the main folder.
    pub applied: Vec<String>,
    /// Paths the main folder already had as the member made them.
    pub unchanged: Vec<String>,
    /// Paths that could not be merged (nothing was applied then).
    pub conflicts: Vec<(String, ConflictKind)>,
}

/// Writes `side` at `rel` in the member's copy (a temporary file renamed into place).
fn write_member(member: &MemberCopy, rel: &str, side: &Side) -> Result<(), TeamError> {
    let id = format!("conflict-{}", std::process::id());
    journal::apply(
        &member.copy,
        &member.state.join("member-journal"),
        &id,
        &[Step { path: rel.into(), side: side.clone() }],
    )
}

/// Merges the member's changes (all, or the `selected` paths) into the main folder.
pub fn merge(member: &MemberCopy, selected: Option<&[String]>) -> Result<MergeReport, TeamError> {
    let started = std::time::Instant::now();
    let lap = |what: &str| tracing::debug!("merge of {}: {what} after {:?}", member.name, started.elapsed());
    journal::recover(&member.project, &member.state)?;
    std::fs::create_dir_all(member.state.join("member-journal")).map_err(|e| TeamError::io(&member.state, e))?;
    let mut paths: Vec<String> = match selected {
        // Everything: the provider's list of changed paths is enough (no kinds, no renames).
        None => {
            let mut all = member.provider().changed_paths(member)?;
            all.extend(super::sides::Rebased::load(&member.state)?.paths());
            all
        }
        // A selection: a rename's two ends go together.
        Some(selected) => changes(member)?
            .iter()
            .filter(|c| c.paths().iter().any(|p| selected.contains(p)))
            .flat_map(|c| c.paths())
            .collect(),
    };
    paths.sort();
    paths.dedup();
    lap("changes listed");
    let bases = read_bases(member, &paths)?;
    lap("bases read");
    let mut report = MergeReport::default();
    let mut steps = Vec::new();
    let mut settled = Vec::new();
    let mut conflicted = Vec::new();
    // Reading both sides and deciding, on two threads (the three-way merges dominate).
    let work: Vec<(String, Side)> = paths.into_iter().zip(bases).collect();
    let half = work.len().div_ceil(2).max(1);
    let decided: Vec<Result<Vec<Decided>, TeamError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = work
            .chunks(half)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(path, base)| {
                            let main = read_side(&member.project, path)?;
                            let mine = read_side(&member.copy, path)?;
                            let outcome = decide(base, &main, &mine, &member.name);
                            Ok((path.clone(), main, mine, outcome))
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("merge thread")).collect()
    });
    for (path, main, mine, outcome) in decided.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().flatten() {
        match outcome {
            Outcome::Unchanged => {
                report.unchanged.push(path.clone());
                if main == mine {
                    settled.push((path, mine));
                }
            }
            Outcome::Apply(side) => {
                report.applied.push(path.clone());
                steps.push(Step { path: path.clone(), side });
                settled.push((path, mine));
            }
            Outcome::Conflict { kind, markers } => {
                report.conflicts.push((path.clone(), kind));
                conflicted.push((path, kind, markers, main));
            }
        }
    }
    lap("decided");
    if !conflicted.is_empty() {
        let mut rebased = Vec::new();
        for (path, kind, markers, main) in conflicted {
            match (kind, markers) {
                (ConflictKind::Text, Some(markers)) => {
                    let executable = matches!(read_side(&member.copy, &path)?, Side::File { executable: true, .. });
                    write_member(member, &path, &Side::File { content: markers, executable })?;
                }
                (ConflictKind::MemberDeleted, _) => write_member(member, &path, &main)?,
                _ => {}
            }
            rebased.push((path, main));
        }
        rebase_paths(member, &rebased)?;
        report.applied.clear();
        report.unchanged.clear();
        return Ok(report);
    }
    let id = format!("{}-{}", member.id, std::process::id());
    journal::apply(&member.project, &member.state, &id, &steps)?;
    lap("applied");
    // What was merged is the member's new base: its change list shows only work not merged yet.
    rebase_paths(member, &settled)?;
    lap("rebased");
    Ok(report)
}

/// The message that tells a member about the conflicts of its merge (in its conversation).
pub struct ConflictText<'a>(&'a [(String, ConflictKind)]);

impl<'a> ConflictText<'a> {
    /// The message for `conflicts`.
    pub fn new(conflicts: &'a [(String, ConflictKind)]) -> Self {
        Self(conflicts)
    }
}

impl std::fmt::Display for ConflictText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Merging your work into the project found conflicts; nothing of it was applied yet.")?;
        for (path, kind) in self.0 {
            let what = match kind {
                ConflictKind::Text => "the project changed the same lines; the conflict markers are in your copy",
                ConflictKind::Binary => "the project changed this binary file too; check which version to keep",
                ConflictKind::TooLarge => "the project changed this large file too; check which version to keep",
                ConflictKind::MemberDeleted => {
                    "you deleted it but the project changed it; its new version is back in your copy — delete it again if it must go"
                }
                ConflictKind::MainDeleted => {
                    "you changed it but the project deleted it; delete it too, or keep it to bring it back"
                }
                ConflictKind::Kind => {
                    "the project changed it into something else (file or link) too; check which to keep"
                }
            };
            writeln!(f, "- {path}: {what}.")?;
        }
        write!(
            f,
            "Please resolve these in your copy (keep what both sides intended, remove any markers), then say so: your work will be merged again."
        )
    }
}
