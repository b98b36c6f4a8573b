//! The git worktree provider: a member's copy is a detached worktree of the project's repository
//! (no branch in the person's repository). Its base is a commit holding the project exactly as it
//! was at creation — the checked-out commit plus uncommitted changes and new files that are not
//! ignored — made with a private index (the person's index and folder are not touched) and kept
//! alive by a hidden ref `refs/sidekicks/members/<id>` until the member is discarded.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use super::{Capabilities, Dependencies, IsolationProvider, MemberCopy, ProviderKind, TeamError, deps};
use crate::model::merge::Side;
use crate::runtime::git::snapshot::{git, head};

/// The git worktree provider.
pub struct GitWorktreeProvider;

impl GitWorktreeProvider {
    /// True when a member of `project` made now would have its files written by Sidekicks rather
    /// than by git's checkout (`git::checkout`, ADR 0027).
    pub fn checks_out_itself(project: &Path) -> bool {
        let common = project.join(".git");
        common.is_dir()
            && crate::runtime::git::checkout::repository_fits(&common)
            && settings_fit(project)
            && head(project)
                .is_ok_and(|h| crate::runtime::git::checkout::commit_fits(&common.join("objects"), &h.commit))
    }

    /// True when the member's changes are read from its index, without git's own scan (the index
    /// still holds the base and nothing in the repository asks for git's ways; see `git::index`).
    pub fn scans_from_its_index(member: &MemberCopy) -> bool {
        crate::runtime::git::index::scan(&member.project, &member.copy, &member.base).is_some()
    }
}

fn nul_list(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    bytes.split(|b| *b == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned())
}

/// The untracked files of a `git ls-files --others` listing. A repository the agent made or
/// cloned inside its copy is listed as its folder (`vendor/lib/`) and is left out: it is not the
/// project's content (git would add it as a broken submodule), and it stays in the copy (ADR 0026).
fn untracked_files(listing: &[u8]) -> impl Iterator<Item = String> + '_ {
    nul_list(listing).filter(|p| !p.ends_with('/'))
}

/// Adds the worktree `copy` of the project's HEAD, detached: its files written in this process
/// on several threads when nothing asks for git's ways (`git::checkout`, ADR 0027), else by git.
pub(super) fn add_worktree(project: &Path, copy: &Path) -> Result<(), TeamError> {
    use crate::runtime::git::checkout;
    let copy_arg = copy.to_string_lossy();
    let by_git = |at: &str| git(project, &["worktree", "add", "--detach", "--quiet", &copy_arg, at], &[]).map(drop);
    // The project's own git folder (a project that is itself a linked worktree: git's checkout).
    let common = project.join(".git");
    if !common.is_dir() || !checkout::repository_fits(&common) {
        return by_git("HEAD");
    }
    // git's settings are asked while the worktree is added without its files.
    let (settings, added) = std::thread::scope(|scope| {
        let settings = scope.spawn(|| settings_fit(project));
        let added = git(project, &["worktree", "add", "--no-checkout", "--detach", "--quiet", &copy_arg, "HEAD"], &[]);
        (settings.join().expect("git thread"), added)
    });
    added?;
    let remove = || git(project, &["worktree", "remove", "--force", &copy_arg], &[]).map(drop);
    let gone = || TeamError::Git { command: "worktree".into(), message: "the new worktree has no HEAD".into() };
    let found = checked_out(copy).zip(crate::runtime::git::index::git_dirs(copy));
    let Some((commit, (dir, _))) = found else {
        let _ = remove();
        return Err(gone());
    };
    let written =
        if settings { checkout::write(&common.join("objects"), &commit, copy, &dir.join("index")) } else { None };
    match written {
        Some(Ok(())) => Ok(()),
        // A file that could not be written: nothing of the worktree is kept.
        Some(Err(e)) => {
            let _ = remove();
            Err(e)
        }
        // What is left to git (nothing was written): git's own worktree of the same commit
        // instead, made as `git worktree add` makes it.
        None => {
            remove()?;
            by_git(&commit)
        }
    }
}

/// True when none of git's settings (any scope) asks for git's own checkout.
fn settings_fit(project: &Path) -> bool {
    match git(project, &["config", "--get-regexp", crate::runtime::git::checkout::SETTINGS], &[]) {
        Ok(listing) => crate::runtime::git::checkout::settings_fit(&String::from_utf8_lossy(&listing)),
        // Exit 1 without a word: none is set.
        Err(TeamError::Git { message, .. }) => message.is_empty(),
        Err(_) => false,
    }
}

