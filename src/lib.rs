//! Sidekicks: a native desktop app that runs a team of ACP coding agents side by side.
//!
//! Layers (see docs/ARCHITECTURE.md): `model` (plain data, pure logic), `protocol` (the messages
//! between the runtime and the app, and the plain data they carry), `runtime` (processes,
//! ACP, files — on tokio), `app` (commands in, events out, the state the UI reads), `ui` (egui).
//! `demo_agent` is the other side of the protocol: the built-in agents (demo and misbehaving).

#![warn(missing_docs)]

pub mod app;
pub mod cli;
pub mod demo_agent;
pub mod i18n;
mod i18n_toml;
pub mod model;
pub mod protocol;
pub mod runtime;
pub mod ui;
