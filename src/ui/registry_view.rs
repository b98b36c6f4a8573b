//! "Get agents": the ACP Registry's agents — icon, name, description, version, licence,
//! how each runs here — with Add, Update and Remove, and a download's progress. Reading the index,
//! downloading and writing the config are the runtime's (`Command::Registry`).

use std::sync::Arc;

use egui::{Color32, RichText};

use crate::app::AppState;
use crate::app::registry_state::{EntryState, Op, entry_state};
use crate::i18n::{Key, tr, trf};
use crate::model::config::Language;
use crate::model::registry::{Entry, IconMask, this_platform};
use crate::protocol::Command;
use crate::protocol::registry::RegistryCommand;

use super::theme::{error_color, ok_color};

/// What the page keeps between frames.
#[derive(Default)]
pub struct RegistryPage {
    /// The index was asked for since the page was opened.
    pub asked: bool,
    /// The agent whose removal waits for the person's yes.
    confirm_remove: Option<String>,
    /// What the search box holds.
    search: String,
    /// The person asked to go to Settings (`Some(true)`: with the form to add an agent by hand).
    to_settings: Option<bool>,
}

impl RegistryPage {
    /// Where the person asked to go from the page (Settings, with the new agent's form or not).
    pub fn take_settings(&mut self) -> Option<bool> {
        self.to_settings.take()
    }
}

/// Draws the page; the commands it asks for. Asks for the index the first time it is shown.
pub fn registry_ui(ui: &mut egui::Ui, state: &AppState, page: &mut RegistryPage) -> Vec<Command> {
    let lang = state.language;
    let mut commands = Vec::new();
    let Some(config) = state.config_path.clone() else {
        ui.label(tr(lang, Key::RegistryNoConfig));
        return commands;
    };
    let registry = &state.registry;
    if !page.asked {
        page.asked = true;
        commands.push(Command::Registry(RegistryCommand::List { config: config.clone(), icons: true }));
    }
    ui.horizontal(|ui| {
        ui.heading(tr(lang, Key::GetAgents));
        if registry.reading {
            ui.spinner();
        } else if ui.button(tr(lang, Key::Refresh)).clicked() {
            commands.push(Command::Registry(RegistryCommand::List { config: config.clone(), icons: true }));
        }
    });
    match (&registry.listing, &registry.error) {
        (Some(listing), _) => {
            let age = age_text(lang, listing.age());
            let line = match &listing.stale {
                Some(why) => trf(lang, Key::RegistryOffline, &[("age", &age), ("why", why)]),
                None => trf(lang, Key::RegistryIntro, &[("url", &listing.url), ("age", &age)]),
            };
            let color =
                if listing.stale.is_some() { super::theme::warning_color() } else { ui.visuals().weak_text_color() };
            ui.label(RichText::new(line).color(color));
        }
        (None, Some(why)) => {
            if let Some(command) = offline_ui(ui, lang, why, registry.failed_reads, page, &config) {
                commands.push(command);
            }
        }
        (None, None) => {
            ui.label(tr(lang, Key::RegistryReading));
        }
    }
    ui.separator();
    let Some(listing) = &registry.listing else { return commands };
    ui.horizontal(|ui| {
        ui.label(tr(lang, Key::RegistrySearch));
        ui.add(egui::TextEdit::singleline(&mut page.search).desired_width(260.0).hint_text("claude, gemini, uvx…"));
    });
    let shown: Vec<&Entry> = listing.index.agents.iter().filter(|e| matches(e, &page.search)).collect();
    egui::ScrollArea::vertical().id_salt("registry-scroll").auto_shrink([false, false]).show(ui, |ui| {
        if shown.is_empty() {
            ui.label(RichText::new(trf(lang, Key::RegistryNoMatch, &[("words", page.search.trim())])).weak());
        }
        for entry in shown {
            entry_ui(ui, lang, state, entry, &config, page, &mut commands);
            ui.separator();
        }
    });
    commands
}

/// Whether `entry` answers the search box: every word in its name, id, description or how it
/// runs here (case ignored).
fn matches(entry: &Entry, search: &str) -> bool {
    let how = entry.how(this_platform()).map(|h| h.kind().to_string()).unwrap_or_default();
    let text = format!("{} {} {} {how}", entry.name, entry.id, entry.description).to_lowercase();
    search.split_whitespace().all(|word| text.contains(&word.to_lowercase()))
}

