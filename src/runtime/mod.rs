//! Everything that touches the world, on tokio: starting agent processes, speaking ACP with
//! them, the config file and its watcher. Never draws: it produces `app::Event`s.

pub mod acp;
pub mod agent_fs;
pub mod agent_terminals;
pub mod agents;
pub mod attach;
pub mod checkpoints;
pub mod clock;
pub mod config;
pub mod copies;
pub mod dialog;
pub mod discovery;
pub mod events;
pub mod exec;
pub mod frame_stats;
pub mod git;
pub mod halves;
pub mod history;
pub mod host;
mod launch;
pub mod log_file;
pub mod notifier;
pub mod permission_rules;
pub mod process;
pub mod redact;
pub mod registry;
pub mod services;
pub mod store;
pub mod teams;
pub mod terminal;
pub mod thread_lock;
pub mod workspace;
