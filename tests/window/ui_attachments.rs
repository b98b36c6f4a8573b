//! Images and files in the composer (egui_kittest, demo agent): a file dropped on the window and an
//! image pasted into the composer wait above it, removable; `@` completes the workspace's files and
//! attaches the one picked; Enter sends all of them and the agent says what it received; the
//! images show in the person's message and the agent's picture shows in its answer.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::protocol::attachments::Attachment;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, send, step_until, window};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);
const SCREENSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/screenshot.png");

type H = Harness<'static, SidekicksApp>;

#[derive(Debug)]
struct Dropped(PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

fn answers(h: &H) -> usize {
    h.state().state.agent("demo").map_or(0, |a| a.conversation.messages.iter().filter(|m| m.end.is_some()).count())
}

fn pending(h: &H) -> Vec<Attachment> {
    h.state().state.agent("demo").map_or_else(Vec::new, |a| a.composing.pending.clone())
}

fn last_answer(h: &H) -> String {
    h.state().state.agent("demo").and_then(|a| a.conversation.messages.last().map(|m| m.text())).unwrap_or_default()
}

/// The composer: the multi-line input lowest in the window.
fn composer_rect(h: &H) -> egui::Rect {
    h.get_all_by_role(Role::MultilineTextInput).map(|n| n.rect()).max_by(|a, b| a.min.y.total_cmp(&b.min.y)).unwrap()
}

fn composer_text(h: &H) -> String {
    let rect = composer_rect(h);
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).and_then(|n| n.value()).unwrap_or_default()
}

fn click_composer(h: &mut H) {
    let rect = composer_rect(h);
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().click();
    h.step();
}

#[test]
fn dropped_pasted_and_mentioned_files_go_with_the_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\n\nfirst\nsecond\n").unwrap();
    std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    send(&mut h, "hello");
    step_until(&mut h, LONG, "the first answer", |h| answers(h) == 1);

    // A file dropped on the window: read by the runtime, shown above the composer.
    h.input_mut().dropped_files.push(Arc::new(Dropped(SCREENSHOT.into())));
    step_until(&mut h, LONG, "the dropped image", |h| pending(h).len() == 1);
    assert!(h.query_all_by_label("screenshot.png (66.7 KB)").next().is_some(), "the image waits above the composer");

    // An image pasted into the composer.
    click_composer(&mut h);
    h.event(egui::Event::PasteImage(Arc::new(egui::ColorImage::filled([3, 2], egui::Color32::RED))));
    step_until(&mut h, LONG, "the pasted image", |h| pending(h).len() == 2);
    assert!(matches!(&pending(&h)[1], Attachment::Image(i) if i.name.as_deref() == Some("pasted.png")));

    // `@` lists the workspace's files; Enter picks one.
    click_composer(&mut h);
    let rect = composer_rect(&h);
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().type_text("look at @not");
    step_until(&mut h, LONG, "the matching file", |h| h.query_all_by_label("@notes.md").next().is_some());
    assert!(h.query_by_label("@src/main.rs").is_none(), "only what matches");
    h.key_press(egui::Key::Enter);
    h.step();
    h.step();
    assert_eq!(composer_text(&h), "look at @notes.md ");
    assert_eq!(answers(&h), 1, "Enter picked the file and sent nothing");
    // A space typed at once is not a second one (issue 48, item 10); the next is.
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().type_text(" ");
    h.step();
    h.step();
    assert_eq!(composer_text(&h), "look at @notes.md ");
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().type_text("now");
    h.step();
    assert_eq!(composer_text(&h), "look at @notes.md now");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().type_text("look at @notes.md ");
    h.step();
    assert_eq!(pending(&h).len(), 3);

    // Removing one, then sending the rest.
    h.input_mut().dropped_files.push(Arc::new(Dropped(dir.path().join("src"))));
    step_until(&mut h, LONG, "the dropped folder", |h| pending(h).len() == 4);
    let remove = h.get_all_by_role_and_label(Role::Button, "x").last().unwrap();
    remove.click();
    h.step();
    h.step();
    assert_eq!(pending(&h).len(), 3, "x removes it");
    click_composer(&mut h);
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "the answer to the attachments", |h| answers(h) == 2);
    let said = last_answer(&h);
    assert!(said.contains("an image (image/png, 1100×720 pixels, 68271 bytes)"), "{said}");
    assert!(said.contains("an image (image/png, 3×2 pixels"), "{said}");
    assert!(said.contains("notes.md` (4 lines)"), "{said}");
    assert!(!said.contains("`src`"), "the removed folder was not sent: {said}");
    assert!(pending(&h).is_empty(), "sent, so no longer waiting");
    assert!(h.query_all_by_label("screenshot.png (66.7 KB)").next().is_some(), "the image shows in the message");
    assert!(h.query_all_by_label("@notes.md").next().is_some(), "the file shows in the message");

    // The agent's picture and link show in its answer.
    send(&mut h, "draw a picture");
    step_until(&mut h, LONG, "the picture", |h| answers(h) == 3);
    assert!(h.query_all_by_label_contains("image/png (").next().is_some(), "the agent's image shows");
    assert!(h.query_by_label("@README.md").is_some(), "the agent's link shows");
    h.state_mut().shutdown();
}
