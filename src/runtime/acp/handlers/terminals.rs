//! The commands the agent runs (ACP terminals): made once the policy allows the whole command,
//! then read, waited for, killed and released.

use agent_client_protocol::Agent;
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, CreateTerminalResponse, KillTerminalRequest, KillTerminalResponse, ReleaseTerminalRequest,
    ReleaseTerminalResponse, TerminalOutputRequest, TerminalOutputResponse, WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};

use super::super::permissions::{Served, denied, refused, served};
use super::{Handlers, Result, exit_status, terminal_error, unknown_session};

impl Handlers {
    pub(super) async fn create_terminal(
        &self,
        req: CreateTerminalRequest,
        responder: Responder<CreateTerminalResponse>,
        _: ConnectionTo<Agent>,
    ) -> Result {
        let ctx = &self.ctx;
        if !self.gate.admits(&ctx.agent, &ctx.events, &req.session_id.0, "terminal/create").await {
            return responder.respond_with_error(unknown_session(&req.session_id));
        }
        // What is allowed is the whole command: its variables (which can make it run other
        // code: LD_PRELOAD…), its program and arguments, each quoted as a shell reads it.
        let quote = crate::runtime::exec::quote;
        let assignments = req.env.iter().map(|v| format!("{}={}", v.name, quote(&v.value)));
        let words = std::iter::once(&req.command).chain(req.args.iter()).map(|w| quote(w));
        let what = assignments.chain(words).collect::<Vec<_>>().join(" ");
        match served(ctx, &self.pending, ctx.policy.commands, false, &what, &what).await {
            Served::Yes => {}
            Served::Denied => return responder.respond_with_error(denied(ctx, false, &what, false).await),
            Served::RefusedUnattended => return responder.respond_with_error(denied(ctx, false, &what, true).await),
            Served::Refused => return responder.respond_with_error(refused(false, &what)),
        }
        let env = req.env.into_iter().map(|v| (v.name, v.value)).collect();
        match ctx.terminals.create(&req.command, &req.args, env, req.cwd.as_deref(), req.output_byte_limit) {
            Ok(id) => responder.respond(CreateTerminalResponse::new(id)),
            Err(e) => responder.respond_with_error(terminal_error(e)),
        }
    }

    pub(super) async fn terminal_output(
        &self,
        req: TerminalOutputRequest,
        responder: Responder<TerminalOutputResponse>,
        _: ConnectionTo<Agent>,
    ) -> Result {
        match self.ctx.terminals.output(&req.terminal_id.0) {
            Ok((output, truncated, exit)) => {
                responder.respond(TerminalOutputResponse::new(output, truncated).exit_status(exit.map(exit_status)))
            }
            Err(e) => responder.respond_with_error(terminal_error(e)),
        }
    }

    pub(super) async fn wait_terminal(
        &self,
        req: WaitForTerminalExitRequest,
        responder: Responder<WaitForTerminalExitResponse>,
        cx: ConnectionTo<Agent>,
    ) -> Result {
        // Waiting may take long: off the dispatch loop.
        let terminals = self.ctx.terminals.clone();
        cx.spawn(async move {
            match terminals.wait(&req.terminal_id.0).await {
                Ok(exit) => responder.respond(WaitForTerminalExitResponse::new(exit_status(exit))),
                Err(e) => responder.respond_with_error(terminal_error(e)),
            }
        })
    }

    pub(super) async fn kill_terminal(
        &self,
        req: KillTerminalRequest,
        responder: Responder<KillTerminalResponse>,
        _: ConnectionTo<Agent>,
    ) -> Result {
        match self.ctx.terminals.kill(&req.terminal_id.0).await {
            Ok(()) => responder.respond(KillTerminalResponse::new()),
            Err(e) => responder.respond_with_error(terminal_error(e)),
        }
    }

    pub(super) async fn release_terminal(
        &self,
        req: ReleaseTerminalRequest,
        responder: Responder<ReleaseTerminalResponse>,
        _: ConnectionTo<Agent>,
    ) -> Result {
        match self.ctx.terminals.release(&req.terminal_id.0).await {
            Ok(()) => responder.respond(ReleaseTerminalResponse::new()),
            Err(e) => responder.respond_with_error(terminal_error(e)),
        }
    }
}
