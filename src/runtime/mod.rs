//! Everything that touches the world, on tokio: starting agent processes, speaking ACP with
//! them, the config file and its watcher. Never draws: it produces `app::Event`s.

pub mod acp_auth;
pub mod acp_client;
pub mod acp_content;
pub mod acp_convert;
pub mod acp_elicit;
pub mod acp_mcp;
pub mod acp_session;
pub mod acp_sessions;
pub mod acp_transport;
pub mod agent_fs;
pub mod agent_terminals;
pub mod agents;
pub mod attach;
pub mod checkpoint;
pub mod checkpoint_review;
pub mod clock;
pub mod config_file;
pub mod config_watch;
pub mod discovery;
pub mod events;
pub mod exec;
pub mod frame_stats;
pub mod git_head;
pub mod history;
mod launch;
pub mod log_file;
pub mod notifier;
pub mod permission_rules;
pub mod process;
pub mod redact;
pub mod services;
pub mod store;
pub mod teams;
pub mod terminal;
pub mod thread_lock;
pub mod workspace;
