//! A commit of a working tree as it is — what `git add -A` into a copy of its index, `write-tree`
//! and `commit-tree` make — written in this process (libgit2's repository for HEAD and refs, its
//! object database for the objects), for an agent's checkpoint before each turn (issue 37: seven
//! git processes before, none now).
//!
//! The index is read as the change scan reads it (`git::index`, ADR 0026): an entry whose `stat`
//! is the index's keeps the index's blob; another is read and its blob written; files neither
//! tracked nor ignored are added; entries whose file is gone are dropped. Entries under a
//! dependency folder stay as the index has them and the folder is not walked (git's
//! `:(exclude,top)` pathspec). The trees are then written from the paths, bottom up. Whatever the
//! scan steps aside for (another index form, a setting or attribute that makes git convert, a
//! submodule, a nested repository, a `.gitattributes` deeper in the tree that converts) makes this
//! step aside too (`None`): the caller asks git.

use std::collections::{BTreeMap, HashSet};
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};

use libgit2_sys as raw;

use super::index;
use super::odb::{hex, id_of};

/// An open repository.
pub(crate) struct Repo(*mut raw::git_repository);

impl Drop for Repo {
    fn drop(&mut self) {
        // SAFETY: the handle came from `git_repository_open` and is freed once, here.
        unsafe { raw::git_repository_free(self.0) }
    }
}

fn c_path(path: &Path) -> Option<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes()).ok()
}

fn path_of(text: *const std::ffi::c_char) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: libgit2 gives a NUL-terminated string owned by the repository, copied here.
    (!text.is_null()).then(|| PathBuf::from(std::ffi::OsStr::from_bytes(unsafe { CStr::from_ptr(text) }.to_bytes())))
}

impl Repo {
    /// The repository whose working tree's top folder is `top` (no search upwards), or `None`.
    pub fn open(top: &Path) -> Option<Self> {
        let path = c_path(top)?;
        raw::init();
        let mut repo = std::ptr::null_mut();
        // SAFETY: `path` is NUL-terminated; on success `repo` is a handle we own.
        if unsafe { raw::git_repository_open(&mut repo, path.as_ptr()) } != 0 {
            return None;
        }
        let repo = Repo(repo);
        // SAFETY: the handle is open; the string is copied out.
        let workdir = path_of(unsafe { raw::git_repository_workdir(repo.0) })?;
        (workdir.canonicalize().ok()? == top.canonicalize().ok()?).then_some(repo)
    }

    /// This working tree's git folder and the repository's common one.
    /// The objects folder of the repository.
    pub fn objects(&self) -> Option<PathBuf> {
        Some(self.dirs()?.1.join("objects"))
    }

    fn dirs(&self) -> Option<(PathBuf, PathBuf)> {
        // SAFETY: the handle is open; the strings are copied out.
        unsafe { Some((path_of(raw::git_repository_path(self.0))?, path_of(raw::git_repository_commondir(self.0))?)) }
    }

    /// The commit `name` (a ref, or `HEAD`) points to.
    pub fn resolve(&self, name: &str) -> Option<String> {
        let name = CString::new(name).ok()?;
        // SAFETY: `oid` is plain data filled by libgit2.
        unsafe {
            let mut oid: raw::git_oid = std::mem::zeroed();
            (raw::git_reference_name_to_id(&mut oid, self.0, name.as_ptr()) == 0).then(|| hex(&oid.id))
        }
    }

    /// The names of the refs under `prefix` (which ends in `/`), without it.
    pub fn refs(&self, prefix: &str) -> Option<Vec<String>> {
        let glob = CString::new(format!("{prefix}*")).ok()?;
        let mut names = Vec::new();
        // SAFETY: the iterator is freed once, below; each name is copied before the next call.
        unsafe {
            let mut iter = std::ptr::null_mut();
            if raw::git_reference_iterator_glob_new(&mut iter, self.0, glob.as_ptr()) != 0 {
                return None;
            }
            let mut name = std::ptr::null();
            let end = loop {
                match raw::git_reference_next_name(&mut name, iter) {
                    0 => names.push(CStr::from_ptr(name).to_string_lossy().into_owned()),
                    code => break code,
                }
            };
            raw::git_reference_iterator_free(iter);
            if end != raw::GIT_ITEROVER {
                return None;
            }
        }
        Some(names.into_iter().filter_map(|n| n.strip_prefix(prefix).map(str::to_string)).collect())
    }

