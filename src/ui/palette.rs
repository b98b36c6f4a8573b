//! The command palette (Ctrl+K or Ctrl+Shift+P): every action of the window, found by typing
//! (fuzzy), with its shortcut; arrows move, Enter runs, Esc closes.

use egui::{Key as EguiKey, Modifiers, RichText};

use super::i18n::{Key, tr, trf};
use crate::app::AppState;
use crate::model::fuzzy::score;

/// What the palette can do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Show an agent's conversation.
    Agent(String),
    /// Show a channel.
    Channel(String),
    /// Show a team (its id).
    Team(String),
    /// Switch the shown agent to a thread.
    Thread(i64),
    /// Start, stop or restart the shown agent.
    Start,
    /// Stop it.
    Stop,
    /// Restart it.
    Restart,
    /// A new thread with the shown agent.
    NewThread,
    /// The new-team form.
    NewTeam,
    /// Best of N's form.
    TryAgents,
    /// The settings.
    Settings,
    /// "Get agents": the ACP Registry's agents.
    GetAgents,
    /// Every thread of every agent.
    AllThreads,
    /// Open another config file.
    OpenConfig,
    /// The inbox.
    Inbox,
    /// Put the keyboard in the composer.
    FocusComposer,
    /// Find in the conversation shown.
    Find,
    /// Search every stored conversation.
    Search,
    /// The About box.
    About,
    /// A page of the shown agent (its files, terminal, log…).
    Page(super::agent_header::Page),
    /// Review a team member's work (team id, member).
    Review(String, String),
    /// Merge all of a member's work (team id, member).
    Merge(String, String),
    /// Undo the team's last merge (team id, member whose merge it was).
    UndoMerge(String, String),
    /// Discard a team: its page, with the question asked (team id).
    Discard(String),
    /// The window's theme (written into the config's `[defaults]`).
    Theme(crate::model::config::Theme),
    /// The window's language (written into the config's `[defaults]`; `None`: the system's).
    Language(Option<crate::model::config::Language>),
    /// Start an agent that is not running (its name).
    StartAgent(String),
    /// Zoom in (`1`), out (`-1`), or back to 100 % (`0`).
    Zoom(i8),
}

/// The palette's own state.
#[derive(Clone, Debug, Default)]
pub struct Palette {
    /// Shown.
    pub open: bool,
    query: String,
    selected: usize,
}

/// The palette's shortcuts (Ctrl+K, Ctrl+Shift+P).
pub fn opened(ctx: &egui::Context) -> bool {
    let k = egui::KeyboardShortcut::new(Modifiers::COMMAND, EguiKey::K);
    let p = egui::KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, EguiKey::P);
    ctx.input_mut(|i| i.consume_shortcut(&k) || i.consume_shortcut(&p))
}

