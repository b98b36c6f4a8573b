//! Snapshots of folders outside git: each file's hash, the contents kept once each in the data
//! folder.

use super::*;

/// One file of a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct FileEntry {
    hash: String,
    size: u64,
    /// Modification time, nanoseconds (to skip reading unchanged files next time).
    mtime: i128,
    mode: u32,
}

/// A snapshot: its time and files.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    at: u64,
    files: BTreeMap<String, FileEntry>,
}

/// Whether a snapshot keeps the contents of a file with this hash (not one too large).
fn kept(hash: &str) -> bool {
    !hash.starts_with('-')
}

fn manifests(folder: &Path) -> PathBuf {
    folder.join("manifests")
}

fn object(folder: &Path, hash: &str) -> PathBuf {
    folder.join("objects").join(&hash[..2]).join(&hash[2..])
}

fn load(folder: &Path, id: &str) -> Result<Manifest, CheckpointError> {
    let path = manifests(folder).join(format!("{id}.json"));
    let bytes = std::fs::read(&path).map_err(|_| CheckpointError::Unknown(format!("s{id}")))?;
    serde_json::from_slice(&bytes).map_err(|e| io(&path, e))
}

pub(super) fn list(folder: &Path) -> Result<Vec<Checkpoint>, CheckpointError> {
    let dir = manifests(folder);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut all = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(name) = name.strip_suffix(".json") {
            all.push(named('s', name));
        }
    }
    Ok(all)
}

/// The files of `workspace` a snapshot holds: not ignored, outside `.git`, dependency folders
/// and the snapshots' own folder `folder` (a workspace may hold Sidekicks' data folder),
/// regular files and symbolic links.
fn walk(workspace: &Path, folder: &Path) -> Vec<(String, std::fs::Metadata)> {
    let folders = crate::runtime::teams::dependency_folders(workspace);
    let mut found = Vec::new();
    // The snapshots' root (`folder` is one workspace's folder in it).
    let root = folder.parent().unwrap_or(folder).to_path_buf();
    let walker = ignore::WalkBuilder::new(workspace)
        .hidden(false)
        .require_git(false)
        .filter_entry(move |e| e.file_name() != ".git" && e.path() != root)
        .build();
    for entry in walker.flatten() {
        let Ok(rel) = entry.path().strip_prefix(workspace) else { continue };
        let rel = rel.to_string_lossy().into_owned();
        let in_folder = |f: &String| rel == *f || rel.starts_with(&format!("{f}/"));
        if rel.is_empty() || folders.iter().any(in_folder) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else { continue };
        if meta.is_file() || meta.is_symlink() {
            found.push((rel, meta));
        }
    }
    found
}

