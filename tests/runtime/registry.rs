//! Agents from the ACP Registry through `sidekicks registry`, against the real registry's index
//! (tests/fixtures/registry, built from its public repository) served on 127.0.0.1 with entries of
//! the test's own beside the real ones: a binary entry whose archive is served there too (right and
//! wrong `sha256`) that then answers a prompt, updated and removed; and an `npx` entry of a published
//! agent (Claude Code's ACP adapter) that answers a prompt offline against a stand-in model.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::BIN;
use common::static_http::StaticHttp;

/// The real index, with `extra` entries appended.
fn index_with(extra: &[serde_json::Value]) -> Vec<u8> {
    let real =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry/registry.json"))
            .unwrap();
    let mut index: serde_json::Value = serde_json::from_str(&real).unwrap();
    index["agents"].as_array_mut().unwrap().extend(extra.iter().cloned());
    serde_json::to_vec_pretty(&index).unwrap()
}

fn binary_entry(id: &str, version: &str, archive: &str, sha: &str) -> serde_json::Value {
    let platform = sidekicks::model::registry::this_platform().expect("a platform the registry knows");
    serde_json::json!({
        "id": id, "name": "Demo Binary", "version": version,
        "description": "The demo agent, as a registry binary", "license": "MIT",
        "distribution": { "binary": { platform: { "archive": archive, "cmd": "./bin/demo-acp", "sha256": sha } } }
    })
}

/// A config file, XDG folders and the registry's address for one test.
struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
    url: String,
}

impl Setup {
    fn new(server: &StaticHttp) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("sidekicks.toml");
        std::fs::write(&config, "# my agents\n[defaults]\nidle_stop = 60 # a minute\n").unwrap();
        Self { dir, config, url: format!("{}/registry.json", server.base_url) }
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data/sidekicks")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .arg("--config")
            .arg(&self.config)
            .env("SIDEKICKS_REGISTRY_URL", &self.url)
            .env("XDG_CONFIG_HOME", self.dir.path().join("cfg"))
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env("XDG_STATE_HOME", self.dir.path().join("state"));
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.config).unwrap()
    }
}

