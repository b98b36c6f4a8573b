//! Other work on the machine, for a bench's loaded runs: `yes > /dev/null` processes, one per
//! core of the CI-class machine (two), running until dropped (issue 50: every bench that reports
//! a loaded figure starts its load itself, so a run says which it measured).

use std::process::{Child, Command, Stdio};

/// Busy processes beside the bench; stopped when dropped.
pub struct Busy(Vec<Child>);

impl Busy {
    /// Starts `n` busy processes (`yes` writing to /dev/null).
    pub fn start(n: usize) -> Self {
        let spawn = |_| Command::new("yes").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("yes runs");
        Self((0..n).map(spawn).collect())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
