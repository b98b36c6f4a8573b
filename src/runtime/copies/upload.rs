//! This binary on the far side (issue 49, item 2): when the far side has no Sidekicks of this
//! build, it is uploaded once over the transport into a per-user cache there
//! (`${XDG_CACHE_HOME:-$HOME/.cache}/sidekicks/bin/sidekicks-VERSION-SHA`), checked there by its
//! sha256, and reused after. Only to the same OS and CPU architecture (`uname`), refused in words
//! otherwise. The transport is a command prefix that runs what follows it there (`docker exec -i
//! NAME`, `podman exec -i NAME`, `ssh HOST`, …); only POSIX `sh`, `uname`, `sha256sum`, `cat`,
//! `mkdir`, `chmod`, `mv` are needed there (busybox has them).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why the binary could not be put there, in words.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// The far side is another kind of machine.
    #[error("the other side is {found}, this Sidekicks is built for {ours}: it cannot run there")]
    OtherMachine {
        /// What `uname -s -m` said there.
        found: String,
        /// This build's OS and architecture.
        ours: String,
    },
    /// A command there failed.
    #[error("{what} failed: {why}")]
    Failed {
        /// What was done.
        what: &'static str,
        /// Its words.
        why: String,
    },
    /// The tool that reaches the other side is not installed here.
    #[error("{0} is not installed on this computer, so the other side cannot be reached")]
    Missing(String),
    /// The file arrived, but not whole.
    #[error("the copy of Sidekicks sent to the other side arrived damaged (its sha256 differs); nothing was kept")]
    Damaged,
}

/// How commands run on the far side: the command line (run here) that runs these words there.
type Through = dyn Fn(Vec<String>) -> Vec<String> + Send + Sync;

/// Runs commands on the far side.
#[derive(Clone)]
pub struct Far {
    through: std::sync::Arc<Through>,
}

impl Far {
    /// Through a prefix that runs the words following it there (`docker exec -i NAME`).
    pub fn prefix(prefix: Vec<String>) -> Self {
        Self::new(move |words| prefix.iter().cloned().chain(words).collect())
    }

    /// Through `through`, which gives the command line that runs the words there (ssh quotes
    /// them into one string).
    pub fn new(through: impl Fn(Vec<String>) -> Vec<String> + Send + Sync + 'static) -> Self {
        Self { through: std::sync::Arc::new(through) }
    }

    /// The command line that runs `words` there.
    pub fn argv(&self, words: Vec<String>) -> Vec<String> {
        (self.through)(words)
    }

    /// `sh -c script` there, with `input` on its stdin; its stdout, or its stderr in words.
    fn sh(&self, what: &'static str, script: &str, input: Option<&Path>) -> Result<String, UploadError> {
        let failed = |why: String| UploadError::Failed { what, why };
        let argv = self.argv(vec!["sh".into(), "-c".into(), script.into()]);
        let (program, args) = argv.split_first().ok_or_else(|| failed("no transport".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => UploadError::Missing(program.clone()),
                _ => failed(e.to_string()),
            })?;
        if let (Some(path), Some(mut stdin)) = (input, child.stdin.take()) {
            let mut file = std::fs::File::open(path).map_err(|e| failed(e.to_string()))?;
            std::io::copy(&mut file, &mut stdin).map_err(|e| failed(e.to_string()))?;
            stdin.flush().map_err(|e| failed(e.to_string()))?;
        }
        let out = child.wait_with_output().map_err(|e| failed(e.to_string()))?;
        if !out.status.success() {
            return Err(failed(String::from_utf8_lossy(&out.stderr).trim().to_string()));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }
}

/// What happened to the binary there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placed {
    /// It was there already (this build, checked by its sha256).
    Found(PathBuf),
    /// It was sent now.
    Sent(PathBuf),
}

impl Placed {
    /// Where it is there.
    pub fn path(&self) -> &Path {
        match self {
            Placed::Found(p) | Placed::Sent(p) => p,
        }
    }
}

/// `uname -m`'s word for this build's architecture.
fn our_machine() -> (&'static str, &'static str) {
    (std::env::consts::OS, std::env::consts::ARCH)
}

/// Whether `uname -s -m`'s answer is this build's kind of machine.
fn same_machine(uname: &str) -> bool {
    let mut words = uname.split_whitespace();
    let os = match words.next().unwrap_or("").to_lowercase().as_str() {
        "darwin" => "macos".to_string(),
        other => other.to_string(),
    };
    let arch = words.next().unwrap_or("");
    let arch = match arch {
        "arm64" => "aarch64",
        "amd64" => "x86_64",
        other => other,
    };
    let (our_os, our_arch) = our_machine();
    os == our_os && arch == our_arch
}

/// Puts `binary` (this Sidekicks) on the far side, once: found there already (by its sha256), or
/// sent, checked there, and kept.
pub fn ensure_binary(far: &Far, binary: &Path) -> Result<Placed, UploadError> {
    let uname = far.sh("reaching it (uname)", "uname -s -m", None)?;
    if !same_machine(&uname) {
        let (os, arch) = our_machine();
        return Err(UploadError::OtherMachine { found: uname, ours: format!("{os} {arch}") });
    }
    let bytes = std::fs::read(binary)
        .map_err(|e| UploadError::Failed { what: "reading this Sidekicks", why: e.to_string() })?;
    let sha = super::wire::sha256(&bytes);
    let name = format!("sidekicks-{}-{}", env!("CARGO_PKG_VERSION"), &sha[..16]);
    // The folder and the file there; what is found there is checked, not trusted.
    let place = format!("d=\"${{XDG_CACHE_HOME:-$HOME/.cache}}/sidekicks/bin\"; f=\"$d/{name}\"");
    let look = format!(
        "{place}; if [ -x \"$f\" ] && [ \"$(sha256sum < \"$f\" | cut -d' ' -f1)\" = {sha} ]; then echo \"have $f\"; else echo \"need $f\"; fi"
    );
    let answer = far.sh("looking for Sidekicks there", &look, None)?;
    if let Some(path) = answer.strip_prefix("have ") {
        return Ok(Placed::Found(PathBuf::from(path)));
    }
    let Some(path) = answer.strip_prefix("need ") else {
        return Err(UploadError::Failed { what: "looking for Sidekicks there", why: answer });
    };
    let send = format!(
        "{place}; mkdir -p \"$d\" && cat > \"$f.part\" && if [ \"$(sha256sum < \"$f.part\" | cut -d' ' -f1)\" = {sha} ]; \
         then chmod 755 \"$f.part\" && mv \"$f.part\" \"$f\" && echo sent; else rm -f \"$f.part\"; echo damaged; fi"
    );
    match far.sh("sending Sidekicks there", &send, Some(binary))?.as_str() {
        "sent" => Ok(Placed::Sent(PathBuf::from(path))),
        _ => Err(UploadError::Damaged),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_is_compared_in_unames_words() {
        let (os, arch) = our_machine();
        assert!(same_machine(&format!("{} {arch}", os.to_uppercase())));
        assert!(!same_machine("Linux riscv64") || arch == "riscv64");
        assert!(!same_machine("Darwin x86_64") || os == "macos");
        assert!(!same_machine(""));
    }
}
