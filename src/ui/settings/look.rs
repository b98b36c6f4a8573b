//! The window's theme and language, chosen in the window (Settings, and the palette): written into
//! the config's `[defaults]` by the runtime (the file stays the one place they are set, its
//! comments and layout kept), then applied as any change of the file is.

use crate::app::{AppState, Command, ConfigCommand};
use crate::model::config::{Language, Theme};
use crate::ui::i18n::{Key, tr};

/// The words of a theme.
pub fn theme_key(theme: Theme) -> Key {
    match theme {
        Theme::System => Key::ThemeSystem,
        Theme::Light => Key::ThemeLight,
        Theme::Dark => Key::ThemeDark,
    }
}

/// A language's own name; `None`: the system's, in `lang`.
pub fn language_name(lang: Language, language: Option<Language>) -> String {
    match language {
        Some(Language::En) => "English".into(),
        Some(Language::Fr) => "Français".into(),
        None => tr(lang, Key::LanguageSystem).into(),
    }
}

/// The command that writes `[defaults] key = value` into the config file shown.
pub fn set_default(state: &AppState, key: &str, value: &str) -> Option<Command> {
    let path = state.config_path.clone()?;
    Some(Command::Config(ConfigCommand::SetDefault { path, key: key.into(), value: value.into() }))
}

/// "Theme [▾]  Language [▾]": the command of a choice made.
pub fn look_ui(ui: &mut egui::Ui, lang: Language, state: &AppState) -> Option<Command> {
    let mut asked = None;
    let theme = state.config.as_ref().map(|c| c.defaults.theme).unwrap_or_default();
    ui.horizontal(|ui| {
        ui.label(tr(lang, Key::ThemeLabel));
        egui::ComboBox::from_id_salt("settings-theme").selected_text(tr(lang, theme_key(theme))).show_ui(ui, |ui| {
            for choice in Theme::ALL {
                if ui.selectable_label(choice == theme, tr(lang, theme_key(choice))).clicked() && choice != theme {
                    asked = set_default(state, "theme", choice.code());
                }
            }
        });
        ui.add_space(12.0);
        ui.label(tr(lang, Key::LanguageLabel));
        // As the file says: a language, or none (the system's).
        let now = state.config.as_ref().and_then(|c| c.defaults.language);
        egui::ComboBox::from_id_salt("settings-language").selected_text(language_name(lang, now)).show_ui(ui, |ui| {
            for choice in [None, Some(Language::En), Some(Language::Fr)] {
                if ui.selectable_label(choice == now, language_name(lang, choice)).clicked() && choice != now {
                    asked = set_default(state, "language", choice.map_or("", |l| l.code()));
                }
            }
        });
        ui.label(egui::RichText::new(tr(lang, Key::LookHint)).small().weak());
    });
    asked
}
