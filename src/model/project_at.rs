//! Where a team's project is: a folder of this computer, or a folder of another machine reached
//! over SSH, written as people write it for `scp` (`build-1:src/app`, `build-1:/srv/app`) or as
//! a URL (`ssh://build-1/srv/app`). Both are kept in the scp form (ADR 0039).

use std::path::Path;

/// A project on another machine: the SSH host (a name of the SSH config) and its path there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarProject<'a> {
    /// The host, as the SSH config names it.
    pub host: &'a str,
    /// The folder there (relative to the home folder there when not absolute).
    pub path: &'a str,
}

/// `project` as a project on another machine, when it is written as one: `HOST:PATH` with a
/// host before any `/`, or `ssh://HOST/PATH`. A path of this computer is absolute (`/…`) or
/// relative with no `:` before its first `/`.
pub fn far(project: &Path) -> Option<FarProject<'_>> {
    let text = project.to_str()?;
    if let Some(rest) = text.strip_prefix("ssh://") {
        let (host, _) = rest.split_once('/')?;
        return named(host).then_some(FarProject { host, path: &rest[host.len()..] }).filter(|p| p.path.len() > 1);
    }
    let (host, path) = text.split_once(':')?;
    (named(host) && !path.is_empty()).then_some(FarProject { host, path })
}

/// The scp form of `text` when it names a project on another machine (`ssh://h/p` → `h:/p`).
pub fn normalized(text: &str) -> Option<String> {
    far(Path::new(text)).map(|p| format!("{}:{}", p.host, p.path))
}

/// A host name (`user@` before it allowed): no `/`, no space, not empty, not an option.
fn named(host: &str) -> bool {
    let h = match host.split_once('@') {
        Some((user, h)) if !user.is_empty() => h,
        Some(_) => return false,
        None => host,
    };
    !h.is_empty() && !h.starts_with('-') && !h.contains(['/', ' ', '\\', '@'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scp_and_url_forms_name_a_far_project_and_local_paths_do_not() {
        let far_of = |t: &str| far(Path::new(t)).map(|p| (p.host.to_string(), p.path.to_string()));
        let pair = |h: &str, p: &str| Some((h.to_string(), p.to_string()));
        assert_eq!(far_of("build-1:/srv/app"), pair("build-1", "/srv/app"));
        assert_eq!(far_of("build-1:src/app"), pair("build-1", "src/app"));
        assert_eq!(far_of("ci@build-1:app"), pair("ci@build-1", "app"));
        assert_eq!(far_of("ssh://build-1/srv/app"), pair("build-1", "/srv/app"));
        assert_eq!(normalized("ssh://build-1/srv/app").as_deref(), Some("build-1:/srv/app"));
        for local in ["/srv/app", "./a:b", "src/a:b", "app", "/tmp/x:y", "ssh://build-1", "host:", ":path", "-oProxy:x"]
        {
            assert_eq!(far_of(local), None, "{local}");
        }
    }
}
