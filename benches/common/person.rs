//! A person's own folders for a bench's `sidekicks` processes (history, teams, logs kept under
//! `ROOT/user`, never the machine's own).

use std::path::Path;
use std::process::Command;

/// `command` run as the person whose folders are under `root/user`.
pub fn as_person<'a>(command: &'a mut Command, root: &Path) -> &'a mut Command {
    let user = root.join("user");
    command
        .env("HOME", &user)
        .env("XDG_DATA_HOME", user.join("data"))
        .env("XDG_CONFIG_HOME", user.join("config"))
        .env("XDG_STATE_HOME", user.join("state"))
        .env("XDG_RUNTIME_DIR", &user)
}
