//! A worktree member's change scan without git's processes, when it can be done as git would: when
//! the member's index (read here) still holds exactly its base — its cache tree's root is the
//! base's tree — what changed is what git's `stat` comparison with the index finds, plus the files
//! git does not track and does not ignore; when the agent staged or committed, each index entry is
//! also compared with the base's own entry (the base's trees read here, `git::tree`), an entry the
//! base lacks is new, and a base path the index lacks is a candidate. Each tracked file's `stat` is compared with the index's (on
//! two threads) while the folder is walked for new files with git's ignore rules (`ignore` crate);
//! a file whose `stat` differs, or was written in the index's own instant (git's "racy" files),
//! is a candidate, and `changes` drops a candidate whose content is its base's.
//!
//! Anything this reader does not know to handle as git does makes it step aside (`None`) and the
//! scan is git's: another index version or a required extension (split or sparse index), a base
//! that cannot be read here, sparse checkout, conflicts,
//! submodules, a nested repository, a setting of git in any scope that changes what counts as a
//! change (`core.excludesFile` other than a global one, `core.autocrlf`, `core.eol=crlf`,
//! `core.fileMode`/`core.symlinks` false, SHA-256; an include or settings in the environment:
//! `git::config`) or a filter, CRLF line ends or another encoding asked in the top `.gitattributes`.
//! ADR 0026.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::odb::hex;
use super::snapshot::git;

/// One tracked path as the index has it.
pub(crate) struct Entry {
    pub path: String,
    pub mode: u32,
    pub sha: String,
    ctime: (u32, u32),
    mtime: (u32, u32),
    ino: u32,
    uid: u32,
    gid: u32,
    size: u32,
}

/// The index, when it is of a form read here.
pub(crate) struct Index {
    pub entries: Vec<Entry>,
    /// The tree the index holds, from its cache tree (none when invalidated).
    root: Option<String>,
}

/// The changed tracked paths with their base's mode and blob (as `git diff --raw` gives them),
/// and the untracked files.
pub(crate) struct Found {
    pub tracked: Vec<(String, (String, String))>,
    pub untracked: Vec<String>,
    /// The repository's objects folder, where the bases' blobs are.
    pub objects: PathBuf,
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The index in `bytes` (versions 2 and 3), or `None` for what is not read here.
fn parse(bytes: &[u8]) -> Option<Index> {
    if bytes.get(..4)? != b"DIRC" || !matches!(be32(bytes, 4)?, 2 | 3) {
        return None;
    }
    let count = be32(bytes, 8)? as usize;
    let end = bytes.len().checked_sub(20)?;
    let mut at = 12;
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let field = |i: usize| be32(bytes, at + 4 * i);
        let flags = u16::from_be_bytes(bytes.get(at + 60..at + 62)?.try_into().ok()?);
        let extended = flags & 0x4000 != 0;
        // Assume-valid, conflict stages, skip-worktree or intent-to-add: git's scan.
        if flags & 0x8000 != 0 || flags & 0x3000 != 0 {
            return None;
        }
        let mut name_at = at + 62;
        if extended {
            let more = u16::from_be_bytes(bytes.get(at + 62..at + 64)?.try_into().ok()?);
            if more & 0x6000 != 0 {
                return None;
            }
            name_at += 2;
        }
        let name_len = memchr::memchr(0, bytes.get(name_at..end)?)?;
        let mode = field(6)?;
        if mode & 0o170000 == 0o160000 {
            return None;
        }
        entries.push(Entry {
            path: String::from_utf8_lossy(&bytes[name_at..name_at + name_len]).into_owned(),
            mode,
            sha: hex(bytes.get(at + 40..at + 60)?),
            ctime: (field(0)?, field(1)?),
            mtime: (field(2)?, field(3)?),
            ino: field(5)?,
            uid: field(7)?,
            gid: field(8)?,
            size: field(9)?,
        });
        // Entries are padded with NULs to a multiple of eight bytes.
        at += (name_at - at + name_len + 8) & !7;
    }
    let mut root = None;
    while at + 8 <= end {
        let signature = bytes.get(at..at + 4)?;
        let size = be32(bytes, at + 4)? as usize;
        let data = bytes.get(at + 8..at + 8 + size)?;
        // An extension whose name starts lower-case must be understood (split index, sparse index).
        if !signature[0].is_ascii_uppercase() {
            return None;
        }
        if signature == b"TREE" {
            // The root: an empty path, "<entries> <subtrees>\n", then its id when valid.
            let line_end = memchr::memchr(b'\n', data)?;
            let line = std::str::from_utf8(data.get(1..line_end)?).ok()?;
            let valid = data.first() == Some(&0) && !line.starts_with('-');
            root = valid.then(|| data.get(line_end + 1..line_end + 21).map(hex)).flatten();
        }
        at += 8 + size;
    }
    Some(Index { entries, root })
}

