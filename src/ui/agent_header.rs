//! The header of the selected agent, the same over its conversation and its workspace: name,
//! state, where it runs (its team copy, with a link to the team), channels, token usage, Start /
//! Stop / Restart, and its pages: Conversation, Files, Terminal, Log, Permissions.

use egui::RichText;

use super::i18n::{Key, state_text, tr, trf, where_text};
use super::theme::state_dot;
use crate::app::AgentCommand;
use crate::app::{AgentView, Command};
use crate::model::config::Language;

/// The agent's name, state and where it runs (the first part of both headers).
pub fn agent_title_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) {
    ui.heading(&agent.config.name);
    // Stopped while its login card asks: it waits for the person, it was not stopped (issue 48,
    // item 10).
    let waits = agent.login.is_some() && matches!(agent.state, crate::app::AgentState::Stopped);
    let words = if waits { tr(lang, Key::WaitsForLogin) } else { state_text(lang, &agent.state) };
    state_dot(ui, &agent.state, words);
    ui.label(words);
    ui.label(RichText::new(where_text(lang, &agent.config.runtime)).weak());
    // A policy that refuses what Sidekicks serves is shown: the agent may still try.
    let policy = agent.config.policy;
    if policy != crate::model::config::Policy::default() {
        let word = |serve: crate::model::config::Serve| {
            let key = match serve {
                crate::model::config::Serve::Allow => Key::ServeAllow,
                crate::model::config::Serve::Ask => Key::ServeAsk,
                crate::model::config::Serve::Deny => Key::ServeDeny,
            };
            tr(lang, key)
        };
        let words =
            trf(lang, Key::PolicyBadge, &[("writes", word(policy.writes)), ("commands", word(policy.commands))]);
        ui.label(RichText::new(words).small().color(super::theme::warning_color()));
    }
}

/// Where `agent` works, when it works for a team (`team`: id and name): its copy, and a link to
/// the team's page. Returns the team's id when the link is clicked.
pub fn team_line_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    team: Option<&(String, String)>,
) -> Option<String> {
    let (id, name) = team?;
    // Said short (the header wrapped over three lines at 1100 px), whole on hover.
    let path = agent.config.workspace.display().to_string();
    let home = std::env::var("HOME").ok();
    let short = crate::model::short_path::short_path(&path, home.as_deref(), 24);
    ui.label(RichText::new(trf(lang, Key::MemberWorksIn, &[("path", &short)])).small().weak()).on_hover_text(&path);
    // Whole, on one line: a link broken over two lines of a wrapped header is hard to hit. On a
    // row of its own when the rest of this one is too short: kept whole on a short row, it went
    // on past the window's edge and its middle could not be clicked.
    let words = trf(lang, Key::TeamLink, &[("team", name)]);
    let needed = egui::WidgetText::from(words.as_str())
        .into_galley(ui, Some(egui::TextWrapMode::Extend), f32::INFINITY, egui::TextStyle::Body)
        .size()
        .x;
    // (In a wrapping row `available_width` is a whole row's: what is left of this one is measured.)
    if ui.max_rect().right() - ui.cursor().min.x < needed {
        ui.end_row();
    }
    let link = egui::Link::new(words);
    let clicked = ui
        .scope(|ui| {
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
            ui.add(link).clicked()
        })
        .inner;
    clicked.then(|| id.clone())
}

/// Start, Stop and Restart for `agent`, in that order wherever they are shown.
pub fn run_buttons_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) -> Option<Command> {
    let (running, name) = (agent.state.is_running(), agent.config.name.clone());
    let mut command = None;
    if ui.add_enabled(!running, egui::Button::new(tr(lang, Key::Start))).clicked() {
        command = Some(Command::Agent(name.clone().into(), AgentCommand::Start));
    }
    if ui.add_enabled(running, egui::Button::new(tr(lang, Key::Stop))).clicked() {
        command = Some(Command::Agent(name.clone().into(), AgentCommand::Stop));
    }
    // Restart restarts what runs; a stopped agent is started with Start.
    if ui.add_enabled(running, egui::Button::new(tr(lang, Key::Restart))).clicked() {
        command = Some(Command::Agent(name.into(), AgentCommand::Restart));
    }
    command
}

/// The pages of an agent, in the header's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// The conversation.
    Conversation,
    /// The workspace's files.
    Files,
    /// The workspace's terminals.
    Terminal,
    /// The agent's stderr.
    Log,
    /// Its remembered permission answers.
    Permissions,
}

