//! A member's base read in this process: the base commit's tree, and the entry of a path in it,
//! walked one tree object per folder through the object database (`odb`), for what would
//! otherwise be `git rev-parse`, `git ls-tree` and `git cat-file` processes on every merge.
//! `None` whenever something is not what is read here (another object format, a missing object):
//! the caller asks git.

use std::collections::HashMap;
use std::path::Path;

use super::odb::{Kind, Odb, id_of};
use crate::model::merge::Side;

/// One entry of a tree object: its mode (as git writes it, octal) and its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TreeEntry {
    pub mode: u32,
    pub id: [u8; 20],
}

/// The trees of one repository, read once each.
pub(crate) struct Trees {
    odb: Odb,
    read: HashMap<[u8; 20], HashMap<Vec<u8>, TreeEntry>>,
}

impl Trees {
    /// The trees of the objects folder `objects`.
    pub fn open(objects: &Path) -> Option<Self> {
        Some(Self { odb: Odb::open(objects)?, read: HashMap::new() })
    }

    /// The tree of commit `commit` (40 hex digits).
    pub fn commit_tree(&self, commit: &str) -> Option<[u8; 20]> {
        let (kind, content) = self.odb.read(&id_of(commit)?)?;
        if kind != Kind::Commit {
            return None;
        }
        let first = content.split(|b| *b == b'\n').next()?;
        id_of(std::str::from_utf8(first.strip_prefix(b"tree ")?).ok()?)
    }

    /// The entries of tree `id`.
    fn tree(&mut self, id: [u8; 20]) -> Option<&HashMap<Vec<u8>, TreeEntry>> {
        if !self.read.contains_key(&id) {
            let (kind, content) = self.odb.read(&id)?;
            if kind != Kind::Tree {
                return None;
            }
            self.read.insert(id, parse_tree(&content)?);
        }
        self.read.get(&id)
    }

    /// The entry of `path` (`a/b/c`) in tree `root`: `Some(None)` when it is not there, `None`
    /// when a tree could not be read.
    pub fn entry(&mut self, root: [u8; 20], path: &str) -> Option<Option<TreeEntry>> {
        let mut tree = root;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            let Some(found) = self.tree(tree)?.get(part.as_bytes()).copied() else { return Some(None) };
            if parts.peek().is_none() {
                return Some(Some(found));
            }
            if found.mode != 0o40000 {
                return Some(None);
            }
            tree = found.id;
        }
        Some(None)
    }

    /// What `path` is in tree `root`, as a merge's side: a file with its content, a link with its
    /// target, or absent (a folder, a submodule, nothing).
    pub fn side(&mut self, root: [u8; 20], path: &str) -> Option<Side> {
        let Some(entry) = self.entry(root, path)? else { return Some(Side::Absent) };
        let blob = |odb: &Odb| -> Option<Vec<u8>> {
            let (kind, content) = odb.read(&entry.id)?;
            (kind == Kind::Blob).then_some(content)
        };
        Some(match entry.mode & 0o170000 {
            0o100000 => Side::File { content: blob(&self.odb)?, executable: entry.mode == 0o100755 },
            0o120000 => Side::Symlink { target: String::from_utf8_lossy(&blob(&self.odb)?).into_owned() },
            _ => Side::Absent,
        })
    }
}

/// A tree object's entries: `<octal mode> <name>\0<20-byte id>`, repeated.
fn parse_tree(mut bytes: &[u8]) -> Option<HashMap<Vec<u8>, TreeEntry>> {
    let mut entries = HashMap::new();
    while !bytes.is_empty() {
        let space = memchr::memchr(b' ', bytes)?;
        let mode = u32::from_str_radix(std::str::from_utf8(&bytes[..space]).ok()?, 8).ok()?;
        let rest = &bytes[space + 1..];
        let nul = memchr::memchr(0, rest)?;
        let name = rest[..nul].to_vec();
        let id: [u8; 20] = rest.get(nul + 1..nul + 21)?.try_into().ok()?;
        entries.insert(name, TreeEntry { mode, id });
        bytes = &rest[nul + 21..];
    }
    Some(entries)
}

/// What `paths` were in commit `base` of the repository whose objects are in `objects`, read
/// here; `None` when git must be asked.
pub(crate) fn bases(objects: &Path, base: &str, paths: &[String]) -> Option<Vec<Side>> {
    let mut trees = Trees::open(objects)?;
    let root = trees.commit_tree(base)?;
    paths.iter().map(|p| trees.side(root, p)).collect()
}

