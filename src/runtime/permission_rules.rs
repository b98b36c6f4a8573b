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
}
