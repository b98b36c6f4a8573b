//! A long path said short where room is scarce (a header in a narrow window): the home folder as
//! `~`, then, if still too long, the first part, `…` and the last parts that fit. The whole path
//! goes on hover.

/// `path` in at most about `max` characters (the last part is kept whole however long).
pub fn short_path(path: &str, home: Option<&str>, max: usize) -> String {
    let path = match home.filter(|h| !h.is_empty() && *h != "/") {
        Some(home) if path == home => "~".to_string(),
        Some(home) => match path.strip_prefix(home).filter(|rest| rest.starts_with('/')) {
            Some(rest) => format!("~{rest}"),
            None => path.to_string(),
        },
        None => path.to_string(),
    };
    if path.chars().count() <= max {
        return path;
    }
    let parts: Vec<&str> = path.split('/').collect();
    let Some((first, rest)) = parts.split_first() else { return path };
    // The first part ("~", or "" before a leading '/'), then as many last parts as fit.
    let mut tail: Vec<&str> = Vec::new();
    let mut len = first.chars().count() + 2;
    for part in rest.iter().rev() {
        let n = part.chars().count() + 1;
        if !tail.is_empty() && len + n > max {
            break;
        }
        len += n;
        tail.push(part);
    }
    if tail.len() == rest.len() {
        return path;
    }
    tail.reverse();
    format!("{first}/…/{}", tail.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_becomes_a_tilde_and_the_middle_an_ellipsis() {
        let home = Some("/home/ada");
        assert_eq!(short_path("/home/ada/src/shop", home, 40), "~/src/shop");
        assert_eq!(short_path("/home/adam/src", home, 40), "/home/adam/src", "not ada's home");
        let member = "/home/ada/.local/share/sidekicks/teams/1796609280-840138/alpha-Shop";
        assert_eq!(short_path(member, home, 40), "~/…/teams/1796609280-840138/alpha-Shop");
        assert_eq!(short_path("/tmp/a/b/c", None, 40), "/tmp/a/b/c");
        assert_eq!(
            short_path("/x/a-very-long-last-part-that-does-not-fit", None, 10),
            "/…/a-very-long-last-part-that-does-not-fit"
        );
    }
}
