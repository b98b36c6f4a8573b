//! The window's size, place and zoom (issue 48, item 7): the first frame gives the window the size
//! and place it had when last moved or resized, and the zoom (Ctrl+= / Ctrl+- / Ctrl+0, egui's own
//! keys) it had; without them, on a large screen it opens larger than its 1100×720 (three quarters
//! of the screen, in its middle). Changes are remembered through the runtime (the preferences
//! file) once they settled: the UI thread writes no file.

use std::time::{Duration, Instant};

use crate::app::{AppState, Bridge, Command, ConfigCommand};

/// How long a size or zoom must stay before it is remembered (a window dragged gives many).
const SETTLE: Duration = Duration::from_millis(600);

/// A zoom factor and a window's place and size (x, y, width, height), when known.
type Seen = (f32, Option<[f32; 4]>);

/// What the window knows of its look.
#[derive(Default)]
pub struct Look {
    /// The first size, place and zoom were given (once the screen and what was kept are known).
    given: bool,
    /// What was last remembered (or given at start).
    kept: Option<Seen>,
    /// A change not remembered yet, and since when it stands.
    pending: Option<(Instant, Seen)>,
}

impl Look {
    /// Once per frame: the first look given, then changes remembered once they settled.
    pub fn frame(&mut self, ctx: &egui::Context, state: &AppState, bridge: &Bridge) {
        if !self.given {
            self.give(ctx, state);
        }
        bound_zoom(ctx);
        // Followed once what was kept is known (the screen's size may never be told).
        let Some((zoom, window)) = state.remembered else { return };
        let kept = *self.kept.get_or_insert((zoom.unwrap_or(1.0), window));
        let now = (ctx.zoom_factor(), place(ctx));
        if same(kept, now) {
            self.pending = None;
            return;
        }
        match self.pending {
            Some((since, pending)) if same(pending, now) => {
                if since.elapsed() >= SETTLE {
                    bridge.send(Command::Config(ConfigCommand::Remember { zoom: now.0, window: now.1 }));
                    self.kept = Some(now);
                    self.pending = None;
                } else {
                    ctx.request_repaint_after(SETTLE);
                }
            }
            _ => {
                self.pending = Some((Instant::now(), now));
                ctx.request_repaint_after(SETTLE);
            }
        }
    }

    /// The size, place and zoom kept from the last run; else a larger window on a large screen.
    fn give(&mut self, ctx: &egui::Context, state: &AppState) {
        let Some((zoom, window)) = state.remembered else { return };
        let monitor = ctx.input(|i| i.viewport().monitor_size);
        // Nothing kept: the screen's size decides, once known.
        if monitor.is_none() && zoom.is_none() && window.is_none() {
            return;
        }
        self.given = true;
        if let Some(zoom) = zoom.filter(|z| (0.2..=5.0).contains(z)) {
            ctx.set_zoom_factor(zoom);
        }
        match (window, monitor) {
            (Some([x, y, w, h]), Some(monitor)) if fits([x, y, w, h], monitor) => {
                ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(egui::vec2(w, h)));
                ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(egui::pos2(x, y)));
            }
            // The screen unknown (some desktops do not say it): the size, not the place.
            (Some([_, _, w, h]), None) => ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(egui::vec2(w, h))),
            (_, Some(monitor)) => {
                if let Some(size) = first_size_for(monitor) {
                    ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(size));
                    let corner = ((monitor - size) / 2.0).to_pos2();
                    ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(corner));
                }
            }
            (None, None) => {}
        }
        self.kept = Some((zoom.unwrap_or(1.0), window));
    }
}

/// The window's place (its outer corner) and inner size, when the desktop says them.
fn place(ctx: &egui::Context) -> Option<[f32; 4]> {
    ctx.input(|i| {
        let viewport = i.viewport();
        let (outer, inner) = (viewport.outer_rect?, viewport.inner_rect?);
        Some([outer.min.x.round(), outer.min.y.round(), inner.width().round(), inner.height().round()])
    })
}

/// The least room the window needs, in points: zoomed in further, the conversation's messages
/// were drawn over its composer and the header's buttons ran off the window (a new user's trial).
const LEAST_ROOM: egui::Vec2 = egui::vec2(860.0, 540.0);

/// The smallest zoom: below it, text is too small to read.
const LEAST_ZOOM: f32 = 0.7;

/// Keeps the zoom where the window still has room for the page, and text stays readable.
fn bound_zoom(ctx: &egui::Context) {
    let zoom = ctx.zoom_factor();
    // The window's size in pixels (what a zoom of 1 would give in points).
    let pixels = ctx.content_rect().size() * zoom;
    let most = (pixels.x / LEAST_ROOM.x).min(pixels.y / LEAST_ROOM.y).max(1.0);
    let bounded = zoom.clamp(LEAST_ZOOM, most.max(LEAST_ZOOM));
    if (bounded - zoom).abs() > 0.001 {
        ctx.set_zoom_factor(bounded);
    }
}

/// Two looks alike (a zoom within a hundredth; a place unknown on one side is not a change).
fn same(a: Seen, b: Seen) -> bool {
    (a.0 - b.0).abs() < 0.01 && (b.1.is_none() || a.1 == b.1)
}

/// A place kept from a larger screen, or off it, is not given back.
fn fits([x, y, w, h]: [f32; 4], monitor: egui::Vec2) -> bool {
    w >= 200.0 && h >= 150.0 && w <= monitor.x && h <= monitor.y && x < monitor.x - 50.0 && y < monitor.y - 50.0
}

/// The first size on a screen of `monitor`: three quarters of it when that is larger than
/// 1100×720, else none (the window keeps its size).
fn first_size_for(monitor: egui::Vec2) -> Option<egui::Vec2> {
    let size = (monitor * 0.75).round();
    (size.x > 1100.0 && size.y > 720.0).then_some(size)
}
