//! The runtime and the command line with real agents, shells, containers, SSH and the history.
//! One test binary of a handful (docs/ARCHITECTURE.md, "Tests"): each file a module, `common` shared.

#[path = "../common/mod.rs"]
mod common;

mod agent_lifecycle;
mod agent_terminals;
mod attachments;
mod checkpoints;
mod config_loader;
mod config_reload;
mod containers;
mod conversation;
mod crash_words;
mod desktop;
mod elicitation;
mod history;
mod history_follows;
mod hostile_inputs;
mod login_cli;
mod mcp;
mod misbehaving;
mod misbehaving_history;
mod misbehaving_leaks;
mod open_config;
mod permission_trust;
mod prompt_options;
mod registry;
mod ssh;
mod ssh_lost;
mod terminal;
mod terminal_container;
mod terminal_replay;
mod thread_shared;
mod threads;
mod workspace_safety;
mod workspace_trash;