    /// Makes ref `name` point to `commit` (an error when it exists).
    pub fn create_ref(&self, name: &str, commit: &str) -> Result<(), String> {
        let c_name = CString::new(name).map_err(|e| e.to_string())?;
        let id = id_of(commit).ok_or("not a commit id")?;
        // SAFETY: plain data in, a reference out that is freed at once.
        unsafe {
            let mut oid: raw::git_oid = std::mem::zeroed();
            oid.id.copy_from_slice(&id);
            let mut made = std::ptr::null_mut();
            if raw::git_reference_create(&mut made, self.0, c_name.as_ptr(), &oid, 0, std::ptr::null()) != 0 {
                return Err(last_error());
            }
            raw::git_reference_free(made);
        }
        Ok(())
    }

    /// Deletes ref `name` (nothing when it is not there).
    pub fn delete_ref(&self, name: &str) -> Result<(), String> {
        let c_name = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: the reference looked up is deleted and freed once.
        unsafe {
            let mut found = std::ptr::null_mut();
            if raw::git_reference_lookup(&mut found, self.0, c_name.as_ptr()) != 0 {
                return Ok(());
            }
            let deleted = raw::git_reference_delete(found);
            raw::git_reference_free(found);
            if deleted != 0 {
                return Err(last_error());
            }
        }
        Ok(())
    }

    /// The working tree at `top` committed on top of commit `head` with `message` (its objects
    /// written, no ref made), leaving `folders` (dependency folders, relative) as the index has
    /// them; `None` when git must make it.
    pub fn commit_worktree(&self, top: &Path, head: &str, message: &str, folders: &[String]) -> Option<String> {
        let (dir, common) = self.dirs()?;
        let tree = worktree_tree(self, top, &dir, &common, folders)?;
        let (secs, zone) = now_and_zone();
        let who = format!("Sidekicks <sidekicks@localhost> {secs} {zone}");
        let text = format!("tree {tree}\nparent {head}\nauthor {who}\ncommitter {who}\n\n{message}\n");
        self.write(raw::GIT_OBJECT_COMMIT, text.as_bytes())
    }

    /// Writes an object (nothing when it is there already); its id.
    fn write(&self, kind: raw::git_object_t, data: &[u8]) -> Option<String> {
        // SAFETY: the odb handle is the repository's own, freed once here; `data` outlives the call.
        unsafe {
            let mut odb = std::ptr::null_mut();
            if raw::git_repository_odb(&mut odb, self.0) != 0 {
                return None;
            }
            let mut oid: raw::git_oid = std::mem::zeroed();
            let written = raw::git_odb_write(&mut oid, odb, data.as_ptr().cast(), data.len(), kind);
            raw::git_odb_free(odb);
            (written == 0).then(|| hex(&oid.id))
        }
    }
}

/// libgit2's last error message.
fn last_error() -> String {
    // SAFETY: libgit2 returns null or a pointer to its thread's last error, read at once.
    unsafe {
        let e = raw::git_error_last();
        if e.is_null() || (*e).message.is_null() {
            return "libgit2 failed".into();
        }
        CStr::from_ptr((*e).message).to_string_lossy().into_owned()
    }
}

/// Seconds since 1970 and the local zone as git writes it (`+0100`).
fn now_and_zone() -> (i64, String) {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    // SAFETY: `localtime_r` fills `tm` from a valid time.
    let offset = unsafe {
        let t = secs as libc::time_t;
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() { 0 } else { tm.tm_gmtoff }
    };
    let sign = if offset < 0 { '-' } else { '+' };
    let minutes = offset.abs() / 60;
    (secs, format!("{sign}{:02}{:02}", minutes / 60, minutes % 60))
}

/// True when `path` is `folder` or inside it.
fn under(path: &str, folders: &[String]) -> bool {
    folders.iter().any(|f| path == f || path.strip_prefix(f.as_str()).is_some_and(|rest| rest.starts_with('/')))
}

