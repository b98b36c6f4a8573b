//! What a prompt carries besides its text, and what an agent takes.

use crate::model::content::Image;
use crate::model::rel_path::RelPath;

/// Something sent with a prompt besides its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attachment {
    /// An image, its bytes read already (a file picked or dropped, a paste).
    Image(Image),
    /// A file or folder of the agent's workspace (`@path`).
    Mention {
        /// Its path below the workspace.
        path: RelPath,
        /// A folder.
        dir: bool,
    },
}

/// What an agent takes in a prompt besides text (`promptCapabilities`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PromptAbilities {
    /// Images.
    pub image: bool,
    /// Files' text sent along (embedded resources); otherwise a file is sent as a link.
    pub embedded: bool,
}

/// Where an attachment comes from, for the runtime to read (never the UI thread).
#[derive(Clone, Debug)]
pub enum AttachSource {
    /// Files on this computer (dropped on the window).
    Files(Vec<std::path::PathBuf>),
    /// Files the person picks in the native dialog (opened in the agent's workspace).
    Pick,
    /// Pixels pasted from the clipboard: RGBA, alpha premultiplied (as egui keeps them).
    Pixels {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// `width × height × 4` bytes.
        rgba: std::sync::Arc<Vec<u8>>,
    },
}
