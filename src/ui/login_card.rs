//! The login card: shown above the composer when an agent asks to log in (at start, or when its
//! login ran out mid-session). One row per way the agent offers: a button for a login the agent
//! does itself, a form for variables (an API key: typed as dots, kept for this run only, never
//! logged), a button that opens a terminal running the agent's login.

use std::collections::HashMap;

use egui::RichText;

use super::i18n::{Key, tr, trf};
use super::theme::warning_color;
use crate::app::AgentCommand;
use crate::app::WorkspaceCommand;
use crate::app::{AgentView, Command, Request};
use crate::model::config::Language;
use crate::protocol::auth::AuthKind;

/// What the login card asks for; `terminal` is set when a terminal login was asked (the window
/// shows the workspace's terminal).
pub struct LoginAsked {
    /// The requests.
    pub requests: Vec<Request>,
    /// A terminal login was asked.
    pub terminal: bool,
}

/// Draws the card when `agent` asks to log in; `values` keeps what is typed per variable.
pub fn login_card_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    values: &mut HashMap<String, String>,
) -> LoginAsked {
    let mut asked = LoginAsked { requests: Vec::new(), terminal: false };
    let Some((message, methods)) = &agent.login else { return asked };
    let name = agent.config.name.clone();
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, warning_color())).show(ui, |ui| {
        ui.label(RichText::new(trf(lang, Key::LoginTitle, &[("agent", &name)])).strong());
        ui.label(RichText::new(trf(lang, Key::LoginNeeded, &[("message", message)])).weak());
        if agent.state == crate::app::AgentState::Starting {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(tr(lang, Key::LoggingIn));
            });
            return;
        }
        for method in methods {
            ui.add_space(4.0);
            if let Some(d) = &method.description {
                ui.label(RichText::new(d).small().weak());
            }
            match &method.kind {
                AuthKind::Agent => {
                    if ui.button(login_label(lang, Key::LoginWith, &method.name)).clicked() {
                        let login = Command::Agent(
                            name.clone().into(),
                            AgentCommand::Login { method: Some(method.id.clone()), values: Vec::new() },
                        );
                        asked.requests.push(login.into());
                    }
                }
                AuthKind::EnvVar { vars } => {
                    for var in vars {
                        ui.horizontal(|ui| {
                            ui.label(var.label.as_deref().unwrap_or(&var.name));
                            let value = values.entry(var.name.clone()).or_default();
                            ui.add(egui::TextEdit::singleline(value).password(var.secret).desired_width(260.0));
                        });
                    }
                    let ready =
                        vars.iter().all(|v| v.optional || values.get(&v.name).is_some_and(|x| !x.trim().is_empty()));
                    let button =
                        ui.add_enabled(ready, egui::Button::new(login_label(lang, Key::LoginWith, &method.name)));
                    ui.label(RichText::new(tr(lang, Key::LoginKeyHint)).small().weak());
                    if button.clicked() {
                        let given = vars
                            .iter()
                            .filter_map(|v| Some((v.name.clone(), values.remove(&v.name)?.trim().to_string())))
                            .filter(|(_, v)| !v.is_empty())
                            .collect();
                        let login = Command::Agent(
                            name.clone().into(),
                            AgentCommand::Login { method: Some(method.id.clone()), values: given },
                        );
                        asked.requests.push(login.into());
                    }
                }
                AuthKind::Terminal { args, env } => {
                    if ui.button(login_label(lang, Key::LoginInTerminal, &method.name)).clicked() {
                        let login = Command::Workspace(WorkspaceCommand::LoginTerminal {
                            agent: name.clone(),
                            args: args.clone(),
                            env: env.clone(),
                        });
                        asked.requests.push(login.into());
                        asked.terminal = true;
                    }
                }
            }
        }
    });
    asked
}

/// A login button's words: `key` with the way's name ("Log in: Use an API key"), or the name
/// alone when it already says to log in ("Log in in a terminal", not "Log in in a terminal: Log in
/// in a terminal").
fn login_label(lang: Language, key: Key, name: &str) -> String {
    let lower = name.to_lowercase();
    let says_it = ["log in", "login", "sign in", "connect", "authenticate"].iter().any(|w| lower.starts_with(w));
    if says_it { name.to_string() } else { trf(lang, key, &[("method", name)]) }
}
