//! Searching every stored conversation: the words of a query, the full-text query the history's
//! index is asked (each word, the last as a prefix: results come as the person types), the text a
//! message is indexed by, and the snippet a result shows (the words framed by their context).

use super::conversation::{Message, Part, Role};

/// Where something found is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Message `seq` of thread `thread` of `agent`.
    Thread {
        /// The agent whose thread it is.
        agent: String,
        /// The thread (its row id).
        thread: i64,
        /// The thread's title: the person's, else the agent's.
        title: Option<String>,
        /// The message's place in the thread.
        seq: usize,
    },
    /// What the person said in channel `name` (entry `entry` of its timeline); the members'
    /// answers are in their own threads.
    Channel {
        /// The channel.
        name: String,
        /// The entry's place in the timeline.
        entry: usize,
    },
}

/// One message found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchHit {
    /// Where it is.
    pub place: Place,
    /// When its thread last changed (seconds since 1970; 0: not known, for channels).
    pub updated_at: i64,
    /// Who wrote it.
    pub role: Role,
    /// The words around what was found, on one line.
    pub snippet: String,
    /// Where the query's words are in the snippet (byte ranges).
    pub ranges: Vec<std::ops::Range<usize>>,
}

/// The words of `query`: split on what is not a letter or a digit, lower-cased.
pub fn words(query: &str) -> Vec<String> {
    query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Words too common to index (English and French function words, sorted): they are in most
/// messages, so they would make the index much bigger and find nothing in particular. A message is
/// found by its other words; its text is then checked for every word asked, these included.
const COMMON: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "au", "aux", "be", "been", "but",
    "by", "can", "ce", "ces", "cette", "could", "dans", "de", "des", "do", "does", "du", "elle", "en", "est", "et",
    "for", "from", "had", "has", "have", "he", "her", "his", "i", "if", "il", "in", "into", "is", "it", "its", "je",
    "la", "le", "les", "leur", "mais", "me", "more", "my", "ne", "no", "not", "nous", "of", "on", "or", "ou", "par",
    "pas", "plus", "pour", "qu", "que", "qui", "sa", "se", "ses", "she", "so", "son", "sur", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "to", "un", "une", "up", "us", "vous", "was", "we",
    "were", "what", "when", "which", "who", "will", "with", "would", "y", "you", "your",
];

/// Whether `word` (lower-case) is too common to index.
pub fn is_common(word: &str) -> bool {
    COMMON.binary_search(&word).is_ok()
}

/// What the index is given for `text`: its words, lower-cased, the common ones left out.
pub fn index_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in words(text) {
        if !is_common(&word) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&word);
        }
    }
    out
}

/// The FTS5 query for `query`: every word required but the common ones (not indexed: the text
/// check finds them); with `prefix`, the last one as the start of a word (it may be a word being
/// typed). A query of common words only looks for longer words starting with its last one. `None`
/// when there is no word.
pub fn fts_query(query: &str, prefix: bool) -> Option<String> {
    let all = words(query);
    let only = all.last()?.clone();
    let mut words: Vec<String> = all.into_iter().filter(|w| !is_common(w)).collect();
    let prefix = prefix || words.is_empty();
    if words.is_empty() {
        words.push(only);
    }
    let last = words.len() - 1;
    let terms: Vec<String> = words
        .iter()
        .enumerate()
        // A word is quoted (no operator inside can be taken for syntax); the last one may be cut.
        .map(|(i, w)| if i == last && prefix { format!("\"{w}\"*") } else { format!("\"{w}\"") })
        .collect();
    Some(terms.join(" AND "))
}

/// The longest start of a word that is looked for in the newest messages before the index
/// (`Store::search`): the index merges the lists of every word such a start begins (thousands of
/// messages' worth for "in" or "com") before it can give the newest, while nearly every recent
/// message holds one (issue 50: 46–72 ms for a 2-letter start on a million answers).
pub const SHORT_START: usize = 3;

/// Whether `query` ends in a start of a word short enough to look for in the newest messages
/// first ([`SHORT_START`] letters at most, the query's only indexed word).
pub fn short_start(query: &str) -> bool {
    let all = words(query);
    let indexed: Vec<&String> = all.iter().filter(|w| !is_common(w)).collect();
    match (indexed.as_slice(), all.last()) {
        ([], Some(last)) => last.chars().count() <= SHORT_START,
        ([only], Some(last)) => *only == last && last.chars().count() <= SHORT_START,
        _ => false,
    }
}

/// Whether the index would find `text` for `query` as [`fts_query`] asks it, prefix or not:
/// every indexed word asked is one of the text's indexed words, the last one the start of one
/// when `prefix`. Letters with accents are compared without them, as the index compares them.
pub fn index_finds(text: &str, query: &str, prefix: bool) -> bool {
    let all = words(query);
    let Some(only) = all.last().cloned() else { return false };
    let mut asked: Vec<String> = all.into_iter().filter(|w| !is_common(w)).collect();
    let prefix = prefix || asked.is_empty();
    if asked.is_empty() {
        asked.push(only);
    }
    let have: Vec<String> = words(&index_text(text)).iter().map(|w| unaccented(w)).collect();
    let last = asked.len() - 1;
    asked.iter().enumerate().all(|(i, w)| {
        let w = unaccented(w);
        match i == last && prefix {
            true => have.iter().any(|h| h.starts_with(&w)),
            false => have.contains(&w),
        }
    })
}

