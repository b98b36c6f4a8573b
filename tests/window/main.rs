//! The window, driven as a person would (egui_kittest): clicks, keys, what it shows.
//! One test binary of a handful (docs/ARCHITECTURE.md, "Tests"): each file a module, `common` shared.

#[path = "../common/mod.rs"]
mod common;

mod notifications;
mod ui_agent_terminal;
mod ui_attachments;
mod ui_attention;
mod ui_channel;
mod ui_checkpoint_review;
mod ui_checkpoints;
mod ui_claude;
mod ui_conversation;
mod ui_edit;
mod ui_elicitation;
mod ui_far_project;
mod ui_far_team;
mod ui_find;
mod ui_login;
mod ui_look;
mod ui_mcp;
mod ui_misbehaving;
mod ui_palette;
mod ui_picker;
mod ui_registry;
mod ui_search;
mod ui_send_key;
mod ui_session_options;
mod ui_settings;
mod ui_sidebar;
mod ui_slash;
mod ui_small;
mod ui_ssh;
mod ui_team;
mod ui_team_ahead;
mod ui_team_lead;
mod ui_team_review;
mod ui_team_try;
mod ui_team_undo;
mod ui_terminal;
mod ui_threads;
mod ui_window;
mod ui_workspace;
