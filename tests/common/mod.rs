//! Helpers shared by the integration tests: a runtime to drive, event collection with deadlines.
#![allow(dead_code)]

pub mod codex;
pub mod docker;
pub mod fake_anthropic;
pub mod fake_model;
pub mod history;
pub mod http;
pub mod ssh;
pub mod static_http;
pub mod team_run;
pub mod window;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sidekicks::app::AgentEvent;
use sidekicks::app::{Command, Event};
use sidekicks::model::conversation::Update;
use sidekicks::runtime::agents::{ManagerCommand, ManagerSettings, spawn_manager};
use sidekicks::runtime::events::EventSink;
use sidekicks::runtime::process::StopTimeouts;
use tokio::sync::mpsc;

/// The sidekicks binary cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_sidekicks");

/// Short timings so tests do not wait for the real 5 s + 3 s.
pub fn fast_settings() -> ManagerSettings {
    ManagerSettings {
        stop: StopTimeouts { after_eof: Duration::from_millis(1500), after_term: Duration::from_millis(1500) },
        // Published adapters (node, a native binary) and agents in containers can take several
        // seconds to answer `initialize` on a loaded machine: 3 s failed the Codex test there.
        // Tests of a handshake that never comes use `short_handshake`.
        handshake_timeout: Duration::from_secs(30),
        tick: Duration::from_millis(200),
        cancel_grace: Duration::from_millis(1500),
        hangup_grace: Duration::from_secs(2),
        host_exe: std::path::Path::new(BIN),
        checkpoints_root: None,
        unattended: None,
        watching: true,
    }
}

/// `fast_settings` with a 3 s handshake: for agents that never finish it.
pub fn short_handshake() -> ManagerSettings {
    ManagerSettings { handshake_timeout: Duration::from_secs(3), ..fast_settings() }
}

/// What a test sends the manager: a door's command (one the manager serves), or its own.
pub trait ForManager {
    /// As the manager's inbox takes it.
    fn for_manager(self) -> ManagerCommand;
}

impl ForManager for Command {
    fn for_manager(self) -> ManagerCommand {
        ManagerCommand::from_door(self).expect("a command the manager serves")
    }
}

impl ForManager for ManagerCommand {
    fn for_manager(self) -> ManagerCommand {
        self
    }
}

/// A manager and the events it sends.
pub struct Rig {
    pub commands: mpsc::Sender<ManagerCommand>,
    pub events: mpsc::Receiver<Event>,
    /// Every event seen so far.
    pub seen: Vec<Event>,
}

impl Rig {
    pub fn new(settings: ManagerSettings) -> Self {
        Self::with_store(settings, None)
    }

    /// A manager keeping conversations and permission answers in `store` (with its recorder).
    pub fn with_store(settings: ManagerSettings, store: Option<Arc<sidekicks::runtime::store::Store>>) -> Self {
        let (mut sink, events) = EventSink::new(Arc::new(|| {}));
        if let Some(store) = &store {
            sink = sink.with_history(sidekicks::runtime::history::spawn_recorder(store.clone()));
        }
        let commands = spawn_manager(settings, sink, store);
        Self { commands, events, seen: Vec::new() }
    }

    /// Sends the manager a door's command (one it serves) or one of its own inbox.
    pub async fn send(&self, command: impl ForManager) {
        self.commands.send(command.for_manager()).await.expect("manager alive");
    }

    /// Waits until an event matches `pred`; panics with the events seen after `limit`.
    pub async fn wait_for(&mut self, limit: Duration, what: &str, pred: impl Fn(&Event) -> bool) -> Event {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.events.recv()).await {
                Ok(Some(event)) => {
                    self.seen.push(event.clone());
                    if pred(&event) {
                        return event;
                    }
                }
                _ => panic!("timed out waiting for {what}; events seen: {:#?}", self.seen),
            }
        }
    }

    /// The text the agent streamed so far.
    pub fn agent_text(&self, agent: &str) -> String {
        self.seen
            .iter()
            .filter_map(|e| match e {
                Event::Agent(a, AgentEvent::Update { update: Update::Text(text) }) if a == agent => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A config text with one `[[agent]]` per `(name, command, args)`, working in `workspace`.
pub fn config_text(defaults: &str, agents: &[(&str, &str, &[&str])], workspace: &Path) -> String {
    let mut text = format!("[defaults]\n{defaults}\n");
    for (name, command, args) in agents {
        let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
        text.push_str(&format!(
            "\n[[agent]]\nname = {name:?}\ncommand = {command:?}\nargs = [{}]\nworkspace = {:?}\n",
            args.join(", "),
            workspace.display().to_string()
        ));
    }
    text
}

/// Loads `text` as if from a file in `dir` and hands it to the manager.
pub async fn load_config(rig: &Rig, dir: &Path, text: &str) {
    let path = dir.join("sidekicks.toml");
    std::fs::write(&path, text).unwrap();
    let result = sidekicks::runtime::config::file::load_file(&path, None);
    assert!(result.config.is_some(), "config problems: {:?}", result.problems);
    rig.send(ManagerCommand::ConfigLoaded { path, result }).await;
}

/// True while process `pid` exists and is not a zombie.
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().and_then(|s| s.split_whitespace().next());
            state != Some("Z")
        }
        Err(_) => false,
    }
}

