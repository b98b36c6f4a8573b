//! The project's team recipe (`.sidekicks/team.toml`) with real processes, through the window
//! (egui_kittest, demo agents, real git): each new copy gets the files git does not carry (`.env`),
//! its own block of ports as environment variables, and the setup command runs in it — here it
//! writes a file and starts a real HTTP server on the member's port — before the member works
//! there; the output shows on the team page. A setup that fails keeps the member out of its copy
//! and says why, with its output; "Run setup again" once it is fixed moves the member in.

use std::io::{Read, Write};
use std::time::Duration;

use egui_kittest::kittest::Queryable;

use crate::common;
use common::window::{ask_team, make_team, merge_all, runtime, step_until, window};
use common::{BIN, config_text, git};

const LONG: Duration = Duration::from_secs(60);

/// A port free now, and the base that gives it to member 1 (base + 10).
fn free_base() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port() - 10
}

/// What an HTTP server on `port` answers to `GET /`, if one does.
fn http_get(port: u16) -> Option<String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream.write_all(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    Some(answer)
}

fn project(dir: &std::path::Path, recipe: &str) -> std::path::PathBuf {
    let project = dir.join("project");
    std::fs::create_dir_all(project.join(".sidekicks")).unwrap();
    std::fs::write(project.join(".gitignore"), ".env\nsetup-saw.txt\nserver.pid\n").unwrap();
    std::fs::write(project.join("README.md"), "# Shop\n").unwrap();
    std::fs::write(project.join(".sidekicks/team.toml"), recipe).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "start"]);
    // Not in git: only the recipe brings it to the copies.
    std::fs::write(project.join(".env"), "SECRET=from-the-person\n").unwrap();
    project
}

