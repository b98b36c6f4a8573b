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
