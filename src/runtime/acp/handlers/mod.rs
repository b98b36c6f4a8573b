//! The client's handlers of what an agent asks, one file each: session updates (with a fallback for
//! updates that do not parse; `updates.rs`), permission requests and questions (elicitations;
//! `permission.rs`), file reads and writes inside the workspace (`files.rs`), and the commands it
//! runs (ACP terminals; `terminals.rs`).

mod files;
mod permission;
mod terminals;
mod updates;

use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, KillTerminalRequest, ReadTextFileRequest, ReleaseTerminalRequest, RequestPermissionRequest,
    SessionId, TerminalExitStatus, TerminalOutputRequest, WaitForTerminalExitRequest, WriteTextFileRequest,
};
use agent_client_protocol::{Agent, Client, UntypedMessage};

use super::connection::ElicitMap;
use super::context::ClientContext;
use super::permissions::PendingMap;
use super::session::SessionGate;

type Result = std::result::Result<(), agent_client_protocol::Error>;

/// What every handler shares: the connection's context, the permission requests and questions
/// waiting for an answer, and the session gate.
#[derive(Clone)]
struct Handlers {
    ctx: ClientContext,
    pending: PendingMap,
    elicits: ElicitMap,
    gate: SessionGate,
}

/// The client's handlers: session updates (with a fallback for updates that do not parse),
/// permission requests, questions, fs requests, terminals.
pub(super) fn handlers(
    ctx: ClientContext,
    pending: PendingMap,
    elicits: ElicitMap,
    gate: SessionGate,
) -> agent_client_protocol::v1::Builder<Client, impl agent_client_protocol::HandleDispatchFrom<Agent>> {
    let h = Handlers { ctx, pending, elicits, gate };
    macro_rules! on {
        ($method:ident, $req:ty) => {{
            let h = h.clone();
            async move |req: $req, responder, cx| h.$method(req, responder, cx).await
        }};
    }
    let notes = h.clone();
    Client
        .v1()
        .name("sidekicks")
        .on_receive_notification(
            async move |n: UntypedMessage, _cx| notes.notification(n).await,
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(on!(permission, RequestPermissionRequest), agent_client_protocol::on_receive_request!())
        .on_receive_request(
            on!(elicit, agent_client_protocol::v1::schema::CreateElicitationRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(on!(read, ReadTextFileRequest), agent_client_protocol::on_receive_request!())
        .on_receive_request(on!(write, WriteTextFileRequest), agent_client_protocol::on_receive_request!())
        .on_receive_request(on!(create_terminal, CreateTerminalRequest), agent_client_protocol::on_receive_request!())
        .on_receive_request(on!(terminal_output, TerminalOutputRequest), agent_client_protocol::on_receive_request!())
        .on_receive_request(
            on!(wait_terminal, WaitForTerminalExitRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(on!(kill_terminal, KillTerminalRequest), agent_client_protocol::on_receive_request!())
        .on_receive_request(on!(release_terminal, ReleaseTerminalRequest), agent_client_protocol::on_receive_request!())
}

/// The error for a request naming a session that is not the agent's.
fn unknown_session(session: &SessionId) -> agent_client_protocol::Error {
    let mut error = agent_client_protocol::Error::invalid_params();
    error.message = format!("unknown session {:?}: this connection's session is another", session.0);
    error
}

fn exit_status(exit: crate::runtime::agent_terminals::Exit) -> TerminalExitStatus {
    let mut status = TerminalExitStatus::new();
    status.exit_code = exit.code;
    status.signal = exit.signal;
    status
}

fn terminal_error(e: crate::runtime::agent_terminals::TerminalError) -> agent_client_protocol::Error {
    let mut error = agent_client_protocol::Error::invalid_params();
    error.message = e.to_string();
    error
}

fn fs_error(e: crate::runtime::agent_fs::AgentFsError) -> agent_client_protocol::Error {
    agent_client_protocol::Error::new(e.code(), e.to_string())
}
