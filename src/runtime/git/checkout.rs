//! A new worktree's files written in this process, on several threads, with the index git would
//! write for them (ADR 0027). `git worktree add` writes the files one after the other in one
//! process; on this kind of machine making a file is mostly kernel work (ext4's search for a free
//! inode), so two threads write a 3,600-file project in about half the time.
//!
//! Only for what is written exactly as stored: anything else is left to git (`None`): a submodule,
//! a `.gitattributes` anywhere in the tree (or `info/attributes`) that asks for a filter, CRLF line
//! ends or another encoding, a repository setting that changes what a checkout writes or runs
//! (`core.autocrlf`, `core.eol=crlf`, `core.symlinks=false`, sparse checkout, SHA-256, a hooks
//! folder of its own, a case-insensitive filesystem, shared permissions; in any of git's config
//! scopes), a `post-checkout` hook (git would run it), or a name git refuses or protects.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::odb::{Kind, Odb, id_of};
use crate::protocol::teams::TeamError;

/// One file of the tree: its path, mode (as the index keeps it) and blob.
struct File {
    path: String,
    mode: u32,
    blob: [u8; 20],
}

/// A tree of the commit, for the index's cache tree: its id, how many files it holds (at any
/// depth) and its subtrees by name.
#[derive(Default)]
struct Tree {
    id: [u8; 20],
    files: usize,
    subtrees: BTreeMap<Vec<u8>, Tree>,
}

/// True when the repository's folder (`common`: its common git folder) lets a checkout be written
/// here: no `post-checkout` hook (git runs it) and no converting `info/attributes`.
pub(crate) fn repository_fits(common: &Path) -> bool {
    let attributes = std::fs::read_to_string(common.join("info/attributes")).unwrap_or_default();
    cfg!(unix) && !super::index::converts(&attributes) && !common.join("hooks/post-checkout").exists()
}

/// The settings (all of git's config scopes: system, global, repository, includes) asked with
/// `git config --get-regexp` before a checkout is written here.
pub(crate) const SETTINGS: &str = "^(core\\.(autocrlf|eol|symlinks|hookspath|sparsecheckout|precomposeunicode|ignorecase|sharedrepository)|extensions\\.objectformat)$";

/// True when none of the settings in `listing` (`git config --get-regexp SETTINGS`: one "key
/// value" a line; later lines win, as in git) makes git's checkout write or run anything else.
pub(crate) fn settings_fit(listing: &str) -> bool {
    let mut last: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
    for line in listing.lines() {
        let (key, value) = line.split_once(' ').unwrap_or((line, "true"));
        last.insert(key, value.trim().to_ascii_lowercase());
    }
    let truthy = |v: &str| matches!(v, "true" | "yes" | "on" | "1" | "");
    let falsy = |v: &str| matches!(v, "false" | "no" | "off" | "0");
    last.iter().all(|(key, value)| match *key {
        "core.autocrlf" | "core.sparsecheckout" | "core.precomposeunicode" | "core.ignorecase" => !truthy(value),
        "core.eol" => value != "crlf",
        "core.symlinks" => !falsy(value),
        "core.sharedrepository" => falsy(value) || value == "umask",
        "extensions.objectformat" => value == "sha1",
        _ => false,
    })
}

/// True when git's checkout would refuse or treat otherwise a tree entry named `name` (on any
/// system, as git protects NTFS and HFS names by default): `.git` however spelled, its short
/// name, an NTFS stream, a link where git keeps its own files' names.
fn git_would_refuse(name: &str, link: bool) -> bool {
    let lower = name.to_ascii_lowercase();
    let bare = lower.trim_end_matches(['.', ' ']);
    let special = [".", "..", ".git", "git~1"].contains(&bare) || lower.contains(':') || lower.contains('\\');
    let kept = [".gitmodules", ".gitattributes", ".gitignore", ".mailmap"].contains(&bare);
    name.is_empty() || name.contains('/') || special || (link && kept) || bare.len() != lower.len()
}

