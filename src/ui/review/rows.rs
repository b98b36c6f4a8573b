//! The review's diff as rows of one height, so that only the rows on screen are laid out
//! (`ScrollArea::show_rows`): a file's header, a hunk's header, a line (unified) or a pair of
//! lines (side by side), a comment, the comment being written. And how a line is painted: its
//! numbers, its sign, its text with syntax colours, and the words that changed emphasised.

use std::collections::HashSet;

use egui::epaint::text::ByteIndex;
use egui::text::LayoutJob;
use egui::{Color32, RichText};

use crate::model::review::{Comment, DiffLine, LineKind, split_rows};
use crate::protocol::teams::ReviewFile;

/// One row of the review.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// File `0`'s header.
    File(usize),
    /// A file without a line diff (binary, a link, too large).
    NoDiff(usize),
    /// Hunk `1` of file `0`: its header.
    Hunk(usize, usize),
    /// Line `2` of hunk `1` of file `0`.
    Line(usize, usize, usize),
    /// Side by side: the lines of hunk `1` of file `0` facing each other.
    Pair(usize, usize, Option<usize>, Option<usize>),
    /// Comment `0` (an index into the comments).
    Comment(usize),
    /// The comment being written.
    Editor,
}

/// Where a comment goes: the file, and the line's number with its side.
pub type Anchor = (String, u32, bool);

/// The anchor of a line (its new number, or its old one if it was removed).
pub fn anchor(path: &str, line: &DiffLine) -> Anchor {
    match line.kind {
        LineKind::Removed => (path.to_string(), line.old.unwrap_or(0), true),
        _ => (path.to_string(), line.new.unwrap_or(0), false),
    }
}

/// The rows of `files`: folded files show their header only; comments follow their line.
pub fn rows(
    files: &[ReviewFile],
    split: bool,
    folded: &HashSet<String>,
    comments: &[Comment],
    editing: Option<&Anchor>,
) -> Vec<Row> {
    let mut out = Vec::new();
    for (f, file) in files.iter().enumerate() {
        out.push(Row::File(f));
        if folded.contains(&file.change.path) {
            continue;
        }
        let path = &file.change.path;
        let Some(diff) = &file.diff else {
            out.push(Row::NoDiff(f));
            continue;
        };
        // Comments of this file, and the rows that follow a line (its comments, the editor).
        let mine: Vec<(usize, &Comment)> = comments.iter().enumerate().filter(|(_, c)| c.path == *path).collect();
        let after = |out: &mut Vec<Row>, line: &DiffLine| {
            let at = anchor(path, line);
            for (i, c) in &mine {
                if (c.line, c.removed) == (at.1, at.2) {
                    out.push(Row::Comment(*i));
                }
            }
            if editing == Some(&at) {
                out.push(Row::Editor);
            }
        };
        for (h, hunk) in diff.hunks.iter().enumerate() {
            out.push(Row::Hunk(f, h));
            if split {
                for (left, right) in split_rows(hunk) {
                    out.push(Row::Pair(f, h, left, right));
                    // Comments of both lines of the pair, after it (a context line once).
                    if !mine.is_empty() || editing.is_some() {
                        let right = right.filter(|r| Some(*r) != left);
                        for side in [left, right].into_iter().flatten() {
                            after(&mut out, &hunk.lines[side]);
                        }
                    }
                }
            } else {
                for (l, line) in hunk.lines.iter().enumerate() {
                    out.push(Row::Line(f, h, l));
                    if !mine.is_empty() || editing.is_some() {
                        after(&mut out, line);
                    }
                }
            }
        }
    }
    out
}

/// The background of an added or removed line, and of its changed words.
fn tints(dark: bool, kind: LineKind) -> (Color32, Color32) {
    let (line, word) = match (kind, dark) {
        (LineKind::Added, true) => ((30, 70, 40), (40, 110, 55)),
        (LineKind::Added, false) => ((225, 245, 228), (170, 225, 180)),
        (LineKind::Removed, true) => ((80, 35, 35), (130, 50, 50)),
        (LineKind::Removed, false) => ((250, 228, 228), (240, 180, 180)),
        (LineKind::Context, _) => return (Color32::TRANSPARENT, Color32::TRANSPARENT),
    };
    (Color32::from_rgb(line.0, line.1, line.2), Color32::from_rgb(word.0, word.1, word.2))
}

/// The text of `line` with syntax colours (`language`, when known) and its changed words on
/// `word` background.
fn line_job(ui: &egui::Ui, line: &DiffLine, language: Option<&str>, word: Color32) -> LayoutJob {
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let mut job = match language {
        Some(code) if line.text.len() < 2_000 => {
            let theme = egui_extras::syntax_highlighting::CodeTheme::from_memory(ui.ctx(), ui.style());
            egui_extras::syntax_highlighting::highlight(ui.ctx(), ui.style(), &theme, &line.text, code)
        }
        _ => LayoutJob::simple_singleline(line.text.clone(), font, ui.visuals().text_color()),
    };
    job.wrap.max_rows = 1;
    job.break_on_newline = false;
    if line.emph.is_empty() {
        return job;
    }
    // Each section cut where an emphasised range begins or ends.
    let mut sections = Vec::with_capacity(job.sections.len() + 2 * line.emph.len());
    for section in job.sections.drain(..) {
        let range = section.byte_range.start.0..section.byte_range.end.0;
        let mut cuts: Vec<usize> = vec![range.start, range.end];
        for r in &line.emph {
            cuts.extend([r.start, r.end].into_iter().filter(|c| range.contains(c)));
        }
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let mut part = section.clone();
            part.byte_range = ByteIndex(w[0])..ByteIndex(w[1]);
            part.leading_space = if w[0] == range.start { section.leading_space } else { 0.0 };
            if line.emph.iter().any(|r| r.start <= w[0] && w[1] <= r.end) {
                part.format.background = word;
            }
            sections.push(part);
        }
    }
    job.sections = sections;
    job
}

/// Paints `line` in a row of `width`: numbers (`old`/`new` columns as given), sign, text. Returns
/// the response of its number, which the person clicks to comment.
pub fn line_ui(
    ui: &mut egui::Ui,
    line: &DiffLine,
    numbers: (bool, bool),
    language: Option<&str>,
    width: f32,
    height: f32,
) -> egui::Response {
    let dark = ui.visuals().dark_mode;
    let (back, word) = tints(dark, line.kind);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::hover());
    ui.painter().rect_filled(rect, 0.0, back);
    let mut child =
        ui.new_child(egui::UiBuilder::new().max_rect(rect).layout(egui::Layout::left_to_right(egui::Align::Center)));
    let weak = child.visuals().weak_text_color();
    let number = |n: Option<u32>| n.map_or_else(|| "     ".to_string(), |n| format!("{n:>5}"));
    let mut gutter = String::new();
    if numbers.0 {
        gutter.push_str(&number(line.old));
        gutter.push(' ');
    }
    if numbers.1 {
        gutter.push_str(&number(line.new));
    }
    let sign = match line.kind {
        LineKind::Added => '+',
        LineKind::Removed => '-',
        LineKind::Context => ' ',
    };
    gutter.push(' ');
    gutter.push(sign);
    let clicked = child
        .add(egui::Label::new(RichText::new(gutter).monospace().color(weak)).sense(egui::Sense::click()))
        .on_hover_cursor(egui::CursorIcon::PointingHand);
    child.add(egui::Label::new(line_job(&child, line, language, word)).truncate());
    clicked
}
