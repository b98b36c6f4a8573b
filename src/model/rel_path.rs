//! Paths inside a workspace: relative, separated by `/`, never leaving it. Pure checks; symlinks
//! that lead out are refused where the files are (cap-std locally, `realpath` in a container).

/// A normalized path below a workspace root (`""` is the root itself).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelPath(String);

/// Why a path was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} is outside the workspace")]
pub struct Outside(pub String);

impl RelPath {
    /// The root of the workspace.
    pub fn root() -> Self {
        Self(String::new())
    }

    /// Checks `path`: relative, no `..`, no NUL; `.` and empty components are dropped.
    pub fn new(path: &str) -> Result<Self, Outside> {
        let outside = || Outside(path.to_string());
        if path.starts_with('/') || path.contains('\0') {
            return Err(outside());
        }
        let mut parts = Vec::new();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => return Err(outside()),
                p => parts.push(p),
            }
        }
        Ok(Self(parts.join("/")))
    }

    /// The path as a string (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True for the workspace root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// `self/name` (a single component, checked).
    pub fn join(&self, name: &str) -> Result<Self, Outside> {
        if name.contains('/') || name == ".." || name == "." || name.is_empty() {
            return Err(Outside(name.to_string()));
        }
        Self::new(&if self.is_root() { name.to_string() } else { format!("{}/{name}", self.0) })
    }

    /// `rel` below this folder: a name, or a path of names (`notes/intro.md`); nothing that
    /// leaves it (`..`, a path from `/`).
    pub fn join_path(&self, rel: &str) -> Result<Self, Outside> {
        let names: Vec<&str> = rel.split('/').filter(|n| !n.is_empty() && *n != ".").collect();
        if rel.starts_with('/') || names.is_empty() || names.contains(&"..") {
            return Err(Outside(rel.to_string()));
        }
        names.iter().try_fold(self.clone(), |at, name| at.join(name))
    }

    /// Whether this path is `other` or lies below it.
    pub fn is_within(&self, other: &RelPath) -> bool {
        other.is_root() || self.0 == other.0 || self.0.starts_with(&format!("{}/", other.0))
    }

    /// This path with its leading `from` replaced by `to` (when it is within `from`).
    pub fn moved(&self, from: &RelPath, to: &RelPath) -> Option<RelPath> {
        if !self.is_within(from) || from.is_root() {
            return None;
        }
        let rest = &self.0[from.0.len()..];
        Some(RelPath(format!("{}{rest}", to.0)))
    }

    /// The parent folder (the root's parent is the root).
    pub fn parent(&self) -> Self {
        Self(self.0.rsplit_once('/').map_or(String::new(), |(p, _)| p.to_string()))
    }

    /// The last component (`""` for the root).
    pub fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }
}

impl std::fmt::Display for RelPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_empty() { "." } else { &self.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_of_names_is_joined_and_a_rename_follows_what_is_below() {
        let notes = RelPath::new("notes").unwrap();
        assert_eq!(RelPath::root().join_path("notes/intro.md").unwrap().as_str(), "notes/intro.md");
        assert!(notes.join_path("../x").is_err() && notes.join_path("/etc").is_err() && notes.join_path("").is_err());
        let file = RelPath::new("notes/a/b.md").unwrap();
        assert_eq!(file.moved(&notes, &RelPath::new("docs").unwrap()).unwrap().as_str(), "docs/a/b.md");
        assert_eq!(file.moved(&file, &RelPath::new("c.md").unwrap()).unwrap().as_str(), "c.md");
        assert_eq!(RelPath::new("notesx/a").unwrap().moved(&notes, &RelPath::root()), None);
    }

    #[test]
    fn relative_paths_only() {
        assert_eq!(RelPath::new("a/./b//c/").unwrap().as_str(), "a/b/c");
        assert!(RelPath::new("").unwrap().is_root());
        for bad in ["/etc/passwd", "../x", "a/../../x", "a/..", "x\0y"] {
            assert!(RelPath::new(bad).is_err(), "{bad:?}");
        }
        assert_eq!(RelPath::new("-rf").unwrap().as_str(), "-rf");
        assert_eq!(RelPath::new("a/b").unwrap().parent().as_str(), "a");
        assert_eq!(RelPath::new("a/b").unwrap().name(), "b");
        assert!(RelPath::root().join("..").is_err());
        assert!(RelPath::root().join("x/y").is_err());
    }
}
