//! The agent's file reads and writes, inside its workspace; a write is asked of the person first
//! when the policy says so, and shows in the conversation once done.

use agent_client_protocol::Agent;
use agent_client_protocol::v1::schema::{
    ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};

use super::super::permissions::{Served, denied, refused, served};
use super::{Handlers, Result, fs_error, unknown_session};
use crate::model::conversation::Update;
use crate::protocol::{AgentEvent, Event};

impl Handlers {
    pub(super) async fn read(
        &self,
        req: ReadTextFileRequest,
        responder: Responder<ReadTextFileResponse>,
        _: ConnectionTo<Agent>,
    ) -> Result {
        let ctx = &self.ctx;
        if !self.gate.admits(&ctx.agent, &ctx.events, &req.session_id.0, "fs/read_text_file").await {
            return responder.respond_with_error(unknown_session(&req.session_id));
        }
        match ctx.fs.serve_read(&req.path, req.line, req.limit).await {
            Ok(text) => responder.respond(ReadTextFileResponse::new(text)),
            Err(e) => responder.respond_with_error(fs_error(e)),
        }
    }

    pub(super) async fn write(
        &self,
        req: WriteTextFileRequest,
        responder: Responder<WriteTextFileResponse>,
        _: ConnectionTo<Agent>,
    ) -> Result {
        let ctx = &self.ctx;
        if !self.gate.admits(&ctx.agent, &ctx.events, &req.session_id.0, "fs/write_text_file").await {
            return responder.respond_with_error(unknown_session(&req.session_id));
        }
        let path = req.path.display().to_string();
        if let Some(error) = self.lease(&req.path).await {
            return responder.respond_with_error(error);
        }
        let size = crate::model::content::human_size(req.content.len());
        let shown = format!("{path} ({size})");
        match served(ctx, &self.pending, ctx.policy.writes, true, &shown, &path).await {
            Served::Yes => {}
            Served::Denied => return responder.respond_with_error(denied(ctx, true, &path, false).await),
            Served::RefusedUnattended => return responder.respond_with_error(denied(ctx, true, &path, true).await),
            Served::Refused => return responder.respond_with_error(refused(true, &path)),
        }
        match ctx.fs.serve_write(&req.path, &req.content).await {
            Ok(before) => {
                // What the agent wrote through Sidekicks shows in the conversation.
                let update = Update::ToolCall(crate::runtime::agent_fs::written(&req.path, before, &req.content));
                ctx.events.send(Event::Agent(ctx.agent.clone().into(), AgentEvent::Update { update })).await;
                responder.respond(WriteTextFileResponse::new())
            }
            Err(e) => responder.respond_with_error(fs_error(e)),
        }
    }

    /// A member writing a file another member changed, as the team's recipe wants (ADR 0035):
    /// `tell` refuses the first write with who else changed it; `ask` asks the person. The error
    /// to answer with, or `None` to go on.
    async fn lease(&self, path: &std::path::Path) -> Option<agent_client_protocol::Error> {
        use crate::model::recipe::OverlapRule;
        let ctx = &self.ctx;
        let leases = ctx.leases.clone()?;
        let full = path.display().to_string();
        let (agent, path) = (ctx.agent.clone(), path.to_path_buf());
        let meeting = tokio::task::spawn_blocking(move || leases.0.meeting(&agent, &path)).await.ok()??;
        let who = meeting.who();
        let mut error = agent_client_protocol::Error::invalid_params();
        match meeting.rule {
            OverlapRule::Tell if meeting.first => {
                error.message = format!(
                    "{who} of the team {} changed {} too: your change and theirs may conflict at merge. Write it again to go on, or leave this file to them.",
                    meeting.team, meeting.path
                );
                Some(error)
            }
            OverlapRule::Ask => {
                let title = format!("{} wants to write {}, which {who} changed too", ctx.agent, meeting.path);
                if super::super::permissions::overlap_asked(ctx, &self.pending, &title, &full).await {
                    return None;
                }
                error.message = format!("the person did not let you write {}: {who} changed it too", meeting.path);
                Some(error)
            }
            _ => None,
        }
    }
}
