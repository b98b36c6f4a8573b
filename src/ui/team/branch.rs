//! "Commit as branch…" on the team page: the member's work becomes a branch of the project, with
//! a name and a message the person can change (prefilled from the member's conversation); the
//! person's checkout is not touched.

use egui::RichText;

use crate::app::AppState;
use crate::app::teams_state::TeamState;
use crate::model::config::Language;
use crate::model::conversation::Role;
use crate::protocol::teams::{MemberCopy, TeamCommand};
use crate::ui::i18n::{Key, team_error_text, tr, trf};
use crate::ui::theme::{error_color, ok_color};

/// The form, open for one member.
#[derive(Clone, Debug, Default)]
pub struct BranchForm {
    /// The team (its id) and the member.
    pub member: (String, String),
    name: String,
    message: String,
}

impl BranchForm {
    /// The form for `agent` of team `team`: `sidekicks/<agent>`, and a message from what the
    /// person last asked the member.
    pub fn new(state: &AppState, team: &str, agent: &str) -> Self {
        let asked = state
            .agent(agent)
            .and_then(|a| a.conversation.messages.iter().rev().find(|m| m.role == Role::User).map(|m| m.text()));
        let title = asked
            .as_deref()
            .and_then(|t| t.lines().find(|l| !l.trim().is_empty()))
            .map(|l| l.trim().chars().take(72).collect::<String>())
            .unwrap_or_else(|| format!("Work of {agent}"));
        // `Ada · docs` → `ada-docs`.
        let dashed: String = agent
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c.to_ascii_lowercase() } else { '-' })
            .collect();
        let slug = dashed.split('-').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-");
        Self {
            member: (team.to_string(), agent.to_string()),
            name: format!("sidekicks/{slug}"),
            message: format!("{title}\n\nMade by {agent} with Sidekicks."),
        }
    }
}

/// The form of `member` when it is open; the command when the person commits.
pub fn form_ui(
    ui: &mut egui::Ui,
    lang: Language,
    form: &mut Option<BranchForm>,
    member: &MemberCopy,
    team: &str,
) -> Option<TeamCommand> {
    let open = form.as_ref().is_some_and(|f| f.member == (team.to_string(), member.name.clone()));
    if !open {
        return None;
    }
    let f = form.as_mut()?;
    let mut command = None;
    let mut close = false;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        egui::Grid::new(("branch-form", team, &member.name)).num_columns(2).show(ui, |ui| {
            ui.label(tr(lang, Key::BranchName));
            ui.add(egui::TextEdit::singleline(&mut f.name).desired_width(320.0));
            ui.end_row();
            ui.label(tr(lang, Key::BranchMessage));
            ui.add(egui::TextEdit::multiline(&mut f.message).desired_rows(3).desired_width(480.0));
            ui.end_row();
        });
        ui.horizontal(|ui| {
            let ready = !f.name.trim().is_empty() && !f.message.trim().is_empty();
            if ui.add_enabled(ready, egui::Button::new(tr(lang, Key::MakeBranch))).clicked() {
                command = Some(TeamCommand::CommitBranch {
                    team: team.to_string(),
                    member: member.name.clone(),
                    branch: f.name.trim().to_string(),
                    message: f.message.trim().to_string(),
                });
                close = true;
            }
            if ui.button(tr(lang, Key::Cancel)).clicked() {
                close = true;
            }
        });
    });
    if close {
        *form = None;
    }
    command
}

/// The latest "Commit as branch" of `agent`: the branch made, or why not.
pub fn result_ui(ui: &mut egui::Ui, lang: Language, team: &TeamState, agent: &str) {
    match team.branches.get(agent) {
        Some((branch, Ok(commit))) => {
            let short: String = commit.chars().take(8).collect();
            ui.label(
                RichText::new(trf(lang, Key::BranchMade, &[("branch", branch), ("commit", &short)])).color(ok_color()),
            );
        }
        Some((_, Err(e))) => {
            ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
        }
        None => {}
    }
}
