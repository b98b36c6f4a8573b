//! Above the composer: the images and files to send with the next message (each removable), why
//! a file could not be attached, and the Attach… button. Files dropped on the window and images
//! pasted into the composer are handed to the runtime to read (never read here).

use egui::RichText;

use super::i18n::{Key, tr, trf};
use super::theme::{error_color, warning_color};
use crate::app::AgentCommand;
use crate::app::composing::AttachOp;
use crate::app::{AgentState, AgentView, Command, Request};
use crate::model::config::Language;
use crate::protocol::attachments::{AttachSource, Attachment};

/// The bar; returns what it asks for.
pub fn attach_bar_ui(ui: &mut egui::Ui, lang: Language, agent: &AgentView) -> Vec<Request> {
    let name = agent.config.name.clone();
    let mut requests = Vec::new();
    let op = |op| Request::Attachments { agent: name.clone(), op };
    let started = matches!(agent.state, AgentState::Idle | AgentState::Busy);
    let composing = &agent.composing;
    if !composing.pending.is_empty() {
        ui.horizontal_wrapped(|ui| {
            for (i, attachment) in composing.pending.iter().enumerate() {
                egui::Frame::group(ui.style()).inner_margin(2.0).show(ui, |ui| {
                    ui.horizontal(|ui| {
                        match attachment {
                            Attachment::Image(image) => {
                                let uri = super::attachments::image_uri(image);
                                let bytes = egui::load::Bytes::Shared(image.data.bytes().clone());
                                ui.add(egui::Image::from_bytes(uri, bytes).max_size(egui::vec2(48.0, 48.0)))
                                    .on_hover_text(image.describe());
                                ui.label(RichText::new(image.describe()).small());
                            }
                            Attachment::Mention { path, dir } => {
                                let slash = if *dir { "/" } else { "" };
                                ui.label(RichText::new(format!("@{}{slash}", path.as_str())).monospace().small());
                            }
                        }
                        let remove = ui.small_button("x").on_hover_text(tr(lang, Key::RemoveAttachment));
                        if remove.clicked() {
                            requests.push(op(AttachOp::Remove(i)));
                        }
                    });
                });
            }
        });
        let images = composing.pending.iter().any(|a| matches!(a, Attachment::Image(_)));
        if images && started && !agent.prompts.image {
            let words = trf(lang, Key::NoImages, &[("agent", &name)]);
            ui.label(RichText::new(words).small().color(warning_color()));
        }
    }
    for error in &composing.errors {
        ui.label(RichText::new(error).small().color(error_color()));
    }
    ui.horizontal(|ui| {
        let attach = ui.small_button(tr(lang, Key::AttachFiles)).on_hover_text(tr(lang, Key::AttachHint));
        if attach.clicked() {
            requests
                .push(Command::Agent(name.clone().into(), AgentCommand::Attach { source: AttachSource::Pick }).into());
        }
        if !composing.errors.is_empty() && ui.small_button(tr(lang, Key::Dismiss)).clicked() {
            requests.push(op(AttachOp::DismissErrors));
        }
    });
    requests
}

/// Files dropped on the window and images pasted into the composer (`focused`), to be read.
pub fn dropped_and_pasted(ui: &egui::Ui, agent: &AgentView, focused: bool) -> Vec<Request> {
    let name = &agent.config.name;
    let (files, pasted) = ui.input(|i| {
        let files: Vec<std::path::PathBuf> =
            i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).filter(|p| !p.as_os_str().is_empty()).collect();
        let pasted: Vec<AttachSource> = if focused {
            i.events
                .iter()
                .filter_map(|e| match e {
                    egui::Event::PasteImage(image) => Some(AttachSource::Pixels {
                        width: image.width() as u32,
                        height: image.height() as u32,
                        rgba: std::sync::Arc::new(image.as_raw().to_vec()),
                    }),
                    _ => None,
                })
                .collect()
        } else {
            Vec::new()
        };
        (files, pasted)
    });
    let mut requests = Vec::new();
    if !files.is_empty() {
        requests.push(
            Command::Agent(name.clone().into(), AgentCommand::Attach { source: AttachSource::Files(files) }).into(),
        );
    }
    requests.extend(
        pasted.into_iter().map(|source| Command::Agent(name.clone().into(), AgentCommand::Attach { source }).into()),
    );
    requests
}