/// No index and no copy of one: what happened in the window's language (the download's own words
/// under it), and what the person can do — add an agent by hand, set a mirror, try again.
fn offline_ui(
    ui: &mut egui::Ui,
    lang: Language,
    why: &str,
    failed: u32,
    page: &mut RegistryPage,
    config: &std::path::Path,
) -> Option<Command> {
    let mut asked = None;
    ui.label(RichText::new(tr(lang, Key::RegistryUnreadableTitle)).strong().color(error_color()));
    ui.label(RichText::new(why).small().weak());
    ui.add_space(6.0);
    ui.label(tr(lang, Key::RegistryWhatNow));
    ui.horizontal_wrapped(|ui| {
        if ui.button(tr(lang, Key::RegistryByHand)).clicked() {
            page.to_settings = Some(true);
        }
        ui.label(RichText::new(tr(lang, Key::RegistryByHandHint)).small().weak());
    });
    ui.horizontal_wrapped(|ui| {
        if ui.button(tr(lang, Key::RegistryMirror)).clicked() {
            page.to_settings = Some(false);
        }
        ui.label(RichText::new(tr(lang, Key::RegistryMirrorHint)).small().weak());
    });
    ui.horizontal(|ui| {
        if ui.button(tr(lang, Key::RegistryRetry)).clicked() {
            asked = Some(Command::Registry(RegistryCommand::List { config: config.to_path_buf(), icons: true }));
        }
        // A retry that fails at once is said: the page looked the same and nothing seemed to happen.
        if failed > 1 {
            let count = failed.to_string();
            ui.label(RichText::new(trf(lang, Key::RegistryTriedAgain, &[("count", &count)])).small().weak());
        }
    });
    asked
}

fn entry_ui(
    ui: &mut egui::Ui,
    lang: Language,
    state: &AppState,
    entry: &Entry,
    config: &std::path::Path,
    page: &mut RegistryPage,
    commands: &mut Vec<Command>,
) {
    let how = entry.how(this_platform());
    let status = entry_state(entry, state.config.as_ref());
    let busy = state.registry.busy.get(&entry.id);
    ui.horizontal(|ui| {
        badge(ui, entry, state.registry.icons.get(&entry.id));
        ui.vertical(|ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(&entry.name).strong());
                ui.label(RichText::new(&entry.version).weak());
                let license = entry.license.as_deref().unwrap_or(tr(lang, Key::RegistryNoLicence));
                ui.label(RichText::new(license).small().weak());
                let runs = match &how {
                    Some(h) => trf(lang, Key::RegistryRunsWith, &[("how", how_words(lang, h.kind()))]),
                    None => tr(lang, Key::RegistryNotHere).to_string(),
                };
                ui.label(RichText::new(runs).small().weak());
            });
            if !entry.description.is_empty() {
                ui.label(&entry.description);
            }
            // What the last add, update or remove of this entry did, on its own row.
            if let Some((id, op, result)) = &state.registry.last
                && *id == entry.id
                && busy.is_none()
            {
                ui.label(outcome(lang, *op, result));
            }
            ui.horizontal_wrapped(|ui| {
                if let Some((received, total)) = busy {
                    progress_ui(ui, lang, *received, *total);
                    return;
                }
                let id = entry.id.clone();
                let config = config.to_path_buf();
                match &status {
                    EntryState::NotAdded => {
                        let add = ui.add_enabled(how.is_some(), egui::Button::new(tr(lang, Key::RegistryAdd)));
                        if add.clicked() {
                            commands.push(Command::Registry(RegistryCommand::Add {
                                config,
                                id,
                                name: None,
                                workspace: None,
                            }));
                        }
                    }
                    EntryState::Added(names) | EntryState::Update(names, _) => {
                        let names = names.join(", ");
                        ui.label(
                            RichText::new(trf(lang, Key::RegistryAddedAs, &[("names", &names)])).color(ok_color()),
                        );
                        if let EntryState::Update(_, old) = &status {
                            let label = trf(lang, Key::RegistryUpdate, &[("from", old), ("version", &entry.version)]);
                            if ui.button(label).clicked() {
                                commands.push(Command::Registry(RegistryCommand::Update {
                                    config: config.clone(),
                                    id: Some(id.clone()),
                                }));
                            }
                        }
                        if let EntryState::Added(list) | EntryState::Update(list, _) = &status {
                            for name in list {
                                let label = trf(lang, Key::RegistryRemove, &[("name", name)]);
                                if ui.button(label).clicked() {
                                    page.confirm_remove = Some(name.clone());
                                }
                            }
                        }
                    }
                }
            });
            let asked = page.confirm_remove.clone().filter(|n| status_names(&status).contains(n));
            if let Some(name) = asked {
                ui.horizontal_wrapped(|ui| {
                    let question = trf(lang, Key::RegistryConfirmRemove, &[("name", &name)]);
                    ui.label(RichText::new(question).color(super::theme::warning_color()));
                    if ui.button(tr(lang, Key::RegistryConfirmRemoveYes)).clicked() {
                        let (config, id) = (config.to_path_buf(), entry.id.clone());
                        commands.push(Command::Registry(RegistryCommand::Remove { config, id, name }));
                        page.confirm_remove = None;
                    }
                    if ui.button(tr(lang, Key::Cancel)).clicked() {
                        page.confirm_remove = None;
                    }
                });
            }
        });
    });
}

