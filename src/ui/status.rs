//! The status line (config path, count of problems) and the list of config problems.

use egui::RichText;

use super::i18n::{Key, problem_text, tr, trf};
use super::theme::{error_color, warning_color};
use crate::app::AppState;
use crate::model::problem::Severity;

/// The status line at the bottom of the window: the config file and its problems; how many
/// agents run and work; for the agent `shown`, its workspace's branch and its context use.
pub fn status_ui(ui: &mut egui::Ui, state: &AppState, shown: Option<&str>) {
    let lang = state.language;
    ui.horizontal(|ui| {
        let running = state.agents.iter().filter(|a| a.state.is_running()).count().to_string();
        let busy = state.agents.iter().filter(|a| a.state == crate::app::AgentState::Busy).count().to_string();
        ui.label(RichText::new(trf(lang, Key::StatusRunning, &[("running", &running), ("busy", &busy)])).small());
        ui.separator();
        if let Some(agent) = shown.and_then(|name| state.agent(name)) {
            if let Some(branch) = &agent.branch {
                // No branch checked out: the commit's first digits, said as such.
                let detached = branch.len() == 8 && branch.chars().all(|c| c.is_ascii_hexdigit());
                let words = match detached {
                    true => trf(lang, Key::StatusDetached, &[("commit", branch)]),
                    false => trf(lang, Key::StatusBranch, &[("branch", branch)]),
                };
                ui.label(RichText::new(words).small()).on_hover_text(agent.config.workspace.display().to_string());
                ui.separator();
            }
            if let Some((used, size)) = agent.conversation.usage {
                let percent = (used as f64 * 100.0 / (size.max(1)) as f64).round().to_string();
                let words = trf(
                    lang,
                    Key::StatusContext,
                    &[("used", &thousands(used)), ("size", &thousands(size)), ("percent", &percent)],
                );
                ui.label(RichText::new(words).small());
                ui.separator();
            }
        }
        for (project, (agent, result)) in &state.teams.interrupted {
            if let Err(e) = result {
                // Named until it is finished: the project is half-merged.
                let why = crate::i18n::team_error_text(lang, e);
                let text = trf(lang, Key::InterruptedFailed, &[("agent", agent), ("error", &why)]);
                ui.label(RichText::new(project.display().to_string()).small().color(error_color())).on_hover_text(text);
                ui.separator();
            }
        }
        if let Some(note) = &state.history_note {
            let text = crate::i18n::history_note_text(lang, note);
            ui.label(RichText::new(&text).small().color(warning_color())).on_hover_text(&text);
            ui.separator();
        }
        let path = state.config_path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        ui.label(RichText::new(trf(lang, Key::ConfigFile, &[("path", &path)])).small());
        ui.separator();
        // One count everywhere: while the settings editor holds text not saved, its problems
        // (it said "no problems" beside an editor showing a TOML error).
        let unsaved = state.checked.as_ref().filter(|(text, _)| Some(text) != state.config_text.as_ref());
        match unsaved.map_or(&state.problems, |(_, p)| p) {
            problems if problems.is_empty() => {
                ui.label(RichText::new(tr(lang, Key::NoProblems)).small().weak());
            }
            problems => {
                let count = problems.len().to_string();
                let key = if unsaved.is_some() { Key::ProblemCountUnsaved } else { Key::ProblemCount };
                ui.label(RichText::new(trf(lang, key, &[("count", &count)])).small().color(error_color()));
            }
        }
    });
}

/// The problems of the last load, with line:column, when there are any.
pub fn problems_ui(ui: &mut egui::Ui, state: &AppState) {
    if state.problems.is_empty() {
        return;
    }
    let lang = state.language;
    // Warnings only (a command not found): the config was taken, nothing "stays in force".
    let blocking = state.problems.iter().any(|p| p.severity() == Severity::Error);
    let color = if blocking { error_color() } else { warning_color() };
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.0, color)).show(ui, |ui| {
        ui.label(RichText::new(tr(lang, Key::ProblemsTitle)).strong().color(color));
        for p in &state.problems {
            let text = format!("{}:{}  {}", p.line, p.column, problem_text(lang, &p.kind));
            match p.severity() {
                Severity::Error => ui.label(text),
                Severity::Warning => ui.label(RichText::new(text).color(warning_color())),
            };
        }
        if blocking && state.config.is_some() {
            ui.label(RichText::new(tr(lang, Key::KeptLastGood)).weak());
        }
    });
    ui.add_space(6.0);
}

/// `n` in thousands (`12.3k`), as a status bar has room for.
fn thousands(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..10_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{}k", n / 1000),
    }
}