/// The files and trees of commit `commit` (objects in `objects`), or `None` when it holds what
/// is left to git.
fn plan(objects: &Path, commit: &str) -> Option<(Vec<File>, Tree)> {
    let odb = Odb::open(objects)?;
    let (kind, body) = odb.read(&id_of(commit)?)?;
    let tree_hex = body.strip_prefix(b"tree ")?.get(..40)?;
    if kind != Kind::Commit {
        return None;
    }
    let mut files = Vec::new();
    let mut root = Tree { id: id_of(std::str::from_utf8(tree_hex).ok()?)?, ..Tree::default() };
    read_tree(&odb, "", &mut root, &mut files)?;
    root.files = files.len();
    // Attributes that change what is written, anywhere in the tree: git's checkout.
    for file in files.iter().filter(|f| f.path == ".gitattributes" || f.path.ends_with("/.gitattributes")) {
        let (_, text) = odb.read(&file.blob)?;
        if super::index::converts(&String::from_utf8_lossy(&text)) {
            return None;
        }
    }
    Some((files, root))
}

/// True when commit `commit` (objects in `objects`) would be written here.
pub(crate) fn commit_fits(objects: &Path, commit: &str) -> bool {
    plan(objects, commit).is_some()
}

/// Writes commit `commit` of the repository whose objects are in `objects` into the empty
/// worktree `copy`, and its index into `index`. `None` when the commit holds what is left to git
/// (nothing is written then); an error when a file cannot be written.
pub(crate) fn write(objects: &Path, commit: &str, copy: &Path, index: &Path) -> Option<Result<(), TeamError>> {
    let (files, root) = plan(objects, commit)?;
    Some(write_files(objects, copy, &files).and_then(|stats| write_index(index, &files, &stats, &root)))
}

/// Reads tree `tree.id` (at `prefix`) into `files` and `tree`; `None` for a submodule or an
/// object that cannot be read.
fn read_tree(odb: &Odb, prefix: &str, tree: &mut Tree, files: &mut Vec<File>) -> Option<()> {
    let (kind, body) = odb.read(&tree.id)?;
    if kind != Kind::Tree {
        return None;
    }
    let mut rest = &body[..];
    while !rest.is_empty() {
        let space = memchr::memchr(b' ', rest)?;
        let mode = u32::from_str_radix(std::str::from_utf8(&rest[..space]).ok()?, 8).ok()?;
        let nul = space + 1 + memchr::memchr(0, &rest[space + 1..])?;
        let name = &rest[space + 1..nul];
        let id: [u8; 20] = rest.get(nul + 1..nul + 21)?.try_into().ok()?;
        rest = &rest[nul + 21..];
        let name_text = std::str::from_utf8(name).ok()?;
        if git_would_refuse(name_text, mode & 0o170000 == 0o120000) {
            return None;
        }
        let path = format!("{prefix}{name_text}");
        match mode & 0o170000 {
            0o040000 => {
                let mut sub = Tree { id, ..Tree::default() };
                let before = files.len();
                read_tree(odb, &format!("{path}/"), &mut sub, files)?;
                sub.files = files.len() - before;
                tree.subtrees.insert(name.to_vec(), sub);
            }
            0o100000 => {
                let mode = if mode & 0o100 != 0 { 0o100755 } else { 0o100644 };
                files.push(File { path, mode, blob: id });
            }
            0o120000 => files.push(File { path, mode: 0o120000, blob: id }),
            // A submodule (or anything else): git's checkout.
            _ => return None,
        }
    }
    Some(())
}

