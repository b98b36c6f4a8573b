//! Team members whose agent runs in a Docker or Podman container, with the real engines, through the window
//! (egui_kittest, the demo agent inside a container, real git): the member gets a container of its
//! own made from the agent's, with its copy bound at the agent's workspace path; the recipe's setup
//! runs in it and the server it starts answers on the member's port from this computer; the
//! project's dependency folders and git reach it; what the agent writes there is a change on the
//! team page and merges into the project; discarding the member removes its container and the
//! agent goes back to its own. A member container left by a team that is gone is listed at start
//! and removed when asked. Sandboxes cannot have members, and say so.

use std::io::{Read, Write};
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::protocol::teams::{TeamCommand, TeamError};

use crate::common;
use common::docker::{Container, DOCKER, Engine, IMAGE, PODMAN};
use common::window::{make_team, merge_all, runtime, step_until, window};
use common::{BIN, git};

const LONG: Duration = Duration::from_secs(90);

/// Removes, when dropped (a failed test included), the member containers of the teams folder and
/// the containers named.
struct Cleanup {
    engine: Engine,
    teams: std::path::PathBuf,
    names: Vec<String>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let label = format!("label=sidekicks.teams={}", self.teams.display());
        let mut names = self.names.clone();
        names.extend(self.engine.run(&["ps", "-aq", "--filter", &label]).lines().map(String::from));
        // One by one: Podman stops at a name that is gone already.
        let now: &[&str] = if self.engine == PODMAN { &["--time", "0"] } else { &[] };
        for name in &names {
            let mut args = vec!["rm", "-f"];
            args.extend(now);
            args.push(name);
            self.engine.run(&args);
        }
    }
}

/// The containers of `engine` labelled with team `team`.
fn containers_of(engine: Engine, team: &str) -> Vec<String> {
    let listed =
        engine.run(&["ps", "-a", "--filter", &format!("label=sidekicks.team={team}"), "--format", "{{.Names}}"]);
    listed.lines().map(String::from).collect()
}

/// A port free now, and the base that gives it to member 1 (base + 10).
fn free_base() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port() - 10
}

/// What an HTTP server on `port` answers to `GET /where.txt`, if one does.
fn http_get(port: u16) -> Option<String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream.write_all(b"GET /where.txt HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    Some(answer).filter(|a| !a.is_empty())
}

fn config(project: &std::path::Path, container: &str, kind: &str) -> String {
    let target = if kind == "sbx" { "sandbox" } else { "container" };
    format!(
        "[[agent]]\nname = \"boxed\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\nruntime = {{ type = {kind:?}, {target} = {container:?}, workspace_path = \"/work\" }}\n",
        project.display().to_string()
    )
}

#[test]
fn a_member_in_a_container_works_in_its_own_with_its_copy_setup_ports_and_merge() {
    member_in_its_own_container(DOCKER);
}

#[test]
fn a_member_in_a_podman_container_works_in_its_own_too() {
    member_in_its_own_container(PODMAN);
}

