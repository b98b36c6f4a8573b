//! Edit in place (issue 48, item 4): the person's message edited is replaced where it stands and
//! the conversation goes on from it; what it was — the message and everything after it — is kept
//! as an earlier version, reached with "‹ 1 / 2 ›" on the message, across a restart. Showing
//! another version swaps it in (the conversation then goes on from what is shown).

use super::{Conversation, Delivery, Message, MessageId, Role};

/// One version of a message of the person, not the one shown: the message as it was, and the
/// messages that followed it then.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Version {
    /// The message (its own versions left out).
    pub message: Box<Message>,
    /// What came after it.
    pub tail: Vec<Message>,
}

impl Message {
    /// How many versions it has, and which of them is shown (0-based): `(1, 0)` for a message
    /// never edited.
    pub fn version(&self) -> (usize, usize) {
        (self.versions.len() + 1, self.version_at.min(self.versions.len()))
    }
}

impl Conversation {
    /// The person's message `id` becomes `text` (as message `new_id`, queued): it and everything
    /// after it are kept as an earlier version. False when the message is not here.
    pub fn edit(&mut self, id: &MessageId, new_id: MessageId, text: &str) -> bool {
        let Some(i) = self.messages.iter().rposition(|m| m.role == Role::User && m.id.as_ref() == Some(id)) else {
            return false;
        };
        let tail = self.messages.split_off(i + 1);
        let mut old = self.messages.pop().expect("found above");
        let mut versions = std::mem::take(&mut old.versions);
        let at = old.version_at.min(versions.len());
        versions.insert(at, Version { message: Box::new(old), tail });
        let mut edited = Message::new(Role::User, text);
        edited.id = Some(new_id);
        edited.delivery = Delivery::Queued;
        edited.at = Some(crate::model::when::now());
        edited.version_at = versions.len();
        edited.versions = versions;
        self.messages.push(edited);
        self.cut(i);
        true
    }

    /// Shows version `k` of message `index` (0-based, oldest first) in place of the one shown,
    /// with what followed it; the one shown is kept as a version. False when there is none.
    pub fn show_version(&mut self, index: usize, k: usize) -> bool {
        let Some(message) = self.messages.get(index) else { return false };
        let (count, at) = message.version();
        if message.role != Role::User || k >= count || k == at {
            return false;
        }
        let tail = self.messages.split_off(index + 1);
        let mut shown = self.messages.pop().expect("checked above");
        let mut versions = std::mem::take(&mut shown.versions);
        versions.insert(at, Version { message: Box::new(shown), tail });
        let Version { message, tail } = versions.remove(k);
        let mut message = *message;
        message.versions = versions;
        message.version_at = k;
        self.messages.push(message);
        self.messages.extend(tail);
        self.cut(index);
        true
    }

    /// Shows version `k` of the person's message `id` (the version shown now).
    pub fn show_version_of(&mut self, id: &MessageId, k: usize) -> bool {
        let found = self.messages.iter().rposition(|m| m.role == Role::User && m.id.as_ref() == Some(id));
        found.is_some_and(|i| self.show_version(i, k))
    }

    /// Messages from `index` on were replaced (fewer, maybe): saved again from there, and what the
    /// history held past them goes.
    fn cut(&mut self, index: usize) {
        self.cut_to = Some(self.messages.len().min(self.cut_to.unwrap_or(usize::MAX)));
        self.touch(index);
        self.tools = Default::default();
    }

    /// The length the conversation was cut to since the last call, if it was (the history then
    /// drops what it held past it).
    pub fn take_cut(&mut self) -> Option<usize> {
        self.cut_to.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::conversation::TurnEnd;

    fn turn(c: &mut Conversation, text: &str, answer: &str) -> MessageId {
        let id = MessageId::new();
        c.push_user(text, Delivery::Sent, Some(id.clone()));
        let mut a = Message::new(Role::Agent, answer);
        a.end = Some(TurnEnd::EndTurn);
        c.messages.push(a);
        id
    }

    fn texts(c: &Conversation) -> Vec<String> {
        c.messages.iter().map(Message::text).collect()
    }

    #[test]
    fn an_edit_keeps_what_was_as_a_version_and_versions_swap_back_and_forth() {
        let mut c = Conversation::default();
        turn(&mut c, "hello", "hi");
        let second = turn(&mut c, "plan", "a plan");
        turn(&mut c, "run it", "ran");
        c.take_dirty();
        assert!(c.edit(&second, MessageId::new(), "plan the tests"));
        assert_eq!(texts(&c), ["hello", "hi", "plan the tests"]);
        assert_eq!(c.messages[2].version(), (2, 1));
        assert_eq!(c.messages[2].delivery, Delivery::Queued);
        assert_eq!((c.take_cut(), c.take_dirty()), (Some(3), Some(2)));
        c.messages.push(Message::new(Role::Agent, "tests planned"));

        assert!(c.show_version(2, 0));
        assert_eq!(texts(&c), ["hello", "hi", "plan", "a plan", "run it", "ran"]);
        assert_eq!(c.messages[2].version(), (2, 0));
        assert!(!c.show_version(2, 0), "already shown");
        assert!(c.show_version(2, 1));
        assert_eq!(texts(&c), ["hello", "hi", "plan the tests", "tests planned"]);

        // A second edit: three versions, the newest shown; the first still there.
        let id = c.messages[2].id.clone().unwrap();
        assert!(c.edit(&id, MessageId::new(), "plan the docs"));
        assert_eq!(c.messages[2].version(), (3, 2));
        assert!(c.show_version(2, 0));
        assert_eq!(texts(&c)[2..], ["plan", "a plan", "run it", "ran"]);
        let json = serde_json::to_string(&c.messages[2]).unwrap();
        let back: Message = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c.messages[2], "kept across a restart");
        assert_eq!(back.version(), (3, 0));
    }
}
