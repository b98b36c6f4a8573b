//! Turns asked again or undone: Retry (the answer becomes an earlier one), a dropped message sent
//! again, a restore undone, and whether a turn may have changed files.

use super::{Conversation, Delivery, Message, MessageId, Notice, Part, Role};

impl Conversation {
    /// Whether the turn of the person's message `index` may have changed files: its answer (the
    /// messages up to the person's next) has not ended yet, or holds a call that is more than a
    /// look (read, search, think, fetch) — a command may change anything. A turn of words only
    /// changed nothing: its Restore and Changes would offer nothing.
    pub fn turn_may_change(&self, index: usize) -> bool {
        use crate::model::tool::ToolKind;
        let answer: Vec<&Message> = self.messages[index + 1..].iter().take_while(|m| m.role != Role::User).collect();
        let agent = || answer.iter().filter(|m| m.role == Role::Agent);
        if agent().next().is_none() || agent().any(|m| m.end.is_none()) {
            return true;
        }
        agent().flat_map(|m| &m.parts).any(|p| match p {
            Part::Tool(t) => {
                !t.diffs.is_empty()
                    || !matches!(t.kind, ToolKind::Read | ToolKind::Search | ToolKind::Think | ToolKind::Fetch)
            }
            _ => false,
        })
    }

    /// Message `index`, which Stop dropped, to send again: its id, text and images; `None` when it
    /// was not dropped (or has no id).
    pub fn dropped(&self, index: usize) -> Option<(MessageId, String, Vec<crate::model::content::Image>)> {
        let message = self.messages.get(index).filter(|m| m.delivery == Delivery::NotSent)?;
        let images = message.parts.iter().filter_map(|p| match p {
            Part::Image(image) => Some(image.clone()),
            _ => None,
        });
        Some((message.id.clone()?, message.text(), images.collect()))
    }

    /// The dropped message `id` was sent again (as a new message, below).
    pub fn resent(&mut self, id: &MessageId) {
        let found = self.messages.iter().rposition(|m| m.delivery == Delivery::NotSent && m.id.as_ref() == Some(id));
        if let Some(i) = found {
            self.messages[i].delivery = Delivery::Resent;
            self.touch(i);
        }
    }

    /// The person's message `question` is asked again (Retry): its answer, when it ended,
    /// becomes an earlier one and the new answer streams in its place. False when the question
    /// is not here.
    pub fn retry(&mut self, question: &MessageId) -> bool {
        let Some(q) = self.messages.iter().rposition(|m| m.id.as_ref() == Some(question)) else { return false };
        let answer = (q + 1..self.messages.len())
            .take_while(|&i| self.messages[i].role != Role::User)
            .find(|&i| self.messages[i].role == Role::Agent && self.messages[i].end.is_some());
        if let Some(a) = answer {
            let message = &mut self.messages[a];
            let parts = std::mem::take(&mut message.parts);
            message.earlier.push(parts);
            message.end = None;
            message.at = Some(crate::model::when::now());
            self.touch(a);
        }
        true
    }

    /// The restore whose undo is `checkpoint` was undone: its notice says so (and offers no
    /// second undo). False when no such notice is in the conversation.
    pub fn restore_undone(&mut self, checkpoint: &str) -> bool {
        let at = self.messages.iter().rposition(
            |m| matches!(m.parts.as_slice(), [Part::Notice(Notice::Restored { undo, .. })] if undo == checkpoint),
        );
        let Some(at) = at else { return false };
        self.messages[at].parts = vec![Part::Notice(Notice::RestoreUndone)];
        self.messages[at].at = Some(crate::model::when::now());
        self.touch(at);
        true
    }
}
