//! Remembered "always allow here" / "never here" answers, per agent and workspace.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::model::permission::Decision;

/// Where remembered answers are kept. The key comes from `model::permission::rule_key`.
pub trait PermissionRules: Send + Sync {
    /// The remembered decision for `key`, if any.
    fn decide(&self, key: &str) -> Option<Decision>;
    /// Remembers `decision` for `key`.
    fn remember(&self, key: &str, decision: Decision);
    /// Forgets the decision for `key`.
    fn forget(&self, key: &str);
    /// Every remembered decision, by key.
    fn list(&self) -> Vec<(String, Decision)>;
}

/// Rules kept in memory only (tests, or when the store cannot be opened).
#[derive(Debug, Default)]
pub struct MemoryRules {
    rules: Mutex<HashMap<String, Decision>>,
}

impl PermissionRules for MemoryRules {
    fn decide(&self, key: &str) -> Option<Decision> {
        self.rules.lock().unwrap_or_else(|e| e.into_inner()).get(key).copied()
    }

    fn remember(&self, key: &str, decision: Decision) {
        self.rules.lock().unwrap_or_else(|e| e.into_inner()).insert(key.to_string(), decision);
    }

    fn forget(&self, key: &str) {
        self.rules.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
    }

    fn list(&self) -> Vec<(String, Decision)> {
        let mut rules: Vec<_> =
            self.rules.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(k, d)| (k.clone(), *d)).collect();
        rules.sort();
        rules
    }
}