/// Every action, with its words and shortcut, for the state as it is (`agent`: the one shown).
fn actions(state: &AppState, agent: Option<&str>) -> Vec<(Action, String, &'static str)> {
    let lang = state.language;
    let mut all = Vec::new();
    for (i, a) in state.agents.iter().enumerate() {
        let shortcut = ["Alt+1", "Alt+2", "Alt+3", "Alt+4", "Alt+5", "Alt+6", "Alt+7", "Alt+8", "Alt+9"];
        let words = trf(lang, Key::PaletteAgent, &[("agent", &a.config.name)]);
        all.push((Action::Agent(a.config.name.clone()), words, shortcut.get(i).copied().unwrap_or("")));
    }
    // Any agent not running can be started from here (not only the one shown).
    for a in state.agents.iter().filter(|a| Some(a.config.name.as_str()) != agent) {
        if matches!(a.state, crate::app::AgentState::Stopped | crate::app::AgentState::Crashed(_)) {
            let words = trf(lang, Key::PaletteStart, &[("agent", &a.config.name)]);
            all.push((Action::StartAgent(a.config.name.clone()), words, ""));
        }
    }
    for c in &state.channels.channels {
        all.push((Action::Channel(c.name.clone()), trf(lang, Key::PaletteChannel, &[("channel", &c.title)]), ""));
    }
    for t in &state.teams.teams {
        let words = trf(lang, Key::PaletteTeam, &[("team", &t.info.record.name)]);
        all.push((Action::Team(t.info.record.id.clone()), words, ""));
        let (id, team) = (&t.info.record.id, &t.info.record.name);
        for (agent, copy) in &t.info.members {
            if copy.is_ok() {
                let words = trf(lang, Key::PaletteReview, &[("agent", agent), ("team", team)]);
                all.push((Action::Review(id.clone(), agent.clone()), words, ""));
            }
            // Only a member with work to merge (its change list read, not empty).
            if matches!(t.changes.get(agent), Some(Ok(c)) if !c.is_empty()) && !t.busy.contains(agent) {
                let words = trf(lang, Key::PaletteMerge, &[("agent", agent), ("team", team)]);
                all.push((Action::Merge(id.clone(), agent.clone()), words, ""));
            }
        }
        if let Some(agent) = &t.info.undoable {
            let words = trf(lang, Key::PaletteUndoMerge, &[("agent", agent), ("team", team)]);
            all.push((Action::UndoMerge(id.clone(), agent.clone()), words, ""));
        }
        all.push((Action::Discard(id.clone()), trf(lang, Key::PaletteDiscard, &[("team", team)]), ""));
    }
    if let Some(view) = agent.and_then(|a| state.agent(a)) {
        for t in &view.threads.list {
            if Some(t.id) != view.threads.current {
                let title = if t.title.is_empty() { tr(lang, Key::UntitledThread) } else { t.title.as_str() };
                all.push((Action::Thread(t.id), trf(lang, Key::PaletteThread, &[("title", title)]), ""));
            }
        }
        let name = view.config.name.as_str();
        all.push((Action::NewThread, trf(lang, Key::PaletteNewThread, &[("agent", name)]), "Ctrl+N"));
        // Start while it is not running; Stop and Restart while it is.
        use crate::app::AgentState as S;
        match view.state {
            S::Stopped | S::Crashed(_) => {
                all.push((Action::Start, trf(lang, Key::PaletteStart, &[("agent", name)]), ""));
            }
            S::Starting | S::Idle | S::Busy => {
                all.push((Action::Stop, trf(lang, Key::PaletteStop, &[("agent", name)]), ""));
                all.push((Action::Restart, trf(lang, Key::PaletteRestart, &[("agent", name)]), ""));
            }
            S::Stopping => {}
        }
        for page in super::agent_header::Page::ALL {
            let words = trf(lang, Key::PalettePage, &[("agent", name), ("page", tr(lang, page.key()))]);
            all.push((Action::Page(page), words, ""));
        }
        all.push((Action::FocusComposer, tr(lang, Key::PaletteFocus).to_string(), ""));
        all.push((Action::Find, tr(lang, Key::FindHint).to_string(), "Ctrl+F"));
    }
    all.push((Action::Inbox, tr(lang, Key::Inbox).to_string(), "Ctrl+Shift+I"));
    all.push((Action::Search, tr(lang, Key::PaletteSearch).to_string(), "Ctrl+Shift+F"));
    all.push((Action::NewTeam, tr(lang, Key::NewTeam).to_string(), ""));
    all.push((Action::TryAgents, tr(lang, Key::TryAgents).to_string(), ""));
    all.push((Action::Settings, tr(lang, Key::Settings).to_string(), ""));
    all.push((Action::GetAgents, tr(lang, Key::GetAgents).to_string(), ""));
    all.push((Action::AllThreads, tr(lang, Key::AllThreads).to_string(), ""));
    all.push((Action::OpenConfig, tr(lang, Key::PaletteOpenConfig).to_string(), ""));
    all.push((Action::About, tr(lang, Key::AboutTitle).to_string(), ""));
    all.push((Action::Zoom(1), tr(lang, Key::ZoomIn).to_string(), "Ctrl+="));
    all.push((Action::Zoom(-1), tr(lang, Key::ZoomOut).to_string(), "Ctrl+-"));
    all.push((Action::Zoom(0), tr(lang, Key::ZoomReset).to_string(), "Ctrl+0"));
    if state.config_path.is_some() {
        use crate::model::config::{Language, Theme};
        // The current choice is marked where a shortcut would be.
        let defaults = state.config.as_ref().map(|c| &c.defaults);
        let theme_now = defaults.map(|d| d.theme).unwrap_or_default();
        for theme in Theme::ALL {
            let words = trf(lang, Key::PaletteTheme, &[("theme", tr(lang, super::settings::theme_key(theme)))]);
            all.push((Action::Theme(theme), words, if theme == theme_now { "✓" } else { "" }));
        }
        let language_now = defaults.and_then(|d| d.language);
        for language in [None, Some(Language::En), Some(Language::Fr)] {
            let name = super::settings::language_name(lang, language);
            let words = trf(lang, Key::PaletteLanguage, &[("language", &name)]);
            all.push((Action::Language(language), words, if language == language_now { "✓" } else { "" }));
        }
    }
    all
}

