//! Inputs that made Sidekicks wait with no word (issue 45): a config "file" that is a named pipe
//! made `check`, `prompt` and `registry list` wait for ever for a writer. Each now says what is
//! wrong at once.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::BIN;

/// Runs `sidekicks ARGS`; its exit code and what it said, or a failure after a minute.
fn run(dir: &std::path::Path, registry: &str, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env("HOME", dir.join("user"))
        .env("XDG_CONFIG_HOME", dir.join("user/config"))
        .env("XDG_DATA_HOME", dir.join("user/data"))
        .env("XDG_STATE_HOME", dir.join("user/state"))
        .env("SIDEKICKS_REGISTRY_URL", registry)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{args:?} still waiting after a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), said)
}

#[test]
fn a_config_that_is_a_named_pipe_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("sidekicks.toml");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain system call with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let config = fifo.to_str().unwrap();
    let server = common::static_http::StaticHttp::start();
    let index =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry/registry.json"));
    server.put("/registry.json", index.unwrap());
    let registry = format!("{}/registry.json", server.base_url);
    for args in [
        vec!["check", "--config", config],
        vec!["prompt", "--config", config, "--agent", "demo", "hello"],
        vec!["registry", "list", "--config", config],
    ] {
        let (code, said) = run(dir.path(), &registry, &args);
        // `registry list` lists the registry all the same.
        assert!(code != 0 || args[0] == "registry", "{args:?}: {said}");
        assert!(said.contains("not a regular file"), "{args:?}: {said}");
    }
}

/// An agent's text, a member's file and a registry's words reach a person's terminal as words:
/// an OSC 52 clipboard write, a title change and a screen clear are shown, never sent raw.
#[test]
fn escape_sequences_never_reach_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sidekicks.toml");
    let agents: &[(&str, &str, &[&str])] = &[("bad", BIN, &["demo-agent", "--misbehave"])];
    std::fs::write(&config, common::config_text("", agents, dir.path())).unwrap();
    let config = config.to_str().unwrap();
    let server = common::static_http::StaticHttp::start();
    let registry = format!("{}/registry.json", server.base_url);
    let (code, said) = run(dir.path(), &registry, &["prompt", "--config", config, "--agent", "bad", "escapes"]);
    assert_eq!(code, 0, "{said}");
    assert!(!said.contains('\x1b'), "a raw escape reached the terminal: {said:?}");
    assert!(said.contains("before^[]52;c;cm0gLXJmIH4=^G^[]0;owned^G^[[2Jafter"), "{said:?}");
    // A registry entry whose words hold escapes.
    let index = serde_json::json!({"version": "1.0.0", "agents": [{
        "id": "sly", "name": "Sly\u{1b}]0;owned\u{7}", "version": "1.0.0",
        "description": "clears \u{1b}[2J your screen", "license": "MIT",
        "distribution": {"npx": {"package": "sly-agent"}}
    }]});
    server.put("/registry.json", serde_json::to_vec(&index).unwrap());
    let (code, said) = run(dir.path(), &registry, &["registry", "list", "--config", config]);
    assert_eq!(code, 0, "{said}");
    assert!(!said.contains('\x1b') && said.contains("clears ^[[2J your screen"), "{said:?}");
}
