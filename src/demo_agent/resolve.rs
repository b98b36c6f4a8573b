//! The `conflicts` scenario: told that a merge found conflicts (the message Sidekicks sends a
//! member), the demo agent resolves the markers of each file the message lists by keeping both
//! sides — its own lines, then the project's — through the client's file system, as a person
//! resolving a merge by hand would when both changes are wanted.

use std::time::Duration;

use agent_client_protocol::v1::schema::{ReadTextFileRequest, WriteTextFileRequest};

use super::turn::{Outcome, Turn};

/// Resolves the conflicts the message `asked` names.
pub(super) async fn resolve(t: &Turn, asked: &str) -> Outcome {
    let mut resolved = Vec::new();
    let mut left = Vec::new();
    for path in listed_paths(asked) {
        let full = t.cwd.join(&path);
        let read = t.cx.send_request(ReadTextFileRequest::new(t.session.clone(), full.clone())).block_task().await;
        match read.ok().and_then(|r| keep_both(&r.content)) {
            Some(text) => {
                t.cx.send_request(WriteTextFileRequest::new(t.session.clone(), full, text)).block_task().await?;
                resolved.push(path);
            }
            None => left.push(path),
        }
    }
    let mut summary = match resolved.len() {
        0 => "I found no conflict markers to resolve.".to_string(),
        _ => format!("I resolved the conflicts in {}, keeping both sides.", quoted(&resolved)),
    };
    if !left.is_empty() {
        summary.push_str(&format!(" {} hold no markers: someone must choose which version to keep.", quoted(&left)));
    }
    t.stream(&summary, Duration::from_millis(20)).await
}

fn quoted(paths: &[String]) -> String {
    paths.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
}

/// The paths of the message's list lines (`- PATH: why.` or `- PATH`), in order, once each.
fn listed_paths(message: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for line in message.lines() {
        let Some(item) = line.strip_prefix("- ") else { continue };
        let path = item.split_once(": ").map_or(item, |(p, _)| p).trim();
        if !path.is_empty() && !paths.iter().any(|p| p == path) {
            paths.push(path.to_string());
        }
    }
    paths
}

/// `text` with each conflict replaced by both sides' lines (ours, then theirs when different;
/// a diff3 base section dropped); `None` when it holds no conflict.
fn keep_both(text: &str) -> Option<String> {
    #[derive(PartialEq)]
    enum In {
        Text,
        Ours,
        Base,
        Theirs,
    }
    let mut out = String::new();
    let (mut ours, mut theirs) = (String::new(), String::new());
    let mut at = In::Text;
    let mut found = false;
    for line in text.split_inclusive('\n') {
        let marker = |m: &str| line.starts_with(m) && line[m.len()..].chars().next().is_none_or(char::is_whitespace);
        match at {
            In::Text if marker("<<<<<<<") => (at, found) = (In::Ours, true),
            In::Ours if marker("|||||||") => at = In::Base,
            In::Ours | In::Base if marker("=======") => at = In::Theirs,
            In::Theirs if marker(">>>>>>>") => {
                out.push_str(&ours);
                if theirs != ours {
                    out.push_str(&theirs);
                }
                ours.clear();
                theirs.clear();
                at = In::Text;
            }
            In::Text => out.push_str(line),
            In::Ours => ours.push_str(line),
            In::Base => {}
            In::Theirs => theirs.push_str(line),
        }
    }
    (found && at == In::Text).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_are_kept_in_order_and_the_base_is_dropped() {
        let text = "a\n<<<<<<< main\nproject\n||||||| base\nold\n=======\nmember\n>>>>>>> ada\nz\n";
        assert_eq!(keep_both(text).unwrap(), "a\nproject\nmember\nz\n");
        let same = "<<<<<<< main\nx\n=======\nx\n>>>>>>> ada\n";
        assert_eq!(keep_both(same).unwrap(), "x\n", "one copy of lines both sides agree on");
        assert_eq!(keep_both("no markers\n"), None);
        assert_eq!(keep_both("<<<<<<< main\nunclosed\n"), None, "a conflict never closed is left alone");
        assert_eq!(keep_both("<<<<<<<< not a marker\n"), None);
    }

    #[test]
    fn the_listed_files_are_read_from_the_message() {
        let message = "Merging your work into the project found conflicts; nothing of it was applied yet.\n\
                       - notes/demo.md: the project changed the same lines; the markers are in your copy.\n\
                       - src/b.rs: it still holds the conflict markers of the last merge.\n- plain\n";
        assert_eq!(listed_paths(message), ["notes/demo.md", "src/b.rs", "plain"]);
    }
}