/// The tree of the working tree at `top`, written; see the module's words.
fn worktree_tree(repo: &Repo, top: &Path, dir: &Path, common: &Path, folders: &[String]) -> Option<String> {
    let read = index::read_for_commit(top, dir, common)?;
    let tracked: HashSet<&str> = read.index.entries.iter().map(|e| e.path.as_str()).collect();
    let (changed, walked) = std::thread::scope(|scope| {
        let walk = scope.spawn(|| index::untracked(top, &tracked, folders));
        let changed = index::stat_changed(top, &read);
        (changed, walk.join().expect("walk thread"))
    });
    // The dependency folders the walk met are not ignored: left out as git's pathspec
    // `:(exclude,top)` would (an ignored one's tracked files are updated, as `git add -A` does).
    let (untracked, excluded) = walked?;
    // A name that is not UTF-8 was read lossily: git's to commit (it would be lost here).
    let mut names = read.index.entries.iter().map(|e| e.path.as_str()).chain(untracked.iter().map(String::as_str));
    if names.any(|p| p.contains(char::REPLACEMENT_CHARACTER)) {
        return None;
    }
    // A deeper `.gitattributes` that makes git convert (an LFS filter, CRLF): git's to commit (the
    // scan only over-counts there; a commit would keep other bytes).
    let deeper = read.index.entries.iter().map(|e| e.path.as_str()).chain(untracked.iter().map(String::as_str));
    if deeper
        .filter(|p| p.ends_with("/.gitattributes"))
        .any(|p| std::fs::read_to_string(top.join(p)).is_ok_and(|text| index::converts(&text)))
    {
        return None;
    }
    let mut files: Vec<(String, u32, String)> = Vec::with_capacity(read.index.entries.len() + untracked.len());
    for (e, changed) in read.index.entries.iter().zip(changed) {
        if !changed || under(&e.path, &excluded) {
            files.push((e.path.clone(), e.mode, e.sha.clone()));
        } else if let Some((mode, sha)) = blob_of(repo, &top.join(&e.path))? {
            files.push((e.path.clone(), mode, sha));
        }
    }
    for path in untracked {
        if let Some((mode, sha)) = blob_of(repo, &top.join(&path))? {
            files.push((path, mode, sha));
        }
    }
    let mut root = Folder::default();
    for (path, mode, sha) in files {
        root.insert(&path, mode, id_of(&sha)?);
    }
    root.write(repo)
}

/// A file's mode and blob, written: `Some(None)` when it is gone (or is not a file or a link),
/// `None` when it could not be read.
fn blob_of(repo: &Repo, path: &Path) -> Option<Option<(u32, String)>> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Some(None) };
    let (mode, bytes) = if meta.file_type().is_symlink() {
        (0o120000, std::fs::read_link(path).ok()?.as_os_str().as_bytes().to_vec())
    } else if meta.is_file() {
        (if meta.mode() & 0o100 != 0 { 0o100755 } else { 0o100644 }, std::fs::read(path).ok()?)
    } else {
        return Some(None);
    };
    Some(Some((mode, repo.write(raw::GIT_OBJECT_BLOB, &bytes)?)))
}

/// A folder of the tree being built: its files and links, and its folders.
#[derive(Default)]
struct Folder {
    files: Vec<(Vec<u8>, u32, [u8; 20])>,
    folders: BTreeMap<Vec<u8>, Folder>,
}

impl Folder {
    fn insert(&mut self, path: &str, mode: u32, id: [u8; 20]) {
        match path.split_once('/') {
            Some((name, rest)) => self.folders.entry(name.as_bytes().to_vec()).or_default().insert(rest, mode, id),
            None => self.files.push((path.as_bytes().to_vec(), mode, id)),
        }
    }

