//! Misbehaving agents, what must not leak (split from `misbehaving.rs`): secrets in the config
//! never reach the log or a crash report, state is private, nothing an agent started outlives
//! Sidekicks, and help lists what each agent answers to.

use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use sidekicks::app::{AgentEvent, AgentState, Command, Event};

use super::misbehaving::{LIMIT, prompt, read_until};
use crate::common;
use common::{BIN, Rig, alive, fast_settings};

const SECRET: &str = "tok-4f9a8b7c6d5e";

fn leaky_config(dir: &std::path::Path) -> std::path::PathBuf {
    let config = dir.join("sidekicks.toml");
    let text = format!(
        "[[agent]]\nname = \"bad\"\ncommand = {BIN:?}\nargs = [\"demo-agent\", \"--misbehave\"]\nworkspace = {:?}\nenv = {{ SECRET_TOKEN = \"{SECRET}\" }}\n",
        dir.display().to_string()
    );
    std::fs::write(&config, text).unwrap();
    config
}

#[tokio::test]
async fn env_values_never_reach_the_log_or_the_crash_report() {
    let dir = tempfile::tempdir().unwrap();
    let config = leaky_config(dir.path());
    let rig = Rig::new(fast_settings());
    let result = sidekicks::runtime::config::file::load_file(&config, None);
    rig.send(sidekicks::runtime::agents::ManagerCommand::ConfigLoaded { path: config, result }).await;
    let mut rig = rig;
    rig.send(Command::prompt("bad", "leak")).await;
    let event = rig
        .wait_for(LIMIT, "the crash", |e| {
            matches!(e, Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(_), .. }))
        })
        .await;
    let Event::Agent(_, AgentEvent::State { state: AgentState::Crashed(report), .. }) = event else { unreachable!() };
    assert_eq!(report.stderr_tail.last().map(String::as_str), Some("token is …"));
    let logged: Vec<String> = rig
        .seen
        .iter()
        .filter_map(|e| match e {
            Event::Agent(_, AgentEvent::Log { entry, .. }) => Some(format!("{entry:?}")),
            _ => None,
        })
        .collect();
    assert!(logged.iter().any(|l| l.contains("SECRET_TOKEN=…")), "{logged:?}");
    assert!(logged.iter().all(|l| !l.contains(SECRET)), "{logged:?}");
}

#[test]
fn state_is_private_and_a_config_with_keys_readable_by_others_is_flagged() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let config = leaky_config(dir.path());
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    let check = |dir: &std::path::Path| {
        let out = Process::new(BIN).arg("check").arg("--config").arg(dir.join("sidekicks.toml")).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    };
    assert!(check(dir.path()).contains("other users of this computer can read it"), "{}", check(dir.path()));
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(!check(dir.path()).contains("other users"), "{}", check(dir.path()));

    let mut cmd = Process::new(BIN);
    cmd.args(["prompt", "--agent", "bad", "leak", "--config"])
        .arg(&config)
        .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .env("SIDEKICKS_LOG", "debug");
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("token is …"), "{err}");
    assert!(!err.contains(SECRET), "{err}");
    let mode = |p: std::path::PathBuf| std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(dir.path().join("data/sidekicks")), 0o700);
    assert_eq!(mode(dir.path().join("data/sidekicks/sidekicks.db")), 0o600);
    assert_eq!(mode(dir.path().join("state/sidekicks")), 0o700);
    let log = dir.path().join("state/sidekicks/sidekicks.log");
    assert_eq!(mode(log.clone()), 0o600);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.is_empty(), "the log file is written");
    assert!(!text.contains(SECRET), "{text}");
    let db = std::fs::read(dir.path().join("data/sidekicks/sidekicks.db")).unwrap();
    assert!(!db.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()), "the secret is in the history");
}

#[test]
fn nothing_an_agent_started_outlives_a_killed_sidekicks() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = prompt(dir.path(), &["--agent", "bad"], "spawn").stdout(Stdio::piped()).spawn().unwrap();
    let out =
        read_until(child.stdout.as_mut().unwrap(), |s| s.lines().next().is_some_and(|l| l.split(' ').count() == 3));
    let pids: Vec<i32> = out.split_whitespace().skip(1).take(2).map(|p| p.parse().unwrap()).collect();
    assert!(pids.iter().all(|p| alive(*p)), "{out}");
    // SIGKILL: Sidekicks gets no chance to stop anything.
    child.kill().unwrap();
    child.wait().unwrap();
    let deadline = Instant::now() + LIMIT;
    while pids.iter().any(|p| alive(*p)) {
        assert!(Instant::now() < deadline, "{pids:?} outlived Sidekicks");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_terminal_host_whose_parent_dies_ends_its_tree() {
    // A parent shell that starts the host (as Sidekicks does for terminals and agent-run
    // commands), reports the pid of a job the host's shell started, then is killed.
    let script = format!("{BIN:?} terminal-host -- sh -c 'sleep 1000 & echo $!; wait' & wait");
    let mut parent = Process::new("sh").arg("-c").arg(script).stdout(Stdio::piped()).spawn().unwrap();
    let out = read_until(parent.stdout.as_mut().unwrap(), |s| s.ends_with('\n'));
    let job: i32 = out.trim().parse().unwrap();
    assert!(alive(job));
    parent.kill().unwrap();
    parent.wait().unwrap();
    let deadline = Instant::now() + LIMIT;
    while alive(job) {
        assert!(Instant::now() < deadline, "the job outlived the host's parent");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The agents sent people to docs/demo-agent.md, which someone with only the binary lacks: `help`
/// lists their words (issue 35 item 13), and each word listed is one they answer to.
#[test]
fn help_lists_the_words_each_agent_answers_to() {
    let dir = tempfile::tempdir().unwrap();
    let out = prompt(dir.path(), &["--agent", "demo"], "hello").output().unwrap();
    let greeting = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(greeting.contains("`help`") && !greeting.contains("docs/"), "{greeting}");
    let out = prompt(dir.path(), &["--agent", "demo"], "help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    for word in
        ["wait", "plan", "permission", "run", "fail", "conflicts", "terminal", "form", "crash", "delegate to NAME"]
    {
        assert!(help.contains(&format!("`{word}`")), "{word} missing from: {help}");
    }
    let out = prompt(dir.path(), &["--agent", "bad"], "help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let words: Vec<&str> = help.lines().filter_map(|l| l.strip_prefix("- `")?.split(['`', ' ']).next()).collect();
    assert!(words.len() >= 15, "{help}");
    // Each listed word does something other than the greeting.
    for word in words {
        let arg =
            if word == "write" || word == "read" { format!("{word} /nonexistent/x 0") } else { format!("{word} 1") };
        if ["die", "leak", "mute", "spawn", "terms", "stopask", "askend"].contains(&word) {
            continue; // exits, hangs or waits: driven by their own tests
        }
        let out = prompt(dir.path(), &["--agent", "bad"], &arg).output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(!said.contains("hello from the misbehaving agent"), "{word} is not a word it answers: {said}");
    }
}
