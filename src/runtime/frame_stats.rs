//! The idle-repaint benchmark's frame counter (`SIDEKICKS_FRAME_STATS`): the window counts, a
//! thread of its own writes the file, so the window does no file work.

/// Counts drawn frames into a file, for the idle-repaint benchmark (`SIDEKICKS_FRAME_STATS`); a
/// thread of its own writes the file.
pub struct FrameStats {
    frames: u64,
    writer: std::sync::mpsc::Sender<u64>,
}

impl FrameStats {
    /// Starts the writer thread for `path`.
    pub fn new(path: std::path::PathBuf) -> Self {
        let (writer, counts) = std::sync::mpsc::channel::<u64>();
        std::thread::spawn(move || {
            while let Ok(mut frames) = counts.recv() {
                // Only the latest count matters.
                while let Ok(later) = counts.try_recv() {
                    frames = later;
                }
                let _ = std::fs::write(&path, frames.to_string());
            }
        });
        Self { frames: 0, writer }
    }

    /// Counts one more frame (the writer thread puts it in the file).
    pub fn frame(&mut self) {
        self.frames += 1;
        let _ = self.writer.send(self.frames);
    }
}
