//! git's settings as the change scan needs them, read from git's config files of every scope
//! (system, global, the repository's, the worktree's) without running git: the scan runs after
//! every write of an agent, and a process costs more than the scan itself (ADR 0026).
//!
//! Only what decides whether the scan may be made here is read, in git's order (later wins).
//! What this reader does not follow — an `include`/`includeIf` section, settings given in the
//! environment (`GIT_CONFIG_COUNT`, `GIT_CONFIG_PARAMETERS`), a file it cannot read as text —
//! gives `None`, and the scan is git's.

use std::path::{Path, PathBuf};

/// The config files git reads for the worktree whose git folder is `dir` in the repository whose
/// common folder is `common`, in git's order, with whether each is a global one (the `ignore`
/// crate reads a global `core.excludesFile` itself). Files that do not exist are left out later.
pub(crate) fn files(dir: &Path, common: &Path) -> Vec<(PathBuf, bool)> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut out = Vec::new();
    if var("GIT_CONFIG_NOSYSTEM").is_none() {
        match var("GIT_CONFIG_SYSTEM") {
            Some(file) => out.push((file, false)),
            // Debian's git and one built with the prefix /usr/local: both, to be safe.
            None => out.extend(["/etc/gitconfig", "/usr/local/etc/gitconfig"].map(|f| (PathBuf::from(f), false))),
        }
    }
    match var("GIT_CONFIG_GLOBAL") {
        Some(file) => out.push((file, false)),
        None => {
            let home = var("HOME");
            let xdg = var("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
            out.extend(xdg.map(|x| (x.join("git/config"), true)));
            out.extend(home.map(|h| (h.join(".gitconfig"), true)));
        }
    }
    out.push((common.join("config"), false));
    out.push((dir.join("config.worktree"), false));
    out
}

/// One setting: `section.key` or `section.subsection.key` (as git names it), its value as written
/// (`None` for a bare key, which means true), and whether it came from a global file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Setting {
    pub key: String,
    pub value: Option<String>,
    pub global: bool,
}

/// The settings of `files` in order, or `None` when one holds what is not followed here.
pub(crate) fn read(files: &[(PathBuf, bool)]) -> Option<Vec<Setting>> {
    if ["GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"].iter().any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()))
    {
        return None;
    }
    let mut out = Vec::new();
    for (file, global) in files {
        let text = match std::fs::read(file) {
            Ok(bytes) => String::from_utf8(bytes).ok()?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        };
        out.extend(parse(&text, *global)?);
    }
    Some(out)
}

/// The settings of one file's `text`; `None` for an include or what is not read here.
pub(crate) fn parse(text: &str, global: bool) -> Option<Vec<Setting>> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut line = line.trim_start().to_string();
        // A value continued on the next line.
        while line.ends_with('\\') && !line.ends_with("\\\\") {
            line.pop();
            line.push_str(lines.next()?);
        }
        let mut rest = line.as_str();
        if let Some(inner) = rest.strip_prefix('[') {
            let end = inner.find(']')?;
            let head = &inner[..end];
            // `[name "sub"]` (the subsection as written) or `[name.sub]` (old form, lower-case):
            // the keys are `name.sub.key`, never `name.key`.
            let (name, sub) = match head.split_once(|c: char| c.is_whitespace()) {
                Some((name, sub)) => (name.to_ascii_lowercase(), Some(unquote(sub.trim()))),
                None => (head.to_ascii_lowercase(), None),
            };
            if name.starts_with("include") {
                return None;
            }
            section = match sub {
                Some(sub) => format!("{name}.{sub}"),
                None => name,
            };
            rest = inner[end + 1..].trim_start();
        }
        let rest = without_comment(rest);
        if rest.is_empty() {
            continue;
        }
        let (key, value) = match rest.split_once('=') {
            Some((key, value)) => (key.trim(), Some(unquote(value.trim()))),
            None => (rest.trim(), None),
        };
        if section.is_empty() || key.is_empty() {
            return None;
        }
        out.push(Setting { key: format!("{section}.{}", key.to_ascii_lowercase()), value, global });
    }
    Some(out)
}

/// `text` up to a `#` or `;` outside quotes.
fn without_comment(text: &str) -> &str {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            '#' | ';' if !quoted => return text[..i].trim_end(),
            _ => {}
        }
    }
    text.trim_end()
}

/// A value with its quotes taken off.
fn unquote(value: &str) -> String {
    value.chars().filter(|c| *c != '"').collect()
}

