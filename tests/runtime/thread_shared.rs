//! One thread, two processes (issue 33, ADR 0029): a window open on a data folder and
//! `sidekicks prompt` on the same agent. The window shows what the command line said and was
//! answered, without a restart; while the window's turn runs (the demo agent waits for a
//! permission), the command line's message waits for it, saying so, then goes; nothing either
//! wrote is lost from the history, in order.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::runtime::config::file::AppDirs;
use sidekicks::runtime::store::Store;

use crate::common;
use common::window::{runtime, step_until, window_of};
use common::{BIN, config_text};

const LONG: Duration = Duration::from_secs(30);

struct Person {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
}

impl Person {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let home = root.join("home");
        std::fs::create_dir(&home).unwrap();
        let config = root.join("sidekicks.toml");
        std::fs::write(&config, config_text("", &[("ada", BIN, &["demo-agent"][..])], &home)).unwrap();
        Self { _dir: dir, root, config }
    }

    fn dirs(&self) -> AppDirs {
        let user = self.root.join("user");
        AppDirs {
            config_dir: user.join("config/sidekicks"),
            data_dir: user.join("data/sidekicks"),
            state_dir: user.join("state/sidekicks"),
            home: Some(user),
        }
    }

    /// `sidekicks prompt --agent ada TEXT` on the same folders (and the same runtime folder: the locks).
    fn prompt(&self, text: &str) -> std::process::Child {
        Command::new(BIN)
            .arg("--config")
            .arg(&self.config)
            .args(["prompt", "--agent", "ada", text])
            .env("HOME", self.root.join("user"))
            .env("XDG_DATA_HOME", self.root.join("user/data"))
            .env("XDG_CONFIG_HOME", self.root.join("user/config"))
            .env("XDG_STATE_HOME", self.root.join("user/state"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

/// The texts of the person's messages and of the agent's answers, in order.
fn said(messages: &[sidekicks::model::conversation::Message]) -> Vec<String> {
    use sidekicks::model::conversation::Role;
    messages.iter().filter(|m| m.role != Role::System).map(|m| format!("{:?}: {}", m.role, m.text())).collect()
}

#[test]
fn the_window_shows_what_the_command_line_said_and_they_take_turns_in_one_thread() {
    let p = Person::new();
    let dirs = p.dirs();
    std::fs::create_dir_all(&dirs.data_dir).unwrap();
    let db = dirs.data_dir.join("sidekicks.db");
    let store = Store::open(&db).unwrap();
    let startup = sidekicks::app::Startup {
        settings: common::fast_settings(),
        store: Some(store.clone()),
        dirs: Some(dirs),
        terminal_host: BIN.into(),
        ..sidekicks::app::Startup::new(p.config.clone())
    };
    let rt = runtime();
    let mut h = window_of(startup, &rt);
    step_until(&mut h, LONG, "ada", |h| h.state().state.agent("ada").is_some());

    // The command line says hello in ada's thread: the open window shows it, and the answer.
    let out = p.prompt("hello from the command line").wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let answer = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(!answer.is_empty());
    step_until(&mut h, LONG, "the command line's message and answer in the window", |h| {
        let messages = &h.state().state.agent("ada").unwrap().conversation.messages;
        said(messages).iter().any(|m| m.contains("hello from the command line"))
            && messages.last().is_some_and(|m| m.text().trim() == answer)
    });

    // The window's turn waits for a permission: the command line's message waits for it.
    common::window::send(&mut h, "please run the permission scenario");
    step_until(&mut h, LONG, "the window's permission card", |h| h.query_by_label("Allow once").is_some());
    let mut child = p.prompt("and again from the command line");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("Another Sidekicks is answering in ada's thread") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "the command line ended without saying it waits");
    }
    assert!(line.contains(&format!("(process {})", std::process::id())), "who holds it: {line}");
    // Still waiting: nothing of it in the history while the window's turn runs.
    let thread = h.state().state.agent("ada").unwrap().threads.current.unwrap();
    let stored = said(&store.thread(thread).unwrap().messages);
    assert!(!stored.iter().any(|m| m.contains("and again")), "{stored:?}");
    // (Clicked again should a frame move the card as it is clicked.)
    step_until(&mut h, LONG, "the permission answered", |h| {
        let card = h.query_by_label("Allow once");
        card.as_ref().inspect(|c| c.click());
        card.is_none()
    });
    let deadline = std::time::Instant::now() + LONG;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
            let msgs: Vec<String> = said(&h.state().state.agent("ada").unwrap().conversation.messages)
                .into_iter()
                .map(|m| m.chars().take(80).collect())
                .collect();
            let cards = h.query_all_by_label("Allow once").count();
            panic!(
                "the command line still waits: {rest}\n{cards} {msgs:?}\n{:?}",
                h.state().state.agent("ada").unwrap().state
            );
        }
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // Both turns, whole and in order, in the window and in the history.
    // The window gets the answer in pieces: wait for the whole of what the history holds (waiting
    // for the answer to start let a full run compare a half-shown answer).
    step_until(&mut h, LONG, "the second command line message whole in the window", |h| {
        let messages = &h.state().state.agent("ada").unwrap().conversation.messages;
        messages.len() >= 6 && said(messages) == said(&store.thread(thread).unwrap().messages)
    });
    let shown = said(&h.state().state.agent("ada").unwrap().conversation.messages);
    let stored = said(&store.thread(thread).unwrap().messages);
    assert_eq!(shown, stored, "the window shows what the history holds");
    let people: Vec<&String> = stored.iter().filter(|m| m.starts_with("User")).collect();
    assert_eq!(people.len(), 3, "{stored:?}");
    assert!(people[0].contains("hello from the command line"));
    assert!(people[1].contains("please run the permission scenario"));
    assert!(people[2].contains("and again from the command line"));
    let answers = stored.iter().filter(|m| m.starts_with("Agent")).count();
    assert_eq!(answers, 3, "each message answered: {stored:?}");
    h.state_mut().shutdown();
}