/// The names an entry's agents have in the config.
fn status_names(status: &EntryState) -> &[String] {
    match status {
        EntryState::NotAdded => &[],
        EntryState::Added(names) | EntryState::Update(names, _) => names,
    }
}

/// What an add, update or remove did, or why not, in words and colour.
fn outcome(lang: Language, op: Op, result: &Result<String, String>) -> RichText {
    let (key, arg, text, color) = match (op, result) {
        (Op::Add, Ok(what)) => (Key::RegistryAdded, "what", what, ok_color()),
        (Op::Update, Ok(what)) => (Key::RegistryUpdated, "what", what, ok_color()),
        (Op::Remove, Ok(what)) => (Key::RegistryRemoved, "what", what, ok_color()),
        (Op::Add, Err(why)) => (Key::RegistryAddFailed, "why", why, error_color()),
        (Op::Update, Err(why)) => (Key::RegistryUpdateFailed, "why", why, error_color()),
        (Op::Remove, Err(why)) => (Key::RegistryRemoveFailed, "why", why, error_color()),
    };
    RichText::new(trf(lang, key, &[(arg, text)])).color(color)
}

/// The entry's icon in the text's colour (the registry's icons are `currentColor`); its first
/// letter on a colour of its own until the icon is drawn, or when it cannot be.
fn badge(ui: &mut egui::Ui, entry: &Entry, icon: Option<&Arc<IconMask>>) {
    let size = egui::vec2(28.0, 28.0);
    let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    if let Some(mask) = icon {
        let texture = icon_texture(ui.ctx(), &entry.id, mask);
        let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
        ui.painter().image(texture.id(), rect, uv, ui.visuals().strong_text_color());
        return;
    }
    let hash = entry.id.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let hue = (hash % 360) as f32 / 360.0;
    let fill: Color32 = egui::ecolor::Hsva::new(hue, 0.45, 0.55, 1.0).into();
    ui.painter().rect_filled(rect, 6.0, fill);
    let letter = entry.name.chars().next().unwrap_or('?').to_uppercase().to_string();
    let font = egui::FontId::proportional(16.0);
    ui.painter().text(rect.center(), egui::Align2::CENTER_CENTER, letter, font, Color32::WHITE);
}

/// The texture of entry `id`'s icon, made once per icon drawn and kept in the context's memory.
fn icon_texture(ctx: &egui::Context, id: &str, mask: &Arc<IconMask>) -> egui::TextureHandle {
    let key = egui::Id::unique(("registry-icon", id));
    let kept: Option<(Arc<IconMask>, egui::TextureHandle)> = ctx.data(|d| d.get_temp(key));
    if let Some((drawn, texture)) = kept
        && Arc::ptr_eq(&drawn, mask)
    {
        return texture;
    }
    let side = usize::from(mask.size);
    let pixels = mask.alpha.iter().map(|&a| Color32::from_rgba_premultiplied(a, a, a, a)).collect();
    let image = egui::ColorImage::new([side, side], pixels);
    let texture = ctx.load_texture(format!("registry-icon-{id}"), image, egui::TextureOptions::LINEAR);
    ctx.data_mut(|d| d.insert_temp(key, (mask.clone(), texture.clone())));
    texture
}

fn progress_ui(ui: &mut egui::Ui, lang: Language, received: u64, total: Option<u64>) {
    let size = |b: u64| crate::i18n::size_text(lang, b as usize);
    match total {
        Some(t) if t > 0 => {
            let text = format!("{} / {}", size(received), size(t));
            ui.add(egui::ProgressBar::new(received as f32 / t as f32).desired_width(240.0).text(text));
        }
        _ => {
            ui.spinner();
            ui.label(trf(lang, Key::RegistryWorking, &[("done", &size(received))]));
        }
    }
}

fn how_words(lang: Language, kind: &str) -> &'static str {
    match kind {
        "binary" => tr(lang, Key::RegistryBinary),
        "npx" => "npx (Node.js)",
        _ => "uvx (uv)",
    }
}

/// "3 minutes", "2 heures": how old a copy is, in `lang`.
pub fn age_text(lang: Language, age: std::time::Duration) -> String {
    let s = age.as_secs();
    let (n, key) = match s {
        0..60 => return tr(lang, Key::AgeUnderMinute).to_string(),
        60..3600 => (s / 60, Key::AgeMinutes),
        3600..86_400 => (s / 3600, Key::AgeHours),
        _ => (s / 86_400, Key::AgeDays),
    };
    trf(lang, key, &[("n", &n.to_string())])
}
