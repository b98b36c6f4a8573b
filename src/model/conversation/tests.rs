//! Unit tests of the conversation model.

use super::*;

#[test]
fn costs_read_and_add_up_per_unit() {
    assert_eq!(Cost::new(0.0123, "USD").text(), "0.0123 USD");
    assert_eq!(Cost::new(1.5, "USD").text(), "1.50 USD");
    assert_eq!(Cost::new(0.0, "credits").text(), "0.00 credits");
    let costs = [Cost::new(0.1, "USD"), Cost::new(2.0, "credits"), Cost::new(0.2, "USD")];
    assert_eq!(total_cost(&costs), [Cost::new(0.3, "USD"), Cost::new(2.0, "credits")]);
    let mut c = Conversation::default();
    c.apply(Update::Usage { used: 1, size: 2, cost: Some(Cost::new(0.5, "USD")) });
    c.apply(Update::Usage { used: 3, size: 4, cost: None });
    assert_eq!((c.usage, c.cost), (Some((3, 4)), Some(Cost::new(0.5, "USD"))), "a report without cost keeps the last");
}
use crate::model::tool::ToolCall;

fn call(id: &str, status: ToolStatus) -> Update {
    Update::ToolCall(ToolCall { id: id.into(), status, ..Default::default() })
}

#[test]
fn fragments_join_into_parts_until_the_turn_ends() {
    let mut c = Conversation::default();
    c.push_user("hello", Delivery::Sent, None);
    c.apply(Update::Thought("hm".into()));
    c.apply(Update::Text("Hel".into()));
    c.apply(Update::Text("lo!".into()));
    assert!(c.is_streaming());
    c.end_turn(TurnEnd::EndTurn);
    assert!(!c.is_streaming());
    assert_eq!(c.messages.len(), 2);
    assert_eq!(c.messages[1].parts, vec![Part::Thought("hm".into()), Part::Text("Hello!".into())]);
    c.push_user("again", Delivery::Sent, None);
    c.apply(Update::Text("next".into()));
    assert_eq!(c.messages.len(), 4);
}

fn done(id: &str) -> Update {
    Update::ToolCallPatch(ToolCallPatch { id: id.into(), status: Some(ToolStatus::Completed), ..Default::default() })
}

fn status_of(c: &Conversation, message: usize, id: &str) -> Option<ToolStatus> {
    c.messages[message].parts.iter().find_map(|p| match p {
        Part::Tool(t) if t.id == id => Some(t.status),
        _ => None,
    })
}

#[test]
fn updates_find_their_call_in_a_restored_replaced_or_reused_history() {
    let mut c = Conversation::default();
    c.push_user("go", Delivery::Sent, None);
    for i in 0..1000 {
        c.apply(call(&format!("t{i}"), ToolStatus::InProgress));
    }
    c.apply(done("t500"));
    assert_eq!(status_of(&c, 1, "t500"), Some(ToolStatus::Completed));
    assert_eq!(c.messages[1].parts.len(), 1000, "each call once");
    c.end_turn(TurnEnd::EndTurn);
    // The next turn reuses an id: its update goes to the new call.
    c.push_user("again", Delivery::Sent, None);
    c.apply(call("t1", ToolStatus::InProgress));
    c.apply(done("t1"));
    assert_eq!(status_of(&c, 1, "t1"), Some(ToolStatus::InProgress), "the earlier call is left as it was");
    assert_eq!(status_of(&c, 3, "t1"), Some(ToolStatus::Completed));
    // Restored from the history, or its messages replaced: still found.
    let mut restored = Conversation::restored(c.messages.clone());
    restored.apply(done("t999"));
    assert_eq!(status_of(&restored, 1, "t999"), Some(ToolStatus::Completed));
    c.messages.truncate(2);
    c.apply(done("t2"));
    assert_eq!(status_of(&c, 1, "t2"), Some(ToolStatus::Completed));
    c.messages[1].parts.remove(0);
    c.apply(done("t3"));
    assert_eq!(status_of(&c, 1, "t3"), Some(ToolStatus::Completed), "moved by a change made elsewhere");
}