/// git's booleans: `None` for a value that is not one.
pub(crate) fn boolean(value: Option<&str>) -> Option<bool> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        None => Some(true),
        Some("true" | "yes" | "on" | "1") => Some(true),
        Some("false" | "no" | "off" | "0" | "") => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<(String, Option<String>)> {
        parse(text, false).unwrap().into_iter().map(|s| (s.key, s.value)).collect()
    }

    #[test]
    fn sections_keys_values_and_comments_are_read_as_git_does() {
        let text = "# a comment\n[core]\n\tautocrlf = input ; why\n\tfileMode\n[Core \"sub\"]\n  EOL=\"crlf\"\n[user] name = A # B\n[extensions.x]\nobjectFormat = sha256\n";
        assert_eq!(
            keys(text),
            [
                ("core.autocrlf".to_string(), Some("input".to_string())),
                ("core.filemode".into(), None),
                ("core.sub.eol".into(), Some("crlf".into())),
                ("user.name".into(), Some("A".into())),
                ("extensions.x.objectformat".into(), Some("sha256".into())),
            ]
        );
        assert_eq!(
            keys("[core]\n  excludesFile = \"~/a;b#c\"\n"),
            [("core.excludesfile".to_string(), Some("~/a;b#c".to_string()))]
        );
        assert_eq!(
            keys("[alias]\n  l = log \\\n  --oneline\n"),
            [("alias.l".to_string(), Some("log   --oneline".to_string()))]
        );
    }

    /// What `git config --list` gives for `file`: (key, value; `None` for a bare key).
    fn gits(file: &Path) -> Vec<(String, Option<String>)> {
        let out = std::process::Command::new("git").args(["config", "--list", "-z", "-f"]).arg(file).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let entry = |e: &str| match e.split_once('\n') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (e.to_string(), None),
        };
        text.split('\0').filter(|e| !e.is_empty()).map(entry).collect()
    }

    #[test]
    fn keys_and_values_are_the_ones_git_lists() {
        let dir = tempfile::tempdir().unwrap();
        let mut files: Vec<PathBuf> = Vec::new();
        for (i, text) in [
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.org/a.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"Main\"]\n\tremote = origin\n",
            "; global\n[user]\n  name = Ada Lovelace\n  email = ada@example.org # work\n[core]\n  excludesFile = ~/.gitignore_global\n  autocrlf = input\n  editor = \"code --wait\"\n[Pull]\n  Rebase\n[url \"git@host:\"]\n  insteadOf = https://host/\n",
        ]
        .iter()
        .enumerate()
        {
            let file = dir.path().join(format!("config{i}"));
            std::fs::write(&file, text).unwrap();
            files.push(file);
        }
        // Real ones: this repository's, and the corpus mirrors' when they are here.
        let own = Path::new(env!("CARGO_MANIFEST_DIR")).join(".git/config");
        files.extend([own].into_iter().filter(|f| f.is_file()));
        if let Ok(mirrors) = std::fs::read_dir("/work/.mirror") {
            files.extend(mirrors.flatten().map(|m| m.path().join("repo/config")).filter(|f| f.is_file()));
        }
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let ours: Vec<_> = parse(&text, false).unwrap().into_iter().map(|s| (s.key, s.value)).collect();
            assert_eq!(ours, gits(file), "{}", file.display());
        }
    }

    #[test]
    fn what_is_not_followed_here_is_none() {
        assert!(parse("[include]\n  path = other\n", false).is_none());
        assert!(parse("[includeIf \"gitdir:~/w/\"]\n  path = other\n", false).is_none());
        assert!(parse("autocrlf = true\n", false).is_none(), "a key outside any section");
        assert!(parse("[core\n", false).is_none());
    }

    #[test]
    fn booleans_are_gits() {
        for (value, expected) in [(None, Some(true)), (Some("Yes"), Some(true)), (Some("1"), Some(true))] {
            assert_eq!(boolean(value), expected);
        }
        for (value, expected) in [(Some("off"), Some(false)), (Some(""), Some(false)), (Some("input"), None)] {
            assert_eq!(boolean(value), expected);
        }
    }

    #[test]
    fn files_are_read_in_order_and_a_missing_one_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "[core]\n autocrlf = true\n").unwrap();
        std::fs::write(&b, "[core]\n autocrlf = false\n").unwrap();
        let files = [(a, true), (dir.path().join("missing"), false), (b, false)];
        let read = read(&files).unwrap();
        assert_eq!(read.len(), 2);
        assert!(read[0].global && !read[1].global);
        assert_eq!(read[1].value.as_deref(), Some("false"));
        std::fs::write(dir.path().join("bad"), [0xff, 0xfe]).unwrap();
        assert!(super::read(&[(dir.path().join("bad"), false)]).is_none(), "not text");
    }
}
