//! Images and resources in messages: an image as a thumbnail (click: full size in a window of its
//! own), a resource as `@name` (a folder or file of the workspace, or a link; its text folded
//! below when it travelled with the message).

use egui::RichText;

use super::i18n::{Key, tr};
use crate::model::config::Language;
use crate::model::content::{Image, Resource};

/// The largest side of a thumbnail, in points.
const THUMB: f32 = 240.0;

/// The URI egui's image cache knows `image` by.
pub fn image_uri(image: &Image) -> String {
    let ext = image.mime.strip_prefix("image/").unwrap_or("bin");
    format!("bytes://sidekicks/{:016x}.{ext}", image.data.hash())
}

/// An image, as a thumbnail that opens full size when clicked.
pub fn image_ui(ui: &mut egui::Ui, lang: Language, image: &Image) {
    let uri = image_uri(image);
    let id = egui::Id::unique(("image-open", &uri));
    let thumb = egui::Image::from_bytes(uri.clone(), egui::load::Bytes::Shared(image.data.bytes().clone()))
        .max_size(egui::vec2(THUMB, THUMB))
        .corner_radius(4.0)
        .sense(egui::Sense::click())
        .alt_text(image.describe());
    let response = ui.add(thumb).on_hover_text(format!("{} — {}", image.describe(), tr(lang, Key::ClickToEnlarge)));
    let mut open = ui.data(|d| d.get_temp::<bool>(id)).unwrap_or(false);
    if response.clicked() {
        open = !open;
    }
    if open {
        egui::Window::new(image.describe()).id(id).open(&mut open).resizable(true).show(ui.ctx(), |ui| {
            egui::ScrollArea::both().show(ui, |ui| {
                ui.add(egui::Image::from_uri(uri).fit_to_original_size(1.0));
            });
        });
    }
    ui.data_mut(|d| d.insert_temp(id, open));
}

/// A resource: a file, a folder or a link, with its text folded when it came along.
pub fn resource_ui(
    ui: &mut egui::Ui,
    lang: Language,
    resource: &Resource,
    salt: impl std::hash::Hash + std::fmt::Debug,
) {
    let slash = if resource.dir && !resource.name.ends_with('/') { "/" } else { "" };
    let name = format!("@{}{slash}", resource.name);
    match &resource.text {
        Some(text) => {
            egui::CollapsingHeader::new(RichText::new(name).monospace())
                .id_salt(("resource", salt))
                .show(ui, |ui| {
                    ui.label(RichText::new(tr(lang, Key::SentWithMessage)).small().weak());
                    egui::ScrollArea::vertical().max_height(200.0).show(ui, |ui| {
                        ui.label(RichText::new(text).monospace().small());
                    });
                })
                .header_response
                .on_hover_text(&resource.uri);
        }
        None if resource.uri.starts_with("http://") || resource.uri.starts_with("https://") => {
            ui.hyperlink_to(name, &resource.uri);
        }
        None => {
            ui.label(RichText::new(name).monospace()).on_hover_text(&resource.uri);
        }
    }
}
