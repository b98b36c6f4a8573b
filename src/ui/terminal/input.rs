//! What the terminal sends to the program for keys, paste and the mouse, as xterm does: pure
//! functions of the key, the modifiers and the terminal's modes, tested without a window.

use alacritty_terminal::term::TermMode;
use egui::{Key, Modifiers};

/// The xterm modifier parameter (1 + Shift 1 + Alt 2 + Ctrl 4), or `None` without modifiers.
fn modifier_param(m: Modifiers) -> Option<u8> {
    let p = 1 + u8::from(m.shift) + 2 * u8::from(m.alt) + 4 * u8::from(m.ctrl);
    (p > 1).then_some(p)
}

/// `ESC [ 1 ; m X` with modifiers, else `ESC [ X` (or `ESC O X` in application cursor mode).
fn cursor_key(letter: u8, m: Modifiers, app_cursor: bool) -> Vec<u8> {
    match modifier_param(m) {
        Some(p) => format!("\x1b[1;{p}{}", letter as char).into_bytes(),
        None if app_cursor => vec![0x1b, b'O', letter],
        None => vec![0x1b, b'[', letter],
    }
}

/// `ESC [ n ~` or `ESC [ n ; m ~`.
fn tilde_key(n: u8, m: Modifiers) -> Vec<u8> {
    match modifier_param(m) {
        Some(p) => format!("\x1b[{n};{p}~").into_bytes(),
        None => format!("\x1b[{n}~").into_bytes(),
    }
}

/// F1–F4 are `ESC O P`…`ESC O S` (`ESC [ 1 ; m P` with modifiers).
fn ss3_key(letter: u8, m: Modifiers) -> Vec<u8> {
    match modifier_param(m) {
        Some(p) => format!("\x1b[1;{p}{}", letter as char).into_bytes(),
        None => vec![0x1b, b'O', letter],
    }
}

/// The control character of Ctrl+`key`, for letters and the few punctuation keys that have one.
fn control_char(key: Key) -> Option<u8> {
    let name = key.name();
    if name.len() == 1 && name.as_bytes()[0].is_ascii_alphabetic() {
        return Some(name.as_bytes()[0].to_ascii_lowercase() - b'a' + 1);
    }
    Some(match key {
        Key::Space | Key::Num2 => 0,
        Key::OpenBracket => 0x1b,
        Key::Backslash => 0x1c,
        Key::CloseBracket => 0x1d,
        Key::Slash | Key::Minus => 0x1f,
        _ => return None,
    })
}

/// The bytes a key press sends to the program; `None` for keys that arrive as text instead (plain
/// letters, digits, punctuation) and for keys a terminal ignores.
pub fn key_bytes(key: Key, m: Modifiers, mode: TermMode) -> Option<Vec<u8>> {
    let app_cursor = mode.contains(TermMode::APP_CURSOR);
    let esc_if_alt = |bytes: &[u8]| {
        let mut out = if m.alt { vec![0x1b] } else { Vec::new() };
        out.extend_from_slice(bytes);
        out
    };
    if m.ctrl
        && !m.shift
        && let Some(c) = control_char(key)
    {
        return Some(esc_if_alt(&[c]));
    }
    Some(match key {
        Key::Enter => esc_if_alt(b"\r"),
        Key::Backspace if m.ctrl => esc_if_alt(b"\x08"),
        Key::Backspace => esc_if_alt(b"\x7f"),
        Key::Tab if m.shift => b"\x1b[Z".to_vec(),
        Key::Tab => esc_if_alt(b"\t"),
        Key::Escape => esc_if_alt(b"\x1b"),
        Key::ArrowUp => cursor_key(b'A', m, app_cursor),
        Key::ArrowDown => cursor_key(b'B', m, app_cursor),
        Key::ArrowRight => cursor_key(b'C', m, app_cursor),
        Key::ArrowLeft => cursor_key(b'D', m, app_cursor),
        Key::Home => cursor_key(b'H', m, app_cursor),
        Key::End => cursor_key(b'F', m, app_cursor),
        Key::Insert => tilde_key(2, m),
        Key::Delete => tilde_key(3, m),
        Key::PageUp => tilde_key(5, m),
        Key::PageDown => tilde_key(6, m),
        Key::F1 => ss3_key(b'P', m),
        Key::F2 => ss3_key(b'Q', m),
        Key::F3 => ss3_key(b'R', m),
        Key::F4 => ss3_key(b'S', m),
        Key::F5 => tilde_key(15, m),
        Key::F6 => tilde_key(17, m),
        Key::F7 => tilde_key(18, m),
        Key::F8 => tilde_key(19, m),
        Key::F9 => tilde_key(20, m),
        Key::F10 => tilde_key(21, m),
        Key::F11 => tilde_key(23, m),
        Key::F12 => tilde_key(24, m),
        _ => return None,
    })
}