#[test]
fn a_recipe_copies_files_gives_ports_and_sets_each_copy_up_before_its_member_works() {
    let dir = tempfile::tempdir().unwrap();
    let base = free_base();
    let recipe = format!(
        "copy = [\".env*\"]\nsetup = \"echo setting up; cat .env > setup-saw.txt; python3 -m http.server $PORT --bind 127.0.0.1 >/dev/null 2>&1 & echo $! > server.pid; echo ready on $PORT\"\n[ports]\nbase = {base}\nnames = [\"PORT\", \"API_PORT\"]\n"
    );
    let project = project(dir.path(), &recipe);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let agents = [("ada", BIN, &["demo-agent"][..]), ("bob", BIN, &["demo-agent"][..])];
    let mut h = window(&config_text("", &agents, &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bob").is_some());
    let copy = make_team(&mut h, "T", &project, &["ada", "bob"], &home).remove(0);
    let port = base + 10;
    // The member's processes get its ports; bob's block follows.
    let ada = h.state().state.agent("ada · T").unwrap().config.env.clone();
    assert_eq!(ada.get("PORT"), Some(&port.to_string()));
    assert_eq!(ada.get("API_PORT"), Some(&(port + 1).to_string()));
    assert_eq!(h.state().state.agent("bob · T").unwrap().config.env.get("PORT"), Some(&(base + 20).to_string()));
    // The file git does not carry was copied, and the setup ran in the copy, before she moved in.
    assert_eq!(std::fs::read_to_string(copy.join(".env")).unwrap(), "SECRET=from-the-person\n");
    assert_eq!(std::fs::read_to_string(copy.join("setup-saw.txt")).unwrap(), "SECRET=from-the-person\n");
    // The server the setup started answers on ada's port (once python has started it).
    step_until(&mut h, LONG, "the server on ada's port", |_| http_get(port).is_some());
    let answer = http_get(port).unwrap();
    assert!(answer.starts_with("HTTP/1.0 200"), "{answer}");
    // The team page shows the ports, the output and the end.
    h.get_all_by_label("T").next().unwrap().click();
    step_until(&mut h, LONG, "the setup shown", |h| h.query_all_by_label("Setup done.").count() == 2);
    let ports = format!("Ports: API_PORT={}, PORT={port}", port + 1);
    assert!(h.query_by_label(&ports).is_some());
    assert!(h.query_all_by_label_contains(&format!("ready on {port}")).next().is_some());
    // Shown line by line, as written (escapes stripped, line breaks kept).
    let shown = h.state().state.teams.teams[0].setup["ada · T"].shown.clone();
    assert!(
        shown.lines().any(|l| l == "setting up") && shown.lines().any(|l| l == format!("ready on {port}")),
        "{shown:?}"
    );
    for member in ["ada · T", "bob · T"] {
        let copy = h.state().state.agent(member).unwrap().config.workspace.clone();
        if let Ok(pid) = std::fs::read_to_string(copy.join("server.pid")) {
            let _ = std::process::Command::new("kill").arg(pid.trim()).status();
        }
    }
    h.state_mut().shutdown();
}

#[test]
fn a_failing_setup_keeps_the_member_out_until_it_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let project = project(dir.path(), "setup = \"echo cannot build here; exit 3\"\n");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    ask_team(&mut h, "T", &project, &["ada"]);
    step_until(&mut h, LONG, "the team", |h| !h.state().state.teams.teams.is_empty());
    h.get_all_by_label("T").next().unwrap().click();
    step_until(&mut h, LONG, "the failure", |h| h.query_by_label_contains("The setup failed (exit code 3)").is_some());
    assert!(h.query_by_label_contains("cannot build here").is_some(), "its output is shown");
    assert!(h.state().state.agent("ada · T").is_none(), "the member does not work before its copy is set up");
    // Fixed in the project, run again: she moves in.
    std::fs::write(project.join(".sidekicks/team.toml"), "setup = \"echo fine\"\n").unwrap();
    h.get_by_label("Run setup again").click();
    step_until(&mut h, LONG, "ada's member in her copy", |h| {
        h.state().state.agent("ada · T").is_some_and(|a| a.config.workspace != home)
    });
    step_until(&mut h, LONG, "done", |h| h.query_by_label("Setup done.").is_some());
    h.state_mut().shutdown();
}

#[test]
fn a_check_after_each_merge_tells_the_member_and_offers_the_undo() {
    let dir = tempfile::tempdir().unwrap();
    let recipe = "[check]\ncommand = \"grep -q '^ok' status.txt || { echo 'status is not ok'; exit 1; }\"\n";
    let project = project(dir.path(), recipe);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    let copy = make_team(&mut h, "T", &project, &["ada"], &home).remove(0);
    h.get_all_by_label("T").next().unwrap().click();

    // A merge that breaks the check: the page says so with the output, ada is told, Undo puts
    // the project back.
    std::fs::write(copy.join("status.txt"), "broken\n").unwrap();
    step_until(&mut h, LONG, "her change", |h| h.query_by_label("status.txt").is_some());
    merge_all(&mut h, "ada");
    step_until(&mut h, LONG, "the check failed", |h| {
        h.query_by_label_contains("The check after ada · T's merge failed (exit code 1)").is_some()
    });
    assert!(h.query_by_label_contains("status is not ok").is_some(), "its output is shown");
    step_until(&mut h, LONG, "ada told", |h| {
        h.state().state.agent("ada · T").unwrap().conversation.messages.iter().any(|m| {
            let text = format!("{m:?}");
            text.contains("The check after merging your work into the project failed")
                && text.contains("status is not ok")
        })
    });
    assert!(project.join("status.txt").exists());
    h.get_all_by_label("Undo merge").next().unwrap().click();
    step_until(&mut h, LONG, "undone", |h| h.query_by_label_contains("Merge undone").is_some());
    assert!(!project.join("status.txt").exists());

    // Fixed: merged again, the check passes.
    std::fs::write(copy.join("status.txt"), "ok\n").unwrap();
    merge_all(&mut h, "ada");
    step_until(&mut h, LONG, "the check passed", |h| {
        h.query_by_label("The check after ada · T's merge passed.").is_some()
    });
    assert_eq!(std::fs::read_to_string(project.join("status.txt")).unwrap(), "ok\n");
    h.state_mut().shutdown();
}

#[test]
fn a_check_in_a_scratch_copy_keeps_a_failing_merge_out_of_the_project() {
    let dir = tempfile::tempdir().unwrap();
    // The check sees the merged result and the recipe's files (.env), not the project.
    let recipe = "copy = [\".env\"]\n[check]\ncommand = \"test -f .env && grep -q '^ok' status.txt || { echo 'status is not ok'; exit 1; }\"\nwhere = \"scratch\"\n";
    let project = project(dir.path(), recipe);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let rt = runtime();
    let mut h = window(&config_text("", &[("ada", BIN, &["demo-agent"])], &home), dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("ada").is_some());
    let copy = make_team(&mut h, "T", &project, &["ada"], &home).remove(0);
    h.get_all_by_label("T").next().unwrap().click();
    let before = std::fs::read_dir(&project).unwrap().count();

    std::fs::write(copy.join("status.txt"), "broken\n").unwrap();
    step_until(&mut h, LONG, "her change", |h| h.query_by_label("status.txt").is_some());
    merge_all(&mut h, "ada");
    step_until(&mut h, LONG, "the check failed", |h| {
        h.query_by_label_contains("The check after ada · T's merge failed (exit code 1)").is_some()
    });
    assert!(h.query_by_label_contains("nothing was merged").is_some(), "the merge's result says so");
    assert!(!project.join("status.txt").exists(), "the project is untouched");
    assert_eq!(std::fs::read_dir(&project).unwrap().count(), before, "no scratch copy left in the project");
    step_until(&mut h, LONG, "ada told", |h| {
        h.state().state.agent("ada · T").unwrap().conversation.messages.iter().any(|m| {
            let text = format!("{m:?}");
            text.contains("nothing was merged into the project") && text.contains("```\\nstatus is not ok\\n```")
        })
    });
    let leftovers = std::fs::read_dir(copy.parent().unwrap().join(".state")).unwrap();
    assert!(leftovers.flatten().all(|e| !e.file_name().to_string_lossy().starts_with(".scratch")), "scratch removed");

    std::fs::write(copy.join("status.txt"), "ok\n").unwrap();
    merge_all(&mut h, "ada");
    step_until(&mut h, LONG, "the check passed", |h| {
        h.query_by_label("The check after ada · T's merge passed.").is_some()
    });
    assert_eq!(std::fs::read_to_string(project.join("status.txt")).unwrap(), "ok\n");
    h.state_mut().shutdown();
}