fn member_in_its_own_container(engine: Engine) {
    if !engine.available() {
        return;
    }
    let docker = |args: &[&str]| engine.run(args);
    let containers_of = |team: &str| containers_of(engine, team);
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".sidekicks")).unwrap();
    std::fs::create_dir_all(project.join("node_modules/left-pad")).unwrap();
    std::fs::write(project.join("node_modules/left-pad/index.js"), "module.exports = 1;\n").unwrap();
    std::fs::write(project.join(".gitignore"), "node_modules/\nwhere.txt\n").unwrap();
    std::fs::write(project.join("README.md"), "# Boxed\n").unwrap();
    let base = free_base();
    let recipe = format!(
        "setup = \"hostname > where.txt; httpd -p $PORT -h . && echo serving on $PORT\"\n[ports]\nbase = {base}\nnames = [\"PORT\"]\n"
    );
    std::fs::write(project.join(".sidekicks/team.toml"), recipe).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "start"]);
    // The agent's own container has the project at /work.
    let own = Container::start_in(engine, &[(&project, "/work")]);
    let _cleanup = Cleanup { engine, teams: dir.path().join("sidekicks-teams"), names: Vec::new() };
    let rt = runtime();
    let store = sidekicks::runtime::store::Store::open(&dir.path().join("db.sqlite")).unwrap();
    let text = config(&project, &own.name, engine.runtime_kind());
    let mut h = window(&text, dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "the agent", |h| h.state().state.agent("boxed").is_some());

    let copy = make_team(&mut h, "Boxed", &project, &["boxed"], &project).remove(0);
    let team = h.state().state.teams.teams[0].info.record.id.clone();
    let mine = containers_of(&team);
    assert_eq!(mine.len(), 1, "one container for the member: {mine:?}");
    let member = mine[0].clone();
    let runtime_now = h.state().state.agent("boxed · Boxed").unwrap().config.runtime.clone();
    assert_eq!(runtime_now.container.as_deref(), Some(member.as_str()), "the member runs in its own container");
    let own_runtime = h.state().state.agent("boxed").unwrap().config.runtime.clone();
    assert_eq!(own_runtime.container.as_deref(), Some(own.name.as_str()), "the person's agent stays in its own");
    assert_eq!(runtime_now.workspace_path.as_deref(), Some(std::path::Path::new("/work")));
    let image = docker(&["inspect", "--format", "{{.Config.Image}}", &member]);
    // Podman names it `localhost/…`.
    assert!(
        image == IMAGE || image == format!("localhost/{IMAGE}"),
        "made from the agent's container's image: {image}"
    );

    // The setup ran inside the member's container, in the copy, and its server answers on the
    // member's port from this computer.
    let hostname = docker(&["inspect", "--format", "{{.Config.Hostname}}", &member]);
    assert_eq!(std::fs::read_to_string(copy.join("where.txt")).unwrap().trim(), hostname);
    let port = base + 10;
    step_until(&mut h, LONG, "the member's server", |_| http_get(port).is_some());
    let answer = http_get(port).unwrap();
    assert!(answer.starts_with("HTTP/1.") && answer.contains(" 200 ") && answer.contains(&hostname), "{answer}");
    // The project's dependency folder and git reach the member's container.
    let exec = |script: &str| docker(&["exec", &member, "sh", "-c", script]);
    assert_eq!(exec("cat /work/node_modules/left-pad/index.js"), "module.exports = 1;");
    assert_eq!(exec("cat \"$(sed 's/^gitdir: //' /work/.git)/HEAD\" | wc -c | tr -d ' '"), "41", "the worktree's HEAD");
    assert_eq!(exec("cat /work/README.md"), "# Boxed");
    // What makes git run commands stays the person's: the project's settings and hooks, and the
    // worktree's own settings and common folder, are read-only from the member's container
    // (issue 45: a member could set `core.fsmonitor` for the person's git to run).
    let settings = std::fs::read_to_string(project.join(".git/config")).unwrap();
    let written = exec(
        "gitdir=$(sed 's/^gitdir: //' /work/.git); \
         for f in /.sidekicks-project-git/config \"$gitdir/commondir\" \"$gitdir/config.worktree\"; do \
           (echo '[core] fsmonitor = touch /tmp/owned' >> \"$f\") 2>/dev/null && echo \"wrote $f\"; done; \
         (echo x > /.sidekicks-project-git/hooks/post-checkout) 2>/dev/null && echo wrote-hook; echo done",
    );
    assert_eq!(written, "done", "a git setting was writable from the member's container");
    assert_eq!(std::fs::read_to_string(project.join(".git/config")).unwrap(), settings);
    assert_eq!(exec("echo $HOSTNAME"), hostname, "its own HOSTNAME, not the agent's container's");

    // The agent works in the member's container: what it writes lands in the copy, not the project.
    let prompt = sidekicks::app::Command::prompt("boxed · Boxed", "files");
    h.state_mut().send(prompt);
    let deadline = std::time::Instant::now() + LONG;
    while !copy.join("notes/demo.md").is_file() {
        let agent = h.state().state.agent("boxed · Boxed").unwrap();
        assert!(
            std::time::Instant::now() < deadline,
            "no file; the agent: {:?}\n{:#?}",
            agent.state,
            agent.conversation
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!project.join("notes/demo.md").exists());
    let runs_in = |name: &str| {
        docker(&["exec", name, "sh", "-c", "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '"])
            .contains("demo-agent")
    };
    assert!(runs_in(&member) && !runs_in(&own.name), "the agent runs in the member's container only");

    // On the team page it is a change, and it merges into the project (which the agent's own
    // container sees).
    h.get_all_by_label("Boxed").next().unwrap().click();
    step_until(&mut h, LONG, "the change listed", |h| {
        h.state().state.teams.teams[0]
            .changes
            .get("boxed · Boxed")
            .is_some_and(|c| c.as_ref().is_ok_and(|c| !c.is_empty()))
    });
    assert!(h.query_by_label_contains(&format!("In its own container {member}")).is_some());
    merge_all(&mut h, "boxed");
    assert!(project.join("notes/demo.md").is_file(), "merged: {:?}", h.state().state.teams.teams[0].merges);
    assert_eq!(own.sh("head -1 /work/notes/demo.md").trim(), "# Notes");

    // After a restart of this computer the container is stopped: Sidekicks starts it again and
    // the member works in it.
    h.state_mut().shutdown();
    drop(h);
    docker(&["stop", "-t", "1", &member]);
    assert_eq!(docker(&["inspect", "--format", "{{.State.Running}}", &member]), "false");
    let mut h = window(&text, dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the member in its container again", |h| {
        let member_now = h.state().state.agent("boxed · Boxed");
        member_now.is_some_and(|a| a.config.runtime.container.as_deref() == Some(member.as_str()))
    });
    assert_eq!(docker(&["inspect", "--format", "{{.State.Running}}", &member]), "true");
    step_until(&mut h, LONG, "the team", |h| h.state().state.teams.teams.len() == 1);

    // Discarding the member ends it and removes its container; the person's agent is as it was.
    let discard = TeamCommand::Discard { team: team.clone(), member: None };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(discard)));
    step_until(&mut h, LONG, "the team discarded", |h| h.state().state.teams.teams.is_empty());
    step_until(&mut h, LONG, "the member gone", |h| h.state().state.agent("boxed · Boxed").is_none());
    assert_eq!(h.state().state.agent("boxed").unwrap().config.runtime.container.as_deref(), Some(own.name.as_str()));
    assert!(containers_of(&team).is_empty(), "the member's container is removed");
    assert!(!copy.exists());
    h.state_mut().shutdown();
}

