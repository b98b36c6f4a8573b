//! The merge layer, one implementation for every provider: for each path the member changed, a
//! three-way decision between its base, the main folder now and the member's copy now
//! (`model::merge::decide`). Without conflicts, every result is applied to the main folder at once
//! through the journal. With any conflict, the main folder is left untouched: text conflicts get
//! their markers written into the member's copy, a file the member deleted but the main folder
//! changed is put back in the member's copy (so nothing is lost without the member deciding), and
//! every conflicted path is rebased on the main folder's version, so resubmitting after resolving
//! merges cleanly. Members merge one after another, each against the then-current main folder.

use super::journal::{self, Step};
use super::{MemberCopy, MergeReport, TeamError, changes, read_bases, read_side, rebase_paths};
use crate::model::merge::{ConflictKind, Outcome, Side, decide};

/// Asked about a merge's steps before they are applied: an error stops the merge; a text is what
/// the check wrote.
pub type PreMergeCheck<'a> = dyn Fn(&[Step]) -> Result<Option<String>, TeamError> + 'a;

/// A path, its main and member versions, and what happens to it.
type Decided = (String, Side, Side, Outcome);

/// Merges the member's changes (all, or the `selected` paths) into the main folder.
pub fn merge(member: &MemberCopy, selected: Option<&[String]>) -> Result<MergeReport, TeamError> {
    merge_checked(member, selected, &|_| Ok(None))
}

/// [`merge`], with `check` asked about the steps before they are applied: an error stops the
/// merge (nothing applied); its text, if any, is kept in the report (`checked`).
pub fn merge_checked(
    member: &MemberCopy,
    selected: Option<&[String]>,
    check: &PreMergeCheck,
) -> Result<MergeReport, TeamError> {
    let started = std::time::Instant::now();
    let lap = |what: &str| tracing::debug!("merge of {}: {what} after {:?}", member.name, started.elapsed());
    journal::recover(&member.project, &member.state)?;
    // Any merge attempt ends the chance to undo the one before.
    super::undo::forget(member)?;
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
    let mut sides = std::collections::HashMap::new();
    for (path, main, mine, outcome) in decided.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().flatten() {
        match outcome {
            Outcome::Unchanged => {
                report.unchanged.push(path.clone());
                if main == mine {
                    settled.push((path.clone(), mine.clone()));
                }
            }
            Outcome::Apply(side) => {
                report.applied.push(path.clone());
                steps.push(Step { path: path.clone(), side });
                settled.push((path.clone(), mine.clone()));
            }
            Outcome::Conflict { kind, markers } => {
                conflicted.push((path.clone(), kind, markers));
            }
        }
        sides.insert(path, (main, mine));
    }
    // A result that would land in a folder that keeps other files, or below a link or file that
    // stays: a folder and a file meet there, as git says.
    for path in journal::obstacles(&member.project, &steps) {
        conflicted.push((path, ConflictKind::Folder, None));
    }
    lap("decided");
    if !conflicted.is_empty() {
        report.conflicts = write_conflicts(member, conflicted, &sides)?;
        report.applied.clear();
        report.unchanged.clear();
        return Ok(report);
    }
    if !steps.is_empty() {
        report.checked = check(&steps)?;
    }
    let before: Vec<(String, Side)> = steps.iter().map(|s| (s.path.clone(), sides[&s.path].0.clone())).collect();
    if !steps.is_empty() {
        super::undo::record(member, &steps, &before)?;
    }
    let id = format!("{}-{}", member.id, std::process::id());
    journal::apply(&member.project, &member.state, &id, &steps)?;
    lap("applied");
    // What was merged is the member's new base: its change list shows only work not merged yet.
    rebase_paths(member, &settled)?;
    lap("rebased");
    Ok(report)
}

/// Tells the member's copy about the conflicts, all or nothing: text conflicts get their markers,
/// a file the member deleted but the main folder changed is put back (unless the member put a
/// link or file where its folder was: then it is a folder conflict), and every conflicted path is
/// rebased on the main folder's version so that resubmitting after resolving merges cleanly.
fn write_conflicts(
    member: &MemberCopy,
    mut conflicted: Vec<(String, ConflictKind, Option<Vec<u8>>)>,
    sides: &std::collections::HashMap<String, (Side, Side)>,
) -> Result<Vec<(String, ConflictKind)>, TeamError> {
    conflicted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut steps = Vec::new();
    let mut rebased = Vec::new();
    for (path, kind, markers) in &mut conflicted {
        let (main, mine) = &sides[path.as_str()];
        match (*kind, markers.take()) {
            (ConflictKind::Text, Some(markers)) => {
                let executable = matches!(mine, Side::File { executable: true, .. });
                steps.push(Step { path: path.clone(), side: Side::File { content: markers, executable } });
            }
            (ConflictKind::MemberDeleted, _) => steps.push(Step { path: path.clone(), side: main.clone() }),
            _ => {}
        }
        rebased.push((path.clone(), main.clone()));
    }
    for path in journal::obstacles(&member.copy, &steps) {
        steps.retain(|s| s.path != path);
        for (p, kind, _) in conflicted.iter_mut() {
            if *p == path {
                *kind = ConflictKind::Folder;
            }
        }
    }
    let journal = member.state.join("member-journal");
    std::fs::create_dir_all(&journal).map_err(|e| TeamError::io(&journal, e))?;
    // The state first, put back as it was should the copy not take the markers.
    let saved = super::sides::Rebased::snapshot(&member.state)?;
    rebase_paths(member, &rebased)?;
    let id = format!("conflict-{}", std::process::id());
    if let Err(e) = journal::apply(&member.copy, &journal, &id, &steps) {
        saved.restore(&member.state)?;
        return Err(e);
    }
    Ok(conflicted.into_iter().map(|(path, kind, _)| (path, kind)).collect())
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
                ConflictKind::Folder => {
                    "a folder and a file (or link) meet here: one side made a folder where the other has a file or link, or changed a file inside a folder the other replaced; check which to keep"
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