/// The commit checked out in the worktree `copy`, read from its HEAD file (no process).
fn checked_out(copy: &Path) -> Option<String> {
    let link = std::fs::read_to_string(copy.join(".git")).ok()?;
    let gitdir = copy.join(link.strip_prefix("gitdir:")?.trim());
    let head = std::fs::read_to_string(gitdir.join("HEAD")).ok()?;
    let id = head.trim();
    (id.len() >= 40 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_string())
}

/// The member's git folders, found from the project (see `git::index::member_git_dirs`); refused
/// in words when the project has no worktree for the copy.
pub(super) fn copy_git_dirs(member: &MemberCopy) -> Result<(std::path::PathBuf, std::path::PathBuf), TeamError> {
    crate::runtime::git::index::member_git_dirs(&member.project, &member.copy).ok_or_else(|| TeamError::Git {
        command: "worktree".into(),
        message: format!("{} is not a worktree of the project's repository", member.copy.display()),
    })
}

/// Runs git on the member's copy with the project's git folders named (`GIT_DIR`,
/// `GIT_COMMON_DIR`, `GIT_WORK_TREE`): whatever the copy's `.git` (or a `commondir` file a
/// member in a container could rewrite) says, the settings are the project's own.
pub(super) fn in_copy(member: &MemberCopy, args: &[&str]) -> Result<Vec<u8>, TeamError> {
    let (dir, common) = copy_git_dirs(member)?;
    git(&member.copy, args, &[("GIT_DIR", &dir), ("GIT_COMMON_DIR", &common), ("GIT_WORK_TREE", &member.copy)])
}

fn base_ref(id: &str) -> String {
    format!("refs/sidekicks/members/{id}")
}

/// True when `path` is a dependency folder or inside one.
fn in_dependency(path: &str, folders: &[String]) -> bool {
    folders.iter().any(|f| path == f || path.strip_prefix(f.as_str()).is_some_and(|rest| rest.starts_with('/')))
}

