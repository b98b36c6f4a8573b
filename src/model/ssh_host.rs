//! The `host` of an SSH runtime: a name from the person's SSH config, or `user@host[:port]`
//! (`[v6-address]:port` too). Parsed here so the config check and the SSH executor agree.

use serde::Serialize;

/// What is wrong with a `host`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum HostProblem {
    /// It starts with `-`: ssh would read it as an option.
    Dash,
    /// It holds a space, a quote or a control character.
    Blank,
    /// The part after the last `:` is not a port number (1–65535).
    Port,
}

/// Where ssh connects: the destination it is given and the port, if the host named one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destination {
    /// `user@host`, `host`, an alias of the SSH config, or an address (IPv6 without brackets).
    pub dest: String,
    /// The port after `:`, if any.
    pub port: Option<u16>,
}

/// Reads `host`.
pub fn parse(host: &str) -> Result<Destination, HostProblem> {
    let host = host.trim();
    if host.starts_with('-') {
        return Err(HostProblem::Dash);
    }
    if host.is_empty() || host.chars().any(|c| c.is_whitespace() || c.is_control() || "'\"`$\\;|&<>".contains(c)) {
        return Err(HostProblem::Blank);
    }
    let (user, rest) = match host.rsplit_once('@') {
        Some((user, rest)) => (Some(user), rest),
        None => (None, host),
    };
    let with_user = |name: &str| user.map_or_else(|| name.to_string(), |u| format!("{u}@{name}"));
    // `[v6]:port` or `[v6]`.
    if let Some(inner) = rest.strip_prefix('[') {
        let (addr, after) = inner.split_once(']').ok_or(HostProblem::Blank)?;
        let port = match after {
            "" => None,
            p => Some(port(p.strip_prefix(':').ok_or(HostProblem::Port)?)?),
        };
        return Ok(Destination { dest: with_user(addr), port });
    }
    match rest.split_once(':') {
        // One colon: a port. More than one: an IPv6 address without a port.
        Some((name, p)) if !p.contains(':') => Ok(Destination { dest: with_user(name), port: Some(port(p)?) }),
        _ => Ok(Destination { dest: host.to_string(), port: None }),
    }
}

/// What is wrong with `host`, if anything.
pub fn problem(host: &str) -> Option<HostProblem> {
    parse(host).err()
}

fn port(text: &str) -> Result<u16, HostProblem> {
    text.parse::<u16>().ok().filter(|p| *p > 0).ok_or(HostProblem::Port)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dest(dest: &str, port: Option<u16>) -> Result<Destination, HostProblem> {
        Ok(Destination { dest: dest.into(), port })
    }

    #[test]
    fn hosts_are_read() {
        assert_eq!(parse("build-box"), dest("build-box", None));
        assert_eq!(parse("me@build.example.com"), dest("me@build.example.com", None));
        assert_eq!(parse("me@10.0.0.2:2222"), dest("me@10.0.0.2", Some(2222)));
        assert_eq!(parse("gpu:22"), dest("gpu", Some(22)));
        assert_eq!(parse("me@[::1]:2200"), dest("me@::1", Some(2200)));
        assert_eq!(parse("fe80::1"), dest("fe80::1", None));
    }

    #[test]
    fn hosts_that_ssh_would_misread_are_refused() {
        assert_eq!(parse("-oProxyCommand=touch pwned"), Err(HostProblem::Dash));
        assert_eq!(parse("a b"), Err(HostProblem::Blank));
        assert_eq!(parse("box;rm"), Err(HostProblem::Blank));
        assert_eq!(parse("box:99999"), Err(HostProblem::Port));
        assert_eq!(parse("box:ssh"), Err(HostProblem::Port));
        assert_eq!(parse("box:0"), Err(HostProblem::Port));
    }
}
