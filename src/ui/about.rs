//! The About box: Sidekicks' version, the protocol it speaks, and what each agent said it is when
//! it last started.

use egui::RichText;

use super::i18n::{Key, tr, trf};
use crate::app::AppState;

/// The protocol version Sidekicks speaks (ACP's stable schema).
const PROTOCOL: &str = "ACP 1 (agent-client-protocol 5.2, schema 1.17)";

/// The icon's texture, made once and kept in egui's memory (not again each frame).
fn icon_texture(ctx: &egui::Context) -> egui::TextureHandle {
    let id = egui::Id::unique("sidekicks-icon-texture");
    if let Some(texture) = ctx.data(|d| d.get_temp::<egui::TextureHandle>(id)) {
        return texture;
    }
    let icon = egui::ColorImage::from_rgba_unmultiplied([48, 48], &super::icon::rgba(48));
    let texture = ctx.load_texture("sidekicks-icon", icon, egui::TextureOptions::LINEAR);
    ctx.data_mut(|d| d.insert_temp(id, texture.clone()));
    texture
}

/// Draws the About box while `open`; its Close (or the window's ×) clears `open`.
pub fn about_ui(ctx: &egui::Context, state: &AppState, open: &mut bool) {
    if !*open {
        return;
    }
    let lang = state.language;
    let mut still_open = true;
    // Esc closes it, as it does the palette.
    let mut close = ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
    egui::Window::new(tr(lang, Key::AboutTitle))
        .open(&mut still_open)
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.image((icon_texture(ui.ctx()).id(), egui::vec2(48.0, 48.0)));
                ui.vertical(|ui| {
                    ui.heading(format!("Sidekicks {}", env!("CARGO_PKG_VERSION")));
                    ui.label(RichText::new(trf(lang, Key::AboutProtocol, &[("protocol", PROTOCOL)])).weak());
                });
            });
            ui.separator();
            egui::Grid::new("about-agents").num_columns(2).striped(true).show(ui, |ui| {
                for agent in &state.agents {
                    ui.label(RichText::new(&agent.config.name).strong());
                    match &agent.implementation {
                        Some(what) => ui.label(what),
                        None => ui.label(RichText::new(tr(lang, Key::AboutNotStarted)).weak()),
                    };
                    ui.end_row();
                }
            });
            ui.separator();
            if ui.button(tr(lang, Key::Close)).clicked() {
                close = true;
            }
        });
    if !still_open || close {
        *open = false;
    }
}