/// The palette, when open; the action chosen.
pub fn palette_ui(ctx: &egui::Context, state: &AppState, agent: Option<&str>, palette: &mut Palette) -> Option<Action> {
    if !palette.open {
        return None;
    }
    let lang = state.language;
    let query = palette.query.to_lowercase();
    let mut found: Vec<(u32, usize, (Action, String, &str))> = actions(state, agent)
        .into_iter()
        .enumerate()
        .filter_map(|(i, a)| score(&a.1, &query).map(|s| (s, i, a)))
        .collect();
    found.sort_by_key(|(s, i, _)| (*s, *i));
    // Letters in order ("theme" in "Show the messages") only when nothing matches better.
    if found.first().is_some_and(|(s, ..)| *s < 2) {
        found.retain(|(s, ..)| *s < 2);
    }
    let (down, up, enter, escape) = ctx.input_mut(|i| {
        (
            i.consume_key(Modifiers::NONE, EguiKey::ArrowDown),
            i.consume_key(Modifiers::NONE, EguiKey::ArrowUp),
            i.consume_key(Modifiers::NONE, EguiKey::Enter),
            i.consume_key(Modifiers::NONE, EguiKey::Escape),
        )
    });
    if !found.is_empty() {
        palette.selected = palette.selected.min(found.len() - 1);
        if down {
            palette.selected = (palette.selected + 1) % found.len();
        }
        if up {
            palette.selected = (palette.selected + found.len() - 1) % found.len();
        }
    }
    let mut chosen = enter.then(|| found.get(palette.selected).map(|f| f.2.0.clone())).flatten();
    egui::Area::new(egui::Id::unique("palette"))
        .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 60.0))
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_width(520.0);
                let edit = ui.add(
                    egui::TextEdit::singleline(&mut palette.query)
                        .id(egui::Id::unique("palette-query"))
                        .hint_text(tr(lang, Key::PaletteHint))
                        .desired_width(f32::INFINITY),
                );
                edit.request_focus();
                if edit.changed() {
                    palette.selected = 0;
                }
                ui.separator();
                // Most of the window's height (it showed three rows at 1100×720).
                let tall = (ctx.content_rect().height() - 160.0).clamp(200.0, 560.0);
                egui::ScrollArea::vertical().max_height(tall).show(ui, |ui| {
                    if found.is_empty() {
                        ui.label(RichText::new(tr(lang, Key::PaletteNothing)).weak());
                    }
                    for (i, (_, _, (action, words, shortcut))) in found.iter().enumerate() {
                        ui.horizontal(|ui| {
                            let row = ui.selectable_label(i == palette.selected, words);
                            if i == palette.selected && (down || up) {
                                row.scroll_to_me(None);
                            }
                            if row.clicked() {
                                chosen = Some(action.clone());
                            }
                            // At the row's right end, the row no taller than its text (a layout from the
                            // right took the whole height: three rows filled the list).
                            if !shortcut.is_empty() {
                                let text = RichText::new(*shortcut).small().weak();
                                let width = egui::WidgetText::from(text.clone())
                                    .into_galley(
                                        ui,
                                        Some(egui::TextWrapMode::Extend),
                                        f32::INFINITY,
                                        egui::TextStyle::Small,
                                    )
                                    .size()
                                    .x;
                                ui.add_space((ui.available_width() - width).max(8.0));
                                ui.label(text);
                            }
                        });
                    }
                });
            });
        });
    if chosen.is_some() || escape {
        *palette = Palette::default();
    }
    chosen
}
