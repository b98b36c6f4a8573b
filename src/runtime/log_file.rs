//! Sidekicks' own log in a file a user can attach to a bug report: `sidekicks.log` in the state
//! folder, private to the user (0600), rotated past `MAX_SIZE` to `sidekicks.log.1` … `.KEEP`.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Size past which the file is rotated.
pub const MAX_SIZE: u64 = 5 << 20;
/// Rotated files kept.
pub const KEEP: usize = 3;

/// The log file (shared by every thread that logs).
pub struct LogFile {
    path: PathBuf,
    inner: Mutex<Option<(File, u64)>>,
}

impl LogFile {
    /// Opens (appends to) `dir/sidekicks.log`, making `dir` private.
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        super::config::file::private_dir(dir)?;
        let path = dir.join("sidekicks.log");
        let file = open(&path)?;
        let size = file.metadata()?.len();
        Ok(Self { path, inner: Mutex::new(Some((file, size))) })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write_all(&self, buf: &[u8]) -> std::io::Result<()> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.as_ref().is_some_and(|(_, size)| *size + buf.len() as u64 > MAX_SIZE) {
            *inner = None;
            self.rotate();
            *inner = open(&self.path).ok().map(|f| (f, 0));
        }
        if let Some((file, size)) = inner.as_mut() {
            file.write_all(buf)?;
            *size += buf.len() as u64;
        }
        Ok(())
    }

    /// `sidekicks.log.(n-1)` → `.n`, …, `sidekicks.log` → `.1`; the oldest goes.
    fn rotate(&self) {
        let name = |n: usize| PathBuf::from(format!("{}.{n}", self.path.display()));
        for n in (1..KEEP).rev() {
            let _ = std::fs::rename(name(n), name(n + 1));
        }
        let _ = std::fs::rename(&self.path, name(1));
    }
}

fn open(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(path)
}

/// A writer `tracing_subscriber` asks for per event.
pub struct Writer<'a>(&'a LogFile);

impl Write for Writer<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogFile {
    type Writer = Writer<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        Writer(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn rotates_past_the_size_and_keeps_three_private_files() {
        let dir = tempfile::tempdir().unwrap();
        let log = LogFile::open(&dir.path().join("state")).unwrap();
        let line = vec![b'x'; 1 << 20];
        for _ in 0..(5 * KEEP + 8) {
            log.write_all(&line).unwrap();
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path().join("state"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["sidekicks.log", "sidekicks.log.1", "sidekicks.log.2", "sidekicks.log.3"]);
        for name in names {
            let meta = std::fs::metadata(dir.path().join("state").join(&name)).unwrap();
            assert!(meta.len() <= MAX_SIZE, "{name}");
            assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{name}");
        }
        let folder = std::fs::metadata(dir.path().join("state")).unwrap();
        assert_eq!(folder.permissions().mode() & 0o777, 0o700);
    }
}
