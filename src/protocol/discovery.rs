//! An ACP agent found on this computer (on `PATH`, in Zed's or JetBrains' settings).

use std::path::PathBuf;

use crate::model::config_edit::NewAgent;

/// Where an agent was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A known program on `PATH`.
    Path(PathBuf),
    /// Zed's settings file.
    Zed(PathBuf),
    /// JetBrains' `acp.json`.
    JetBrains(PathBuf),
}

/// An agent found on this computer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundAgent {
    /// What would be added to the config.
    pub agent: NewAgent,
    /// Where it was found.
    pub source: Source,
}