impl Page {
    /// Every page, in order.
    pub const ALL: [Page; 5] = [Page::Conversation, Page::Files, Page::Terminal, Page::Log, Page::Permissions];

    /// Its name's key.
    pub fn key(self) -> Key {
        match self {
            Page::Conversation => Key::Conversation,
            Page::Files => Key::Files,
            Page::Terminal => Key::Terminal,
            Page::Log => Key::Log,
            Page::Permissions => Key::Permissions,
        }
    }
}

/// What the header asked for.
#[derive(Default)]
pub struct HeaderAsked {
    /// Commands of its buttons.
    pub commands: Vec<Command>,
    /// The team whose link was clicked (its id).
    pub team: Option<String>,
    /// The channel whose link was clicked.
    pub channel: Option<String>,
    /// The page to show instead of the one shown.
    pub page: Option<Page>,
}

/// Draws the header of `agent` over its page `shown` (`team`: the agent's team, id and name).
pub fn agent_header_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &AgentView,
    shown: Page,
    team: Option<&(String, String)>,
) -> HeaderAsked {
    let mut asked = HeaderAsked::default();
    // Wrapped: with usage, cost and every button it must stay whole in a narrow window.
    ui.horizontal_wrapped(|ui| {
        agent_title_ui(ui, lang, agent);
        asked.team = team_line_ui(ui, lang, agent, team);
        for channel in &agent.config.channels {
            if ui.link(RichText::new(format!("#{channel}")).small()).clicked() {
                asked.channel = Some(channel.clone());
            }
        }
        if let Some((used, size)) = agent.conversation.usage {
            let (used, size) = (used.to_string(), size.to_string());
            ui.label(RichText::new(trf(lang, Key::Usage, &[("used", &used), ("size", &size)])).small().weak());
        }
        if let Some(cost) = &agent.conversation.cost {
            let total: Vec<String> = agent.total_cost().iter().map(|c| c.text()).collect();
            let words = if agent.past_costs.is_empty() {
                trf(lang, Key::SessionCost, &[("cost", &cost.text())])
            } else {
                trf(lang, Key::SessionCostTotal, &[("cost", &cost.text()), ("total", &total.join(" + "))])
            };
            ui.label(RichText::new(words).small().weak());
        }
        mcp_ui(ui, lang, agent);
        ui.separator();
        // The three buttons go to the next row together when they do not fit on this one (Restart
        // alone there, and moving as the agent started, confused a new user).
        let needed: f32 = [Key::Start, Key::Stop, Key::Restart]
            .iter()
            .map(|k| {
                let text = egui::WidgetText::from(tr(lang, *k));
                let galley =
                    text.into_galley(ui, Some(egui::TextWrapMode::Extend), f32::INFINITY, egui::TextStyle::Button);
                galley.size().x + 2.0 * ui.spacing().button_padding.x + ui.spacing().item_spacing.x
            })
            .sum();
        if ui.max_rect().right() - ui.cursor().min.x < needed {
            ui.end_row();
        }
        asked.commands.extend(run_buttons_ui(ui, lang, agent));
        if agent.can_logout && agent.state.is_running() && ui.button(tr(lang, Key::LogOut)).clicked() {
            asked.commands.push(Command::Agent(agent.config.name.clone().into(), AgentCommand::Logout));
        }
    });
    // The pages on a line of their own: always in the same place, whatever the first line holds.
    ui.horizontal(|ui| {
        for page in Page::ALL {
            if ui.selectable_label(page == shown, tr(lang, page.key())).clicked() && page != shown {
                asked.page = Some(page);
            }
        }
    });
    ui.separator();
    asked
}

/// The MCP servers the agent's session got: their names; one the agent does not take is struck
/// out, with why on hover.
fn mcp_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) {
    if agent.mcp.is_empty() {
        return;
    }
    ui.label(RichText::new("MCP").small().weak()).on_hover_text(tr(lang, Key::McpHint));
    for server in &agent.mcp {
        let text = RichText::new(&server.name).small();
        if server.given {
            ui.label(text).on_hover_text(format!("{} ({})", server.name, server.transport));
        } else {
            let why = trf(lang, Key::McpNotTaken, &[("agent", &agent.config.name), ("transport", &server.transport)]);
            ui.label(text.strikethrough().weak()).on_hover_text(why);
        }
    }
}
