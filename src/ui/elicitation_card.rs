//! An agent's request for input, as a card like a permission's: a form of typed fields (checked
//! before it goes: each field says what is wrong) or a page to open; Submit / Open, Decline,
//! Cancel. What was typed lives in egui's memory until the answer goes.

use std::collections::BTreeMap;

use egui::RichText;

use super::i18n::{Key, tr, trf};
use super::theme::{error_color, warning_color};
use crate::app::AgentCommand;
use crate::app::{Command, ElicitationCard};
use crate::model::config::Language;
use crate::model::elicitation::{ElicitAnswer, ElicitKind, Field, FieldKind, FieldProblem, Raw, check, initial};

/// What the card keeps between frames.
#[derive(Clone, Default)]
struct Typed {
    raw: BTreeMap<String, Raw>,
    problems: Vec<(String, FieldProblem)>,
}

/// The card; the answer, when the person gives one.
pub fn elicitation_card_ui(ui: &mut egui::Ui, lang: Language, agent: &str, card: &ElicitationCard) -> Option<Command> {
    let request = &card.request;
    if let Some(answer) = &card.answer {
        // Only a page opened and not yet done stays: the agent waits for it.
        if let (ElicitAnswer::Accept(_), ElicitKind::Url { url, .. }, false) = (answer, &request.kind, card.completed) {
            ui.label(
                RichText::new(trf(lang, Key::WaitingForPage, &[("agent", agent), ("url", url.as_str())]))
                    .small()
                    .weak(),
            );
        }
        return None;
    }
    let id = egui::Id::unique(("elicitation", agent, request.id));
    let mut answer = None;
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, warning_color())).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.label(RichText::new(trf(lang, Key::ElicitAsks, &[("agent", agent)])).strong());
        ui.label(&request.message);
        match &request.kind {
            ElicitKind::Form { title, fields } => {
                let mut typed: Typed = ui
                    .data(|d| d.get_temp(id))
                    .unwrap_or_else(|| Typed { raw: initial(fields.as_slice()), problems: Vec::new() });
                if let Some(title) = title {
                    ui.label(RichText::new(title).strong());
                }
                egui::Grid::new(id.with("grid")).num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
                    for field in fields {
                        field_ui(ui, lang, field, &mut typed);
                        ui.end_row();
                    }
                });
                ui.horizontal(|ui| {
                    if ui.button(tr(lang, Key::Submit)).clicked() {
                        match check(fields.as_slice(), &typed.raw) {
                            Ok(values) => answer = Some(ElicitAnswer::Accept(values)),
                            Err(problems) => typed.problems = problems,
                        }
                    }
                    decline_cancel(ui, lang, &mut answer);
                });
                ui.data_mut(|d| d.insert_temp(id, typed));
            }
            ElicitKind::Url { url, .. } => {
                ui.label(RichText::new(url).monospace());
                ui.horizontal(|ui| {
                    if ui.button(tr(lang, Key::OpenPage)).clicked() {
                        ui.ctx().open_url(egui::OpenUrl::new_tab(url));
                        answer = Some(ElicitAnswer::Accept(BTreeMap::new()));
                    }
                    decline_cancel(ui, lang, &mut answer);
                });
            }
        }
    });
    answer.map(|answer| Command::Agent(agent.into(), AgentCommand::AnswerElicitation { id: request.id, answer }))
}

fn decline_cancel(ui: &mut egui::Ui, lang: Language, answer: &mut Option<ElicitAnswer>) {
    if ui.button(tr(lang, Key::Decline)).clicked() {
        *answer = Some(ElicitAnswer::Decline);
    }
    if ui.button(tr(lang, Key::Cancel)).clicked() {
        *answer = Some(ElicitAnswer::Cancel);
    }
}

/// One row: the label, then the widget with its problem below.
fn field_ui(ui: &mut egui::Ui, lang: Language, field: &Field, typed: &mut Typed) {
    let mark = if field.required { " *" } else { "" };
    let label = ui.label(format!("{}{mark}", field.title));
    if let Some(d) = &field.description {
        label.clone().on_hover_text(d);
    }
    ui.vertical(|ui| {
        let raw = typed.raw.entry(field.name.clone()).or_insert_with(|| Raw::Text(String::new()));
        match (&field.kind, raw) {
            (FieldKind::Bool { .. }, Raw::Bool(on)) => {
                ui.checkbox(on, "").labelled_by(label.id);
            }
            (FieldKind::Choice { options, .. }, Raw::Text(value)) => {
                let shown = options.iter().find(|(v, _)| v == value).map_or("", |(_, t)| t.as_str()).to_string();
                let combo =
                    egui::ComboBox::from_id_salt(("field", &field.name)).selected_text(shown).show_ui(ui, |ui| {
                        for (v, t) in options {
                            ui.selectable_value(value, v.clone(), t);
                        }
                    });
                combo.response.labelled_by(label.id);
            }
            (FieldKind::Many { options, .. }, Raw::Many(picked)) => {
                ui.horizontal_wrapped(|ui| {
                    for (v, t) in options {
                        let mut on = picked.contains(v);
                        if ui.checkbox(&mut on, t).changed() {
                            if on {
                                picked.push(v.clone());
                            } else {
                                picked.retain(|p| p != v);
                            }
                        }
                    }
                });
            }
            (FieldKind::Unknown, _) => {
                ui.label(RichText::new(tr(lang, Key::FieldUnknown)).small().weak());
            }
            (_, Raw::Text(text)) => {
                ui.add(egui::TextEdit::singleline(text).desired_width(260.0)).labelled_by(label.id);
            }
            _ => {}
        }
        if let Some(d) = &field.description {
            ui.label(RichText::new(d).small().weak());
        }
        if let Some((_, problem)) = typed.problems.iter().find(|(n, _)| *n == field.name) {
            ui.label(RichText::new(problem_text(lang, problem)).small().color(error_color()));
        }
    });
}

fn problem_text(lang: Language, problem: &FieldProblem) -> String {
    match problem {
        FieldProblem::Missing => tr(lang, Key::FieldMissing).to_string(),
        FieldProblem::NotANumber => tr(lang, Key::FieldNotANumber).to_string(),
        FieldProblem::NotAnOption => tr(lang, Key::FieldNotAnOption).to_string(),
        FieldProblem::OutOfRange { min: Some(min), max: Some(max) } => {
            trf(lang, Key::FieldBetween, &[("min", min), ("max", max)])
        }
        FieldProblem::OutOfRange { min: Some(min), max: None } => trf(lang, Key::FieldAtLeast, &[("min", min)]),
        FieldProblem::OutOfRange { min: None, max } => {
            trf(lang, Key::FieldAtMost, &[("max", max.as_deref().unwrap_or("?"))])
        }
    }
}
