//! Plain data and pure logic: the config schema and its checker, conversations, problems.
//! No egui, no tokio, no I/O.

pub mod agent_form;
pub mod ansi;
pub mod channel;
pub mod command_dangers;
pub mod config;
pub mod config_check;
pub mod config_edit;
pub mod config_schema;
pub mod content;
pub mod conversation;
pub mod elicitation;
pub mod find;
pub mod fuzzy;
pub mod indent;
pub mod markdown_bounds;
pub mod member_name;
pub mod mentions;
pub mod merge;
pub mod permission;
pub mod problem;
pub mod project_at;
pub mod radar;
pub mod recipe;
pub mod registry;
pub mod registry_edit;
pub mod rel_path;
pub mod review;
pub mod search;
pub mod session_config;
pub mod short_path;
pub mod ssh_host;
pub mod terminal;
pub mod tool;
pub mod when;
