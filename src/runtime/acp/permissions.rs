//! Permission requests on one ACP connection: the ones Sidekicks asks itself before serving a
//! write or a command (the agent's `policy`), the agent's own, waiting for the person or answered
//! by a remembered rule or by the door's `--allow` (`Unattended`). Split from the client (`client.rs`), which
//! wires these into the connection's handlers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse, SelectedPermissionOutcome,
};
use tokio::sync::oneshot;

use super::context::ClientContext;
use super::convert;
use crate::model::conversation::Notice;
use crate::model::permission::{PermissionAnswer, Unattended, rule_key};
use crate::protocol::AgentEvent;
use crate::protocol::Event;
use crate::runtime::permission_rules::PermissionRules;

/// Whether the agent's policy `serve` lets Sidekicks serve a write (`writes`) or a command of
/// `what`: allowed, denied, or asked of the person with a card of Sidekicks' own (answered by a
/// remembered always/never like the agent's own requests).
pub(super) enum Served {
    Yes,
    /// The policy denies it.
    Denied,
    /// The person (or a remembered "never") refused it, or the turn ended before an answer.
    Refused,
    /// The door's `--allow reject` refused it.
    RefusedUnattended,
}

pub(super) async fn served(
    ctx: &ClientContext,
    pending: &PendingMap,
    serve: crate::model::config::Serve,
    writes: bool,
    what: &str,
    target: &str,
) -> Served {
    use crate::model::config::Serve;
    // `--allow reject` means no, whatever the policy (ADR 0030): the same at every door.
    match (serve, ctx.unattended) {
        (Serve::Deny, _) => return Served::Denied,
        (_, Some(Unattended::Reject)) => return Served::RefusedUnattended,
        (Serve::Allow, _) => return Served::Yes,
        (Serve::Ask, _) => {}
    }
    static NEXT_CALL: AtomicU64 = AtomicU64::new(1);
    let (kind, title) = if writes { ("edit", what.to_string()) } else { ("execute", what.to_string()) };
    let call = format!("sidekicks-policy-{}", NEXT_CALL.fetch_add(1, Ordering::Relaxed));
    // The exact target (the path, the whole command line), from which the remembered key is made.
    let input = if writes { serde_json::json!({"path": target}) } else { serde_json::json!({"command": target}) };
    let raw = serde_json::json!({
        "sessionId": "", "toolCall": {"toolCallId": call, "title": title, "kind": kind, "status": "pending", "rawInput": input},
        "options": [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
            {"optionId": "never", "name": "Always reject", "kind": "reject_always"},
        ],
    });
    let Ok(card) = serde_json::from_value::<RequestPermissionRequest>(raw) else { return Served::Refused };
    let id = NEXT_REQUEST.fetch_add(1, Ordering::Relaxed);
    let request = convert::permission_request(id, card);
    let key = rule_key(&request.tool);
    if let Some(decision) = key.as_deref().and_then(|k| ctx.rules.decide(k)) {
        return if decision == crate::model::permission::Decision::Allow { Served::Yes } else { Served::Refused };
    }
    if asked(ctx, pending, key, request).await { Served::Yes } else { Served::Refused }
}

/// Asks the person `request` (a card of Sidekicks' own, `key`: what an always/never answer is
/// remembered as), or has the door's `--allow` answer it; true when allowed.
async fn asked(
    ctx: &ClientContext,
    pending: &PendingMap,
    key: Option<String>,
    request: crate::model::permission::PermissionRequest,
) -> bool {
    let id = request.id;
    let (tx, rx) = oneshot::channel();
    let waiting = Pending::new(Asker::Own(tx), key, &request);
    let unattended = ctx.unattended.and_then(|u| unattended_answer(&request, u));
    pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id, waiting);
    ctx.events.send(Event::Agent(ctx.agent.clone().into(), AgentEvent::PermissionRequested { request })).await;
    if let Some(answer) = unattended {
        answer_pending(pending, &*ctx.rules, id, &answer);
        ctx.events.send(Event::Agent(ctx.agent.clone().into(), AgentEvent::PermissionResolved { id, answer })).await;
    }
    matches!(rx.await, Ok(RequestPermissionOutcome::Selected(s)) if s.option_id.0.as_ref() == "allow" || s.option_id.0.as_ref() == "always")
}

/// Asks the person whether a member may write a file another member changed (the recipe's
/// `overlap = "ask"`): a card of Sidekicks' own saying so, allowed once or not (nothing is
/// remembered: the next write of it is asked again while the other's change stands).
pub(super) async fn overlap_asked(ctx: &ClientContext, pending: &PendingMap, title: &str, path: &str) -> bool {
    if ctx.unattended == Some(Unattended::Reject) {
        return false;
    }
    static NEXT_CALL: AtomicU64 = AtomicU64::new(1);
    let call = format!("sidekicks-overlap-{}", NEXT_CALL.fetch_add(1, Ordering::Relaxed));
    let raw = serde_json::json!({
        "sessionId": "", "toolCall": {"toolCallId": call, "title": title, "kind": "other", "status": "pending",
            "locations": [{"path": path}]},
        "options": [
            {"optionId": "allow", "name": "Let it write", "kind": "allow_once"},
            {"optionId": "reject", "name": "Do not let it", "kind": "reject_once"},
        ],
    });
    let Ok(request) = serde_json::from_value::<RequestPermissionRequest>(raw) else { return false };
    let request = convert::permission_request(NEXT_REQUEST.fetch_add(1, Ordering::Relaxed), request);
    asked(ctx, pending, None, request).await
}