/// Writes `files` into `copy` on as many threads as there are cores (up to four, each with its
/// own object database handle); their `lstat`s, in the same order.
#[cfg(unix)]
fn write_files(objects: &Path, copy: &Path, files: &[File]) -> Result<Vec<std::fs::Metadata>, TeamError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io =
        |path: &Path, e: std::io::Error| TeamError::Io { path: path.display().to_string(), message: e.to_string() };
    let folders: std::collections::BTreeSet<&str> =
        files.iter().filter_map(|f| f.path.rsplit_once('/').map(|(folder, _)| folder)).collect();
    for folder in folders {
        let path = copy.join(folder);
        std::fs::create_dir_all(&path).map_err(|e| io(&path, e))?;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let chunk = files.len().div_ceil(threads).max(1);
    let write_part = |part: &[File]| -> Result<Vec<std::fs::Metadata>, TeamError> {
        let odb = Odb::open(objects).ok_or_else(|| io(objects, std::io::Error::other("cannot open objects")))?;
        let mut stats = Vec::with_capacity(part.len());
        for file in part {
            let path: PathBuf = copy.join(&file.path);
            let missing = || std::io::Error::other(format!("object {} missing", super::odb::hex(&file.blob)));
            let (_, content) = odb.read(&file.blob).ok_or_else(|| io(&path, missing()))?;
            if file.mode == 0o120000 {
                let target = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&content);
                std::os::unix::fs::symlink(target, &path).map_err(|e| io(&path, e))?;
            } else {
                let mode = if file.mode == 0o100755 { 0o777 } else { 0o666 };
                let mut out = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(mode)
                    .open(&path)
                    .map_err(|e| io(&path, e))?;
                out.write_all(&content).map_err(|e| io(&path, e))?;
            }
            stats.push(std::fs::symlink_metadata(&path).map_err(|e| io(&path, e))?);
        }
        Ok(stats)
    };
    let parts: Vec<Result<Vec<std::fs::Metadata>, TeamError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = files.chunks(chunk).map(|part| scope.spawn(move || write_part(part))).collect();
        handles.into_iter().map(|h| h.join().expect("checkout thread")).collect()
    });
    let mut stats = Vec::with_capacity(files.len());
    for part in parts {
        stats.extend(part?);
    }
    Ok(stats)
}

#[cfg(not(unix))]
fn write_files(_objects: &Path, _copy: &Path, _files: &[File]) -> Result<Vec<std::fs::Metadata>, TeamError> {
    Err(TeamError::Io { path: String::new(), message: "not on this system".into() })
}

/// Writes the index (version 2) of `files` with their `stats`, and the cache tree of `root`, as
/// git would after a checkout; through `index.lock`, as git does.
#[cfg(unix)]
fn write_index(index: &Path, files: &[File], stats: &[std::fs::Metadata], root: &Tree) -> Result<(), TeamError> {
    use std::os::unix::fs::MetadataExt;
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|a, b| files[*a].path.as_bytes().cmp(files[*b].path.as_bytes()));
    let mut out = Vec::with_capacity(files.len() * 96);
    out.extend_from_slice(b"DIRC");
    out.extend_from_slice(&2u32.to_be_bytes());
    out.extend_from_slice(&(files.len() as u32).to_be_bytes());
    for i in order {
        let (file, meta) = (&files[i], &stats[i]);
        let start = out.len();
        let fields = [
            meta.ctime() as u32,
            meta.ctime_nsec() as u32,
            meta.mtime() as u32,
            meta.mtime_nsec() as u32,
            meta.dev() as u32,
            meta.ino() as u32,
            file.mode,
            meta.uid(),
            meta.gid(),
            meta.size() as u32,
        ];
        for field in fields {
            out.extend_from_slice(&field.to_be_bytes());
        }
        out.extend_from_slice(&file.blob);
        let name = file.path.as_bytes();
        out.extend_from_slice(&(name.len().min(0xfff) as u16).to_be_bytes());
        out.extend_from_slice(name);
        // NUL-padded to a multiple of eight bytes, at least one NUL.
        let padded = (62 + name.len() + 8) & !7;
        out.resize(start + padded, 0);
    }
    let mut tree = Vec::new();
    cache_tree(b"", root, &mut tree);
    out.extend_from_slice(b"TREE");
    out.extend_from_slice(&(tree.len() as u32).to_be_bytes());
    out.extend_from_slice(&tree);
    let sum = sha1_smol::Sha1::from(&out).digest().bytes();
    out.extend_from_slice(&sum);
    let lock = index.with_extension("lock");
    let io =
        |path: &Path, e: std::io::Error| TeamError::Io { path: path.display().to_string(), message: e.to_string() };
    std::fs::write(&lock, &out).map_err(|e| io(&lock, e))?;
    // An index no newer than its newest file leaves that file "racy": every later git command
    // (and `git::exact`) reads it again. The file system's clock moves in ticks of a few
    // milliseconds: the index is written again once it is past the files' (a spare made ahead
    // is then found exactly its commit without reading a file; issue 50).
    let newest = stats.iter().map(|m| (m.mtime(), m.mtime_nsec())).max();
    let stamp = |path: &Path| std::fs::metadata(path).ok().map(|m| (m.mtime(), m.mtime_nsec()));
    for _ in 0..RACY_TRIES {
        if stamp(&lock) > newest {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
        std::fs::write(&lock, &out).map_err(|e| io(&lock, e))?;
    }
    std::fs::rename(&lock, index).map_err(|e| io(index, e))
}

