//! Three-way merge cases taken from real git histories, for the merge corpus test and the teams
//! bench:
//! - merge commits: for a merge with exactly one merge base, every file both parents modified
//!   (base = the merge base's version, main = the first parent's, member = the second parent's);
//! - successive versions of one file on a linear history (base = v1, main = v2, member = v3, and
//!   main/member swapped): the member holds main's change plus its own, the shape where both sides
//!   add the same lines (the `Cargo.lock` of issue 14).
//!
//! Everything is read with git's own commands (`rev-list`, `merge-base`, `diff-tree`, `cat-file
//! --batch`), so nothing is interpreted twice.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// Files above this size are left out (git's own merges of them are slow to compare).
const MAX_FILE: usize = 512 * 1024;

/// One case: where it comes from and the three texts.
#[derive(Clone)]
pub struct Case {
    /// `repo merge-commit path` or `repo path@v1..v3`.
    pub origin: String,
    /// The common ancestor's text.
    pub base: Vec<u8>,
    /// The main folder's text.
    pub main: Vec<u8>,
    /// The member's text.
    pub member: Vec<u8>,
}

/// Git repositories named by `SIDEKICKS_MERGE_CORPUS`: a folder whose entries are git directories
/// (bare, or `NAME/repo` as `fetch` leaves them, or work trees with `.git`).
pub fn corpus_repositories() -> Option<Vec<PathBuf>> {
    let root = PathBuf::from(std::env::var_os("SIDEKICKS_MERGE_CORPUS")?);
    let mut repos: Vec<PathBuf> = std::fs::read_dir(&root)
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            [path.join("repo"), path.join(".git"), path.clone()].into_iter().find(|p| p.join("HEAD").is_file())
        })
        .collect();
    repos.sort();
    Some(repos)
}

/// This project's own repository (when this copy has its history: not from a tarball) and the
/// repositories of `SIDEKICKS_MERGE_CORPUS`, for tests on real histories.
pub fn own_and_corpus_repositories() -> Vec<PathBuf> {
    let own = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut repos = Vec::new();
    if own.join(".git").exists() {
        repos.push(own.to_path_buf());
    } else {
        eprintln!("no git history here: this project's own repository is skipped");
    }
    repos.extend(corpus_repositories().unwrap_or_default());
    repos
}

