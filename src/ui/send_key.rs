//! The key that sends a composer's text, per `defaults.send_with`: Enter (Shift+Enter makes a
//! new line) or Ctrl+Enter / Cmd+Enter (Enter makes a new line). Modifiers are compared exactly,
//! so Shift+Enter never sends.

use egui::{Event, Key, Modifiers};

use crate::i18n::{Key as Words, tr};
use crate::model::config::{Language, SendKey};

/// Makes `with` the sending key of every composer from this frame on (the window sets it from the
/// config each frame).
pub fn set(ctx: &egui::Context, with: SendKey) {
    ctx.data_mut(|d| d.insert_temp(egui::Id::unique("send-with"), with));
}

/// The sending key set for this frame.
pub fn get(ui: &egui::Ui) -> SendKey {
    ui.data(|d| d.get_temp(egui::Id::unique("send-with"))).unwrap_or_default()
}

/// Takes the sending key press out of this frame's input (before the text box sees it); true
/// when there was one.
pub fn take(ui: &egui::Ui, with: SendKey) -> bool {
    let wanted = match with {
        SendKey::Enter => Modifiers::NONE,
        SendKey::CtrlEnter => Modifiers::COMMAND,
    };
    ui.input_mut(|i| {
        let found = i.events.iter().position(|e| {
            matches!(e, Event::Key { key: Key::Enter, pressed: true, modifiers, .. } if modifiers.matches_exact(wanted))
        });
        found.map(|at| i.events.remove(at)).is_some()
    })
}

/// How to send and how to make a new line, in words (the composers' hints end with it).
pub fn hint(lang: Language, with: SendKey) -> &'static str {
    match with {
        SendKey::Enter => tr(lang, Words::SendWithEnter),
        SendKey::CtrlEnter => tr(lang, Words::SendWithCtrlEnter),
    }
}
