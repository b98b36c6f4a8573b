//! A team that runs itself (issue 47): the demo agent leads a team of two demo members through its
//! `sidekicks-team` MCP tools, headless (`sidekicks team lead`): it assigns both a task, waits
//! for them, sees where they overlap, reads a diff and merges one; the tasks are kept and listed
//! by another process; a merge by the lead is refused unless the run allows it; a member has no
//! team tools, the lead does.

use super::team_cli::Person;
use crate::common::BIN;

/// A person with agents ada and bob, and a demo agent `lead` to lead their team `squad`.
fn squad() -> Person {
    let p = Person::new();
    let lead = format!(
        "\n[[agent]]\nname = \"lead\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n",
        p.home.display().to_string()
    );
    let mut config = std::fs::read_to_string(&p.config).unwrap();
    config.push_str(&lead);
    std::fs::write(&p.config, config).unwrap();
    let project = p.project.to_str().unwrap();
    let made = p.json(&[
        "new",
        "--project",
        project,
        "--agent",
        "ada",
        "--agent",
        "bob",
        "--name",
        "squad",
        "--lead",
        "lead",
        "--json",
    ]);
    assert_eq!(made["members"].as_array().unwrap().len(), 2, "{made}");
    p
}

#[test]
fn the_lead_assigns_waits_reads_and_merges_through_its_tools() {
    let p = squad();
    let goal = [
        r#"call sidekicks-team assign {"member": "ada", "task": "files: ada's idea"}"#,
        r#"call sidekicks-team assign {"member": "bob", "task": "files: bob's idea"}"#,
        r#"call sidekicks-team wait {"timeout_s": 600}"#,
        r#"call sidekicks-team members {}"#,
        r#"call sidekicks-team diff {"member": "ada"}"#,
        r#"call sidekicks-team merge {"members": ["ada"]}"#,
    ]
    .join("\n");
    let (code, out, err) = p.team(&["lead", "squad", "--allow", "once", &goal]);
    assert_eq!(code, 0, "{out}{err}");
    // Both tasks were given and ran in the members' copies, their turns streamed with their names.
    assert_eq!(out.matches("assign → {").count(), 2, "{out}");
    assert!(out.contains("[ada · squad] "), "ada's turn is streamed, named: {out}");
    let wait = out.split("wait → ").nth(1).and_then(|w| w.split("members → ").next()).unwrap_or_default();
    assert_eq!(wait.matches(r#""state":"done""#).count(), 2, "both finished: {out}");
    assert!(wait.contains(r#""changed":["notes/demo.md"]"#), "{out}");
    // The radar names the file both changed differently (a trial merge of the two conflicts).
    assert!(out.contains("ada and bob both change notes/demo.md"), "{out}");
    // The diff is ada's, unified.
    assert!(out.contains("+++ b/notes/demo.md"), "{out}");
    // Ada's work is merged into the project; bob's is not.
    assert!(out.contains(r#""applied":["notes/demo.md"]"#), "{out}");
    assert!(p.project.join("notes/demo.md").is_file(), "merged into the project");

    // Another process lists the tasks, as the lead left them.
    let tasks = p.json(&["tasks", "squad", "--json"]);
    let tasks = tasks.as_array().unwrap();
    assert_eq!(tasks.len(), 2, "{tasks:?}");
    let state = |member: &str| {
        let task = tasks.iter().find(|t| t["member"].as_str().unwrap().starts_with(member)).unwrap();
        assert_eq!(task["by"], "lead");
        assert!(task["text"].as_str().unwrap().starts_with("files: "), "{task}");
        task["state"].as_str().unwrap().to_string()
    };
    assert_eq!(state("ada"), "merged");
    assert_eq!(state("bob"), "done");
    let (code, words, _) = p.team(&["tasks", "squad"]);
    assert_eq!(code, 0);
    assert!(words.contains("merged    ada (from lead): files: ada's idea"), "{words}");
}

#[test]
fn a_lead_merges_only_when_allowed_and_only_the_lead_has_the_tools() {
    let p = squad();
    let (code, out, err) = p.team(&["prompt", "squad", "ada", "--allow", "once", "files"]);
    assert_eq!(code, 0, "{out}{err}");
    // Asked of the person (here `--allow reject`, the default, answers): refused, nothing merged.
    let (code, out, err) = p.team(&["lead", "squad", r#"call sidekicks-team merge {}"#]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("merge → failed: the person did not allow the merge (ada)"), "{out}");
    assert!(err.contains("lead wants to merge ada's work into"), "the question names whose work: {err}");
    assert!(!p.project.join("notes").exists());
    // The person's recipe lets the lead merge: no question.
    std::fs::create_dir_all(p.project.join(".sidekicks")).unwrap();
    std::fs::write(p.project.join(".sidekicks/team.toml"), "lead_merges = \"allow\"\n").unwrap();
    let (code, out, err) = p.team(&["lead", "squad", r#"call sidekicks-team merge {"members": ["ada"]}"#]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(r#""applied":["notes/demo.md"]"#), "{out}");
    assert!(p.project.join("notes/demo.md").is_file());

    // A member is not given the server: its call finds none.
    let (code, out, err) = p.team(&["prompt", "squad", "ada", r#"call sidekicks-team members {}"#]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("I was given no stdio MCP server named sidekicks-team"), "{out}");
    // The lead is, with the six tools.
    let (code, out, err) = p.team(&["lead", "squad", "mcp"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("sidekicks-team (stdio"), "{out}");
    assert!(out.contains("tools members, assign, wait, diff, message, merge"), "{out}");
    // A task for someone not in the team is refused in words.
    let (code, out, err) = p.team(&["lead", "squad", r#"call sidekicks-team assign {"member": "cy", "task": "x"}"#]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("assign → failed: squad has no member cy; its members are ada, bob"), "{out}");

    // Outside a lead's session the bridge says why it cannot work.
    let bridge = std::process::Command::new(BIN).arg("team-tools").env_remove("SIDEKICKS_TEAM_TOOLS").output().unwrap();
    assert_eq!(bridge.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bridge.stderr).contains("only a team's lead"), "{bridge:?}");
}

#[test]
fn the_radar_names_changes_a_trial_merge_finds_in_conflict_before_they_merge() {
    let p = squad();
    let status = p.json(&["status", "squad", "--json"]);
    let copy = |i: usize| std::path::PathBuf::from(status["members"][i]["copy"].as_str().unwrap());
    assert_eq!(status["overlaps"], serde_json::json!([]), "no changes, no overlap");
    // Ada changes line 2 and line 1; Bob changes line 2 again: they meet at line 2 only... and
    // line 1 is next to it, so the span is lines 1–2. A third file each changes apart.
    std::fs::write(copy(0).join("notes.txt"), "FIRST\nsecond by ada\nthird\n").unwrap();
    std::fs::write(copy(1).join("notes.txt"), "first\nsecond by bob\nthird\n").unwrap();
    std::fs::write(copy(0).join("a.txt"), "ada's\n").unwrap();
    std::fs::write(copy(1).join("b.txt"), "bob's\n").unwrap();
    let status = p.json(&["status", "squad", "--json"]);
    let said: Vec<&str> = status["overlaps"].as_array().unwrap().iter().map(|o| o["said"].as_str().unwrap()).collect();
    assert_eq!(said, ["ada and bob both change notes.txt (lines 1–2)"], "{status}");
    // Changes apart do not meet.
    std::fs::write(copy(0).join("notes.txt"), "FIRST\nsecond\nthird\n").unwrap();
    std::fs::write(copy(1).join("notes.txt"), "first\nsecond\nTHIRD\n").unwrap();
    let (code, out, _) = p.team(&["status", "squad"]);
    assert_eq!(code, 0);
    assert!(!out.contains("overlap:"), "lines 1 and 3 of three are apart: {out}");
    std::fs::write(copy(1).join("notes.txt"), "first\nSECOND\nthird\n").unwrap();
    let (_, out, _) = p.team(&["status", "squad"]);
    assert!(out.contains("overlap: ada and bob both change notes.txt (lines 1–2)"), "next lines meet: {out}");
    // The same edit by both merges cleanly: the trial merge says so, nothing is told.
    std::fs::write(copy(1).join("notes.txt"), "FIRST\nsecond\nthird\n").unwrap();
    let status = p.json(&["status", "squad", "--json"]);
    assert_eq!(status["overlaps"], serde_json::json!([]), "the same change twice is no conflict: {status}");
    // The project changes the line ada changed: her merge would conflict, told before she merges.
    std::fs::write(p.project.join("notes.txt"), "first (project)\nsecond\nthird\n").unwrap();
    let status = p.json(&["status", "squad", "--json"]);
    let said: Vec<&str> = status["overlaps"].as_array().unwrap().iter().map(|o| o["said"].as_str().unwrap()).collect();
    assert_eq!(
        said,
        ["ada and the project both change notes.txt (line 1)", "bob and the project both change notes.txt (line 1)"],
        "{status}"
    );
    assert_eq!(status["overlaps"][0]["project"], true);
}
