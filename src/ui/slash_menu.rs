//! The `/` menu of the composer: while a command's name is typed, the agent's matching commands
//! show above the text box with their descriptions and input hints. Arrows move, Tab or Enter
//! completes (`/name `), Esc closes, a click completes.

use egui::{Key, Modifiers, RichText};

use crate::model::session_config::{SlashCommand, completions};

/// What the menu remembers between frames (in egui's memory, by the composer's id).
#[derive(Clone, Default)]
struct MenuState {
    selected: usize,
    /// Closed with Esc for this text.
    closed_for: Option<String>,
}

/// Handles the menu's keys before the text box sees them; true when the menu is open (Enter
/// then completes instead of sending).
pub fn keys(
    ui: &mut egui::Ui,
    composer: egui::Id,
    focused: bool,
    draft: &mut String,
    offered: &[SlashCommand],
) -> bool {
    let matches = completions(draft, offered);
    let id = composer.with("slash-menu");
    let mut state: MenuState = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    let open = focused && !matches.is_empty() && state.closed_for.as_deref() != Some(draft.as_str());
    if !open {
        return false;
    }
    state.selected = state.selected.min(matches.len() - 1);
    let (down, up, tab, enter, escape) = menu_keys(ui);
    if down {
        state.selected = (state.selected + 1) % matches.len();
    }
    if up {
        state.selected = (state.selected + matches.len() - 1) % matches.len();
    }
    if escape {
        state.closed_for = Some(draft.clone());
    }
    if tab || enter {
        complete(ui, composer, draft, &matches[state.selected].name);
        state.selected = 0;
    }
    ui.data_mut(|d| d.insert_temp(id, state));
    true
}

/// The keys a completion list takes before the text box: (down, up, Tab, Enter, Esc).
pub fn menu_keys(ui: &mut egui::Ui) -> (bool, bool, bool, bool, bool) {
    ui.input_mut(|i| {
        (
            i.consume_key(Modifiers::NONE, Key::ArrowDown),
            i.consume_key(Modifiers::NONE, Key::ArrowUp),
            i.consume_key(Modifiers::NONE, Key::Tab),
            i.consume_key(Modifiers::NONE, Key::Enter),
            i.consume_key(Modifiers::NONE, Key::Escape),
        )
    })
}

/// Draws the menu when it is open.
pub fn menu_ui(ui: &mut egui::Ui, composer: egui::Id, focused: bool, draft: &mut String, offered: &[SlashCommand]) {
    let matches = completions(draft, offered);
    let id = composer.with("slash-menu");
    let state: MenuState = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    if !focused || matches.is_empty() || state.closed_for.as_deref() == Some(draft.as_str()) {
        return;
    }
    let mut picked = None;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        for (i, command) in matches.iter().enumerate() {
            ui.horizontal(|ui| {
                let row = ui.selectable_label(i == state.selected.min(matches.len() - 1), format!("/{}", command.name));
                ui.label(RichText::new(&command.description).small());
                if let Some(hint) = &command.hint {
                    ui.label(RichText::new(format!("[{hint}]")).small().weak());
                }
                if row.clicked() {
                    picked = Some(command.name.clone());
                }
            });
        }
    });
    if let Some(name) = picked {
        complete(ui, composer, draft, &name);
        ui.memory_mut(|m| m.request_focus(composer));
    }
}

/// Replaces the draft with `/name ` and puts the cursor after it.
fn complete(ui: &egui::Ui, composer: egui::Id, draft: &mut String, name: &str) {
    *draft = format!("/{name} ");
    if let Some(mut text) = egui::TextEdit::load_state(ui.ctx(), composer) {
        let end = egui::text::CCursor::new(draft.chars().count());
        text.cursor.set_char_range(Some(egui::text::CCursorRange::one(end)));
        text.store(ui.ctx(), composer);
    }
}
