//! A text too long to lay out whole each frame (an agent that dumps a file into one message): shown
//! as plain text in pieces of a few KB, of which only those in view are laid out (the others take
//! their remembered or estimated height), folded after `FOLD` bytes with "Show more" / "Show all".
//! Piece boundaries and heights are kept per text and extended as it streams, so a frame costs
//! what is visible, not the text's size.

use egui::{Id, RichText, Vec2};

use super::i18n::{Key, tr, trf};
use crate::model::config::Language;

/// Past this size a text is shown as plain text in pieces (no Markdown).
pub const PLAIN_OVER: usize = 64 << 10;
/// What is shown before "Show more".
const FOLD: usize = 256 << 10;
/// What "Show more" adds.
const STEP: usize = 1 << 20;
/// The size of a piece (cut at the last line end within it, if any).
const PIECE: usize = 4 << 10;
/// Height laid out above and below the visible part.
const MARGIN: f32 = 400.0;

/// What is remembered of one big text.
#[derive(Clone, Default)]
struct Pieces {
    /// Bytes of the text shown.
    shown: usize,
    /// Where each piece ends (byte offsets, increasing).
    ends: Vec<usize>,
    /// The height of each piece: measured when drawn, estimated before.
    heights: Vec<f32>,
    /// The width the heights were measured at.
    width: f32,
    /// The bytes the pieces cover.
    covered: usize,
    /// A hash of the text's start: another text under the same id (another conversation shown)
    /// starts the pieces again.
    head: u64,
}

/// Draws `text` (which is over `PLAIN_OVER`) under `id`.
pub fn big_text_ui(ui: &mut egui::Ui, lang: Language, id: Id, text: &str) {
    let mut pieces = ui.data_mut(|d| {
        std::mem::take(d.get_temp_mut_or_insert_with(id, || Pieces { shown: FOLD, ..Default::default() }))
    });
    let width = ui.available_width();
    if (pieces.width - width).abs() > 1.0 {
        pieces.width = width;
        pieces.heights.clear();
    }
    let head = head_hash(text);
    let stale = pieces.head != head
        || pieces.covered > text.len()
        || pieces.ends.iter().any(|&e| e > text.len() || !text.is_char_boundary(e));
    if stale {
        pieces = Pieces { shown: pieces.shown.max(FOLD), width: pieces.width, head, ..Default::default() };
    }
    let limit = floor_char(text, pieces.shown.min(text.len()));
    pieces.cut(text, limit);
    let row = ui.text_style_height(&egui::TextStyle::Body);
    let per_row = (width / (row * 0.5)).max(20.0);
    ui.label(
        RichText::new(trf(lang, Key::BigTextPlain, &[("size", &megabytes(lang, text.len()))])).small().weak().italics(),
    );
    // No spacing between pieces: they read as one text.
    ui.scope(|ui| {
        ui.spacing_mut().item_spacing.y = 0.0;
        let mut start = 0;
        let (top, bottom) = (ui.clip_rect().top() - MARGIN, ui.clip_rect().bottom() + MARGIN);
        for (k, &end) in pieces.ends.iter().enumerate() {
            let piece = &text[start..end];
            if pieces.heights.len() <= k {
                // An estimate: wrapped rows at about half a row's height per character.
                let lines = memchr::memchr_iter(b'\n', piece.as_bytes()).count() as f32;
                pieces.heights.push(row * (lines + piece.len() as f32 / per_row).max(1.0));
            }
            let y = ui.cursor().top();
            if y + pieces.heights[k] >= top && y <= bottom {
                let response = ui.add(egui::Label::new(piece.trim_end_matches('\n')).wrap());
                pieces.heights[k] = response.rect.height();
            } else {
                ui.allocate_space(Vec2::new(width, pieces.heights[k]));
            }
            start = end;
        }
    });
    if limit < text.len() {
        ui.horizontal_wrapped(|ui| {
            let left = megabytes(lang, text.len() - limit);
            if ui.button(trf(lang, Key::ShowMore, &[("left", &left)])).clicked() {
                pieces.shown = limit + STEP;
            }
            if ui.button(tr(lang, Key::ShowAll)).clicked() {
                pieces.shown = usize::MAX;
            }
        });
    }
    ui.data_mut(|d| d.insert_temp(id, pieces));
}

impl Pieces {
    /// Makes the pieces cover `text[..limit]`. The text only grows while it streams: the pieces
    /// already cut stay, but the last one, which the old end may have cut short, is cut again.
    fn cut(&mut self, text: &str, limit: usize) {
        if self.covered == limit && self.ends.last().is_none_or(|&e| e == limit) {
            return;
        }
        self.ends.pop();
        while self.ends.last().is_some_and(|&e| e > limit) {
            self.ends.pop();
        }
        self.heights.truncate(self.ends.len());
        let mut start = self.ends.last().copied().unwrap_or(0);
        while start < limit {
            let hard = floor_char(text, (start + PIECE).min(limit));
            let end = match memchr::memrchr(b'\n', &text.as_bytes()[start..hard]) {
                Some(i) if hard < limit => start + i + 1,
                _ if hard > start => hard,
                _ => limit,
            };
            self.ends.push(end);
            start = end;
        }
        self.covered = limit;
    }
}

fn head_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.as_bytes()[..text.len().min(4096)].hash(&mut hasher);
    hasher.finish()
}

/// The largest char boundary of `text` at or below `at`.
fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn megabytes(lang: Language, bytes: usize) -> String {
    crate::i18n::size_text(lang, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cut_a_growing_text_as_they_would_cut_it_whole() {
        let line = "é — a line of text, with multibyte characters ✓\n";
        let mut text = String::new();
        let mut growing = Pieces::default();
        for round in 0..200 {
            // Fragments that end mid-line, and one long line without any end.
            text.push_str(&line.repeat(round % 7));
            let fragment = if round % 50 == 0 { "x".repeat(10_000) } else { "frag".to_string() };
            text.push_str(&fragment);
            growing.cut(&text, text.len());
        }
        let mut whole = Pieces::default();
        whole.cut(&text, text.len());
        assert_eq!(growing.ends, whole.ends);
        let mut start = 0;
        for &end in &whole.ends {
            assert!(text.is_char_boundary(end) && end > start && end - start <= PIECE);
            start = end;
        }
        assert_eq!(start, text.len());
    }
}