impl IsolationProvider for GitWorktreeProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::GitWorktree
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            instant: false,
            dependencies_ready: true,
            dependencies: Dependencies::Shared,
            resident_process: false,
        }
    }

    fn available(&self, project: &Path) -> Result<(), TeamError> {
        head(project).map(|_| ())
    }

    fn create(&self, project: &Path, copy: &Path, state: &Path, id: &str, name: &str) -> Result<MemberCopy, TeamError> {
        let state_made = !state.exists();
        std::fs::create_dir_all(state).map_err(|e| TeamError::io(state, e))?;
        let folders = deps::dependency_folders(project);
        let copy_arg = copy.to_string_lossy();
        // The checkout of HEAD (most of the time the base) runs while the base is worked out and
        // its hidden ref written; a base with uncommitted changes, or a HEAD that moved meanwhile,
        // is then checked out over it (only the files that differ are written).
        let (base, added) = std::thread::scope(|scope| {
            // A spare worktree of the project, when one was kept (`spare`), else a new one.
            let added = scope
                .spawn(|| if super::spare::take(project, copy, state) { Ok(()) } else { add_worktree(project, copy) });
            let base = head(project).and_then(|head| {
                let index = state.join("base.index");
                let message = format!("Sidekicks: the base of {name}");
                let made = crate::runtime::git::snapshot::commit(project, &index, &message, &folders, &head, false);
                let _ = std::fs::remove_file(&index);
                let base = made?;
                git(project, &["update-ref", &base_ref(id), &base], &[])?;
                Ok(base)
            });
            (base, added.join().expect("git thread"))
        });
        let worktree_made = added.is_ok();
        let undo = |e: TeamError| {
            if worktree_made {
                let _ = git(project, &["worktree", "remove", "--force", &copy_arg], &[]);
            }
            let _ = git(project, &["update-ref", "-d", &base_ref(id)], &[]);
            if state_made {
                let _ = std::fs::remove_dir_all(state);
            }
            e
        };
        // The base's error first: it says why the project cannot have members (not a repository,
        // no commit, not its top folder).
        let base = base.map_err(undo)?;
        added.map_err(undo)?;
        if checked_out(copy).as_deref() != Some(base.as_str()) {
            git(copy, &["checkout", "--quiet", "--detach", &base], &[]).map_err(undo)?;
        }
        deps::link(project, copy, &folders)?;
        let member = MemberCopy {
            id: id.into(),
            name: name.into(),
            agent: String::new(),
            project: project.into(),
            copy: copy.into(),
            state: state.into(),
            provider: ProviderKind::GitWorktree,
            base,
            dependencies: folders,
            number: 0,
            env: Default::default(),
            ready: true,
            container: None,
            far: None,
        };
        member.save()?;
        Ok(member)
    }

    fn changed_paths(&self, member: &MemberCopy) -> Result<Vec<String>, TeamError> {
        member.ensure_copy()?;
        // In this process when the member's index still holds the base (`git::index`).
        if let Some(found) = crate::runtime::git::index::scan(&member.project, &member.copy, &member.base) {
            return Ok(found
                .tracked
                .into_iter()
                .map(|(path, _)| path)
                .chain(found.untracked)
                .filter(|p| !in_dependency(p, &member.dependencies))
                .collect());
        }
        // Else git's two listings, side by side.
        let (tracked, untracked) = std::thread::scope(|scope| {
            let untracked = scope.spawn(|| in_copy(member, &["ls-files", "--others", "--exclude-standard", "-z"]));
            let tracked = in_copy(member, &["diff", "--no-renames", "--name-only", "-z", &member.base]);
            (tracked, untracked.join().expect("git thread"))
        });
        let (tracked, untracked) = (tracked?, untracked?);
        Ok(nul_list(&tracked)
            .chain(untracked_files(&untracked))
            .filter(|p| !in_dependency(p, &member.dependencies))
            .collect())
    }

    fn changed_with_bases(&self, member: &MemberCopy) -> Option<Result<Vec<(String, Side)>, TeamError>> {
        Some(scan(member))
    }

    fn read_original_bases(&self, member: &MemberCopy, paths: &[String]) -> Result<Vec<Side>, TeamError> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        // In this process: the base's trees and blobs from the objects (`git::tree`).
        if let Some(objects) = copy_git_dirs(member).ok().map(|(_, common)| common.join("objects"))
            && let Some(bases) = crate::runtime::git::tree::bases(&objects, &member.base, paths)
        {
            return Ok(bases);
        }
        // Else every entry of the base (one process), then the wanted blobs through one `cat-file`.
        // A few paths: only theirs are listed; many: the whole tree in one go.
        // Names are names, never patterns (`*`, `?`, `[` in a file name).
        let mut args = vec!["--literal-pathspecs", "ls-tree", "-r", "-z", member.base.as_str()];
        if paths.len() <= 200 {
            args.push("--");
            args.extend(paths.iter().map(|p| p.as_str()));
        }
        let listing = git(&member.project, &args, &[])?;
        let mut entries = std::collections::HashMap::new();
        for line in listing.split(|b| *b == 0).filter(|l| !l.is_empty()) {
            let line = String::from_utf8_lossy(line);
            let Some((meta, path)) = line.split_once('\t') else { continue };
            let mut meta = meta.split(' ');
            let (mode, _, sha) = (meta.next().unwrap_or(""), meta.next(), meta.next().unwrap_or(""));
            entries.insert(path.to_string(), (mode.to_string(), sha.to_string()));
        }
        let wanted: Vec<&(String, String)> =
            paths.iter().filter_map(|p| entries.get(p)).filter(|(mode, _)| mode != "160000").collect();
        let blobs = cat_blobs(&member.project, wanted.iter().map(|(_, sha)| sha.as_str()))?;
        Ok(paths
            .iter()
            .map(|p| match entries.get(p) {
                Some((mode, sha)) if mode == "120000" => Side::Symlink {
                    target: String::from_utf8_lossy(blobs.get(sha).map_or(&[][..], Vec::as_slice)).into_owned(),
                },
                Some((mode, sha)) if mode.starts_with("100") => {
                    Side::File { content: blobs.get(sha).cloned().unwrap_or_default(), executable: mode == "100755" }
                }
                _ => Side::Absent,
            })
            .collect())
    }

    fn reattach(&self, member: &MemberCopy) -> Result<(), TeamError> {
        member.ensure_copy()?;
        // Read here, not asked of two git processes (issue 50: each command's start reattaches):
        // git is asked to repair the links only when they are not exactly as it makes them.
        if !linked(member) {
            git(&member.project, &["worktree", "repair", &member.copy.to_string_lossy()], &[])?;
        }
        let base = base_ref(&member.id);
        match crate::runtime::git::commit::Repo::open(&member.project).and_then(|repo| repo.resolve(&base)) {
            Some(_) => Ok(()),
            None => git(&member.project, &["rev-parse", "--verify", &base], &[]).map(|_| ()),
        }
    }

    fn discard(&self, member: &MemberCopy) -> Result<(), TeamError> {
        let copy = member.copy.to_string_lossy();
        // Kept for the next team of the project when there is room (`spare`), else removed.
        if !super::spare::keep(member) && git(&member.project, &["worktree", "remove", "--force", &copy], &[]).is_err()
        {
            let _ = std::fs::remove_dir_all(&member.copy);
        }
        git(&member.project, &["worktree", "prune"], &[])?;
        let _ = git(&member.project, &["update-ref", "-d", &base_ref(&member.id)], &[]);
        std::fs::remove_dir_all(&member.state).or_else(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Ok(()),
            _ => Err(TeamError::io(&member.state, e)),
        })
    }
}

