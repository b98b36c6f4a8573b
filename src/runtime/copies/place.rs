//! Reaching a member's far copy: one copy service per place (the agent's runtime and its host,
//! container, sandbox or pod), started on first use through that runtime's own command line
//! (`ssh` over the host's shared connection, `docker|podman|sbx exec -i`, `kubectl exec -i`), with
//! this binary put there first when it is not (`upload.rs`). A connection that was lost is made
//! again once for the next request; a refusal is told in the far side's words.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, LazyLock, Mutex};

use super::client::CopyClient;
use super::upload::{Far, ensure_binary};
use super::wire::WireError;
use crate::model::config::RuntimeKind;
use crate::protocol::teams::{FarCopy, TeamError};

type Slot = Arc<Mutex<Option<CopyClient>>>;

/// The running copy services, by place (runtime, target).
static SERVICES: LazyLock<Mutex<HashMap<(String, String), Slot>>> = LazyLock::new(Default::default);

/// The Sidekicks binary sent to the far side, when not this process's own (a program that links
/// the library, such as a test harness, names the binary it means).
static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Names the Sidekicks binary to run on the far side (once; later calls change nothing).
pub fn use_binary(path: PathBuf) {
    let _ = BINARY.set(path);
}

/// A place where copies are kept: an agent's runtime and its target.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    /// The runtime as the config names it (`ssh`).
    pub runtime: String,
    /// Its host, container, sandbox or pod.
    pub target: String,
}

impl Place {
    /// The place of a far copy.
    pub fn of(far: &FarCopy) -> Self {
        Self { runtime: far.runtime.clone(), target: far.target.clone() }
    }

    /// The place in words (`ssh build-1`).
    pub fn words(&self) -> String {
        format!("{} {}", self.runtime, self.target)
    }

    fn error(&self, message: impl ToString) -> TeamError {
        TeamError::Far { place: self.words(), message: message.to_string() }
    }

    /// How commands run there.
    pub fn far(&self) -> Result<Far, TeamError> {
        let kind = RuntimeKind::ALL
            .into_iter()
            .find(|k| k.code() == self.runtime)
            .ok_or_else(|| self.error(format!("no runtime is called {}", self.runtime)))?;
        let executor = crate::runtime::exec::executor_at(kind, &self.target).map_err(|e| self.error(e))?;
        Ok(Far::new(move |words| executor.remote_argv(words.clone(), false, &[]).unwrap_or(words)))
    }

    /// Starts the copy service there, putting this binary there first when it is not.
    pub fn connect(&self) -> Result<CopyClient, TeamError> {
        let far = self.far()?;
        let binary = match BINARY.get() {
            Some(binary) => binary.clone(),
            None => crate::runtime::exec::resolve_program(crate::runtime::exec::SELF_COMMAND),
        };
        let there: PathBuf = match self.runtime == RuntimeKind::Local.code() {
            true => binary,
            false => ensure_binary(&far, &binary).map_err(|e| self.error(e))?.path().to_path_buf(),
        };
        let argv = far.argv(vec![there.display().to_string(), "serve-copies".into()]);
        let (program, args) = argv.split_first().ok_or_else(|| self.error("no command line"))?;
        let mut command = Command::new(program);
        command.args(args);
        CopyClient::start(command).map_err(|e| self.error(e))
    }

    /// Runs `ask` with the copy service there (started when it is not running). A connection
    /// that was closed or broke is made again once, for `ask` again, when `again` (a request
    /// that does the same done twice: every one but making a copy).
    pub fn with<T>(
        &self,
        again: bool,
        mut ask: impl FnMut(&mut CopyClient) -> Result<T, WireError>,
    ) -> Result<T, TeamError> {
        let slot = {
            let mut services = SERVICES.lock().unwrap_or_else(|e| e.into_inner());
            services.entry((self.runtime.clone(), self.target.clone())).or_default().clone()
        };
        let mut client = slot.lock().unwrap_or_else(|e| e.into_inner());
        let mut tries = if again { 2 } else { 1 };
        loop {
            tries -= 1;
            let service = match client.as_mut() {
                Some(service) => service,
                None => client.insert(self.connect()?),
            };
            match ask(service) {
                Ok(value) => return Ok(value),
                Err(WireError::Refused(message)) => return Err(self.error(message)),
                Err(e) => {
                    // Whatever was half said, this conversation is over.
                    *client = None;
                    let lost = matches!(e, WireError::Io(_) | WireError::Closed);
                    if !lost || tries == 0 {
                        return Err(self.error(e));
                    }
                    tracing::info!("the copy service on {} was lost ({e}); connecting again", self.words());
                }
            }
        }
    }
}

/// Ends every copy service this process started (the next request starts one again).
pub fn disconnect_all() {
    let services: Vec<Slot> = SERVICES.lock().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, s)| s).collect();
    for slot in services {
        slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}