fn said(out: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn a_binary_entry_is_checked_unpacked_answers_is_updated_and_removed() {
    let server = StaticHttp::start();
    let archive = common::static_http::demo_agent_tar_gz("bin/demo-acp");
    server.put("/demo-1.0.0.tar.gz", archive.clone());
    let url = |path: &str| format!("{}{path}", server.base_url);
    let good =
        binary_entry("demo-binary", "1.0.0", &url("/demo-1.0.0.tar.gz"), &common::static_http::sha256_hex(&archive));
    let bad = binary_entry(
        "demo-badsum",
        "1.0.0",
        &url("/demo-1.0.0.tar.gz"),
        &common::static_http::sha256_hex(b"something else"),
    );
    server.put("/registry.json", index_with(&[good, bad]));
    let s = Setup::new(&server);

    // Listed: the real entries and the test's, how each runs here.
    let out = s.run(&["registry", "list"]);
    assert!(out.status.success(), "{}", said(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    for id in ["gemini", "codex-acp", "mistral-vibe", "qwen-code", "demo-binary"] {
        assert!(listed.contains(id), "{id} listed:\n{listed}");
    }
    let out = s.run(&["registry", "list", "--json"]);
    let entries: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(entries.len(), 13);
    let gemini = entries.iter().find(|e| e["id"] == "gemini").unwrap();
    assert_eq!((gemini["runs_with"].as_str(), gemini["license"].as_str()), (Some("npx"), Some("Apache-2.0")));
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        let codex = entries.iter().find(|e| e["id"] == "codex-acp").unwrap();
        assert_eq!(codex["runs_with"].as_str(), Some("binary"));
    }

    // A wrong checksum refuses the install, in words, and keeps nothing.
    let before = s.text();
    let out = s.run(&["registry", "add", "demo-badsum"]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(said(&out).contains("does not match the registry's checksum"), "{}", said(&out));
    assert_eq!(s.text(), before, "the config is untouched");
    assert!(!s.data().join("registry/demo-badsum").exists(), "nothing kept");
    let leftovers: Vec<_> =
        std::fs::read_dir(s.data().join("registry")).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(leftovers.iter().all(|n| n == "index.json" || n == "downloads"), "{leftovers:?}");

    // The right one lands in the config (comments kept) and answers a prompt.
    let out = s.run(&["registry", "add", "demo-binary", "--name", "Demo"]);
    assert!(out.status.success(), "{}", said(&out));
    let text = s.text();
    assert!(text.starts_with(&before), "{text}");
    let config: toml::Table = toml::from_str(&text).unwrap();
    let agent = &config["agent"][0];
    assert_eq!(agent["name"].as_str(), Some("Demo"));
    assert_eq!(agent["registry"]["id"].as_str(), Some("demo-binary"));
    assert_eq!(agent["registry"]["version"].as_str(), Some("1.0.0"));
    let v1 = s.data().join("registry/demo-binary/1.0.0/bin/demo-acp");
    assert_eq!(agent["command"].as_str(), Some(v1.to_str().unwrap()));
    let workspace = agent["workspace"].as_str().unwrap().to_string();
    let out = s.run(&["prompt", "--agent", "Demo", "hello there"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("I am the Sidekicks demo agent"), "{}", said(&out));

    // A newer version in the index is offered, then taken: same name, workspace and thread.
    server.put("/demo-1.1.0.tar.gz", archive.clone());
    let newer =
        binary_entry("demo-binary", "1.1.0", &url("/demo-1.1.0.tar.gz"), &common::static_http::sha256_hex(&archive));
    server.put("/registry.json", index_with(&[newer]));
    let out = s.run(&["registry", "list"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("update available"), "{}", said(&out));
    let out = s.run(&["registry", "update"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("updated \"Demo\": 1.0.0 → 1.1.0"), "{}", said(&out));
    let config: toml::Table = toml::from_str(&s.text()).unwrap();
    let agent = &config["agent"][0];
    assert_eq!((agent["name"].as_str(), agent["workspace"].as_str()), (Some("Demo"), Some(workspace.as_str())));
    assert_eq!(agent["registry"]["version"].as_str(), Some("1.1.0"));
    assert!(agent["command"].as_str().unwrap().contains("/demo-binary/1.1.0/"));
    assert!(!v1.exists(), "the old version's download is deleted");
    let out = s.run(&["prompt", "--agent", "Demo", "--thread", "1", "hello again"]);
    assert!(out.status.success(), "{}", said(&out));
    let out = s.run(&["registry", "update"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("latest version"), "{}", said(&out));

    // The index no longer answers: the copy kept is shown, saying how old it is and why.
    server.remove("/registry.json");
    let out = s.run(&["registry", "list"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("demo-binary"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the copy read less than a minute ago"), "{}", said(&out));

    // Removed: gone from the config (the rest kept) and its download deleted.
    let out = s.run(&["registry", "remove", "Demo"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("its download deleted"), "{}", said(&out));
    assert!(!s.text().contains("[[agent]]") && s.text().contains("# my agents"), "{}", s.text());
    assert!(!s.data().join("registry/demo-binary").exists());
}

#[test]
fn an_index_that_cannot_be_read_or_an_address_not_https_is_said_in_words() {
    let server = StaticHttp::start();
    let mut s = Setup::new(&server);
    // Nothing served there, no copy kept.
    let out = s.run(&["registry", "list"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("cannot read the registry") && said(&out).contains("404"), "{}", said(&out));
    // Plain HTTP elsewhere than this computer is refused before anything is asked.
    s.url = "http://example.com/registry.json".into();
    let out = s.run(&["registry", "list"]);
    assert!(said(&out).contains("only over HTTPS"), "{}", said(&out));
    // Not the index's shape.
    s.url = format!("{}/registry.json", server.base_url);
    server.put("/registry.json", "{\"agents\": 3}");
    let out = s.run(&["registry", "list"]);
    assert!(said(&out).contains("not in the registry's format"), "{}", said(&out));
    // An unknown id.
    server.put("/registry.json", index_with(&[]));
    let out = s.run(&["registry", "add", "no-such-agent"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(said(&out).contains("no agent with the id \"no-such-agent\""), "{}", said(&out));
}

/// Archives and servers are input, not instructions (issue 45): an archive whose program is a link
/// to a file outside it is refused and the file untouched; a set-uid, world-writable program is
/// installed without those bits; a server that stops sending is given up, in words, within the
/// stated bound.
#[test]
fn an_archive_or_a_server_that_misbehaves_is_refused_in_words() {
    use std::os::unix::fs::PermissionsExt;
    let server = StaticHttp::start();
    let url = |path: &str| format!("{}{path}", server.base_url);
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.sh");
    std::fs::write(&outside, "keep me\n").unwrap();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o600)).unwrap();
    let tar_gz = |build: &dyn Fn(&mut tar::Builder<Vec<u8>>)| {
        use std::io::Write;
        let mut b = tar::Builder::new(Vec::new());
        build(&mut b);
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&b.into_inner().unwrap()).unwrap();
        e.finish().unwrap()
    };
    let linked = tar_gz(&|b| {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_size(0);
        b.append_link(&mut h, "bin/demo-acp", &outside).unwrap();
    });
    let program = std::fs::read(common::BIN).unwrap();
    let suid = tar_gz(&|b| {
        let mut h = tar::Header::new_gnu();
        h.set_size(program.len() as u64);
        h.set_mode(0o6777);
        b.append_data(&mut h, "bin/demo-acp", &program[..]).unwrap();
    });
    let held = common::static_http::demo_agent_tar_gz("bin/demo-acp");
    server.put("/linked.tar.gz", linked.clone());
    server.put("/suid.tar.gz", suid.clone());
    server.put("/held.tar.gz", held.clone());
    let sha = common::static_http::sha256_hex;
    server.put(
        "/registry.json",
        index_with(&[
            binary_entry("linked", "1.0.0", &url("/linked.tar.gz"), &sha(&linked)),
            binary_entry("suid", "1.0.0", &url("/suid.tar.gz"), &sha(&suid)),
            binary_entry("held", "1.0.0", &url("/held.tar.gz"), &sha(&held)),
        ]),
    );
    let s = Setup::new(&server);
    let out = s.run(&["registry", "add", "linked"]);
    assert_ne!(out.status.code(), Some(0), "{}", said(&out));
    assert!(said(&out).contains("a link to a file outside its archive"), "{}", said(&out));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me\n");
    assert_eq!(std::fs::metadata(&outside).unwrap().permissions().mode() & 0o777, 0o600, "made executable");
    assert!(!s.text().contains("linked"), "nothing written into the config");

    let out = s.run(&["registry", "add", "suid"]);
    assert!(out.status.success(), "{}", said(&out));
    let installed = s.data().join("registry/suid/1.0.0/bin/demo-acp");
    assert_eq!(std::fs::metadata(&installed).unwrap().permissions().mode() & 0o7777, 0o755);

    let _hold = server.hold("/held.tar.gz");
    let out = s.cmd(&["registry", "add", "held"]).env("SIDEKICKS_DOWNLOAD_STALL_SECS", "2").output().unwrap();
    assert_ne!(out.status.code(), Some(0), "{}", said(&out));
    assert!(said(&out).contains("less than 100 bytes a second for 2 seconds"), "{}", said(&out));
}

/// Claude Code's ACP adapter, as an `npx` entry pinned to the version tests/claude-agent installs
/// (so npm's cache has it): added, then asked through `sidekicks prompt` against a stand-in model.
#[test]
fn an_npx_entry_of_a_published_agent_answers_a_prompt_offline() {
    let Some(_launcher) =
        common::codex::npm_launcher("tests/claude-agent", "claude-agent-acp", "Claude Code's ACP adapter")
    else {
        return;
    };
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/claude-agent/package.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&lock).unwrap();
    let version = manifest["dependencies"]["@agentclientprotocol/claude-agent-acp"].as_str().unwrap().to_string();
    let server = StaticHttp::start();
    let entry = serde_json::json!({
        "id": "claude-agent", "name": "Claude Agent", "version": version,
        "description": "Claude Code's ACP adapter", "license": "proprietary",
        "distribution": { "npx": { "package": format!("@agentclientprotocol/claude-agent-acp@{version}") } }
    });
    server.put("/registry.json", index_with(&[entry]));
    let s = Setup::new(&server);

    // Without npx on the PATH: said, nothing added.
    let bin = s.dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let curl = sidekicks_path_of("curl");
    std::os::unix::fs::symlink(curl, bin.join("curl")).unwrap();
    let out = s.cmd(&["registry", "add", "claude-agent"]).env("PATH", &bin).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(said(&out).contains("runs with npx, which is not on the PATH: install Node.js"), "{}", said(&out));
    assert!(!s.text().contains("[[agent]]"));

    let out = s.run(&["registry", "add", "claude-agent", "--name", "Claude"]);
    assert!(out.status.success(), "{}", said(&out));
    let config: toml::Table = toml::from_str(&s.text()).unwrap();
    let agent = &config["agent"][0];
    assert_eq!(agent["command"].as_str(), Some("npx"));
    let args: Vec<&str> = agent["args"].as_array().unwrap().iter().filter_map(|a| a.as_str()).collect();
    assert_eq!(args, ["--yes", &format!("@agentclientprotocol/claude-agent-acp@{version}")]);

    // The stand-in model's address and keys, as the person would add them.
    let model = common::fake_anthropic::FakeAnthropic::with_rules(Vec::new());
    let env = model.agent_env(&s.dir.path().join("claude-home"));
    let mut text = s.text();
    text.push_str(&env);
    std::fs::write(&s.config, text).unwrap();
    let out = s
        .cmd(&["prompt", "--agent", "Claude", "say hello"])
        // npm's cache (filled by tests/claude-agent's install) serves the package: no network.
        .env("npm_config_prefer_offline", "true")
        .env("npm_config_update_notifier", "false")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", said(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(common::fake_anthropic::ANSWER), "{}", said(&out));
}

fn sidekicks_path_of(tool: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap();
    std::env::split_paths(&path).map(|d| d.join(tool)).find(|p| p.is_file()).unwrap_or_else(|| panic!("{tool} on PATH"))
}