/// The error for a request the person refused (or left unanswered): no notice, the card says it.
pub(super) fn refused(writes: bool, what: &str) -> agent_client_protocol::Error {
    let word = if writes { "write" } else { "command" };
    let mut error = agent_client_protocol::Error::invalid_params();
    error.message = format!("the person did not allow this {word}: {what}");
    error
}

/// The answer a door with no person at it gives `request` (`--allow`): the first offered option
/// of the wanted kinds.
pub fn unattended_answer(
    request: &crate::model::permission::PermissionRequest,
    unattended: Unattended,
) -> Option<PermissionAnswer> {
    let option = unattended.option_kinds().iter().find_map(|k| request.option(*k))?;
    Some(PermissionAnswer::Selected { option_id: option.id.clone(), kind: option.kind })
}

/// Answers waiting request `id` with `answer` (an always/never is remembered where the request
/// named its target, else sent as once). False if it was not waiting.
pub(super) fn answer_pending(
    pending: &PendingMap,
    rules: &dyn PermissionRules,
    id: u64,
    answer: &PermissionAnswer,
) -> bool {
    let Some(pending) = pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id) else {
        return false;
    };
    let outcome = match answer {
        PermissionAnswer::Selected { option_id, kind } => {
            if let (Some(decision), Some(key)) = (kind.remembered(), &pending.rule_key) {
                rules.remember(key, decision);
            }
            let sent = pending.option_to_send(option_id, *kind);
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(sent))
        }
        PermissionAnswer::Cancelled => RequestPermissionOutcome::Cancelled,
    };
    pending.responder.answer(outcome);
    true
}

/// The refusal of a request the agent's policy (or the door's `--allow reject`) denies: to the
/// agent as an error, to the person as a notice naming the cause.
pub(super) async fn denied(
    ctx: &ClientContext,
    writes: bool,
    what: &str,
    by_allow_reject: bool,
) -> agent_client_protocol::Error {
    let (key, word) = if writes { ("writes", "write files") } else { ("commands", "run commands") };
    let message = match by_allow_reject {
        true => format!(
            "Sidekicks does not let {} {word} through it: the command line's `--allow reject` (the default) refuses them (pass `--allow once`): {what}",
            ctx.agent
        ),
        false => format!("Sidekicks does not let {} {word} through it (policy.{key} = \"deny\"): {what}", ctx.agent),
    };
    let notice = Notice::PolicyDenied { writes, what: what.to_string(), by_allow_reject };
    ctx.events.send(Event::Agent(ctx.agent.clone().into(), AgentEvent::Notice { notice })).await;
    let mut error = agent_client_protocol::Error::invalid_params();
    error.message = message;
    error
}

/// A permission request waiting for the person.
pub(super) struct Pending {
    pub(super) responder: Asker,
    /// Where an always/never answer is remembered; `None`: the request named no exact target,
    /// so such an answer is taken as once (see `model::permission::rule_key`).
    rule_key: Option<String>,
    /// The request's once options (allow, reject), sent instead of an always/never it cannot keep.
    once: [Option<String>; 2],
}

impl Pending {
    pub(super) fn new(
        responder: Asker,
        rule_key: Option<String>,
        request: &crate::model::permission::PermissionRequest,
    ) -> Self {
        use crate::model::permission::OptionKind;
        let id = |kind| request.option(kind).map(|o| o.id.clone());
        Self { responder, rule_key, once: [id(OptionKind::AllowOnce), id(OptionKind::RejectOnce)] }
    }

    /// The option to send for `option_id` of `kind`: an always/never without a key becomes once
    /// (the agent would otherwise remember it for whatever it asks next under the same words).
    pub(super) fn option_to_send(&self, option_id: &str, kind: crate::model::permission::OptionKind) -> String {
        use crate::model::permission::OptionKind;
        let once = match kind {
            _ if self.rule_key.is_some() => None,
            OptionKind::AllowAlways => self.once[0].clone(),
            OptionKind::RejectAlways => self.once[1].clone(),
            _ => None,
        };
        once.unwrap_or_else(|| option_id.to_string())
    }
}

/// Ids of requests shown to the person, unique in the process (not per connection): a card of
/// an earlier run of the agent must never take the answer meant for a new one.
pub(super) static NEXT_REQUEST: AtomicU64 = AtomicU64::new(1);

/// Who waits for a permission answer: the agent (its request), or Sidekicks itself (a request
/// its policy asks the person about before serving it).
pub(super) enum Asker {
    Agent(Box<Responder<RequestPermissionResponse>>),
    Own(oneshot::Sender<RequestPermissionOutcome>),
}

impl Asker {
    pub(super) fn answer(self, outcome: RequestPermissionOutcome) {
        match self {
            Asker::Agent(responder) => {
                let _ = responder.respond(RequestPermissionResponse::new(outcome));
            }
            Asker::Own(tx) => {
                let _ = tx.send(outcome);
            }
        }
    }
}

pub(super) type PendingMap = Arc<Mutex<HashMap<u64, Pending>>>;
