//! The manager's inbox: what a door asks of an agent, and what only the runtime sends the manager
//! itself — the config read (or another file opened) and the team members set. The front door
//! (`runtime/services`) serves everything else and forwards only these.

use std::path::PathBuf;

use crate::model::config_check::LoadResult;
use crate::protocol::checkpoints::CheckpointCommand;
use crate::protocol::teams::MemberAgent;
use crate::protocol::{AgentCommand, Command};

/// What the manager is sent.
#[derive(Clone, Debug)]
pub enum ManagerCommand {
    /// To one agent (its name).
    Agent(String, AgentCommand),
    /// About checkpoints (restore one).
    Checkpoint(CheckpointCommand),
    /// A (re)loaded config: applied when it has no problems, otherwise only reported.
    ConfigLoaded {
        /// The path it is about.
        path: PathBuf,
        /// How it went.
        result: LoadResult,
    },
    /// Stop every agent, then switch to another config file (its agents and conversations).
    OpenConfig {
        /// The path it is about.
        path: PathBuf,
        /// How it went.
        result: LoadResult,
    },
    /// Add, change or remove (`None`) a team member: an agent of its own, a new instance of an
    /// agent definition of the config working in its copy. An idle member restarts with a
    /// change; a busy one after its turn; a removed one is stopped.
    SetMember {
        /// The member's name.
        name: String,
        /// Where and as what it works (`None`: it is gone).
        member: Option<MemberAgent>,
    },
    /// The `sidekicks-team` MCP server each team lead gets (by the lead's name; ADR 0035): added
    /// to its sessions. A lead whose server changed restarts when idle, a busy one after its turn.
    SetLeadTools {
        /// The servers.
        servers: std::collections::BTreeMap<String, crate::model::config::McpConfig>,
    },
    /// Who answers whether a team member's write meets another member's change (leases, ADR
    /// 0035): given to each connection made after.
    SetLeases {
        /// The answerer.
        leases: crate::runtime::acp::leases::LeasesHandle,
    },
    /// Stop every agent and end.
    Shutdown,
}

impl ManagerCommand {
    /// The manager's part of a door's `command`; `None` when another service serves it.
    pub fn from_door(command: Command) -> Option<Self> {
        match command {
            Command::Agent(agent, command) => Some(ManagerCommand::Agent(agent.0, command)),
            Command::Checkpoint(command) => Some(ManagerCommand::Checkpoint(command)),
            Command::Shutdown => Some(ManagerCommand::Shutdown),
            _ => None,
        }
    }
}

impl From<(String, AgentCommand)> for ManagerCommand {
    fn from((agent, command): (String, AgentCommand)) -> Self {
        ManagerCommand::Agent(agent, command)
    }
}
