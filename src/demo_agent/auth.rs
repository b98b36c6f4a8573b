//! The demo agent's logins (`sidekicks demo-agent --auth`), so every way of logging in can be tried
//! offline: an API key in `DEMO_API_KEY` (an `env_var` method, as codex offers `OPENAI_API_KEY`), a
//! login the agent does itself (`agent`; it succeeds at once, as a browser login would), and a
//! login in a terminal (`terminal`: `sidekicks demo-agent --login` asks to type `yes` and leaves a
//! file `.sidekicks-demo-login` in the folder). It refuses `session/new` until logged in, can log
//! out, and the scenario word `expire` logs it out in the middle of a session.

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The file a terminal login leaves in the agent's folder.
pub const LOGIN_FILE: &str = ".sidekicks-demo-login";

/// The variable the API-key login reads.
pub const KEY_VAR: &str = "DEMO_API_KEY";

/// Whether the agent is logged in.
#[derive(Default)]
pub struct Login {
    logged_in: AtomicBool,
}

impl Login {
    /// Logged in already (a terminal login done before it started).
    pub fn from_folder(folder: &Path) -> Self {
        Self { logged_in: AtomicBool::new(folder.join(LOGIN_FILE).is_file()) }
    }

    /// `authenticate` with `method`: true when it worked.
    pub fn authenticate(&self, method: &str) -> bool {
        let ok = match method {
            "demo-key" => std::env::var(KEY_VAR).is_ok_and(|v| !v.trim().is_empty()),
            "demo-browser" => true,
            _ => false,
        };
        if ok {
            self.logged_in.store(true, Ordering::SeqCst);
        }
        ok
    }

    /// True once logged in.
    pub fn is_logged_in(&self) -> bool {
        self.logged_in.load(Ordering::SeqCst)
    }

    /// Logs out (the terminal login's file goes too).
    pub fn log_out(&self, folder: &Path) {
        self.logged_in.store(false, Ordering::SeqCst);
        let _ = std::fs::remove_file(folder.join(LOGIN_FILE));
    }
}

/// The `authMethods` of the `initialize` answer, as raw JSON (the SDK's schema has no `env_var`).
pub fn methods_json() -> serde_json::Value {
    serde_json::json!([
        {"type": "env_var", "id": "demo-key", "name": "Use an API key", "description": "A demo: any key works (read as DEMO_API_KEY)",
         "vars": [{"name": KEY_VAR, "label": "Demo API key"}]},
        {"id": "demo-browser", "name": "Log in with the demo service", "description": "A demo: the agent logs in at once, as a browser login would"},
        {"type": "terminal", "id": "demo-terminal", "name": "Log in in a terminal", "args": ["--login"],
         "description": "A demo: type yes when it asks"}
    ])
}

/// Puts the raw methods into the `initialize` answer line.
pub fn rewrite_initialize(line: String) -> String {
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&line) else { return line };
    match value.pointer_mut("/result/authMethods") {
        Some(methods) => *methods = methods_json(),
        None => return line,
    }
    value.to_string()
}

/// The terminal login: asks to type `yes`; leaves the login file in the current folder. Exit 0
/// when logged in.
pub fn terminal_login() -> i32 {
    println!("Log in to the demo agent: type yes and press Enter.");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() || answer.trim() != "yes" {
        println!("Not logged in.");
        return 1;
    }
    match std::fs::write(LOGIN_FILE, "logged in\n") {
        Ok(()) => {
            println!("Logged in.");
            0
        }
        Err(e) => {
            println!("Cannot write {LOGIN_FILE}: {e}");
            1
        }
    }
}