/// The git folder of the worktree at `copy` (from its `.git` file) and the repository's common one.
pub(crate) fn git_dirs(copy: &Path) -> Option<(PathBuf, PathBuf)> {
    let file = std::fs::read_to_string(copy.join(".git")).ok()?;
    let dir = PathBuf::from(file.strip_prefix("gitdir: ")?.trim_end());
    let dir = if dir.is_absolute() { dir } else { copy.join(dir) };
    let common = match std::fs::read_to_string(dir.join("commondir")) {
        Ok(line) => dir.join(line.trim_end()),
        Err(_) => dir.clone(),
    };
    Some((dir, common))
}

/// The git folder of member worktree `copy` and the repository's common one, found from the
/// project's repository — never from the copy's own `.git` file, which the member can point at a
/// git folder it made (with `core.fsmonitor`, filters or hooks of its own: commands git would run
/// here). It is the entry of the project's `worktrees/` whose `gitdir` names `copy/.git`.
pub(crate) fn member_git_dirs(project: &Path, copy: &Path) -> Option<(PathBuf, PathBuf)> {
    let common = match git_dirs(project) {
        // The project is itself a linked worktree (the person's own pointer).
        Some((_, common)) => common,
        None => Some(project.join(".git")).filter(|d| d.is_dir())?,
    };
    let wanted = copy.join(".git");
    let wanted_canonical = copy.canonicalize().ok().map(|c| c.join(".git"));
    let entries = std::fs::read_dir(common.join("worktrees")).ok()?;
    for entry in entries.flatten() {
        let dir = entry.path();
        let Ok(named) = std::fs::read_to_string(dir.join("gitdir")) else { continue };
        let named = PathBuf::from(named.trim_end_matches(['\n', '\r']));
        let named_canonical = named.parent().and_then(|p| p.canonicalize().ok()).map(|p| p.join(".git"));
        if named == wanted || (named_canonical.is_some() && named_canonical == wanted_canonical) {
            return Some((dir, common));
        }
    }
    None
}

/// False when a setting of git (any scope: `git::config`) or an attribute makes git count changes
/// otherwise than here.
fn settings_fit(copy: &Path, dir: &Path, common: &Path) -> bool {
    use super::config::{Setting, boolean, files, read};
    let Some(settings) = read(&files(dir, common)) else { return false };
    // git's order: the last one of a key wins.
    let last: HashMap<&str, &Setting> = settings.iter().map(|s| (s.key.as_str(), s)).collect();
    let unfit = last.iter().any(|(key, s)| {
        let value = s.value.as_deref();
        let lower = value.map(str::to_ascii_lowercase);
        match *key {
            // A global one is the `ignore` crate's to read, as git does; another is not.
            "core.excludesfile" => !s.global,
            "core.autocrlf" | "core.sparsecheckout" | "core.ignorecase" | "core.precomposeunicode" => {
                boolean(value) != Some(false)
            }
            "core.eol" => lower.as_deref() == Some("crlf"),
            "core.filemode" | "core.symlinks" | "core.trustctime" => boolean(value) != Some(true),
            "core.checkstat" => true,
            "extensions.objectformat" => lower.as_deref() != Some("sha1"),
            _ => false,
        }
    });
    let filtered = [copy.join(".gitattributes"), common.join("info/attributes")]
        .iter()
        .any(|file| std::fs::read_to_string(file).is_ok_and(|text| converts(&text)));
    !unfit && !filtered
}

/// True when attributes `text` make a checkout write other bytes than the stored ones: a filter
/// (LFS), CRLF line ends, another encoding. (`eol=lf` and `text=auto` write what is stored on a
/// system whose lines end in LF.)
pub(crate) fn converts(text: &str) -> bool {
    let text = text.to_lowercase();
    ["filter=", "eol=crlf", "working-tree-encoding="].iter().any(|a| text.contains(a))
}

