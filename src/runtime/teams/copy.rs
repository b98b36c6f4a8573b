//! The copy and clone providers: the project's sources (what its `.gitignore` files do not
//! ignore, without `.git`) are copied into the member's copy and into the member's base
//! (`state/base`), each file with the source's date; dependency folders are linked. The clone
//! provider makes every copy a copy-on-write clone (FICLONE) and is unavailable, saying why,
//! where the filesystem cannot clone. Sources are never hard-linked: an in-place write in the copy
//! would change the project.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::{Capabilities, Dependencies, IsolationProvider, MemberCopy, ProviderKind, TeamError, deps, read_side};
use crate::model::merge::Side;

/// Copies (or clones) sources.
pub struct CopyProvider {
    /// Copy-on-write clones instead of copies.
    pub clone: bool,
}

/// Linux's FICLONE ioctl.
const FICLONE: libc::c_ulong = 0x4004_9409;

/// Clones `from` into a new file `to` (copy-on-write).
fn clone_file(from: &Path, to: &Path) -> std::io::Result<()> {
    let src = File::open(from)?;
    let dst = File::create(to)?;
    // SAFETY: both descriptors are open for the duration of the call; FICLONE reads no memory.
    let r = unsafe { libc::ioctl(dst.as_raw_fd(), FICLONE as _, src.as_raw_fd()) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        drop(dst);
        let _ = std::fs::remove_file(to);
        return Err(e);
    }
    dst.set_permissions(src.metadata()?.permissions())
}

/// Why cloning failed, in words.
fn clone_unavailable(e: &std::io::Error) -> TeamError {
    use super::Unavailable as U;
    let reason = match e.raw_os_error() {
        Some(libc::EXDEV) => U::OtherFilesystem,
        Some(libc::EOPNOTSUPP) | Some(libc::EINVAL) | Some(libc::ENOTTY) => U::NoClone,
        _ => U::CloneFailed(e.to_string()),
    };
    TeamError::Unavailable { reason }
}

/// The project's sources: relative paths of files, links and folders, filtered by `.gitignore`,
/// without `.git` and the dependency folders.
pub(crate) fn sources(root: &Path, skip: &[String]) -> Vec<(String, std::fs::FileType)> {
    let skip: Vec<PathBuf> = skip.iter().map(|d| root.join(d)).collect();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| e.file_name() != ".git" && !skip.iter().any(|s| s == e.path()))
        .build();
    walker
        .flatten()
        .filter_map(|e| {
            let rel = e.path().strip_prefix(root).ok()?.to_str()?.to_string();
            let kind = e.file_type()?;
            (!rel.is_empty()).then_some((rel, kind))
        })
        .collect()
}

impl CopyProvider {
    fn copy_file(&self, from: &Path, to: &Path) -> Result<(), TeamError> {
        if self.clone {
            clone_file(from, to).map_err(|e| clone_unavailable(&e))?;
        } else {
            std::fs::copy(from, to).map_err(|e| TeamError::io(to, e))?;
        }
        // The source's date, so an untouched file is recognised by its size and date alone.
        let modified = std::fs::metadata(from).and_then(|m| m.modified()).map_err(|e| TeamError::io(from, e))?;
        File::options().write(true).open(to).and_then(|f| f.set_modified(modified)).map_err(|e| TeamError::io(to, e))
    }

    /// Copies the sources of `project` (without the folders of `skip`) into `into`.
    pub(super) fn copy_into(&self, project: &Path, into: &Path, skip: &[String]) -> Result<(), TeamError> {
        self.copy_sources(project, &[into], skip)
    }

    /// Copies the sources of `project` into every folder of `into`.
    fn copy_sources(&self, project: &Path, into: &[&Path], skip: &[String]) -> Result<(), TeamError> {
        for dir in into {
            std::fs::create_dir_all(dir).map_err(|e| TeamError::io(dir, e))?;
        }
        for (rel, kind) in sources(project, skip) {
            let from = project.join(&rel);
            for dir in into {
                let to = dir.join(&rel);
                if kind.is_dir() {
                    std::fs::create_dir_all(&to).map_err(|e| TeamError::io(&to, e))?;
                } else if kind.is_symlink() {
                    let target = std::fs::read_link(&from).map_err(|e| TeamError::io(&from, e))?;
                    std::os::unix::fs::symlink(target, &to).map_err(|e| TeamError::io(&to, e))?;
                } else if kind.is_file() {
                    self.copy_file(&from, &to)?;
                }
            }
        }
        Ok(())
    }
}