/// How many times the index is written again, a millisecond apart, to be newer than its files
/// (a file system whose clock moves by seconds leaves them racy: git then reads them).
#[cfg(unix)]
const RACY_TRIES: usize = 30;

#[cfg(not(unix))]
fn write_index(_index: &Path, _files: &[File], _stats: &[std::fs::Metadata], _root: &Tree) -> Result<(), TeamError> {
    Err(TeamError::Io { path: String::new(), message: "not on this system".into() })
}

/// The cache tree extension's record of `tree` (named `name`) and its subtrees, in git's order
/// (shorter names first, then bytes).
fn cache_tree(name: &[u8], tree: &Tree, out: &mut Vec<u8>) {
    out.extend_from_slice(name);
    out.push(0);
    out.extend_from_slice(format!("{} {}\n", tree.files, tree.subtrees.len()).as_bytes());
    out.extend_from_slice(&tree.id);
    let mut subtrees: Vec<(&Vec<u8>, &Tree)> = tree.subtrees.iter().collect();
    subtrees.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(b.0)));
    for (name, sub) in subtrees {
        cache_tree(name, sub, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_that_change_a_checkout_leave_it_to_git() {
        assert!(settings_fit(""));
        assert!(settings_fit("core.autocrlf input\ncore.eol lf\ncore.symlinks true\nextensions.objectformat sha1"));
        assert!(settings_fit("core.ignorecase false\ncore.sharedrepository false\ncore.sparsecheckout false"));
        for unfit in [
            "core.autocrlf true",
            "core.eol crlf",
            "core.symlinks false",
            "core.hookspath .husky",
            "core.sparsecheckout true",
            "core.precomposeunicode true",
            "core.ignorecase true",
            "core.sharedrepository group",
            "extensions.objectformat sha256",
            // A boolean written without a value is true.
            "core.autocrlf",
        ] {
            assert!(!settings_fit(unfit), "{unfit}");
        }
        // The last one set wins, as in git.
        assert!(settings_fit("core.autocrlf true\ncore.autocrlf false"));
        assert!(!settings_fit("core.autocrlf false\ncore.autocrlf true"));
    }

    #[test]
    fn names_git_refuses_or_protects_are_left_to_git() {
        for refused in [".git", ".GIT", ".git.", ".git ", "git~1", "GIT~1", "a:b", "a\\b", ".", "..", "", "x/y"] {
            assert!(git_would_refuse(refused, false), "{refused:?}");
        }
        for kept in [".gitmodules", ".gitattributes", ".gitignore", ".mailmap"] {
            assert!(!git_would_refuse(kept, false) && git_would_refuse(kept, true), "{kept}");
        }
        for fine in [".github", ".gitignore", "git", "a.txt", "é", "notes"] {
            assert!(!git_would_refuse(fine, false), "{fine}");
        }
    }

    #[test]
    fn the_cache_tree_lists_subtrees_shorter_names_first() {
        let leaf = |id: u8, files| Tree { id: [id; 20], files, subtrees: BTreeMap::new() };
        let mut root = leaf(1, 3);
        root.subtrees.insert(b"bb".to_vec(), leaf(2, 1));
        root.subtrees.insert(b"c".to_vec(), leaf(3, 1));
        let mut out = Vec::new();
        cache_tree(b"", &root, &mut out);
        let mut expected = b"\x003 2\n".to_vec();
        expected.extend([1; 20]);
        expected.extend(b"c\x001 0\n");
        expected.extend([3; 20]);
        expected.extend(b"bb\x001 0\n");
        expected.extend([2; 20]);
        assert_eq!(out, expected);
    }
}