/// The tree of each base commit, asked of git once per base.
fn base_tree(project: &Path, base: &str) -> Option<String> {
    static TREES: Mutex<Option<HashMap<String, String>>> = Mutex::new(None);
    if let Some(tree) = TREES.lock().ok()?.get_or_insert_default().get(base) {
        return Some(tree.clone());
    }
    // Read here from the objects when it can be; else git's.
    let here = git_dirs(project)
        .map(|(_, common)| common)
        .or_else(|| Some(project.join(".git")).filter(|d| d.is_dir()))
        .and_then(|common| super::tree::commit_tree(&common.join("objects"), base));
    let tree = match here {
        Some(tree) => tree,
        None => {
            let tree = git(project, &["rev-parse", "--verify", &format!("{base}^{{tree}}")], &[]).ok()?;
            String::from_utf8(tree).ok()?.trim().to_string()
        }
    };
    TREES.lock().ok()?.get_or_insert_default().insert(base.to_string(), tree.clone());
    Some(tree)
}

/// True when the file's `stat` may not be the index's: git's comparison (`ce_match_stat`), with
/// nanoseconds, plus git's racy case (written no earlier than the index itself).
#[cfg(unix)]
fn differs(copy: &Path, entry: &Entry, index_time: (u32, u32)) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(copy.join(&entry.path)) else { return true };
    let kind = meta.file_type();
    let mode = if kind.is_symlink() {
        0o120000
    } else if kind.is_file() {
        if meta.mode() & 0o100 != 0 { 0o100755 } else { 0o100644 }
    } else {
        return true;
    };
    mode != entry.mode
        || (meta.mtime() as u32, meta.mtime_nsec() as u32) != entry.mtime
        || (meta.ctime() as u32, meta.ctime_nsec() as u32) != entry.ctime
        || meta.ino() as u32 != entry.ino
        || meta.uid() != entry.uid
        || meta.gid() != entry.gid
        || meta.size() as u32 != entry.size
        || entry.mtime >= index_time
}