fn git(repo: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("--git-dir").arg(repo).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Reads blobs through one `git cat-file --batch`.
pub struct Blobs {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Blobs {
    /// Starts the reader for `repo`.
    pub fn new(repo: &Path) -> Self {
        let mut child = Command::new("git")
            .arg("--git-dir")
            .arg(repo)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("git cat-file");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Self { child, input, output }
    }

    /// The content of blob `id`, when it is a text file of a reasonable size.
    pub fn text(&mut self, id: &str) -> Option<Vec<u8>> {
        writeln!(self.input, "{id}").unwrap();
        self.input.flush().unwrap();
        let mut header = String::new();
        self.output.read_line(&mut header).unwrap();
        let mut fields = header.split_whitespace();
        let (_, kind, size) = (fields.next()?, fields.next()?, fields.next()?);
        let size: usize = size.parse().ok()?;
        let mut content = vec![0; size + 1];
        self.output.read_exact(&mut content).unwrap();
        content.pop();
        let text = kind == "blob" && size <= MAX_FILE && !content[..size.min(8000)].contains(&0);
        text.then_some(content)
    }
}

impl Drop for Blobs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `path -> (old blob, new blob)` for the regular files `diff-tree` says were modified.
fn modified(repo: &Path, from: &str, to: &str) -> HashMap<String, (String, String)> {
    let Some(raw) = git(repo, &["diff-tree", "-r", "--no-renames", "--raw", "--no-abbrev", from, to]) else {
        return HashMap::new();
    };
    raw.lines()
        .filter_map(|line| {
            let (meta, path) = line.split_once('\t')?;
            let f: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            let regular = |mode: &str| mode == "100644" || mode == "100755";
            (f.len() == 5 && f[4] == "M" && regular(f[0]) && regular(f[1]))
                .then(|| (path.to_string(), (f[2].to_string(), f[3].to_string())))
        })
        .collect()
}

/// The two-parent merges of `repo`, newest first, with exactly one merge base (with several, git
/// merges a virtual base first: not a file merge): `[merge, first parent, second parent, base]`.
fn merges(repo: &Path) -> impl Iterator<Item = [String; 4]> + '_ {
    let list = git(repo, &["rev-list", "--merges", "--parents", "HEAD"]).unwrap_or_default();
    // Lazy: a merge base is looked up only for the merges the caller goes on to.
    let lines: Vec<String> = list.lines().map(String::from).collect();
    lines.into_iter().filter_map(move |line| {
        let [merge, first, second] = line.split(' ').collect::<Vec<_>>()[..] else { return None };
        let bases = git(repo, &["merge-base", "--all", first, second])?;
        let [base] = bases.lines().collect::<Vec<_>>()[..] else { return None };
        Some([merge, first, second, base].map(String::from))
    })
}

/// Up to `limit` cases from the merge commits of `repo` (newest first), at most `per_merge` files
/// of one merge, so many merges are represented.
pub fn merge_cases(repo: &Path, limit: usize, per_merge: usize) -> Vec<Case> {
    let name = repo_name(repo);
    let mut blobs = Blobs::new(repo);
    let mut cases = Vec::new();
    for [merge, first, second, base] in merges(repo) {
        let (first, second, base) = (first.as_str(), second.as_str(), base.as_str());
        let ours = modified(repo, base, first);
        let theirs = modified(repo, base, second);
        let mut both: Vec<(&String, &(String, String))> =
            ours.iter().filter(|(path, (_, new))| theirs.get(*path).is_some_and(|(_, t)| t != new)).collect();
        both.sort();
        for (path, (base_id, main_id)) in both.into_iter().take(per_merge) {
            let member_id = &theirs[path].1;
            let (Some(base), Some(main), Some(member)) =
                (blobs.text(base_id), blobs.text(main_id), blobs.text(member_id))
            else {
                continue;
            };
            cases.push(Case { origin: format!("{name} {merge} {path}"), base, main, member });
            if cases.len() >= limit {
                return cases;
            }
        }
    }
    cases
}

/// Up to `limit` cases from successive versions of files on the first-parent history of `repo`.
pub fn linear_cases(repo: &Path, limit: usize) -> Vec<Case> {
    let name = repo_name(repo);
    let Some(log) = git(
        repo,
        &["log", "--first-parent", "--reverse", "--no-renames", "--raw", "--no-abbrev", "--format=commit %h", "HEAD"],
    ) else {
        return Vec::new();
    };
    // Each path's successive blobs, oldest first.
    let mut versions: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut commit = String::new();
    for line in log.lines() {
        if let Some(id) = line.strip_prefix("commit ") {
            commit = id.to_string();
        } else if let Some((meta, path)) = line.split_once('\t') {
            let f: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            if f.len() == 5 && f[1] != "000000" && f[1] != "120000" && f[1] != "160000" {
                versions.entry(path.to_string()).or_default().push((commit.clone(), f[3].to_string()));
            }
        }
    }
    let mut blobs = Blobs::new(repo);
    let mut cases = Vec::new();
    for (path, list) in versions {
        for w in list.windows(3) {
            let [(c1, v1), (_, v2), (c3, v3)] = w else { continue };
            let (Some(base), Some(second), Some(third)) = (blobs.text(v1), blobs.text(v2), blobs.text(v3)) else {
                continue;
            };
            let origin = format!("{name} {path}@{c1}..{c3}");
            cases.push(Case {
                origin: format!("{origin} (in order)"),
                base: base.clone(),
                main: second.clone(),
                member: third.clone(),
            });
            cases.push(Case { origin: format!("{origin} (swapped)"), base, main: third, member: second });
            if cases.len() >= limit {
                return cases;
            }
        }
    }
    cases
}

fn repo_name(repo: &Path) -> String {
    let parts: Vec<String> = repo.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    match parts.as_slice() {
        [.., owner, last] if last == "repo" || last == ".git" => owner.clone(),
        [.., last] => last.clone(),
        [] => String::new(),
    }
}

/// What `git merge-file -p -L main -L base -L member main base member` gives, in `dir`: the merged
/// bytes and whether it conflicted.
pub fn git_merge_file(dir: &Path, base: &[u8], main: &[u8], member: &[u8]) -> (Vec<u8>, bool) {
    std::fs::write(dir.join("main"), main).unwrap();
    std::fs::write(dir.join("base"), base).unwrap();
    std::fs::write(dir.join("member"), member).unwrap();
    let out = Command::new("git")
        .current_dir(dir)
        .args(["merge-file", "-p", "-L", "main", "-L", "base", "-L", "member", "main", "base", "member"])
        .output()
        .expect("git merge-file");
    let code = out.status.code().expect("exit code");
    assert!((0..128).contains(&code), "git merge-file failed: {}", String::from_utf8_lossy(&out.stderr));
    (out.stdout, code > 0)
}

/// Up to `limit` merge commits of `repo` (newest first) with one merge base, where both parents
/// modified at least one common file: `(first parent, second parent, merge base)`.
pub fn small_merges(repo: &Path, limit: usize) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    for [_, first, second, base] in merges(repo) {
        let ours = modified(repo, &base, &first);
        if modified(repo, &base, &second).keys().any(|path| ours.contains_key(path)) {
            found.push((first, second, base));
            if found.len() >= limit {
                break;
            }
        }
    }
    found
}
