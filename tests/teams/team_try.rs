//! Best of N from the command line (issue 47): `sidekicks team try` gives three demo members the
//! same task, streams their turns and compares the attempts (changes, the recipe's check in each
//! copy, time, permissions); `compare` numbers each file's hunks; `take` merges hunks from two
//! attempts, and refuses — writing nothing — two chosen hunks that change the same lines.

use super::team_cli::Person;
use crate::common::BIN;

/// A person with agents ada, bob and cy, and a recipe whose check needs the demo's note.
fn person() -> Person {
    let p = Person::new();
    let cy = format!(
        "\n[[agent]]\nname = \"cy\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\n",
        p.home.display().to_string()
    );
    let mut config = std::fs::read_to_string(&p.config).unwrap();
    config.push_str(&cy);
    std::fs::write(&p.config, config).unwrap();
    std::fs::create_dir_all(p.project.join(".sidekicks")).unwrap();
    std::fs::write(p.project.join(".sidekicks/team.toml"), "[check]\ncommand = \"test -f notes/demo.md\"\n").unwrap();
    p
}

#[test]
fn three_members_try_one_task_and_hunks_from_two_attempts_are_merged() {
    let p = person();
    let project = p.project.to_str().unwrap();
    let args = ["try", "--project", project, "--agent", "ada", "--agent", "bob", "--agent", "cy"];
    let (code, out, err) =
        p.team(&[&args[..], &["--name", "best", "--allow", "once", "--json", "files: an idea"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    // Their turns streamed as JSON lines, named; then the comparison.
    assert!(out.lines().any(|l| l.contains("\"agent\":\"bob · best\"")), "{out}");
    let compared: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(compared["task"], "files: an idea");
    let attempts = compared["attempts"].as_array().unwrap();
    let names: Vec<&str> = attempts.iter().map(|a| a["member"].as_str().unwrap()).collect();
    assert_eq!(names, ["ada · best", "bob · best", "cy · best"]);
    for a in attempts {
        assert_eq!(a["state"], "done", "{a}");
        assert_eq!((a["files"].as_u64(), a["added"].as_u64()), (Some(1), Some(3)), "{a}");
        assert_eq!(a["check"], "passed", "the recipe's check ran in its copy: {a}");
        assert!(a["seconds"].as_f64().is_some(), "{a}");
        // The demo writes through Sidekicks, which a member's policy allows without asking.
        assert_eq!(a["permissions"], serde_json::json!({"asked": 0, "allowed": 0}), "{a}");
        assert_eq!(a["hunks"][0]["path"], "notes/demo.md", "the added note is one hunk: {a}");
    }
    let copies = p.json(&["status", "best", "--json"]);
    let copy = |i: usize| std::path::PathBuf::from(copies["members"][i]["copy"].as_str().unwrap());

    // Each attempt changes notes.txt differently: ada and bob its first line, cy its last.
    std::fs::write(copy(0).join("notes.txt"), "first (ada)\nsecond\nthird\n").unwrap();
    std::fs::write(copy(1).join("notes.txt"), "first (bob)\nsecond\nthird\n").unwrap();
    std::fs::write(copy(2).join("notes.txt"), "first\nsecond\nthird (cy)\n").unwrap();
    let (code, words, err) = p.team(&["compare", "best"]);
    assert_eq!(code, 0, "{err}");
    assert!(words.contains("bob:notes.txt:1  @@ -1,3 +1,3 @@ (+1 −1)"), "{words}");
    assert!(words.contains("cy:notes.txt:1  @@ -1,3 +1,3 @@ (+1 −1)"), "{words}");
    assert!(words.contains("check passed"), "{words}");

    // Two hunks that change the same line: refused, nothing written.
    let (code, out, err) = p.team(&["take", "best", "ada:notes.txt:1", "bob:notes.txt:1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("ada's and bob's chosen changes touch the same lines of notes.txt"), "{err}");
    assert_eq!(std::fs::read_to_string(p.project.join("notes.txt")).unwrap(), "first\nsecond\nthird\n");
    // Bob's first line and cy's last: both merged.
    let (code, out, err) = p.team(&["take", "best", "bob:notes.txt:1", "cy:notes.txt:1", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let merged: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(merged["merged"].as_array().unwrap().len(), 2, "{merged}");
    assert_eq!(std::fs::read_to_string(p.project.join("notes.txt")).unwrap(), "first (bob)\nsecond\nthird (cy)\n");
    // Taken hunks leave their attempts: bob and cy have only the note left; ada's hunk remains.
    let compared = p.json(&["compare", "best", "--json"]);
    let hunks = |i: usize| compared["attempts"][i]["hunks"].as_array().unwrap().len();
    assert_eq!((hunks(0), hunks(1), hunks(2)), (2, 1, 1), "{compared}");
    // A hunk that is not there is said.
    let (code, _, err) = p.team(&["take", "best", "cy:notes.txt:4"]);
    assert_eq!(code, 2);
    assert!(err.contains("cy has no hunk 4 in notes.txt (it has 0)"), "{err}");
    // A whole added file is a hunk too: taken from one attempt.
    let (code, out, err) = p.team(&["take", "best", "cy:notes/demo.md:1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(p.project.join("notes/demo.md")).unwrap(), "# Notes\n\nan idea\n");
}

#[test]
fn an_attempt_s_permissions_and_its_failed_check_are_compared() {
    let p = person();
    let project = p.project.to_str().unwrap();
    let args = ["try", "--project", project, "--agent", "ada", "--agent", "ada", "--name", "asks", "--json"];
    // Two attempts of ada's demo each ask to run a command: allowed once.
    let (code, out, err) = p.team(&[&args[..], &["--allow", "once", "permission"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    let compared: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    for a in compared["attempts"].as_array().unwrap() {
        assert_eq!(a["permissions"], serde_json::json!({"asked": 1, "allowed": 1}), "{a}");
        assert_eq!(a["files"], 0, "{a}");
        assert_eq!(a["check"], "failed: exit code 1", "no note: the check fails in its copy: {a}");
    }
    let names: Vec<&str> =
        compared["attempts"].as_array().unwrap().iter().map(|a| a["member"].as_str().unwrap()).collect();
    assert_eq!(names, ["ada · asks", "ada 2 · asks"], "one agent tried twice");
    let (_, words, _) = p.team(&["compare", "asks"]);
    assert!(words.contains("\n  ada 2 ") && words.contains("\n  ada "), "each attempt by its own name: {words}");
    // A second team of the same name is refused: names tell teams apart.
    let (code, _, err) = p.team(&[&args[..], &["x"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("eam named asks exists already"), "{err}");
    // Fewer than two agents is not best of N.
    let (code, _, err) = p.team(&["try", "--project", project, "--agent", "ada", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("best of N needs two agents or more"), "{err}");
}
