//! Keeps the values of an agent's `env` (API keys, tokens) out of what Sidekicks shows and keeps:
//! its stderr lines (the Log tab, crash reports), lines that are not ACP, skipped updates. A value
//! found there is replaced by `…`, so `OPENAI_API_KEY=sk-…` reads `OPENAI_API_KEY=…`.
//! Values shorter than `MIN_SECRET` are left alone: they are flags, not secrets, and hiding them
//! would garble ordinary words.

use std::collections::BTreeMap;

/// Values shorter than this are not treated as secrets.
pub const MIN_SECRET: usize = 6;

/// The values to hide (cheap to clone).
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    values: std::sync::Arc<Vec<String>>,
}

impl Redactor {
    /// Hides the values of `env`.
    pub fn new(env: &BTreeMap<String, String>) -> Self {
        let mut values: Vec<String> = env.values().filter(|v| v.len() >= MIN_SECRET).cloned().collect();
        // Longest first, so a value that contains another is hidden whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Self { values: std::sync::Arc::new(values) }
    }

    /// Also hides `values` (an MCP server's `env` values and `headers`); for a header such as
    /// `Bearer <token>` the token alone too.
    pub fn also(self, values: impl IntoIterator<Item = String>) -> Self {
        let mut all: Vec<String> = self.values.iter().cloned().collect();
        for value in values {
            if let Some(last) = value.split_whitespace().last().filter(|l| l.len() != value.len()) {
                all.push(last.to_string());
            }
            all.push(value);
        }
        all.retain(|v| v.len() >= MIN_SECRET);
        all.sort_by_key(|v| std::cmp::Reverse(v.len()));
        all.dedup();
        Self { values: std::sync::Arc::new(all) }
    }

    /// `text` with every value replaced by `…`.
    pub fn apply(&self, text: String) -> String {
        if !self.values.iter().any(|v| text.contains(v.as_str())) {
            return text;
        }
        let mut text = text;
        for value in self.values.iter() {
            if text.contains(value.as_str()) {
                text = text.replace(value.as_str(), "…");
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_hidden_and_short_ones_left() {
        let env = BTreeMap::from([
            ("OPENAI_API_KEY".to_string(), "sk-abcdef123456".to_string()),
            ("PREFIX".to_string(), "sk-abcdef".to_string()),
            ("DEBUG".to_string(), "1".to_string()),
        ]);
        let r = Redactor::new(&env);
        assert_eq!(r.apply("OPENAI_API_KEY=sk-abcdef123456 DEBUG=1".into()), "OPENAI_API_KEY=… DEBUG=1");
        assert_eq!(r.apply("key sk-abcdef and 1".into()), "key … and 1");
        assert_eq!(r.apply("nothing here".into()), "nothing here");
    }

    #[test]
    fn what_mcp_servers_are_given_is_hidden_too() {
        let r = Redactor::new(&BTreeMap::new()).also(["Bearer tok-abcdef123".to_string(), "x".to_string()]);
        assert_eq!(r.apply("Authorization: Bearer tok-abcdef123".into()), "Authorization: …");
        assert_eq!(r.apply("token tok-abcdef123 alone".into()), "token … alone");
        assert_eq!(r.apply("x stays".into()), "x stays");
    }
}