    /// Writes this folder's tree (its folders' first); its id.
    fn write(self, repo: &Repo) -> Option<String> {
        let mut entries: Vec<(Vec<u8>, u32, [u8; 20])> = self.files;
        for (name, folder) in self.folders {
            entries.push((name, 0o40000, id_of(&folder.write(repo)?)?));
        }
        // git's order: by name, a folder's name as if it ended in `/`.
        let key = |(name, mode, _): &(Vec<u8>, u32, [u8; 20])| {
            let mut k = name.clone();
            if *mode == 0o40000 {
                k.push(b'/');
            }
            k
        };
        entries.sort_by_cached_key(key);
        let mut bytes = Vec::new();
        for (name, mode, id) in entries {
            bytes.extend_from_slice(format!("{mode:o} ").as_bytes());
            bytes.extend_from_slice(&name);
            bytes.push(0);
            bytes.extend_from_slice(&id);
        }
        repo.write(raw::GIT_OBJECT_TREE, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::git::snapshot;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The tree made here and the tree git's own steps make (a copy of the index, `add -A` with the
    /// dependency folders left out, `write-tree`: `snapshot::commit`), for the same folder.
    fn both(repo: &Path, folders: &[String]) -> (String, String) {
        let here = Repo::open(repo).expect("opened");
        let head_commit = here.resolve("HEAD").expect("HEAD");
        let commit = here.commit_worktree(repo, &head_commit, "here", folders).expect("made here");
        let head = snapshot::head(repo).unwrap();
        let index = repo.join(".git/test-private.index");
        let theirs = snapshot::commit(repo, &index, "git", folders, &head, true).unwrap();
        let _ = std::fs::remove_file(&index);
        let tree = |c: &str| git(repo, &["rev-parse", &format!("{c}^{{tree}}")]);
        assert_eq!(git(repo, &["rev-parse", &format!("{commit}^")]), head_commit, "its parent is HEAD");
        (tree(&commit), tree(&theirs))
    }

    fn write(repo: &Path, path: &str, text: &str) {
        let full = repo.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    #[test]
    fn a_working_tree_committed_here_is_what_git_add_all_commits() {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        git(repo, &["init", "-q"]);
        for (path, text) in [
            ("a.txt", "a\n"),
            ("gone.txt", "gone\n"),
            ("deep/er/b.txt", "b\n"),
            ("becomes-folder", "file\n"),
            ("odd name [1].txt", ""),
            ("été/ünï.md", "accents\n"),
            ("a-b", "sorts before a/\n"),
            ("a/c", "inside\n"),
            ("run.sh", "#!/bin/sh\n"),
            ("vendor/kept.txt", "tracked in a dependency folder\n"),
            (".gitignore", "node_modules/\n*.log\n"),
        ] {
            write(repo, path, text);
        }
        std::os::unix::fs::symlink("a.txt", repo.join("link")).unwrap();
        git(repo, &["add", "-A"]);
        git(repo, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]);
        let folders = vec!["vendor".to_string(), "node_modules".to_string()];
        // Nothing changed: HEAD's tree.
        let (here, theirs) = both(repo, &folders);
        assert_eq!(here, theirs);
        assert_eq!(here, git(repo, &["rev-parse", "HEAD^{tree}"]));

        write(repo, "a.txt", "a changed\n");
        std::fs::remove_file(repo.join("gone.txt")).unwrap();
        std::fs::remove_file(repo.join("becomes-folder")).unwrap();
        write(repo, "becomes-folder/inside.txt", "now a folder\n");
        write(repo, "new/file.rs", "fn main() {}\n");
        write(repo, "skipped.log", "ignored\n");
        write(repo, "vendor/kept.txt", "changed, but left out\n");
        write(repo, "vendor/new.txt", "new, left out\n");
        write(repo, "node_modules/untracked.js", "ignored\n");
        std::fs::set_permissions(repo.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::remove_file(repo.join("link")).unwrap();
        std::os::unix::fs::symlink("deep/er/b.txt", repo.join("link")).unwrap();
        // Staged, then changed again: the file as it is counts.
        write(repo, "deep/er/b.txt", "staged\n");
        git(repo, &["add", "deep/er/b.txt"]);
        write(repo, "deep/er/b.txt", "staged, then changed\n");
        let (here, theirs) = both(repo, &folders);
        assert_eq!(here, theirs);
        assert_ne!(here, git(repo, &["rev-parse", "HEAD^{tree}"]));
        // A filter deeper in the tree: git's to commit.
        write(repo, "deep/.gitattributes", "*.bin filter=lfs\n");
        let head = Repo::open(repo).unwrap().resolve("HEAD").unwrap();
        assert_eq!(Repo::open(repo).unwrap().commit_worktree(repo, &head, "m", &folders), None);
        std::fs::remove_file(repo.join("deep/.gitattributes")).unwrap();
        // A name that is not UTF-8: git's to commit.
        let odd = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
        std::fs::write(repo.join(odd), "latin-1 name\n").unwrap();
        assert_eq!(Repo::open(repo).unwrap().commit_worktree(repo, &head, "m", &folders), None);
        std::fs::remove_file(repo.join(odd)).unwrap();
        let listed = git(repo, &["ls-tree", "-r", "--name-only", &here]);
        assert!(listed.contains("new/file.rs") && !listed.contains("gone.txt") && !listed.contains("skipped.log"));
        // The person's index is as it was: only the staged file differs from HEAD.
        assert_eq!(git(repo, &["diff", "--cached", "--name-only"]), "deep/er/b.txt");
    }

    #[test]
    fn this_projects_own_history_committed_here_is_what_git_commits() {
        // A real project: this one's repository (a clean clone in CI), cloned, its files changed.
        let source = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert!(source.join(".git").exists(), "the tests run in a clone of the project");
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("copy");
        let out = std::process::Command::new("git")
            .args(["clone", "-q", "--no-hardlinks"])
            .arg(source)
            .arg(&repo)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let files: Vec<String> = git(&repo, &["ls-files"]).lines().map(String::from).collect();
        assert!(files.len() > 300, "{} files", files.len());
        for (i, path) in files.iter().enumerate().filter(|(i, _)| i % 37 == 0) {
            let full = repo.join(path);
            if i % 2 == 0 {
                let mut text = std::fs::read(&full).unwrap();
                text.extend_from_slice(b"\nchanged\n");
                std::fs::write(&full, text).unwrap();
            } else {
                std::fs::remove_file(&full).unwrap();
            }
        }
        write(&repo, "src/brand_new.rs", "// new\n");
        write(&repo, "target/debug/ignored", "build output\n");
        let (here, theirs) = both(&repo, &crate::runtime::teams::dependency_folders(&repo));
        assert_eq!(here, theirs);
    }
}
