//! Terminals drawn in the window: a workspace's tabs (`tabs`), one terminal's screen and input
//! (`view`, `input`, `picture`), the palette of its colours (`colors`).

pub mod colors;
pub mod input;
pub mod picture;
pub mod tabs;
pub mod view;