#[test]
fn tool_calls_are_replaced_by_their_updates() {
    let mut c = Conversation::default();
    c.apply(call("t1", ToolStatus::InProgress));
    c.apply(Update::ToolCallPatch(ToolCallPatch {
        id: "t1".into(),
        status: Some(ToolStatus::Completed),
        output: Some("ok".into()),
        ..Default::default()
    }));
    let Part::Tool(t) = &c.messages[0].parts[0] else { panic!() };
    assert_eq!((t.status, t.output.as_deref()), (ToolStatus::Completed, Some("ok")));
    c.apply(Update::Plan(vec![PlanItem { content: "a".into(), ..Default::default() }]));
    c.apply(Update::Plan(vec![]));
    assert_eq!(c.messages[0].parts.iter().filter(|p| matches!(p, Part::Plan(_))).count(), 1);
}

#[test]
fn three_failures_in_a_row_make_one_loop_notice_and_a_success_resets() {
    let mut c = Conversation::default();
    assert_eq!(c.apply(call("1", ToolStatus::Failed)), None);
    assert_eq!(c.apply(call("2", ToolStatus::Failed)), None);
    assert_eq!(c.apply(call("3", ToolStatus::Failed)), Some(Notice::Loop { failures: 3 }));
    assert_eq!(c.apply(call("4", ToolStatus::Failed)), None);
    // In the answer, right after the third failed call (not after the turn's text).
    let kinds: Vec<&str> = c.messages[0]
        .parts
        .iter()
        .map(|p| match p {
            Part::Tool(t) => t.id.as_str(),
            Part::Notice(_) => "loop",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["1", "2", "3", "loop", "4"]);
    c.apply(call("5", ToolStatus::Completed));
    assert_eq!(c.failures_in_a_row, 0);
    // A new turn counts again from zero, even without a success in between.
    c.apply(call("6", ToolStatus::Failed));
    c.end_turn(TurnEnd::EndTurn);
    c.push_user("again", Delivery::Sent, None);
    assert_eq!(c.apply(call("7", ToolStatus::Failed)), None);
    assert_eq!(c.apply(call("8", ToolStatus::Failed)), None);
    assert_eq!(c.apply(call("9", ToolStatus::Failed)), Some(Notice::Loop { failures: 3 }), "once per turn");
}

#[test]
fn cancel_marks_unfinished_tools_and_late_updates_join_the_cancelled_message() {
    let mut c = Conversation::default();
    c.push_user("go", Delivery::Sent, None);
    c.push_user("then this", Delivery::Queued, None);
    c.apply(call("t", ToolStatus::InProgress));
    c.drop_queue();
    c.end_turn(TurnEnd::Cancelled);
    assert_eq!(c.messages[1].delivery, Delivery::NotSent);
    let Part::Tool(t) = &c.messages[2].parts[0] else { panic!() };
    assert_eq!(t.status, ToolStatus::Cancelled);
    c.apply(Update::Text("late".into()));
    assert_eq!(c.messages.len(), 3, "the late fragment joins the cancelled message");
    assert_eq!(c.messages[2].text(), "late");
}

#[test]
fn changes_are_tracked_from_the_first_changed_message() {
    let mut c = Conversation::default();
    c.push_user("a", Delivery::Sent, None);
    c.apply(Update::Text("x".into()));
    assert_eq!(c.take_dirty(), Some(0));
    assert_eq!(c.take_dirty(), None);
    c.apply(Update::Text("y".into()));
    assert_eq!(c.take_dirty(), Some(1));
    c.end_turn(TurnEnd::EndTurn);
    c.push_user("b", Delivery::Queued, None);
    c.push_user("c", Delivery::Queued, None);
    c.take_dirty();
    c.drop_queue();
    assert_eq!(c.take_dirty(), Some(2));
}

#[test]
fn queued_messages_become_sent_in_order() {
    let mut c = Conversation::default();
    c.push_user("a", Delivery::Queued, None);
    c.push_user("b", Delivery::Queued, None);
    c.mark_first_queued_sent();
    assert_eq!(c.messages[0].delivery, Delivery::Sent);
    assert_eq!(c.messages[1].delivery, Delivery::Queued);
}