/// Typed text: with Alt held, terminals send ESC before it (the "meta" convention).
pub fn text_bytes(text: &str, m: Modifiers) -> Vec<u8> {
    let mut out = if m.alt && !m.ctrl { vec![0x1b] } else { Vec::new() };
    out.extend_from_slice(text.as_bytes());
    out
}

/// Pasted text: line ends become carriage returns (what Enter sends), wrapped in the bracketed-paste
/// markers when the program asked for them (so a shell does not run pasted lines one by one). The
/// end marker inside the text is removed, so a paste cannot escape the brackets.
pub fn paste_bytes(text: &str, mode: TermMode) -> Vec<u8> {
    let text = text.replace("\r\n", "\r").replace('\n', "\r");
    if mode.contains(TermMode::BRACKETED_PASTE) {
        let inner = text.replace("\x1b[201~", "");
        format!("\x1b[200~{inner}\x1b[201~").into_bytes()
    } else {
        text.into_bytes()
    }
}

/// A mouse event to report to a program that asked for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseReport {
    /// A button (0 left, 1 middle, 2 right) went down.
    Press(u8),
    /// A button went up.
    Release(u8),
    /// The pointer moved with a button held (`Some`) or none (`None`).
    Motion(Option<u8>),
    /// The wheel turned: up (`true`) or down.
    Wheel(bool),
}