/// The files under `copy` that git does not track and does not ignore, and the folders of `skip`
/// (relative paths) met and not walked (those not ignored); `None` when a nested repository is
/// found (git lists it as one folder).
pub(crate) fn untracked(copy: &Path, tracked: &HashSet<&str>, skip: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    let skipped = std::sync::Arc::new(Mutex::new(Vec::new()));
    fn relative(top: &Path, e: &ignore::DirEntry) -> Option<String> {
        e.path().strip_prefix(top).ok().map(|p| p.to_string_lossy().into_owned())
    }
    let (top, skip, met) = (copy.to_path_buf(), skip.to_vec(), skipped.clone());
    let walk = ignore::WalkBuilder::new(copy)
        .standard_filters(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .require_git(false)
        .filter_entry(move |e| {
            if e.depth() == 1 && e.file_name() == ".git" {
                return false;
            }
            // Called after the ignore rules: a folder here is not ignored.
            if !skip.is_empty()
                && e.file_type().is_some_and(|t| t.is_dir())
                && let Some(path) = relative(&top, e).filter(|p| skip.contains(p))
            {
                met.lock().expect("skipped").push(path);
                return false;
            }
            true
        })
        .build();
    for entry in walk {
        let entry = entry.ok()?;
        let kind = entry.file_type()?;
        if entry.depth() > 0 && entry.file_name() == ".git" {
            return None;
        }
        if kind.is_dir() {
            continue;
        }
        if !(kind.is_file() || kind.is_symlink()) {
            continue;
        }
        let path = relative(copy, &entry)?;
        if !tracked.contains(path.as_str()) {
            out.push(path);
        }
    }
    let met = std::mem::take(&mut *skipped.lock().expect("skipped"));
    Some((out, met))
}

/// The sizes of the files the index at `path` lists, added up (`None`: an index of a form not
/// read here).
pub(crate) fn tracked_bytes(path: &Path) -> Option<u64> {
    Some(parse(&std::fs::read(path).ok()?)?.entries.iter().map(|e| u64::from(e.size)).sum())
}

/// An index read to commit its working tree from, with the time it was written.
pub(crate) struct ReadIndex {
    pub index: Index,
    time: (u32, u32),
}

impl ReadIndex {
    /// The tree the index holds (its cache tree's root), when valid.
    pub(crate) fn root(&self) -> Option<&str> {
        self.index.root.as_deref()
    }
}

/// The index of the working tree at `top` (git folder `dir`, common folder `common`) when a
/// commit of that working tree can be made here as git would (the same conditions as the scan).
#[cfg(unix)]
pub(crate) fn read_for_commit(top: &Path, dir: &Path, common: &Path) -> Option<ReadIndex> {
    use std::os::unix::fs::MetadataExt;
    if !settings_fit(top, dir, common) {
        return None;
    }
    let path = dir.join("index");
    let meta = std::fs::metadata(&path).ok()?;
    let index = parse(&std::fs::read(&path).ok()?)?;
    Some(ReadIndex { index, time: (meta.mtime() as u32, meta.mtime_nsec() as u32) })
}

/// For each entry of `read`, whether its file's `stat` may differ from the index's (on two
/// threads for many files).
#[cfg(unix)]
pub(crate) fn stat_changed(top: &Path, read: &ReadIndex) -> Vec<bool> {
    let compare = |part: &[Entry]| part.iter().map(|e| differs(top, e, read.time)).collect::<Vec<bool>>();
    let few = crate::runtime::halves::FEW_TRACKED;
    crate::runtime::halves::halves(&read.index.entries, few, compare).into_iter().flatten().collect()
}

/// The scan of the worktree at `copy` made from `base` of `project`, or `None` when it is git's
/// to make (see the module's words).
#[cfg(unix)]
pub(crate) fn scan(project: &Path, copy: &Path, base: &str) -> Option<Found> {
    let (dir, common) = member_git_dirs(project, copy)?;
    if !settings_fit(copy, &dir, &common) {
        return None;
    }
    let index_path = dir.join("index");
    let index_time = {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(&index_path).ok()?;
        (meta.mtime() as u32, meta.mtime_nsec() as u32)
    };
    let index = parse(&std::fs::read(&index_path).ok()?)?;
    // An index that no longer holds the base (the agent staged or committed): the base's own
    // entries, read from its trees, to compare each entry with.
    let objects = common.join("objects");
    let base_entries = match index.root.as_deref() == Some(base_tree(project, base)?.as_str()) {
        true => None,
        false => Some(super::tree::flatten(&objects, base)?),
    };
    let tracked: HashSet<&str> = index.entries.iter().map(|e| e.path.as_str()).collect();
    // A candidate: its `stat` differs from the index's, or the index's entry from the base's.
    type Bases = HashMap<String, (u32, String)>;
    fn compare<'a>(copy: &Path, part: &'a [Entry], at: (u32, u32), base: Option<&Bases>) -> Vec<&'a Entry> {
        let staged =
            |e: &Entry| base.is_some_and(|b| b.get(&e.path).is_none_or(|(m, sha)| *m != e.mode || *sha != e.sha));
        part.iter().filter(|e| staged(e) || differs(copy, e, at)).collect()
    }
    let base = base_entries.as_ref();
    let walk = || untracked(copy, &tracked, &[]).map(|(found, _)| found);
    // A small copy is compared, then walked, here; a large one on three threads at once.
    let (changed, untracked) = match index.entries.len() < crate::runtime::halves::FEW_TRACKED {
        true => (compare(copy, &index.entries, index_time, base), walk()),
        false => std::thread::scope(|scope| {
            let walked = scope.spawn(walk);
            let compared =
                crate::runtime::halves::halves(&index.entries, 2, |part| compare(copy, part, index_time, base));
            (compared.into_iter().flatten().collect(), walked.join().expect("walk thread"))
        }),
    };
    let mut untracked = untracked?;
    let mut found: Vec<(String, (String, String))> = Vec::new();
    for e in changed {
        // With the base's own entries, each candidate's base is the base's (none: it is new).
        let base = match &base_entries {
            None => Some((e.mode, e.sha.clone())),
            Some(b) => b.get(&e.path).cloned(),
        };
        match base {
            Some((mode, sha)) => found.push((e.path.clone(), (format!("{mode:o}"), sha))),
            None => untracked.push(e.path.clone()),
        }
    }
    // The base's paths the index no longer has (removed, or renamed and staged).
    if let Some(b) = &base_entries {
        for (path, (mode, sha)) in b.iter().filter(|(p, _)| !tracked.contains(p.as_str())) {
            found.push((path.clone(), (format!("{mode:o}"), sha.clone())));
        }
    }
    Some(Found { tracked: found, untracked, objects })
}