/// `word` with the accents of Latin letters taken off (`é` → `e`, `ç` → `c`), as the index's
/// tokenizer does (`remove_diacritics`) for the letters people type.
fn unaccented(word: &str) -> String {
    word.chars()
        .map(|c| match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
            'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => 'c',
            'ď' => 'd',
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => 'e',
            'ĝ' | 'ğ' | 'ġ' | 'ģ' => 'g',
            'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' => 'i',
            'ñ' | 'ń' | 'ņ' | 'ň' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ō' | 'ŏ' | 'ő' => 'o',
            'ŕ' | 'ř' => 'r',
            'ś' | 'ŝ' | 'ş' | 'š' => 's',
            'ţ' | 'ť' => 't',
            'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => 'u',
            'ý' | 'ÿ' => 'y',
            'ź' | 'ż' | 'ž' => 'z',
            c => c,
        })
        .collect()
}

/// What a message is found by: its text and its tool calls' titles, one per line.
pub fn searchable_text(message: &Message) -> String {
    let mut out = String::new();
    for part in &message.parts {
        let piece = match part {
            Part::Text(t) => t.as_str(),
            Part::Tool(call) => call.title.as_str(),
            _ => continue,
        };
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(piece);
    }
    out
}

/// A piece of `text` around the first of `words` found (case ignored), at most about `max`
/// characters, on one line, with the byte ranges of every word found in it. `None` when not every
/// word is in `text` (the index matches words; this checks the text itself, so a result always
/// shows what was asked).
pub fn snippet(text: &str, words: &[String], max: usize) -> Option<(String, Vec<std::ops::Range<usize>>)> {
    let flat: String = text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
    let lower = flat.to_lowercase();
    // Lower-casing may change lengths (rare: a few letters); then the ranges would be off, so
    // search the text itself, ASCII-case-insensitively, instead.
    let haystack = if lower.len() == flat.len() { lower } else { flat.to_ascii_lowercase() };
    let first = words.iter().map(|w| haystack.find(w.as_str())).collect::<Option<Vec<usize>>>()?;
    let at = first.into_iter().min().unwrap_or(0);
    // Start a little before the first word, on a character boundary.
    let mut start = at.saturating_sub(max / 3);
    while !flat.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + max).min(flat.len());
    while !flat.is_char_boundary(end) {
        end += 1;
    }
    let piece = &flat[start..end];
    let lower_piece = &haystack[start..end];
    let mut ranges = Vec::new();
    for w in words {
        let mut from = 0;
        while let Some(i) = lower_piece[from..].find(w.as_str()) {
            ranges.push(from + i..from + i + w.len());
            from += i + w.len().max(1);
        }
    }
    ranges.sort_by_key(|r| r.start);
    let (prefix, suffix) = (if start > 0 { "…" } else { "" }, if end < flat.len() { "…" } else { "" });
    let shift = prefix.len();
    let ranges = ranges.into_iter().map(|r| r.start + shift..r.end + shift).collect();
    Some((format!("{prefix}{piece}{suffix}"), ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_messages_are_checked_as_the_index_would_find_them() {
        assert!(short_start("in") && short_start("the co") && short_start("Fi") && !short_start("fix the bu"));
        assert!(short_start("com") && !short_start("comm") && !short_start("fix bu"));
        // A start of a word: the index's words (common ones left out) begin with it.
        assert!(index_finds("We rebuilt the index", "in", true));
        assert!(
            !index_finds("It is within reach, in fact", "in", true),
            "only words that start so, and common ones are not indexed"
        );
        assert!(index_finds("Le café est prêt", "caf", true) && index_finds("Ça marche", "ca", true));
        assert!(index_finds("fix the build", "fix the bui", true) && !index_finds("fixed the build", "fix bui", true));
        assert!(index_finds("Fix the build", "fix", false) && !index_finds("Fixed it", "fix", false));
    }

    #[test]
    fn queries_quote_every_word_and_cut_the_last() {
        assert_eq!(fts_query("Fix the bui", true).as_deref(), Some("\"fix\" AND \"bui\"*"), "common words left out");
        assert_eq!(fts_query("Fix the bui", false).as_deref(), Some("\"fix\" AND \"bui\""), "whole words");
        assert_eq!(fts_query("fix the", true).as_deref(), Some("\"fix\"*"));
        assert_eq!(fts_query("the", false).as_deref(), Some("\"the\"*"), "common words only: the last one as a prefix");
        assert_eq!(fts_query("\"OR\" NEAR(x)", true).as_deref(), Some("\"near\" AND \"x\"*"));
        assert_eq!(fts_query("  ;; ", true), None);
    }

    #[test]
    fn the_common_words_are_sorted_and_left_out_of_the_index() {
        assert!(COMMON.windows(2).all(|w| w[0] < w[1]), "sorted, for the binary search");
        assert_eq!(index_text("The Build, and THE tests."), "build tests");
    }

    #[test]
    fn snippets_frame_every_word_and_refuse_a_text_without_them() {
        let words = words("build green");
        let (text, ranges) = snippet("The Build\nis green today.", &words, 80).unwrap();
        assert_eq!(text, "The Build is green today.");
        let found: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(found, ["Build", "green"]);
        assert!(snippet("only the build", &words, 80).is_none());
        let long = format!("{} needle {}", "a ".repeat(200), "b ".repeat(200));
        let (text, ranges) = snippet(&long, &self::words("needle"), 60).unwrap();
        assert!(text.starts_with('…') && text.ends_with('…') && text.len() < 70, "{text}");
        assert_eq!(&text[ranges[0].clone()], "needle");
        let (text, ranges) = snippet("Élan vital", &self::words("élan"), 60).unwrap();
        assert_eq!(&text[ranges[0].clone()], "Élan");
    }
}
