//! Finding words in a conversation (Ctrl+F): the messages whose text holds the query, case
//! ignored, in order.

use super::conversation::{Message, Part};

/// The indices of the messages of `messages` whose text, thoughts or tool titles hold `query`
/// (case ignored); none for an empty query.
pub fn matches(messages: &[Message], query: &str) -> Vec<usize> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m.parts.iter().any(|p| match p {
                Part::Text(t) | Part::Thought(t) => contains(t, &query),
                Part::Tool(call) => contains(&call.title, &query),
                Part::Resource(r) => contains(&r.name, &query),
                _ => false,
            })
        })
        .map(|(i, _)| i)
        .collect()
}

/// Where `query` is in `text` (case ignored), as byte ranges of `text`, in order.
pub fn ranges(text: &str, query: &str) -> Vec<std::ops::Range<usize>> {
    let query = query.trim();
    if query.is_empty() {
        return Vec::new();
    }
    // Compared character by character (lower-cased), so the ranges are the text's own bytes even
    // where lower-casing changes a length.
    let q: Vec<char> = query.chars().flat_map(char::to_lowercase).collect();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let mut lowered = chars[i..].iter().flat_map(|(_, c)| c.to_lowercase());
        let mut taken = 0;
        let mut matched = true;
        for want in &q {
            match lowered.next() {
                Some(c) if c == *want => taken += 1,
                _ => {
                    matched = false;
                    break;
                }
            }
        }
        if matched && taken == q.len() {
            // The characters of the text that gave those lower-case characters.
            let mut count = 0;
            let mut j = i;
            while j < chars.len() && count < q.len() {
                count += chars[j].1.to_lowercase().count();
                j += 1;
            }
            let end = chars.get(j).map_or(text.len(), |(b, _)| *b);
            out.push(chars[i].0..end);
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

fn contains(text: &str, lower_query: &str) -> bool {
    // Most texts are ASCII: compare without allocating when they are.
    if text.is_ascii() && lower_query.is_ascii() {
        let (t, q) = (text.as_bytes(), lower_query.as_bytes());
        return t.windows(q.len()).any(|w| w.eq_ignore_ascii_case(q));
    }
    text.to_lowercase().contains(lower_query)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::conversation::Role;

    #[test]
    fn messages_holding_the_words_case_ignored() {
        let messages = vec![
            Message::new(Role::User, "Fix the Build"),
            Message::new(Role::Agent, "The build is green."),
            Message::new(Role::Agent, "Nothing here"),
            Message::new(Role::Agent, "Élan vital"),
        ];
        assert_eq!(matches(&messages, "build"), [0, 1]);
        assert_eq!(matches(&messages, "élan"), [3]);
        assert!(matches(&messages, "  ").is_empty());
    }

    #[test]
    fn ranges_are_the_texts_own_bytes() {
        let text = "Build, build and BUILD; Élan";
        let found: Vec<&str> = ranges(text, "build").into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, ["Build", "build", "BUILD"]);
        assert_eq!(ranges(text, "élan").into_iter().map(|r| &text[r]).collect::<Vec<_>>(), ["Élan"]);
        assert!(ranges(text, " ").is_empty());
        assert_eq!(ranges("aaa", "aa").len(), 1, "no overlaps");
    }
}
