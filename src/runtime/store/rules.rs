//! The store's remembered permission answers (always/never), per agent and workspace.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};
use crate::model::permission::Decision;
use crate::runtime::permission_rules::PermissionRules;

/// Removes the remembered answers whose key does not name an exact target (schema 5): an earlier
/// Sidekicks kept `other:` or a title for requests that named nothing, and such a key approves
/// whatever the agent asks next under it. Returns how many went.
pub(super) fn drop_inexact_rules(tx: &rusqlite::Transaction) -> Result<usize, StoreError> {
    let keys: Vec<String> = {
        let mut query = tx.prepare("SELECT DISTINCT rule_key FROM permission_rules")?;
        let rows = query.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut dropped = 0;
    for key in keys.iter().filter(|k| !crate::model::permission::rule_key_is_exact(k)) {
        dropped += tx.execute("DELETE FROM permission_rules WHERE rule_key = ?1", [key])?;
    }
    if dropped > 0 {
        tracing::warn!("dropped {dropped} remembered answer(s) that did not name what they allow");
    }
    Ok(dropped)
}

impl Store {
    /// The remembered answers of `agent` in `workspace`.
    pub fn rules(&self, agent: &str, workspace: &Path) -> Result<Vec<(String, Decision)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT rule_key, decision FROM permission_rules WHERE agent = ?1 AND workspace = ?2 ORDER BY rule_key",
        )?;
        let rows = stmt.query_map(params![agent, workspace.display().to_string()], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (key, decision) = row?;
            out.push((key, if decision == "allow" { Decision::Allow } else { Decision::Reject }));
        }
        Ok(out)
    }

    /// Remembers (or, with `None`, forgets) an answer.
    pub fn set_rule(
        &self,
        agent: &str,
        workspace: &Path,
        key: &str,
        decision: Option<Decision>,
    ) -> Result<(), StoreError> {
        let conn = self.conn();
        let ws = workspace.display().to_string();
        match decision {
            Some(d) => {
                let d = if d == Decision::Allow { "allow" } else { "reject" };
                conn.execute(
                    "INSERT OR REPLACE INTO permission_rules (agent, workspace, rule_key, decision) VALUES (?1, ?2, ?3, ?4)",
                    params![agent, ws, key, d],
                )?;
            }
            None => {
                conn.execute(
                    "DELETE FROM permission_rules WHERE agent = ?1 AND workspace = ?2 AND rule_key = ?3",
                    params![agent, ws, key],
                )?;
            }
        }
        Ok(())
    }

    fn rule(&self, agent: &str, workspace: &Path, key: &str) -> Result<Option<Decision>, StoreError> {
        let decision: Option<String> = self
            .conn()
            .query_row(
                "SELECT decision FROM permission_rules WHERE agent = ?1 AND workspace = ?2 AND rule_key = ?3",
                params![agent, workspace.display().to_string(), key],
                |r| r.get(0),
            )
            .optional()?;
        Ok(decision.map(|d| if d == "allow" { Decision::Allow } else { Decision::Reject }))
    }
}

/// The remembered answers of one agent in one workspace, in the store.
pub struct StoredRules {
    /// The store.
    pub store: Arc<Store>,
    /// The agent.
    pub agent: String,
    /// Its workspace.
    pub workspace: PathBuf,
}

impl PermissionRules for StoredRules {
    fn decide(&self, key: &str) -> Option<Decision> {
        self.store.rule(&self.agent, &self.workspace, key).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            None
        })
    }

    fn remember(&self, key: &str, decision: Decision) {
        if let Err(e) = self.store.set_rule(&self.agent, &self.workspace, key, Some(decision)) {
            tracing::warn!("{e}");
        }
    }

    fn forget(&self, key: &str) {
        if let Err(e) = self.store.set_rule(&self.agent, &self.workspace, key, None) {
            tracing::warn!("{e}");
        }
    }

    fn list(&self) -> Vec<(String, Decision)> {
        self.store.rules(&self.agent, &self.workspace).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            Vec::new()
        })
    }
}
