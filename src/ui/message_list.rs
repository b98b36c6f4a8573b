//! A scrolling list of items of different heights that lays out only the visible ones: the height
//! of each item is remembered from the last time it was drawn (an estimate before that), the rest
//! is empty space. Keeps a 10,000-message conversation as cheap as a short one.

use egui::{Rect, Vec2};

/// Height assumed for an item never drawn yet.
const ESTIMATE: f32 = 60.0;
/// Extra height laid out above and below the viewport, so scrolling shows no gap.
const MARGIN: f32 = 300.0;

/// Remembered heights of the items of one list.
#[derive(Clone, Debug, Default)]
pub struct MessageList {
    heights: Vec<f32>,
    width: f32,
    /// Scroll to the bottom on the next frame.
    jump: bool,
    /// Scroll to this item (for two frames: the second with its height measured).
    target: Option<(usize, u8)>,
}

/// What the list reports after a frame.
pub struct ListOutput {
    /// True when the end of the list is in view.
    pub at_bottom: bool,
    /// How many items were laid out.
    pub drawn: usize,
}

impl MessageList {
    /// Asks for the bottom of the list on the next frame.
    pub fn jump_to_bottom(&mut self) {
        self.jump = true;
    }

    /// Asks for item `index` at the top of the view.
    pub fn jump_to(&mut self, index: usize) {
        self.target = Some((index, 2));
    }

    /// Shows `count` items, calling `item` only for the visible ones (and a margin around them).
    pub fn show(&mut self, ui: &mut egui::Ui, count: usize, mut item: impl FnMut(&mut egui::Ui, usize)) -> ListOutput {
        let width = ui.available_width();
        if (width - self.width).abs() > 1.0 {
            // Heights measured at another width are only estimates now; keep them as such.
            self.width = width;
        }
        self.heights.resize(count, ESTIMATE);
        let total: f32 = self.heights.iter().sum();
        let mut area = egui::ScrollArea::vertical().stick_to_bottom(true).auto_shrink([false, false]);
        if std::mem::take(&mut self.jump) {
            area = area.vertical_scroll_offset(total);
        } else if let Some((index, frames)) = self.target.take() {
            let above: f32 = self.heights.iter().take(index).sum();
            area = area.vertical_scroll_offset(above).stick_to_bottom(false);
            if frames > 1 {
                self.target = Some((index, frames - 1));
            }
        }
        let heights = &mut self.heights;
        let output = area.show_viewport(ui, |ui, viewport| {
            // What is inside the scroll bar (the list's whole width ran under it: the right
            // edge of every message, Retry and Copy, was cut off, the more so zoomed in).
            let width = ui.available_width();
            ui.set_min_width(width);
            let (from, to) = (viewport.min.y - MARGIN, viewport.max.y + MARGIN);
            let mut y = 0.0;
            let mut drawn = 0;
            let mut skipped = 0.0;
            for (index, height) in heights.iter_mut().enumerate() {
                let visible = y + *height >= from && y <= to;
                if visible {
                    if skipped > 0.0 {
                        ui.allocate_space(Vec2::new(width, skipped));
                        skipped = 0.0;
                    }
                    let start = ui.cursor().top();
                    ui.push_id(index, |ui| item(ui, index));
                    *height = (ui.cursor().top() - start).max(1.0);
                    drawn += 1;
                } else {
                    skipped += *height;
                }
                y += *height;
            }
            if skipped > 0.0 {
                ui.allocate_space(Vec2::new(width, skipped));
            }
            drawn
        });
        let content = output.content_size.y;
        let visible: Rect = output.inner_rect;
        let at_bottom = output.state.clamped_offset().y + visible.height() >= content - 4.0;
        ListOutput { at_bottom, drawn: output.inner }
    }
}