#[test]
fn a_member_container_of_a_team_that_is_gone_is_listed_then_removed() {
    leftover_container(DOCKER);
}

#[test]
fn a_podman_member_container_of_a_team_that_is_gone_is_listed_then_removed() {
    leftover_container(PODMAN);
}

fn leftover_container(engine: Engine) {
    if !engine.available() {
        return;
    }
    let docker = |args: &[&str]| engine.run(args);
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    // As a member container of a team whose folder is gone (Sidekicks killed, folder removed).
    let teams = dir.path().join("sidekicks-teams");
    let name = format!("sidekicks-test-orphan-{}-{}", engine.0, std::process::id());
    let labels = [format!("sidekicks.team=1-{}", std::process::id()), format!("sidekicks.teams={}", teams.display())];
    let other = format!("sidekicks-test-other-{}-{}", engine.0, std::process::id());
    let _cleanup = Cleanup { engine, teams: teams.clone(), names: vec![name.clone(), other.clone()] };
    let made =
        docker(&["run", "-d", "--name", &name, "--label", &labels[0], "--label", &labels[1], IMAGE, "sleep", "600"]);
    assert!(!made.is_empty(), "{} run", engine.0);
    // Another Sidekicks' (another teams folder) is not ours to list.
    let elsewhere = "sidekicks.teams=/somewhere/else".to_string();
    docker(&["run", "-d", "--name", &other, "--label", &labels[0], "--label", &elsewhere, IMAGE, "sleep", "600"]);

    let rt = runtime();
    let text = format!(
        "[[agent]]\nname = \"ada\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n",
        project.display().to_string()
    );
    let store = sidekicks::runtime::store::Store::open(&dir.path().join("db.sqlite")).unwrap();
    let mut h = window(&text, dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the agent", |h| h.state().state.agent("ada").is_some());
    h.get_by_label("New team…").click();
    step_until(&mut h, LONG, "the leftovers", |h| h.query_by_label("Left over from teams that are gone").is_some());
    assert!(h.query_by_label(&format!("Containers: {name}")).is_some(), "the container is listed by name");
    assert!(h.query_by_label_contains(&other).is_none(), "another Sidekicks' container is not listed");
    assert!(!docker(&["ps", "-q", "--filter", &format!("name={name}")]).is_empty(), "nothing removed yet");
    h.get_by_label("Remove them").click();
    step_until(&mut h, LONG, "removed", |h| h.query_by_label("Left over from teams that are gone").is_none());
    assert!(docker(&["ps", "-aq", "--filter", &format!("name={name}")]).is_empty(), "the container is gone");
    assert!(!docker(&["ps", "-aq", "--filter", &format!("name={other}")]).is_empty(), "the other one is not");
    h.state_mut().shutdown();
}

#[test]
fn an_agent_in_a_sandbox_out_of_reach_is_refused_in_words_with_nothing_made() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("README.md"), "# P\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "start"]);
    let rt = runtime();
    let mut h = window(&config(&project, "my-sandbox", "sbx"), dir.path(), &rt, None);
    step_until(&mut h, LONG, "the agent", |h| h.state().state.agent("boxed").is_some());
    // Offered on the form, saying where its copy would be kept (ADR 0037)…
    h.get_by_label("New team…").click();
    h.step();
    {
        use egui_kittest::kittest::NodeT;
        let mut boxes =
            h.get_all_by_label("boxed").filter(|n| n.accesskit_node().role() == egui::accesskit::Role::CheckBox);
        assert!(!boxes.next().unwrap().accesskit_node().is_disabled(), "a sandboxed agent can be chosen");
    }
    assert!(h.query_by_label_contains("its copy is kept where it runs: a Docker sandbox, ").is_some());
    // …but this sandbox cannot be reached (no `sbx` here): refused in words, nothing made.
    common::window::ask_team(&mut h, "S", &project, &["boxed"]);
    step_until(&mut h, LONG, "the refusal", |h| h.state().state.teams.create_error.is_some());
    let error = h.state().state.teams.create_error.clone().unwrap();
    assert!(
        matches!(&error, TeamError::Far { place, message } if place == "sbx my-sandbox" && message.contains("sbx is not installed on this computer")),
        "{error:?}"
    );
    assert!(h.query_by_label_contains("the copy on sbx my-sandbox").is_some());
    assert!(
        !dir.path().join("sidekicks-teams").exists()
            || std::fs::read_dir(dir.path().join("sidekicks-teams")).unwrap().next().is_none()
    );
    assert_eq!(git(&project, &["worktree", "list"]).lines().count(), 1);
    h.state_mut().shutdown();
}