/// A manager with one demo agent named `demo` working in `dir`.
pub async fn demo_rig(dir: &Path) -> Rig {
    let rig = Rig::new(fast_settings());
    load_config(&rig, dir, &config_text("", &[("demo", BIN, &["demo-agent"])], dir)).await;
    rig
}

impl Rig {
    /// Sends `text` to `agent` without waiting for the end of its turn.
    pub async fn say(&self, agent: &str, text: &str) {
        self.send(Command::prompt(agent, text)).await;
    }

    /// Sends `text` to `agent` and waits for the end of that turn.
    pub async fn turn(&mut self, agent: &str, text: &str) -> sidekicks::model::conversation::TurnEnd {
        self.say(agent, text).await;
        self.wait_turn_end(agent).await
    }

    /// Waits for the next end of a turn of `agent`.
    pub async fn wait_turn_end(&mut self, agent: &str) -> sidekicks::model::conversation::TurnEnd {
        let event = self
            .wait_for(
                Duration::from_secs(30),
                "turn end",
                |e| matches!(e, Event::Agent(a, AgentEvent::TurnEnded { .. }) if a == agent),
            )
            .await;
        match event {
            Event::Agent(_, AgentEvent::TurnEnded { end, .. }) => end,
            _ => unreachable!(),
        }
    }

    /// The updates of `agent` seen so far.
    pub fn updates(&self, agent: &str) -> Vec<Update> {
        self.seen
            .iter()
            .filter_map(|e| match e {
                Event::Agent(a, AgentEvent::Update { update }) if a == agent => Some(update.clone()),
                _ => None,
            })
            .collect()
    }

    /// Forgets the events seen so far.
    pub fn clear(&mut self) {
        self.seen.clear();
    }
}

/// Starts every kind of background job and prints their pids.
pub const JOBS: &str = "sleep 1000 & echo P1=$!; \
    setsid sh -c 'echo P2=$$; exec sleep 1001' & \
    setsid -f sh -c 'echo P3=$$; exec sleep 1002'; \
    nohup sleep 1003 >/dev/null 2>&1 & echo P4=$!; \
    sleep 1004 & echo P5=$!; disown; \
    (sleep 1005 & echo P6=$!); echo all-$((1+1))\n";

/// The pids printed as `P<n>=<pid>` (not the `P<n>=$!` of the echoed command line).
pub fn pids_on(screen: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for n in 1..=6 {
        let tag = format!("P{n}=");
        let found = screen.match_indices(&tag).find_map(|(i, _)| {
            let digits: String = screen[i + tag.len()..].chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse::<i32>().ok()
        });
        pids.extend(found);
    }
    pids
}

/// Waits (up to `limit`) until the terminal's screen shows `what`; the screen then.
pub fn wait_screen(t: &sidekicks::runtime::terminal::TerminalSession, what: &str, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    loop {
        let screen = t.screen_text();
        if screen.contains(what) {
            return screen;
        }
        assert!(Instant::now() < deadline, "{what:?} never appeared on:\n{screen}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs git in `dir` (as a committer named T) and gives its output; fails the test if git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@x"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// For a test that must set the environment, which is process-wide: set beside other tests'
/// threads, a C library reading it at that moment may crash. Runs the test named `path`
/// (`module_path!()` and the function's name) again, alone in a process of its own, and returns
/// false here once it passed there; returns true in that process, where the caller goes on.
pub fn alone(path: &str) -> bool {
    const MARK: &str = "SIDEKICKS_TEST_ALONE";
    // The harness names a test by its path without the test binary's own name.
    let name = path.split_once("::").map_or(path, |(_, rest)| rest);
    if std::env::var(MARK).is_ok_and(|v| v == name) {
        return true;
    }
    // This very program, even if a newer build has replaced its file since it started.
    let exe = std::path::PathBuf::from("/proc/self/exe");
    let out = std::process::Command::new(exe)
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(MARK, name)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let told = String::from_utf8_lossy(&out.stderr);
    // Exactly one test ran and passed: a name that matched nothing would pass with 0.
    assert!(
        out.status.success() && said.contains("test result: ok. 1 passed"),
        "{name} alone in its own process:\n{said}\n{told}"
    );
    false
}

/// Writes `bytes` to `rel` under `dir`, making the folders on the way.
pub fn write(dir: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}