/// Every file and link of commit `base` with its mode and blob (hex), read here; `None` when a
/// tree cannot be read or holds a submodule (git's scan then).
pub(crate) fn flatten(objects: &Path, base: &str) -> Option<HashMap<String, (u32, String)>> {
    let mut trees = Trees::open(objects)?;
    let root = trees.commit_tree(base)?;
    let mut out = HashMap::new();
    let mut folders = vec![(String::new(), root)];
    while let Some((prefix, id)) = folders.pop() {
        for (name, entry) in trees.tree(id)?.clone() {
            let path = format!("{prefix}{}", String::from_utf8(name).ok()?);
            match entry.mode & 0o170000 {
                0o040000 => folders.push((format!("{path}/"), entry.id)),
                0o160000 => return None,
                _ => {
                    out.insert(path, (entry.mode, super::odb::hex(&entry.id)));
                }
            }
        }
    }
    Some(out)
}

/// The paths that differ between commits `from` and `to`, with git's status letter (A, M, D, T),
/// read here (folders whose tree is the same on both sides skipped); `None` when a tree cannot
/// be read or holds a submodule (git's diff then).
pub(crate) fn changed(objects: &Path, from: &str, to: &str) -> Option<Vec<(char, String)>> {
    let mut trees = Trees::open(objects)?;
    let (a, b) = (trees.commit_tree(from)?, trees.commit_tree(to)?);
    let mut out = Vec::new();
    let mut pending = vec![(String::new(), Some(a), Some(b))];
    let is_tree = |e: &TreeEntry| e.mode & 0o170000 == 0o040000;
    while let Some((prefix, a, b)) = pending.pop() {
        if a == b {
            continue;
        }
        let left = match a {
            Some(id) => trees.tree(id)?.clone(),
            None => HashMap::new(),
        };
        let right = match b {
            Some(id) => trees.tree(id)?.clone(),
            None => HashMap::new(),
        };
        let mut names: Vec<&Vec<u8>> = left.keys().chain(right.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let path = format!("{prefix}{}", String::from_utf8(name.clone()).ok()?);
            let (l, r) = (left.get(name), right.get(name));
            if l.or(r).is_some_and(|e| e.mode & 0o170000 == 0o160000) {
                return None;
            }
            let (lt, rt) = (l.filter(|e| is_tree(e)), r.filter(|e| is_tree(e)));
            if lt.is_some() || rt.is_some() {
                pending.push((format!("{path}/"), lt.map(|e| e.id), rt.map(|e| e.id)));
            }
            let (lf, rf) = (l.filter(|e| !is_tree(e)), r.filter(|e| !is_tree(e)));
            let status = match (lf, rf) {
                (None, None) => continue,
                (None, Some(_)) => 'A',
                (Some(_), None) => 'D',
                (Some(x), Some(y)) if x == y => continue,
                (Some(x), Some(y)) if x.mode & 0o170000 != y.mode & 0o170000 => 'T',
                _ => 'M',
            };
            out.push((status, path));
        }
    }
    out.sort_by(|x, y| x.1.cmp(&y.1));
    Some(out)
}

/// The tree of commit `base` (hex), read here.
pub(crate) fn commit_tree(objects: &Path, base: &str) -> Option<String> {
    Some(super::odb::hex(&Trees::open(objects)?.commit_tree(base)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    #[test]
    fn a_commits_paths_read_here_are_gits() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        git(repo, &["init", "-q"]);
        std::fs::create_dir_all(repo.join("deep/er")).unwrap();
        std::fs::write(repo.join("deep/er/a.txt"), "deep\n").unwrap();
        std::fs::write(repo.join("run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::write(repo.join("odd name [1].txt"), "").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(repo.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("deep/er/a.txt", repo.join("link")).unwrap();
        git(repo, &["add", "-A"]);
        git(repo, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]);
        // Packed too: the same answers from a pack.
        for packed in [false, true] {
            if packed {
                git(repo, &["gc", "-q"]);
            }
            let head = git(repo, &["rev-parse", "HEAD"]);
            let objects = repo.join(".git/objects");
            assert_eq!(commit_tree(&objects, &head), Some(git(repo, &["rev-parse", "HEAD^{tree}"])));
            let paths: Vec<String> =
                ["deep/er/a.txt", "run.sh", "link", "odd name [1].txt", "deep", "deep/er/none", "run.sh/x", "none"]
                    .map(String::from)
                    .to_vec();
            let sides = bases(&objects, &head, &paths).expect("read here");
            assert_eq!(sides[0], Side::File { content: b"deep\n".to_vec(), executable: false });
            assert_eq!(sides[1], Side::File { content: b"#!/bin/sh\n".to_vec(), executable: true });
            assert_eq!(sides[2], Side::Symlink { target: "deep/er/a.txt".into() });
            assert_eq!(sides[3], Side::File { content: Vec::new(), executable: false });
            assert!(sides[4..].iter().all(|s| *s == Side::Absent), "{:?}", &sides[4..]);
        }
        assert_eq!(bases(&repo.join(".git/objects"), "0000000000000000000000000000000000000000", &[]), None);
    }
}
