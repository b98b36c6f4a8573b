//! Fuzzy matching for completion lists and the command palette: lower scores are better.

/// How well `text` matches `query` (lowercase): 0 when a word of it (or its last path part)
/// starts with the query, 1 when it contains it, 2 when the query's characters appear in order;
/// `None` when it does not match. An empty query matches everything with 0.
pub fn score(text: &str, query: &str) -> Option<u32> {
    if query.is_empty() {
        return Some(0);
    }
    let lower = text.to_lowercase();
    let words = lower.split(|c: char| c == '/' || c.is_whitespace() || c == '-' || c == '_' || c == '.');
    if words.clone().any(|w| w.starts_with(query)) || lower.starts_with(query) {
        return Some(0);
    }
    if lower.contains(query) {
        return Some(1);
    }
    let mut rest = lower.chars();
    query.chars().all(|q| rest.any(|c| c == q)).then_some(2)
}

#[cfg(test)]
mod tests {
    use super::score;

    #[test]
    fn words_then_substrings_then_letters_in_order() {
        assert_eq!(score("New thread", "thr"), Some(0));
        assert_eq!(score("Restart agent", "start"), Some(1));
        assert_eq!(score("Open settings", "osg"), Some(2));
        assert_eq!(score("Open settings", "xyz"), None);
        assert_eq!(score("anything", ""), Some(0));
    }
}
