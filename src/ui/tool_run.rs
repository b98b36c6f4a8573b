//! A long run of tool calls in one answer, folded (ADR 0030): a line of how many there are and
//! how they stand, the calls waiting on the person, and the last few; earlier ones a page at a
//! time. Laying out every card of a 100,000-call turn took seconds a frame.

use std::collections::HashSet;
use std::ops::Range;

use egui::RichText;

use super::i18n::{Key, trf};
use crate::model::config::Language;
use crate::model::conversation::Part;
use crate::model::tool::{ToolCall, ToolStatus};

/// Runs of more calls than this are folded.
pub const FOLD_OVER: usize = 30;
/// The calls of a folded run shown at first: its last ones.
const LAST: usize = 10;
/// Earlier calls shown per click.
const STEP: usize = 200;

/// Where the run of tool calls starting at `start` ends.
pub fn run_end(parts: &[Part], start: usize) -> usize {
    parts[start..].iter().position(|p| !matches!(p, Part::Tool(_))).map_or(parts.len(), |n| start + n)
}

/// How the calls of a run stand: done, running (or waiting), failed or cancelled.
fn counts(calls: impl Iterator<Item = ToolStatus>) -> [usize; 3] {
    let mut n = [0; 3];
    for status in calls {
        n[match status {
            ToolStatus::Completed => 0,
            ToolStatus::Pending | ToolStatus::InProgress => 1,
            ToolStatus::Failed | ToolStatus::Cancelled => 2,
        }] += 1;
    }
    n
}

/// `n` with its thousands apart, as each language writes them.
pub fn grouped(lang: Language, n: usize) -> String {
    let digits = n.to_string();
    let sep = match lang {
        Language::Fr => '\u{202f}',
        _ => ',',
    };
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// Draws the run `parts[run]` folded, each call shown through `call_ui`: the calls with a live
/// permission card (`carded`, by id) wherever they are, and the last ones.
pub fn folded_ui(
    ui: &mut egui::Ui,
    lang: Language,
    id: egui::Id,
    parts: &[Part],
    run: Range<usize>,
    carded: &HashSet<&str>,
    mut call_ui: impl FnMut(&mut egui::Ui, &ToolCall),
) {
    let calls = || {
        parts[run.clone()].iter().filter_map(|p| match p {
            Part::Tool(call) => Some(call),
            _ => None,
        })
    };
    let total = run.len();
    let [done, running, failed] = counts(calls().map(|c| c.status));
    let g = |n| grouped(lang, n);
    ui.label(
        RichText::new(trf(
            lang,
            Key::ToolRunSummary,
            &[("count", &g(total)), ("done", &g(done)), ("running", &g(running)), ("failed", &g(failed))],
        ))
        .strong(),
    );
    let mut shown: usize = ui.data(|d| d.get_temp(id)).unwrap_or(LAST).min(total);
    let hidden = total - shown;
    if hidden > 0 {
        let more = STEP.min(hidden);
        let text = trf(lang, Key::ToolRunEarlier, &[("more", &g(more)), ("hidden", &g(hidden))]);
        if ui.button(text).clicked() {
            shown += more;
            ui.data_mut(|d| d.insert_temp(id, shown));
        }
    }
    let first = total - shown;
    for (k, call) in calls().enumerate() {
        if k >= first || (!carded.is_empty() && carded.contains(call.id.as_str())) {
            call_ui(ui, call);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped_as_each_language_writes_them() {
        assert_eq!(grouped(Language::En, 100_000), "100,000");
        assert_eq!(grouped(Language::En, 999), "999");
        assert_eq!(grouped(Language::En, 1_234_567), "1,234,567");
        assert_eq!(grouped(Language::Fr, 100_000), "100\u{202f}000");
    }

    #[test]
    fn a_run_ends_at_the_first_part_that_is_not_a_call() {
        let call = || Part::Tool(ToolCall::default());
        let parts = vec![Part::Text("a".into()), call(), call(), Part::Text("b".into()), call()];
        assert_eq!(run_end(&parts, 1), 3);
        assert_eq!(run_end(&parts, 4), 5);
    }

    #[test]
    fn statuses_are_counted_in_three() {
        use ToolStatus::*;
        let n = counts([Completed, Pending, InProgress, Failed, Cancelled, Completed].into_iter());
        assert_eq!(n, [2, 2, 2]);
    }
}
