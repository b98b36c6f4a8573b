//! The `@` menu of the composer: while a path is typed after `@`, the workspace's matching files
//! and folders show above the text box. Arrows move, Tab or Enter picks (the path goes into the
//! text and the file is attached), Esc closes, a click picks.

use egui::RichText;

use crate::model::mentions::{complete, matches, query};

/// The most entries shown.
const SHOWN: usize = 8;

/// What the menu remembers between frames (in egui's memory, by the composer's id).
#[derive(Clone, Default)]
struct MenuState {
    selected: usize,
    closed_for: Option<String>,
    /// The draft as a pick left it (ending with the space it adds), until the next key: a space
    /// typed then is the person's habit, not a second space wanted (issue 48, item 10).
    completed: Option<String>,
}

/// A path picked: (path, is a folder).
pub type Picked = (String, bool);

/// True when the menu is open for `draft` (the paths may still be on their way).
pub fn is_open(ui: &egui::Ui, composer: egui::Id, focused: bool, draft: &str) -> bool {
    let state: MenuState = ui.data(|d| d.get_temp(composer.with("mention-menu"))).unwrap_or_default();
    focused && query(draft).is_some() && state.closed_for.as_deref() != Some(draft)
}

/// Handles the menu's keys before the text box sees them; returns whether the menu took the
/// keys (open), and the path picked with Enter or Tab.
pub fn keys(
    ui: &mut egui::Ui,
    composer: egui::Id,
    focused: bool,
    draft: &mut String,
    paths: &[(String, bool)],
) -> (bool, Option<Picked>) {
    let id = composer.with("mention-menu");
    swallow_second_space(ui, composer, id, draft);
    if !is_open(ui, composer, focused, draft) {
        return (false, None);
    }
    let found = matches(paths, query(draft).unwrap_or_default(), SHOWN);
    let mut state: MenuState = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    let (down, up, tab, enter, escape) = super::slash_menu::menu_keys(ui);
    let mut picked = None;
    if !found.is_empty() {
        state.selected = state.selected.min(found.len() - 1);
        if down {
            state.selected = (state.selected + 1) % found.len();
        }
        if up {
            state.selected = (state.selected + found.len() - 1) % found.len();
        }
        if tab || enter {
            let (path, dir) = found[state.selected].clone();
            put(ui, composer, draft, &path, dir);
            // (`put` remembered it; this frame's state is written last.)
            state.completed = Some(draft.clone());
            picked = Some((path, dir));
            state.selected = 0;
        }
    }
    if escape {
        state.closed_for = Some(draft.clone());
    }
    ui.data_mut(|d| d.insert_temp(id, state));
    (true, picked)
}

/// After a pick (which ends with a space), a space typed at once is not doubled.
fn swallow_second_space(ui: &egui::Ui, composer: egui::Id, id: egui::Id, draft: &mut String) {
    let mut state: MenuState = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    let Some(done) = state.completed.take() else { return };
    if *draft == done {
        // Nothing typed yet: still waiting for the next key.
        state.completed = Some(done);
    } else if draft.strip_suffix(' ') == Some(done.as_str()) {
        draft.pop();
        set_cursor_at_end(ui, composer, draft);
    }
    ui.data_mut(|d| d.insert_temp(id, state));
}

/// Draws the menu when it is open; returns the path clicked.
pub fn menu_ui(
    ui: &mut egui::Ui,
    composer: egui::Id,
    focused: bool,
    draft: &mut String,
    paths: Option<&Result<Vec<(String, bool)>, String>>,
    searching: &str,
) -> Option<Picked> {
    if !is_open(ui, composer, focused, draft) {
        return None;
    }
    let state: MenuState = ui.data(|d| d.get_temp(composer.with("mention-menu"))).unwrap_or_default();
    let mut picked = None;
    egui::Frame::group(ui.style()).show(ui, |ui| match paths {
        None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(RichText::new(searching).small().weak());
            });
        }
        Some(Err(e)) => {
            ui.label(RichText::new(e).small().weak());
        }
        Some(Ok(paths)) => {
            let found = matches(paths, query(draft).unwrap_or_default(), SHOWN);
            for (i, (path, dir)) in found.iter().enumerate() {
                let slash = if *dir { "/" } else { "" };
                let row = ui.selectable_label(
                    i == state.selected.min(found.len().saturating_sub(1)),
                    RichText::new(format!("@{path}{slash}")).monospace(),
                );
                if row.clicked() {
                    picked = Some((path.clone(), *dir));
                }
            }
        }
    });
    if let Some((path, dir)) = &picked {
        put(ui, composer, draft, path, *dir);
        ui.memory_mut(|m| m.request_focus(composer));
    }
    picked
}

/// Replaces the `@query` with the path and puts the cursor after it.
fn put(ui: &egui::Ui, composer: egui::Id, draft: &mut String, path: &str, dir: bool) {
    *draft = complete(draft, path, dir);
    set_cursor_at_end(ui, composer, draft);
    let id = composer.with("mention-menu");
    let mut state: MenuState = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    state.completed = Some(draft.clone());
    ui.data_mut(|d| d.insert_temp(id, state));
}

fn set_cursor_at_end(ui: &egui::Ui, composer: egui::Id, draft: &str) {
    if let Some(mut text) = egui::TextEdit::load_state(ui.ctx(), composer) {
        let end = egui::text::CCursor::new(draft.chars().count());
        text.cursor.set_char_range(Some(egui::text::CCursorRange::one(end)));
        text.store(ui.ctx(), composer);
    }
}
