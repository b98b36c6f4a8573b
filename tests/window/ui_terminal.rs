//! The terminal widget driven like a person would (egui_kittest) on a real shell in a real PTY:
//! Ctrl+C interrupts, paste is bracketed when the program asks, the wheel scrolls back, a drag
//! selects and Ctrl+C copies the selection, clicks reach a program that asked for the mouse, the
//! title shows in the terminal's tab, and a workspace holds several terminals that close for good.

use std::time::Duration;

use egui::{Event, Key, Modifiers, PointerButton, Pos2, Rect, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sidekicks::ui::SidekicksApp;

use crate::common;
use common::window::{runtime, step_until, window};
use common::{BIN, alive, config_text};

const LONG: Duration = Duration::from_secs(20);

fn open_terminal(h: &mut Harness<'static, SidekicksApp>) {
    step_until(h, LONG, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    h.step();
    h.get_by_label("Terminal").click();
    step_until(h, LONG, "a shell", |h| h.state().terminal_text("demo").is_some());
    // A prompt of our own, so a test can tell when the shell reads again (see `interrupt`).
    run(h, "PS1='ok> '; echo ready-$((1+1))", "ready-2");
    prompt(h);
}

/// Waits until the shell shows its prompt: readline puts the terminal in raw mode before it draws
/// the prompt, so keys sent earlier are cooked by the line discipline (arrows echoed as `^[[D`).
fn prompt(h: &mut Harness<'static, SidekicksApp>) {
    step_until(h, LONG, "the prompt", |h| {
        screen(h).lines().rev().find(|l| !l.trim().is_empty()).is_some_and(|l| l.trim() == "ok>")
    });
}

/// Presses Ctrl+C (a Copy with nothing selected) and waits until the shell shows its prompt again:
/// text typed before that would go to the program being interrupted, not to the shell.
fn interrupt(h: &mut Harness<'static, SidekicksApp>) {
    h.event(Event::Copy);
    prompt(h);
}

fn screen(h: &Harness<'static, SidekicksApp>) -> String {
    h.state().terminal_text("demo").unwrap_or_default()
}

/// Types `command`, presses Enter and waits for `expect` on the screen.
fn run(h: &mut Harness<'static, SidekicksApp>, command: &str, expect: &str) {
    h.event(Event::Text(command.into()));
    h.key_press(Key::Enter);
    step_until(h, LONG, expect, |h| screen(h).contains(expect));
}

/// The terminal's rect and the size of a cell.
fn grid(h: &Harness<'static, SidekicksApp>) -> (Rect, f32, f32) {
    let rect = h.get_by_label("Terminal screen").rect();
    let font = egui::TextStyle::Monospace.resolve(&h.ctx.global_style());
    let (w, r) = h.ctx.fonts_mut(|f| (f.glyph_width(&font, 'M'), f.row_height(&font)));
    (rect, w, r)
}

/// The middle of cell (`col`, `line`).
fn cell(h: &Harness<'static, SidekicksApp>, col: usize, line: usize) -> Pos2 {
    let (rect, w, r) = grid(h);
    rect.min + vec2((col as f32 + 0.5) * w, (line as f32 + 0.5) * r)
}

/// The visible line and column where `text` starts.
fn find(h: &Harness<'static, SidekicksApp>, text: &str) -> (usize, usize) {
    let screen = screen(h);
    screen
        .lines()
        .enumerate()
        .find_map(|(i, l)| (l == text).then_some((i, 0)).or_else(|| l.find(text).map(|c| (i, l[..c].chars().count()))))
        .unwrap_or_else(|| panic!("{text:?} not on the screen:\n{screen}"))
}

#[test]
fn keys_paste_and_ctrl_c_reach_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    open_terminal(&mut h);
    // Ctrl+C arrives from the window as a Copy command: with nothing selected it interrupts. The
    // program is a child that prints before it sleeps, so Ctrl+C cannot reach the shell before it.
    run(&mut h, "sh -c 'echo sleeping-$((1+1)); exec sleep 100'", "sleeping-2");
    interrupt(&mut h);
    run(&mut h, "echo after-$((3+4))", "after-7");
    // A program that asked for bracketed paste gets the markers around the pasted text.
    run(&mut h, "printf '\\033[?2004h'; echo cat-$((1+2)); cat -v", "cat-3");
    h.event(Event::Paste("pasted\ntext".into()));
    h.key_press(Key::Enter);
    step_until(&mut h, LONG, "the bracketed paste", |h| screen(h).contains("^[[200~pasted"));
    interrupt(&mut h);
    // F-keys and Alt reach the program as xterm sends them.
    run(&mut h, "printf '\\033[?2004l'; echo cat-$((2+2)); cat -v", "cat-4");
    h.key_press(Key::F5);
    h.event_modifiers(Event::Text("x".into()), Modifiers::ALT);
    h.key_press(Key::Enter);
    step_until(&mut h, LONG, "F5 and Alt+x", |h| screen(h).contains("^[[15~^[x"));
    interrupt(&mut h);
    run(&mut h, "echo done-$((5+5))", "done-10");
    h.state_mut().shutdown();
}

#[test]
fn the_wheel_scrolls_back_and_a_drag_copies() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    open_terminal(&mut h);
    run(&mut h, "for i in $(seq 1 300); do echo line-$i; done; echo end-$((2*3))", "end-6");
    assert!(!screen(&h).contains("line-100\n"));
    // The wheel over the terminal shows older lines.
    let middle = cell(&h, 5, 5);
    h.hover_at(middle);
    h.step();
    h.event(Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: vec2(0.0, 250.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: Modifiers::NONE,
    });
    step_until(&mut h, LONG, "older lines", |h| screen(h).contains("line-40\n"));
    assert!(!screen(&h).contains("end-6"), "scrolled back:\n{}", screen(&h));
    // Select `line-42` by dragging over it, then Ctrl+C copies it instead of interrupting.
    let (line, col) = find(&h, "line-42");
    let start = cell(&h, col, line) - vec2(grid(&h).1 * 0.45, 0.0);
    let end = cell(&h, col + 6, line) + vec2(grid(&h).1 * 0.45, 0.0);
    h.hover_at(start);
    h.step();
    h.event(Event::PointerButton {
        pos: start,
        button: PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.step();
    for step in 1..=5 {
        h.hover_at(start + (end - start) * (step as f32 / 5.0));
        h.step();
    }
    h.event(Event::PointerButton {
        pos: end,
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.step();
    h.event(Event::Copy);
    h.step();
    let copied: Vec<String> = h
        .output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(copied, vec!["line-42".to_string()]);
    // Typing goes back to the bottom.
    run(&mut h, "echo bottom-$((4*4))", "bottom-16");
    h.state_mut().shutdown();
}

#[test]
fn clicks_reach_a_program_that_asked_for_the_mouse() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    open_terminal(&mut h);
    run(&mut h, "clear; printf '\\033[?1000h\\033[?1006h'; echo mouse-$((2+2)); cat -v", "mouse-4");
    let pos = cell(&h, 9, 4);
    h.hover_at(pos);
    h.step();
    h.event(Event::PointerButton { pos, button: PointerButton::Primary, pressed: true, modifiers: Modifiers::NONE });
    h.step();
    h.event(Event::PointerButton { pos, button: PointerButton::Primary, pressed: false, modifiers: Modifiers::NONE });
    h.step();
    h.key_press(Key::Enter);
    step_until(&mut h, LONG, "the click report", |h| screen(h).contains("^[[<0;10;5M^[[<0;10;5m"));
    interrupt(&mut h);
    run(&mut h, "printf '\\033[?1000l'; echo off-$((1+8))", "off-9");
    h.state_mut().shutdown();
}

#[test]
fn a_workspace_holds_several_terminals_with_their_titles() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    open_terminal(&mut h);
    run(&mut h, "printf '\\033]0;build watch\\007'; echo titled-$((1+2))", "titled-3");
    step_until(&mut h, LONG, "the title", |h| h.query_by_label("Shell 1: build watch").is_some());
    h.get_by_label("+").click();
    step_until(&mut h, LONG, "a second terminal", |h| h.query_by_label("Shell 2").is_some());
    step_until(&mut h, LONG, "its shell", |h| h.state().terminal_pids("demo").len() == 2);
    run(&mut h, "echo second-$((2+2))", "second-4");
    assert!(!screen(&h).contains("titled-3"), "the second terminal is its own");
    h.get_by_label("Shell 1: build watch").click();
    step_until(&mut h, LONG, "the first again", |h| screen(h).contains("titled-3"));
    let pids = h.state().terminal_pids("demo");
    // Closing the first ends its shell; the second stays.
    h.get_all_by_label("×").next().unwrap().click();
    step_until(&mut h, LONG, "one terminal", |h| h.state().terminal_pids("demo") == [pids[1]]);
    step_until(&mut h, LONG, "the shell ended", |_| !alive(pids[0] as i32));
    assert!(screen(&h).contains("second-4"));
    h.state_mut().shutdown();
    assert!(!alive(pids[1] as i32), "quitting closes every terminal");
}

#[test]
fn opening_another_config_closes_the_terminals_of_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    open_terminal(&mut h);
    let pids = h.state().terminal_pids("demo");
    assert_eq!(pids.len(), 1);
    // Another file with an agent of the same name: it gets its own view, the old shell ends.
    let other = dir.path().join("other.toml");
    std::fs::write(&other, config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).unwrap();
    h.state_mut().state.picked_file = Some(Some(other.clone()));
    step_until(&mut h, LONG, "the other file", |h| {
        h.state().state.config_path.as_deref() == Some(other.as_path()) && h.state().state.agent("demo").is_some()
    });
    assert!(h.state().terminal_pids("demo").is_empty(), "the first file's terminal is still there");
    step_until(&mut h, LONG, "the first shell ended", |_| !alive(pids[0] as i32));
    h.state_mut().shutdown();
}

#[test]
fn the_window_shortcuts_stand_aside_while_a_terminal_has_the_keyboard() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("demo", BIN, &["demo-agent"])], dir.path()), dir.path(), &rt, None);
    open_terminal(&mut h);
    let palette = |h: &Harness<'static, SidekicksApp>| h.query_by_label("Go to demo").is_some();
    // The terminal has the keyboard: Ctrl+K is the shell's (readline kills to the end of the line).
    h.event(Event::Text("echo kept; echo cut".into()));
    h.step();
    for _ in 0.."; echo cut".len() {
        h.key_press(Key::ArrowLeft);
        h.step();
    }
    // As on Linux: Ctrl is both `ctrl` and `command`.
    h.key_press_modifiers(Modifiers::CTRL | Modifiers::COMMAND, Key::K);
    h.step();
    h.key_press(Key::Enter);
    step_until(&mut h, LONG, "the line run", |h| screen(h).lines().any(|l| l.trim() == "kept"));
    run(&mut h, "echo after", "ok> echo after\nafter");
    assert!(!palette(&h), "the palette opened over the terminal");
    assert!(!screen(&h).lines().any(|l| l.trim() == "cut"), "Ctrl+K did not reach the shell:\n{}", screen(&h));
    // Elsewhere in the workspace view (its Files tab), the window's shortcuts work.
    h.get_all_by_label("Files").last().unwrap().click();
    h.step();
    h.key_press_modifiers(Modifiers::CTRL | Modifiers::COMMAND, Key::K);
    step_until(&mut h, LONG, "the palette", palette);
    h.state_mut().shutdown();
}