/// True when the member's worktree and the project's repository name each other as git leaves
/// them: the project's worktree folder for the copy names its `.git`, and the copy's `.git` is a
/// file (the member's, so read as input) naming exactly that folder. Anything else is for
/// `git worktree repair`.
fn linked(member: &MemberCopy) -> bool {
    let Some((admin, _)) = crate::runtime::git::index::member_git_dirs(&member.project, &member.copy) else {
        return false;
    };
    let dot_git = member.copy.join(".git");
    let is_file = std::fs::symlink_metadata(&dot_git).is_ok_and(|m| m.file_type().is_file() && m.len() < 4096);
    let Some(named) = is_file.then(|| std::fs::read_to_string(&dot_git).ok()).flatten() else { return false };
    named.strip_prefix("gitdir: ").map(|n| n.trim_end_matches(['\n', '\r'])) == admin.to_str()
}

fn cat_failed(e: std::io::Error) -> TeamError {
    TeamError::Git { command: "cat-file".into(), message: e.to_string() }
}

/// A `git cat-file --batch` of `repo`, started (ahead of knowing what to ask it, so its start
/// overlaps other work).
fn spawn_cat(repo: &Path) -> Result<std::process::Child, TeamError> {
    Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["cat-file", "--batch", "--buffer"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(cat_failed)
}

/// The member's changed paths with their bases. Read in this process when the member's index
/// still holds the base (its `stat` data, the folder walked, the bases' blobs read from the
/// repository's objects; `git::index`), otherwise in three processes started together: `git diff
/// --raw` against the base (the changed tracked paths with the base's mode and blob), the
/// untracked files, and a `cat-file` for the bases' contents.
fn scan(member: &MemberCopy) -> Result<Vec<(String, Side)>, TeamError> {
    member.ensure_copy()?;
    if let Some(found) = crate::runtime::git::index::scan(&member.project, &member.copy, &member.base) {
        let (paths, bases) = listed(member, found.tracked.into_iter().collect(), found.untracked);
        let wanted = wanted(&paths, &bases);
        let blobs = match crate::runtime::git::index::read_blobs(&found.objects, &wanted) {
            Some(blobs) => blobs,
            None => cat_blobs(&member.project, wanted.iter().copied())?,
        };
        return Ok(sides(paths, &bases, &blobs));
    }
    let (found, cat) = std::thread::scope(|scope| {
        let cat = scope.spawn(|| spawn_cat(&member.project));
        (scan_by_git(member), cat.join().expect("git thread"))
    });
    let (bases, untracked) = match found {
        Ok(found) => found,
        Err(e) => {
            if let Ok(mut cat) = cat {
                let _ = cat.kill();
                let _ = cat.wait();
            }
            return Err(e);
        }
    };
    let (paths, bases) = listed(member, bases, untracked);
    let blobs = read_blobs(cat?, &wanted(&paths, &bases))?;
    Ok(sides(paths, &bases, &blobs))
}

/// The changed paths, sorted, outside the dependency folders, with their bases.
fn listed(member: &MemberCopy, bases: Bases, untracked: Vec<String>) -> (Vec<String>, Bases) {
    let mut paths: Vec<String> = bases.keys().cloned().chain(untracked).collect();
    paths.retain(|p| !in_dependency(p, &member.dependencies));
    paths.sort();
    paths.dedup();
    (paths, bases)
}

/// The blobs to read: the bases of `paths` that are files or links.
fn wanted<'a>(paths: &[String], bases: &'a Bases) -> Vec<&'a str> {
    paths
        .iter()
        .filter_map(|p| bases.get(p))
        .filter(|(mode, _)| mode.starts_with("100") || mode == "120000")
        .map(|(_, sha)| sha.as_str())
        .collect()
}