/// The bytes reporting `event` at cell (`col`, `line`) (0-based), or `None` when the program's mouse
/// mode does not ask for it (motion without drag or motion mode). SGR encoding when asked, else the
/// classic `ESC [ M` encoding (coordinates up to 223).
pub fn mouse_bytes(event: MouseReport, col: usize, line: usize, m: Modifiers, mode: TermMode) -> Option<Vec<u8>> {
    if !mode.intersects(TermMode::MOUSE_MODE) {
        return None;
    }
    let (mut code, release) = match event {
        MouseReport::Press(b) => (b, false),
        MouseReport::Release(b) => (b, true),
        MouseReport::Motion(Some(b)) if mode.intersects(TermMode::MOUSE_DRAG | TermMode::MOUSE_MOTION) => {
            (b + 32, false)
        }
        MouseReport::Motion(None) if mode.contains(TermMode::MOUSE_MOTION) => (3 + 32, false),
        MouseReport::Motion(_) => return None,
        MouseReport::Wheel(up) => (if up { 64 } else { 65 }, false),
    };
    code += 4 * u8::from(m.shift) + 8 * u8::from(m.alt) + 16 * u8::from(m.ctrl);
    let (x, y) = (col + 1, line + 1);
    if mode.contains(TermMode::SGR_MOUSE) {
        let end = if release { 'm' } else { 'M' };
        return Some(format!("\x1b[<{code};{x};{y}{end}").into_bytes());
    }
    if release {
        code = (code & !3) | 3;
    }
    let mut out = vec![0x1b, b'[', b'M', 32 + code];
    for v in [x, y] {
        if mode.contains(TermMode::UTF8_MOUSE) {
            let c = char::from_u32((32 + v).min(2047) as u32).unwrap_or(' ');
            out.extend(c.to_string().as_bytes());
        } else {
            out.push((32 + v).min(255) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: TermMode = TermMode::empty();

    #[test]
    fn keys_send_what_xterm_sends() {
        assert_eq!(key_bytes(Key::C, Modifiers::CTRL, NONE), Some(vec![3]));
        assert_eq!(key_bytes(Key::C, Modifiers::CTRL | Modifiers::ALT, NONE), Some(vec![0x1b, 3]));
        assert_eq!(key_bytes(Key::OpenBracket, Modifiers::CTRL, NONE), Some(vec![0x1b]));
        assert_eq!(key_bytes(Key::Enter, Modifiers::NONE, NONE), Some(b"\r".to_vec()));
        assert_eq!(key_bytes(Key::ArrowUp, Modifiers::NONE, NONE), Some(b"\x1b[A".to_vec()));
        assert_eq!(key_bytes(Key::ArrowUp, Modifiers::NONE, TermMode::APP_CURSOR), Some(b"\x1bOA".to_vec()));
        assert_eq!(key_bytes(Key::ArrowLeft, Modifiers::CTRL, NONE), Some(b"\x1b[1;5D".to_vec()));
        assert_eq!(key_bytes(Key::F1, Modifiers::NONE, NONE), Some(b"\x1bOP".to_vec()));
        assert_eq!(key_bytes(Key::F5, Modifiers::NONE, NONE), Some(b"\x1b[15~".to_vec()));
        assert_eq!(key_bytes(Key::F12, Modifiers::SHIFT, NONE), Some(b"\x1b[24;2~".to_vec()));
        assert_eq!(key_bytes(Key::PageUp, Modifiers::NONE, NONE), Some(b"\x1b[5~".to_vec()));
        assert_eq!(key_bytes(Key::Tab, Modifiers::SHIFT, NONE), Some(b"\x1b[Z".to_vec()));
        assert_eq!(key_bytes(Key::Backspace, Modifiers::ALT, NONE), Some(b"\x1b\x7f".to_vec()));
        assert_eq!(key_bytes(Key::A, Modifiers::NONE, NONE), None, "text comes as text events");
        assert_eq!(text_bytes("b", Modifiers::ALT), b"\x1bb".to_vec());
        assert_eq!(text_bytes("é", Modifiers::NONE), "é".as_bytes().to_vec());
    }

    #[test]
    fn paste_is_bracketed_only_when_asked_and_cannot_escape() {
        assert_eq!(paste_bytes("a\nb", NONE), b"a\rb".to_vec());
        assert_eq!(paste_bytes("a\r\nb", TermMode::BRACKETED_PASTE), b"\x1b[200~a\rb\x1b[201~".to_vec());
        assert_eq!(
            paste_bytes("x\x1b[201~rm -rf /\n", TermMode::BRACKETED_PASTE),
            b"\x1b[200~xrm -rf /\r\x1b[201~".to_vec()
        );
    }

    #[test]
    fn mouse_reports_follow_the_mode_asked() {
        let click = TermMode::MOUSE_REPORT_CLICK;
        assert_eq!(mouse_bytes(MouseReport::Press(0), 0, 0, Modifiers::NONE, NONE), None);
        assert_eq!(mouse_bytes(MouseReport::Press(0), 4, 9, Modifiers::NONE, click), Some(b"\x1b[M %*".to_vec()));
        assert_eq!(mouse_bytes(MouseReport::Release(2), 4, 9, Modifiers::NONE, click), Some(b"\x1b[M#%*".to_vec()));
        let sgr = click | TermMode::SGR_MOUSE;
        assert_eq!(mouse_bytes(MouseReport::Press(0), 4, 9, Modifiers::NONE, sgr), Some(b"\x1b[<0;5;10M".to_vec()));
        assert_eq!(mouse_bytes(MouseReport::Release(0), 4, 9, Modifiers::NONE, sgr), Some(b"\x1b[<0;5;10m".to_vec()));
        assert_eq!(mouse_bytes(MouseReport::Wheel(true), 0, 0, Modifiers::CTRL, sgr), Some(b"\x1b[<80;1;1M".to_vec()));
        assert_eq!(mouse_bytes(MouseReport::Motion(Some(0)), 0, 0, Modifiers::NONE, sgr), None, "no drag mode");
        let drag = sgr | TermMode::MOUSE_DRAG;
        assert_eq!(
            mouse_bytes(MouseReport::Motion(Some(0)), 1, 1, Modifiers::NONE, drag),
            Some(b"\x1b[<32;2;2M".to_vec())
        );
        assert_eq!(mouse_bytes(MouseReport::Motion(None), 1, 1, Modifiers::NONE, drag), None);
    }
}
