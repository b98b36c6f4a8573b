//! How a message is kept in the `body` column. Most messages are one piece of text (the person's
//! words, an agent's answer): those are kept as the text behind a two-character tag, so the
//! history holds little more than the text; every other message is JSON. A JSON body starts with
//! `{`, a tagged one with `\u{1}`, so both read back unambiguously (and older JSON bodies still do).

use crate::model::conversation::{Delivery, Message, Part, Role, TurnEnd};

/// The first character of a tagged body.
const TAG: char = '\u{1}';

/// SQL: whether `m.body` is a message of the person.
pub(super) const IS_USER: &str = "CASE WHEN substr(m.body, 1, 1) = '{' THEN json_extract(m.body, '$.role') = 'User' ELSE substr(m.body, 2, 1) = 'u' END";

/// The body of `message`.
pub(super) fn encode(message: &Message) -> Result<String, serde_json::Error> {
    let plain = message.id.is_none()
        && message.delivery == Delivery::Sent
        && message.checkpoint.is_none()
        && message.earlier.is_empty()
        && message.versions.is_empty();
    let tag = match (&message.role, &message.end, message.parts.as_slice()) {
        (Role::User, None, [Part::Text(_)]) => Some('u'),
        (Role::Agent, None, [Part::Text(_)]) => Some('a'),
        (Role::Agent, Some(TurnEnd::EndTurn), [Part::Text(_)]) => Some('A'),
        _ => None,
    };
    match (tag, plain, message.parts.as_slice()) {
        (Some(tag), true, [Part::Text(text)]) if !text.is_empty() => {
            let mut body = String::with_capacity(text.len() + 2);
            body.push(TAG);
            body.push(tag);
            body.push_str(text);
            Ok(body)
        }
        _ => serde_json::to_string(message),
    }
}

/// Whether `body` is tagged text (not JSON): its time is kept beside it.
pub(super) fn is_tagged(body: &str) -> bool {
    body.starts_with(TAG)
}

/// The message kept as `body` (a tagged one without its time, which is kept beside).
pub(super) fn decode(body: &str) -> Result<Message, serde_json::Error> {
    let Some(rest) = body.strip_prefix(TAG) else { return serde_json::from_str(body) };
    let mut chars = rest.chars();
    let (role, end) = match chars.next() {
        Some('u') => (Role::User, None),
        Some('a') => (Role::Agent, None),
        Some('A') => (Role::Agent, Some(TurnEnd::EndTurn)),
        // Not a tag this version writes: say so as JSON would.
        _ => return serde_json::from_str(body),
    };
    let mut message = Message::new(role, chars.as_str());
    message.end = end;
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::conversation::MessageId;

    #[test]
    fn plain_messages_are_tagged_text_and_every_message_reads_back() {
        let mut answer = Message::new(Role::Agent, "Done: {\"json\": \"inside\"}\n");
        answer.end = Some(TurnEnd::EndTurn);
        let mut queued = Message::new(Role::User, "later");
        queued.delivery = Delivery::Queued;
        let mut with_id = Message::new(Role::User, "hi");
        with_id.id = Some(MessageId::new());
        let mut retried = answer.clone();
        retried.earlier = vec![vec![Part::Text("the first answer".into())]];
        let mut failed = Message::new(Role::Agent, "oops");
        failed.end = Some(TurnEnd::Failed { message: "boom".into() });
        let cases = [
            Message::new(Role::User, "Fix the build"),
            Message::new(Role::Agent, "Looking"),
            answer.clone(),
            retried,
            queued,
            with_id,
            failed,
            Message::new(Role::Agent, ""),
        ];
        for message in cases {
            let body = encode(&message).unwrap();
            assert_eq!(decode(&body).unwrap(), message, "{body:?}");
        }
        assert_eq!(encode(&answer).unwrap(), "\u{1}ADone: {\"json\": \"inside\"}\n");
        assert!(encode(&Message::new(Role::Agent, "")).unwrap().starts_with('{'), "no part: JSON");
    }
}
