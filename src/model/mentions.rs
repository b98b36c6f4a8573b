//! `@` in the composer: the path being typed, and the workspace's files and folders that match
//! it (every character of the query in order, case ignored; names that start with it first).

/// The query of the `@` being typed at the end of `draft` (`Some("")` right after `@`), if any:
/// the `@` starts the text or follows a space, and no space follows it.
pub fn query(draft: &str) -> Option<&str> {
    let at = draft.rfind('@')?;
    let before_ok = at == 0 || draft[..at].ends_with(char::is_whitespace);
    let query = &draft[at + 1..];
    (before_ok && !query.contains(char::is_whitespace)).then_some(query)
}

/// The draft with the `@query` at its end replaced by `@path ` (folders end with `/`).
pub fn complete(draft: &str, path: &str, dir: bool) -> String {
    let at = draft.rfind('@').unwrap_or(draft.len());
    let slash = if dir { "/" } else { "" };
    format!("{}@{path}{slash} ", &draft[..at])
}

/// The best `max` of `paths` for `query`, best first.
pub fn matches<'a>(paths: &'a [(String, bool)], query: &str, max: usize) -> Vec<&'a (String, bool)> {
    let query = query.to_lowercase();
    let mut scored: Vec<(u32, usize, &(String, bool))> =
        paths.iter().filter_map(|entry| score(&entry.0, &query).map(|s| (s, entry.0.len(), entry))).collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.0.cmp(&b.2.0)));
    scored.into_iter().take(max).map(|(_, _, e)| e).collect()
}

/// Lower is better; `None`: no match (see [`super::fuzzy::score`]). An empty query lists the
/// shallowest paths first.
fn score(path: &str, query: &str) -> Option<u32> {
    if query.is_empty() {
        return Some(path.matches('/').count() as u32);
    }
    super::fuzzy::score(path, query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_is_the_last_at_word() {
        assert_eq!(query("look at @src/ma"), Some("src/ma"));
        assert_eq!(query("@"), Some(""));
        assert_eq!(query("mail me@example.com"), None);
        assert_eq!(query("@src/main.rs and"), None);
        assert_eq!(complete("look at @sr", "src", true), "look at @src/ ");
    }

    #[test]
    fn names_that_start_with_the_query_come_first() {
        let paths: Vec<(String, bool)> = ["src/main.rs", "docs/domain.md", "src", "README.md", "tests/main_test.rs"]
            .iter()
            .map(|p| (p.to_string(), !p.contains('.')))
            .collect();
        let found: Vec<&str> = matches(&paths, "main", 10).iter().map(|e| e.0.as_str()).collect();
        assert_eq!(found, ["src/main.rs", "tests/main_test.rs", "docs/domain.md"]);
        let fuzzy: Vec<&str> = matches(&paths, "smr", 10).iter().map(|e| e.0.as_str()).collect();
        assert_eq!(fuzzy, ["src/main.rs", "tests/main_test.rs"]);
        assert_eq!(matches(&paths, "", 2).len(), 2);
    }
}
