//! What the agent asks the person: a permission (answered at once by a remembered rule, or by
//! `--allow` where no person is at the door; else shown and kept until answered) and a question
//! (an elicitation).

use std::sync::atomic::Ordering;

use agent_client_protocol::Agent;
use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, CreateElicitationResponse, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};

use super::super::permissions::{Asker, NEXT_REQUEST, Pending, answer_pending, unattended_answer};
use super::super::{convert, elicit};
use super::{Handlers, Result, unknown_session};
use crate::model::elicitation::ElicitAnswer;
use crate::model::permission::{PermissionAnswer, rule_key};
use crate::protocol::{AgentEvent, Event};

impl Handlers {
    pub(super) async fn permission(
        &self,
        req: RequestPermissionRequest,
        responder: Responder<RequestPermissionResponse>,
        _: ConnectionTo<Agent>,
    ) -> Result {
        let ctx = &self.ctx;
        let agent = ctx.agent.clone();
        let method = "session/request_permission";
        if !self.gate.admits(&agent, &ctx.events, &req.session_id.0, method).await {
            return responder.respond_with_error(unknown_session(&req.session_id));
        }
        if self.gate.cancelling() {
            // The person asked to stop: nothing is shown, nothing runs.
            tracing::info!(agent, "answered a permission request cancelled: the turn is being cancelled");
            return responder.respond(RequestPermissionResponse::new(RequestPermissionOutcome::Cancelled));
        }
        let id = NEXT_REQUEST.fetch_add(1, Ordering::Relaxed);
        // A request may name its call by id alone: what was announced of it is merged in.
        let patch = convert::tool_patch(req.tool_call.clone());
        let mut request = convert::permission_request(id, req);
        request.tool = self.gate.requested(patch).await;
        let key = rule_key(&request.tool);
        let remembered = key
            .as_deref()
            .and_then(|k| ctx.rules.decide(k))
            .and_then(|decision| decision.option_kinds().iter().find_map(|k| request.option(*k)).cloned());
        if let Some(option) = remembered {
            let outcome = RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option.id.clone()));
            responder.respond(RequestPermissionResponse::new(outcome))?;
            let answer = PermissionAnswer::Selected { option_id: option.id, kind: option.kind };
            ctx.events.send(Event::Agent(agent.clone().into(), AgentEvent::PermissionRequested { request })).await;
            ctx.events.send(Event::Agent(agent.into(), AgentEvent::PermissionResolved { id, answer })).await;
            return Ok(());
        }
        let responder = Asker::Agent(Box::new(responder));
        let waiting = Pending::new(responder, key, &request);
        let unattended = ctx.unattended.and_then(|u| unattended_answer(&request, u));
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id, waiting);
        ctx.events.send(Event::Agent(agent.clone().into(), AgentEvent::PermissionRequested { request })).await;
        // No person at this door: its `--allow` answers, here, the same at every door.
        if let Some(answer) = unattended {
            answer_pending(&self.pending, &*ctx.rules, id, &answer);
            ctx.events.send(Event::Agent(agent.into(), AgentEvent::PermissionResolved { id, answer })).await;
        }
        Ok(())
    }

    pub(super) async fn elicit(
        &self,
        req: CreateElicitationRequest,
        responder: Responder<CreateElicitationResponse>,
        _: ConnectionTo<Agent>,
    ) -> Result {
        use agent_client_protocol::v1::schema::ElicitationScope;
        let ctx = &self.ctx;
        let agent = ctx.agent.clone();
        if let ElicitationScope::Session(scope) = req.scope()
            && !self.gate.admits(&agent, &ctx.events, &scope.session_id.0, "elicitation/create").await
        {
            return responder.respond_with_error(unknown_session(&scope.session_id));
        }
        if self.gate.cancelling() {
            return responder.respond(elicit::response(&ElicitAnswer::Cancel));
        }
        let id = NEXT_REQUEST.fetch_add(1, Ordering::Relaxed);
        let Some(request) = elicit::request(id, &req) else {
            tracing::warn!(agent, "an elicitation of a mode Sidekicks does not know: declined");
            return responder.respond(elicit::response(&ElicitAnswer::Decline));
        };
        self.elicits.lock().unwrap_or_else(|e| e.into_inner()).insert(id, responder);
        ctx.events.send(Event::Agent(agent.into(), AgentEvent::ElicitationRequested { request })).await;
        Ok(())
    }
}
