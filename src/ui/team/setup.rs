//! The recipe's commands on the team page: a member's ports and its setup command — the output as
//! it comes (a small terminal-like box), whether it runs, failed (the member then stays out of its
//! copy) or succeeded, with "Run setup again" — and the check after the team's last merge, with
//! "Undo merge" when it failed.

use egui::RichText;

use crate::app::Command;
use crate::app::teams_state::TeamState;
use crate::model::config::Language;
use crate::protocol::teams::{MemberCopy, TeamCommand};
use crate::ui::i18n::{Key, tr, trf};
use crate::ui::theme::{error_color, ok_color};

/// Draws member `member`'s environment; returns the command asked for.
pub fn setup_ui(ui: &mut egui::Ui, lang: Language, team: &TeamState, member: &MemberCopy) -> Option<Command> {
    let agent = &member.name;
    if let Some(c) = &member.container {
        let path = c.workspace_path.display().to_string();
        let line = trf(lang, Key::InMemberContainer, &[("name", &c.name), ("from", &c.from), ("path", &path)]);
        ui.label(RichText::new(line).weak());
    }
    if !member.env.is_empty() {
        let vars: Vec<String> = member.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        ui.label(RichText::new(trf(lang, Key::MemberPorts, &[("vars", &vars.join(", "))])).weak());
    }
    let setup = team.setup.get(agent);
    if member.ready && setup.is_none() {
        return None;
    }
    let mut asked = None;
    ui.horizontal(|ui| match setup {
        Some(s) if s.running => {
            ui.spinner();
            ui.label(trf(lang, Key::SetupRunning, &[("member", agent)]));
        }
        _ if member.ready => {
            ui.label(RichText::new(tr(lang, Key::SetupDone)).color(ok_color()));
        }
        other => {
            let why =
                other.and_then(|s| s.failed.clone()).unwrap_or_else(|| tr(lang, Key::SetupUnfinished).to_string());
            ui.label(
                RichText::new(trf(lang, Key::SetupFailed, &[("member", agent), ("why", &why)])).color(error_color()),
            );
            if ui.button(tr(lang, Key::SetupAgain)).clicked() {
                let command = TeamCommand::Setup { team: team.info.record.id.clone(), member: member.name.clone() };
                asked = Some(Command::Team(Box::new(command)));
            }
        }
    });
    if let Some(s) = setup.filter(|s| !s.output.is_empty()) {
        output_box(ui, ("setup-output", agent), &s.shown);
    }
    asked
}

/// What a command wrote (escapes stripped), in a small box that follows its end.
fn output_box(ui: &mut egui::Ui, id: impl std::hash::Hash + std::fmt::Debug, text: &str) {
    egui::Frame::new().fill(ui.visuals().extreme_bg_color).inner_margin(6.0).show(ui, |ui| {
        egui::ScrollArea::vertical().id_salt(id).max_height(160.0).stick_to_bottom(true).show(ui, |ui| {
            ui.add(egui::Label::new(RichText::new(text).monospace()).wrap());
        });
    });
}

/// A recipe a member wrote, not used until the person accepts it: who wrote it, and the button;
/// then what accepting did.
fn recipe_ui(ui: &mut egui::Ui, lang: Language, team: &TeamState) -> Option<Command> {
    let mut asked = None;
    if let Some(member) = &team.recipe_from {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(trf(lang, Key::RecipeFromMember, &[("member", member)])).color(error_color()));
            if ui.button(tr(lang, Key::AcceptRecipe)).clicked() {
                let accept = TeamCommand::AcceptRecipe { team: team.info.record.id.clone() };
                asked = Some(Command::Team(Box::new(accept)));
            }
        });
        // What accepting it would let run, seen before the click.
        for command in &team.recipe_commands {
            ui.label(RichText::new(command).monospace());
        }
    }
    match &team.recipe_accepted {
        Some(Ok(Some(member))) => {
            ui.label(RichText::new(trf(lang, Key::RecipeAccepted, &[("member", member)])).color(ok_color()));
        }
        Some(Err(e)) => {
            ui.label(RichText::new(crate::i18n::team_error_text(lang, e)).color(error_color()));
        }
        _ => {}
    }
    asked
}

/// The check after the team's last merge, and a recipe waiting to be accepted; returns the
/// command asked for (Undo merge, Accept recipe).
pub fn check_ui(ui: &mut egui::Ui, lang: Language, team: &TeamState) -> Option<Command> {
    let accept = recipe_ui(ui, lang, team);
    // A check not run for a member's recipe is said by the recipe's line above.
    let Some((agent, check)) = team.check.as_ref().filter(|_| team.recipe_from.is_none()) else { return accept };
    let mut asked = accept;
    ui.horizontal(|ui| {
        if check.running {
            ui.spinner();
            ui.label(trf(lang, Key::CheckRunning, &[("member", agent)]));
        } else if let Some(why) = &check.failed {
            ui.label(
                RichText::new(trf(lang, Key::CheckFailed, &[("member", agent), ("why", why)])).color(error_color()),
            );
            let member = team.member(agent).filter(|_| team.info.undoable.as_ref() == Some(agent));
            if let Some(member) = member
                && ui.button(tr(lang, Key::UndoMerge)).on_hover_text(tr(lang, Key::UndoMergeHint)).clicked()
            {
                let undo = TeamCommand::UndoMerge { team: team.info.record.id.clone(), member: member.name.clone() };
                asked = Some(Command::Team(Box::new(undo)));
            }
        } else {
            ui.label(RichText::new(trf(lang, Key::CheckPassed, &[("member", agent)])).color(ok_color()));
        }
    });
    if !check.output.is_empty() {
        output_box(ui, ("check-output", agent), &check.shown);
    }
    asked
}
