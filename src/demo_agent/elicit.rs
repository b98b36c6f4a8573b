//! The demo agent's requests for input (`elicitation/create`): `form` asks for deploy settings in
//! a form and says what it got; `consent` asks the person to open a page, then tells the client
//! the page is done (`elicitation/complete`).

use std::time::Duration;

use agent_client_protocol::v1::schema::{
    CompleteElicitationNotification, CreateElicitationRequest, ElicitationAction, StopReason,
};

use super::turn::{Outcome, Turn};

/// The id of the page `consent` asks to open.
pub const CONSENT_ID: &str = "demo-consent-1";

/// `form`: a form with text, a choice, a whole number and a tick box.
pub async fn form(t: &Turn) -> Outcome {
    let request: CreateElicitationRequest = serde_json::from_value(serde_json::json!({
        "mode": "form", "sessionId": t.session.0, "message": "I need a few details before I deploy.",
        "requestedSchema": {"type": "object", "title": "Deploy settings", "required": ["name", "env"],
            "properties": {
                "name": {"type": "string", "title": "Project name", "minLength": 2, "maxLength": 30},
                "env": {"type": "string", "title": "Environment", "oneOf": [
                    {"const": "staging", "title": "Staging"}, {"const": "production", "title": "Production"}]},
                "replicas": {"type": "integer", "title": "Replicas", "description": "How many copies run",
                    "minimum": 1, "maximum": 5, "default": 2},
                "notify": {"type": "boolean", "title": "Notify the team", "default": true}
            }}
    }))
    .expect("a valid elicitation");
    let response = t.cx.send_request(request).block_task().await?;
    let said = match response.action {
        ElicitationAction::Accept(accept) => {
            let content = accept.content.unwrap_or_default();
            let values: Vec<String> = content
                .iter()
                .map(|(k, v)| format!("{k}={}", serde_json::to_value(v).map_or_else(|_| "?".into(), |v| v.to_string())))
                .collect();
            format!("You answered: {}.", values.join(", "))
        }
        ElicitationAction::Decline => "You declined: I will not deploy.".into(),
        ElicitationAction::Cancel => "Cancelled: nothing deployed.".into(),
        _ => "An answer I do not know.".into(),
    };
    t.say(&said)?;
    Ok(StopReason::EndTurn)
}

/// `consent`: a page to open; once the person opens it, the page is "done" a moment later.
pub async fn consent(t: &Turn) -> Outcome {
    let request: CreateElicitationRequest = serde_json::from_value(serde_json::json!({
        "mode": "url", "sessionId": t.session.0, "message": "Please approve access to the demo service.",
        "elicitationId": CONSENT_ID, "url": "https://example.com/demo/consent"
    }))
    .expect("a valid elicitation");
    let response = t.cx.send_request(request).block_task().await?;
    match response.action {
        ElicitationAction::Accept(_) => {
            tokio::time::sleep(Duration::from_millis(100)).await;
            t.cx.send_notification(CompleteElicitationNotification::new(CONSENT_ID))?;
            t.say("You opened the page; access approved.")?;
        }
        ElicitationAction::Decline => t.say("You declined the page.")?,
        _ => t.say("Cancelled.")?,
    }
    Ok(StopReason::EndTurn)
}
