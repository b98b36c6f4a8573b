//! The terminals of an agent's workspace, as the window knows them: the handles the runtime gave
//! (in the order they came), one being asked for, why the last could not start. The window draws
//! each handle (`ui::terminal_tabs`); asking for one and closing one are requests.

use crate::protocol::terminal::TerminalHandle;
use crate::protocol::{Command, WorkspaceCommand};

/// What the Terminal page asks for.
#[derive(Clone, Copy, Debug)]
pub enum TerminalsRequest {
    /// Open a terminal in the workspace (none while one is being opened).
    Open,
    /// A terminal is being opened elsewhere (a login runs in one): none is asked for meanwhile.
    Expect,
    /// End terminal `id` and everything it started.
    Close(u64),
    /// End every terminal of the workspace.
    CloseAll,
}

/// The terminals of one agent's workspace.
#[derive(Clone, Default)]
pub struct TerminalsState {
    /// The open terminals, in the order they came.
    pub open: Vec<TerminalHandle>,
    /// A terminal was asked for and has not come yet.
    pub opening: bool,
    /// The last terminal asked for could not start (why).
    pub error: Option<String>,
}

impl TerminalsState {
    /// A terminal asked for came (or could not start).
    pub fn opened(&mut self, result: Result<TerminalHandle, String>) {
        self.opening = false;
        match result {
            Ok(handle) => {
                self.open.push(handle);
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Takes what the page asks for; returns the commands for `agent`'s workspace.
    pub fn request(&mut self, agent: &str, request: TerminalsRequest) -> Vec<Command> {
        match request {
            TerminalsRequest::Open if !self.opening => {
                self.opening = true;
                vec![Command::Workspace(WorkspaceCommand::OpenTerminal { agent: agent.to_string() })]
            }
            TerminalsRequest::Open => Vec::new(),
            TerminalsRequest::Expect => {
                self.opening = true;
                Vec::new()
            }
            TerminalsRequest::Close(id) => {
                self.open.retain(|t| t.id != id);
                vec![Command::Workspace(WorkspaceCommand::CloseTerminal { id })]
            }
            TerminalsRequest::CloseAll => std::mem::take(&mut self.open)
                .into_iter()
                .map(|t| Command::Workspace(WorkspaceCommand::CloseTerminal { id: t.id }))
                .collect(),
        }
    }
}

impl std::fmt::Debug for TerminalsState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<u64> = self.open.iter().map(|t| t.id).collect();
        f.debug_struct("TerminalsState")
            .field("open", &ids)
            .field("opening", &self.opening)
            .field("error", &self.error)
            .finish()
    }
}