#[cfg(not(unix))]
pub(crate) fn scan(_project: &Path, _copy: &Path, _base: &str) -> Option<Found> {
    None
}

/// The contents of the blobs `shas` read from the objects folder `objects` in this process
/// (libgit2's object database: loose objects, packs, alternates), or `None` when one cannot be
/// read (the caller asks git).
pub(crate) fn read_blobs(objects: &Path, shas: &[&str]) -> Option<HashMap<String, Vec<u8>>> {
    use super::odb::{Kind, Odb, id_of};
    if shas.is_empty() {
        return Some(HashMap::new());
    }
    let odb = Odb::open(objects)?;
    let mut out = HashMap::new();
    for sha in shas {
        let (kind, content) = odb.read(&id_of(sha)?)?;
        if kind != Kind::Blob {
            return None;
        }
        out.insert(sha.to_string(), content);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, flags: u16) -> Vec<u8> {
        let mut out = Vec::new();
        for field in [1u32, 2, 3, 4, 5, 6, 0o100644, 7, 8, 9] {
            out.extend(field.to_be_bytes());
        }
        out.extend([0xab; 20]);
        out.extend((flags | path.len() as u16).to_be_bytes());
        out.extend(path.as_bytes());
        while out.len() % 8 != 0 || out.len() == 62 + path.len() {
            out.push(0);
        }
        out
    }

    fn index(entries: &[Vec<u8>], extensions: &[u8]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend(2u32.to_be_bytes());
        out.extend((entries.len() as u32).to_be_bytes());
        entries.iter().for_each(|e| out.extend(e));
        out.extend(extensions);
        out.extend([0; 20]);
        out
    }

    fn tree(line: &str, id: Option<[u8; 20]>) -> Vec<u8> {
        let mut data = vec![0];
        data.extend(line.as_bytes());
        data.extend(id.into_iter().flatten());
        let mut out = b"TREE".to_vec();
        out.extend((data.len() as u32).to_be_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn entries_and_the_root_tree_are_read() {
        let bytes = index(&[entry("a.txt", 0), entry("src/long-name.rs", 0)], &tree("2 1\n", Some([0x12; 20])));
        let read = parse(&bytes).unwrap();
        let paths: Vec<&str> = read.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["a.txt", "src/long-name.rs"]);
        assert_eq!(read.entries[0].mtime, (3, 4));
        assert_eq!(read.entries[1].size, 9);
        assert_eq!(read.entries[0].sha, "ab".repeat(20));
        assert_eq!(read.root.as_deref(), Some("12".repeat(20).as_str()));
    }

    #[test]
    fn attributes_that_change_the_bytes_written_are_told_apart() {
        assert!(!converts("* text=auto eol=lf\nvendor/** linguist-vendored\n"));
        assert!(converts("*.bat text eol=CRLF\n"));
        assert!(converts("*.bin filter=lfs diff=lfs merge=lfs -text\n"));
        assert!(converts("*.txt working-tree-encoding=UTF-16\n"));
    }

    #[test]
    fn an_invalid_root_or_an_unknown_form_is_left_to_git() {
        assert!(parse(&index(&[entry("a", 0)], &tree("-1 0\n", None))).unwrap().root.is_none());
        assert!(parse(&index(&[entry("a", 0)], &[])).unwrap().root.is_none());
        // A conflict stage, assume-valid, a split index, version 4.
        assert!(parse(&index(&[entry("a", 0x1000)], &[])).is_none());
        assert!(parse(&index(&[entry("a", 0x8000)], &[])).is_none());
        let mut link = b"link".to_vec();
        link.extend(0u32.to_be_bytes());
        assert!(parse(&index(&[entry("a", 0)], &link)).is_none());
        let mut four = index(&[entry("a", 0)], &[]);
        four[7] = 4;
        assert!(parse(&four).is_none());
        assert!(parse(b"DIRC\0\0\0\x02\0\0\0\x05").is_none());
    }
}