fn mtime(meta: &std::fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

/// The bytes a snapshot keeps of a file (a link's target for a symbolic link).
fn contents(path: &Path, meta: &std::fs::Metadata) -> Result<Vec<u8>, CheckpointError> {
    use std::os::unix::ffi::OsStrExt;
    if meta.is_symlink() {
        return std::fs::read_link(path).map(|t| t.as_os_str().as_bytes().to_vec()).map_err(|e| io(path, e));
    }
    std::fs::read(path).map_err(|e| io(path, e))
}

pub(super) fn record(folder: &Path, workspace: &Path, max_file: u64) -> Result<Checkpoint, CheckpointError> {
    use std::os::unix::fs::PermissionsExt;
    // The newest snapshot tells which files are unchanged (same size and time): not read again.
    let last = list(folder)?.into_iter().max_by(|a, b| a.id.cmp(&b.id));
    let last = last.and_then(|c| load(folder, &c.id[1..]).ok()).unwrap_or_default();
    let mut manifest = Manifest { at: crate::model::when::now(), files: BTreeMap::new() };
    for (rel, meta) in walk(workspace, folder) {
        let mode = if meta.is_symlink() { 0o120000 } else { meta.permissions().mode() & 0o777 };
        let (size, time) = (meta.len(), mtime(&meta));
        let unchanged = last.files.get(&rel).filter(|e| e.size == size && e.mtime == time && e.mode == mode);
        let hash = match unchanged {
            Some(e) => e.hash.clone(),
            // Too large to keep: its size and time stand for it (changes are seen, a restore
            // leaves it as it is).
            None if size > max_file => format!("-{size}-{time}"),
            None => {
                let bytes = contents(&workspace.join(&rel), &meta)?;
                let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
                let kept = object(folder, &hash);
                if !kept.exists() {
                    write_atomic(&kept, &bytes, 0o600)?;
                }
                hash
            }
        };
        manifest.files.insert(rel, FileEntry { hash, size, mtime: time, mode });
    }
    let text = serde_json::to_vec(&manifest).map_err(|e| io(folder, e))?;
    let digest: String = Sha256::digest(&text).iter().take(6).map(|b| format!("{b:02x}")).collect();
    let name = format!("{}-{digest}", stamp());
    write_atomic(&manifests(folder).join(format!("{name}.json")), &text, 0o600)?;
    Ok(named('s', &name))
}

pub(super) fn restore(folder: &Path, workspace: &Path, target: &str, now: &str) -> Result<(), CheckpointError> {
    let (target, now) = (load(folder, target)?, load(folder, now)?);
    // A file too large to be kept is not deleted either: what was there cannot be put back.
    for (path, _) in now.files.iter().filter(|(p, e)| !target.files.contains_key(*p) && kept(&e.hash)) {
        remove(workspace, path)?;
    }
    for (path, entry) in &target.files {
        if now.files.get(path).is_some_and(|e| e.hash == entry.hash && e.mode == entry.mode) || !kept(&entry.hash) {
            continue;
        }
        let kept = object(folder, &entry.hash);
        let bytes = std::fs::read(&kept).map_err(|e| io(&kept, e))?;
        let full = workspace.join(path);
        if entry.mode == 0o120000 {
            use std::os::unix::ffi::OsStrExt;
            let _ = std::fs::remove_file(&full);
            if let Some(dir) = full.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
            }
            let target = std::ffi::OsStr::from_bytes(&bytes);
            std::os::unix::fs::symlink(target, &full).map_err(|e| io(&full, e))?;
        } else {
            write_atomic(&full, &bytes, entry.mode)?;
        }
    }
    Ok(())
}

/// The bytes snapshot `id` keeps of `path` (`None`: it had no such file).
pub(super) fn read(folder: &Path, id: &str, path: &str) -> Result<Option<(Vec<u8>, bool)>, CheckpointError> {
    let manifest = load(folder, id)?;
    let Some(entry) = manifest.files.get(path) else { return Ok(None) };
    if !kept(&entry.hash) {
        return Err(io(Path::new(path), "too large to be kept in checkpoints"));
    }
    let object = object(folder, &entry.hash);
    let bytes = std::fs::read(&object).map_err(|e| io(&object, e))?;
    Ok(Some((bytes, entry.mode == 0o120000)))
}

pub(super) fn changed(folder: &Path, then: &str, now: &str) -> Result<Vec<String>, CheckpointError> {
    let (then, now) = (load(folder, then)?, load(folder, now)?);
    let mut paths: Vec<String> = now
        .files
        .iter()
        .filter(|(p, e)| then.files.get(*p).is_none_or(|t| t.hash != e.hash || t.mode != e.mode))
        .map(|(p, _)| p.clone())
        .chain(then.files.keys().filter(|p| !now.files.contains_key(*p)).cloned())
        .collect();
    paths.sort();
    Ok(paths)
}

/// Deletes the manifests of `gone` and the contents no snapshot left refers to.
pub(super) fn forget(folder: &Path, gone: &[&Checkpoint]) -> Result<(), CheckpointError> {
    for c in gone {
        let path = manifests(folder).join(format!("{}.json", &c.id[1..]));
        std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
    }
    let mut used = std::collections::HashSet::new();
    for c in list(folder)? {
        used.extend(load(folder, &c.id[1..])?.files.into_values().map(|e| e.hash).filter(|h| kept(h)));
    }
    let objects = folder.join("objects");
    for dir in std::fs::read_dir(&objects).map_err(|e| io(&objects, e))?.flatten() {
        let prefix = dir.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(dir.path()).map_err(|e| io(&dir.path(), e))?.flatten() {
            let hash = format!("{prefix}{}", file.file_name().to_string_lossy());
            if !used.contains(&hash) {
                let _ = std::fs::remove_file(file.path());
            }
        }
    }
    Ok(())
}
