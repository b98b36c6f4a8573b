//! A tool call as `sidekicks prompt` prints it in text mode: its title when it starts, then, when
//! it ends, whether it failed and the files it changed as unified diffs (issue 48: `prompt "diff"`
//! printed the answer but not the change). What the agent wrote is shown as characters, never as
//! control sequences.

use std::collections::HashMap;

use crate::model::ansi::for_terminal;
use crate::model::tool::{ToolCall, ToolCallPatch, ToolStatus};

/// The tool calls of a turn, as far as they were printed.
#[derive(Default)]
pub(crate) struct ToolCalls {
    calls: HashMap<String, ToolCall>,
}

impl ToolCalls {
    /// A tool call starts: its line (and, if it already ended, its end).
    pub(crate) fn started(&mut self, call: &ToolCall) -> String {
        let mut text = format!("→ {}\n", for_terminal(&call.title));
        text.push_str(&ended(call));
        self.calls.insert(call.id.clone(), call.clone());
        text
    }

    /// A tool call changes: what to print when it has just ended (nothing otherwise).
    pub(crate) fn patched(&mut self, patch: &ToolCallPatch) -> String {
        let Some(call) = self.calls.get_mut(&patch.id) else { return String::new() };
        let was_done = done(call.status);
        call.patch(patch.clone());
        if was_done || !done(call.status) {
            return String::new();
        }
        ended(call)
    }
}

fn done(status: ToolStatus) -> bool {
    matches!(status, ToolStatus::Completed | ToolStatus::Failed)
}

/// How an ended call is told: failed, and each file it changed as a unified diff.
fn ended(call: &ToolCall) -> String {
    if !done(call.status) {
        return String::new();
    }
    let mut text = String::new();
    if call.status == ToolStatus::Failed {
        text.push_str(&format!("  failed: {}\n", for_terminal(&call.title)));
    }
    for diff in &call.diffs {
        let old = diff.old_text.as_deref().unwrap_or("");
        let path = for_terminal(&diff.path);
        let unified = similar::TextDiff::from_lines(old, &diff.new_text)
            .unified_diff()
            .context_radius(3)
            .header(&path, &path)
            .to_string();
        text.push_str(&for_terminal(&unified));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tool::FileDiff;

    #[test]
    fn an_edit_is_printed_with_its_diff_once_it_ends() {
        let mut calls = ToolCalls::default();
        let call = ToolCall { id: "t1".into(), title: "Edit notes.md".into(), ..Default::default() };
        assert_eq!(calls.started(&call), "→ Edit notes.md\n");
        let diff = FileDiff { path: "notes.md".into(), old_text: Some("a\nb\n".into()), new_text: "a\nc\n".into() };
        let patch = ToolCallPatch {
            id: "t1".into(),
            status: Some(ToolStatus::Completed),
            diffs: Some(vec![diff]),
            ..Default::default()
        };
        let text = calls.patched(&patch);
        assert!(text.starts_with("--- notes.md\n+++ notes.md\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"), "{text}");
        assert_eq!(calls.patched(&patch), "", "told once");
        // What the agent wrote is shown, not obeyed.
        let evil = ToolCall { id: "t2".into(), title: "x\u{1b}[2J".into(), ..Default::default() };
        assert!(!calls.started(&evil).contains('\u{1b}'));
    }
}