/// True when the member's `rel` differs from the base's.
fn differs(copy: &Path, base: &Path, rel: &str) -> Result<bool, TeamError> {
    let (a, b) = (copy.join(rel), base.join(rel));
    // Below a link (a folder the member replaced by one), the metadata would be the link's
    // target's: a file of the same size and time elsewhere passed for this one, unchanged, and its
    // deletion was missed (seen under load: the test of issue 14's case listed one conflict less).
    if under_link(copy, rel) || under_link(base, rel) {
        return Ok(read_side(copy, rel)? != read_side(base, rel)?);
    }
    match (std::fs::symlink_metadata(&a), std::fs::symlink_metadata(&b)) {
        (Ok(ma), Ok(mb)) if ma.is_file() && mb.is_file() => {
            if ma.len() != mb.len() || ma.permissions() != mb.permissions() {
                return Ok(true);
            }
            if ma.modified().ok() == mb.modified().ok() {
                return Ok(false);
            }
            Ok(read_side(copy, rel)? != read_side(base, rel)?)
        }
        _ => Ok(read_side(copy, rel)? != read_side(base, rel)?),
    }
}

/// True when a folder on the way to `rel` below `root` is not a folder (a link, a file).
fn under_link(root: &Path, rel: &str) -> bool {
    let mut at = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    parts[..parts.len().saturating_sub(1)].iter().any(|part| {
        at.push(part);
        std::fs::symlink_metadata(&at).is_ok_and(|m| !m.is_dir())
    })
}

impl IsolationProvider for CopyProvider {
    fn kind(&self) -> ProviderKind {
        if self.clone { ProviderKind::Clone } else { ProviderKind::Copy }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            instant: self.clone,
            dependencies_ready: true,
            dependencies: Dependencies::Shared,
            resident_process: false,
        }
    }

    fn available(&self, project: &Path) -> Result<(), TeamError> {
        if !project.is_dir() {
            return Err(TeamError::Unavailable { reason: super::Unavailable::NotAFolder });
        }
        if self.clone {
            // Probe with a file of the project cloned next to the system's temporary files.
            let Some((rel, _)) = sources(project, &[]).into_iter().find(|(_, k)| k.is_file()) else {
                return Ok(());
            };
            let probe = std::env::temp_dir().join(format!("sidekicks-clone-probe-{}", std::process::id()));
            let result = clone_file(&project.join(rel), &probe);
            let _ = std::fs::remove_file(&probe);
            result.map_err(|e| clone_unavailable(&e))?;
        }
        Ok(())
    }

    fn create(&self, project: &Path, copy: &Path, state: &Path, id: &str, name: &str) -> Result<MemberCopy, TeamError> {
        self.available(project)?;
        if copy.exists() {
            return Err(TeamError::io(copy, "already exists"));
        }
        let folders = deps::dependency_folders(project);
        let base = state.join("base");
        if let Err(e) = self.copy_sources(project, &[copy, &base], &folders) {
            let _ = std::fs::remove_dir_all(copy);
            let _ = std::fs::remove_dir_all(state);
            return Err(e);
        }
        deps::link(project, copy, &folders)?;
        let member = MemberCopy {
            id: id.into(),
            name: name.into(),
            agent: String::new(),
            project: project.into(),
            copy: copy.into(),
            state: state.into(),
            provider: self.kind(),
            base: String::new(),
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
        let base = member.state.join("base");
        let mut all: Vec<String> = sources(&member.copy, &member.dependencies)
            .into_iter()
            .chain(sources(&base, &[]))
            .filter(|(_, kind)| !kind.is_dir())
            .map(|(rel, _)| rel)
            .collect();
        all.sort();
        all.dedup();
        let mut changed = Vec::new();
        for rel in all {
            if differs(&member.copy, &base, &rel)? {
                changed.push(rel);
            }
        }
        Ok(changed)
    }

    fn read_original_bases(&self, member: &MemberCopy, paths: &[String]) -> Result<Vec<Side>, TeamError> {
        let base = member.state.join("base");
        paths.iter().map(|p| read_side(&base, p)).collect()
    }

    fn reattach(&self, member: &MemberCopy) -> Result<(), TeamError> {
        member.ensure_copy()?;
        if !member.state.join("base").is_dir() {
            return Err(TeamError::io(&member.state, "the member's base is gone"));
        }
        Ok(())
    }

    fn discard(&self, member: &MemberCopy) -> Result<(), TeamError> {
        for dir in [&member.copy, &member.state] {
            match std::fs::remove_dir_all(dir) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(TeamError::io(dir, e)),
                _ => {}
            }
        }
        Ok(())
    }
}