/// Each path with its base side, from the bases' modes and the blobs read.
fn sides(paths: Vec<String>, bases: &Bases, blobs: &Blobs) -> Vec<(String, Side)> {
    paths
        .into_iter()
        .map(|p| {
            let side = match bases.get(&p) {
                Some((mode, sha)) if mode == "120000" => Side::Symlink {
                    target: String::from_utf8_lossy(blobs.get(sha).map_or(&[][..], Vec::as_slice)).into_owned(),
                },
                Some((mode, sha)) if mode.starts_with("100") => {
                    Side::File { content: blobs.get(sha).cloned().unwrap_or_default(), executable: mode == "100755" }
                }
                _ => Side::Absent,
            };
            (p, side)
        })
        .collect()
}

/// The changed tracked paths with their base's mode and blob (`git diff --raw` against the base)
/// and the untracked files (`git ls-files --others`), listed side by side.
fn scan_by_git(member: &MemberCopy) -> Result<(Bases, Vec<String>), TeamError> {
    let (raw, untracked) = std::thread::scope(|scope| {
        let untracked = scope.spawn(|| in_copy(member, &["ls-files", "--others", "--exclude-standard", "-z"]));
        let raw = in_copy(member, &["diff", "--no-renames", "--raw", "--no-abbrev", "-z", &member.base]);
        (raw, untracked.join().expect("git thread"))
    });
    let (raw, untracked) = (raw?, untracked?);
    // `:<old mode> <new mode> <old sha> <new sha> <status>` then the path, each ended by NUL.
    let mut bases = Bases::new();
    let mut fields = raw.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
        let meta = String::from_utf8_lossy(meta);
        let mut meta = meta.trim_start_matches(':').split(' ');
        let (mode, _, sha) = (meta.next().unwrap_or(""), meta.next(), meta.next().unwrap_or(""));
        bases.insert(String::from_utf8_lossy(path).into_owned(), (mode.to_string(), sha.to_string()));
    }
    Ok((bases, untracked_files(&untracked).collect()))
}

/// Each changed path's base: its mode and blob.
type Bases = std::collections::HashMap<String, (String, String)>;

/// Blobs' contents by id.
type Blobs = std::collections::HashMap<String, Vec<u8>>;

/// The content of each blob, read through one `git cat-file --batch`.
fn cat_blobs<'a>(
    repo: &Path,
    shas: impl Iterator<Item = &'a str>,
) -> Result<std::collections::HashMap<String, Vec<u8>>, TeamError> {
    let shas: Vec<&str> = shas.collect();
    if shas.is_empty() {
        return Ok(std::collections::HashMap::new());
    }
    read_blobs(spawn_cat(repo)?, &shas)
}

/// The content of each blob of `shas`, asked of `child` (a started `cat-file --batch`).
fn read_blobs(
    mut child: std::process::Child,
    shas: &[&str],
) -> Result<std::collections::HashMap<String, Vec<u8>>, TeamError> {
    let failed = cat_failed;
    let mut blobs = std::collections::HashMap::new();
    let mut stdin = child.stdin.take().expect("piped");
    let request: String = shas.iter().map(|s| format!("{s}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    for _ in 0..shas.len() {
        let mut header = String::new();
        out.read_line(&mut header).map_err(failed)?;
        let mut parts = header.split_whitespace();
        let (sha, kind, size) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next());
        if kind == "missing" {
            continue;
        }
        let size: usize = size.and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut content = vec![0; size + 1];
        out.read_exact(&mut content).map_err(failed)?;
        content.pop();
        blobs.insert(sha.to_string(), content);
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(blobs)
}
