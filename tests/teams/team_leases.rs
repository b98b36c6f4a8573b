//! Leases (issue 47): a member about to write a file another member changed is told who, before
//! it goes on (`overlap = "tell"` in the team's recipe), or the person is asked (`"ask"`), through
//! `sidekicks team prompt` with demo members writing through Sidekicks. Without the recipe's
//! word nothing stops it (the radar shows the overlap).

use super::team_cli::Person;

/// Team `squad` of ada and bob with bob's copy changing `notes/demo.md`, and the recipe's
/// `overlap` rule (none: no recipe); gives ada's copy.
fn squad(rule: Option<&str>) -> (Person, std::path::PathBuf) {
    let p = Person::new();
    if let Some(rule) = rule {
        std::fs::create_dir_all(p.project.join(".sidekicks")).unwrap();
        std::fs::write(p.project.join(".sidekicks/team.toml"), format!("overlap = \"{rule}\"\n")).unwrap();
    }
    let project = p.project.to_str().unwrap();
    let made = p.json(&["new", "--project", project, "--agent", "ada", "--agent", "bob", "--name", "squad", "--json"]);
    let copy = |i: usize| std::path::PathBuf::from(made["members"][i]["copy"].as_str().unwrap());
    std::fs::create_dir_all(copy(1).join("notes")).unwrap();
    std::fs::write(copy(1).join("notes/demo.md"), "# Notes\n\nbob's\n").unwrap();
    (p, copy(0))
}

#[test]
fn told_first_a_member_writes_a_file_another_changed_on_its_second_try() {
    let (p, ada) = squad(Some("tell"));
    let (code, out, err) = p.team(&["prompt", "squad", "ada", "--allow", "once", "files: ada's"]);
    assert_ne!(code, 0, "the first write is refused: {out}{err}");
    let said = format!("{out}{err}");
    assert!(said.contains("bob of the team squad changed notes/demo.md too"), "told who: {said}");
    assert!(!ada.join("notes/demo.md").exists(), "nothing written before it was told");
    // Told once: the next write goes on.
    let (code, out, err) = p.team(&["prompt", "squad", "ada", "--allow", "once", "files: ada's"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(ada.join("notes/demo.md")).unwrap(), "# Notes\n\nada's\n");
    // A file no other member changed is written at once.
    let (code, out, err) = p.team(&["prompt", "squad", "bob", "--allow", "once", "files: bob's again"]);
    assert_ne!(code, 0, "bob meets ada's note now: {out}{err}");
    assert!(format!("{out}{err}").contains("ada of the team squad changed notes/demo.md too"), "{out}{err}");
}

#[test]
fn asked_the_person_decides_whether_a_member_writes_a_file_another_changed() {
    let (p, ada) = squad(Some("ask"));
    // No one to ask (`--allow reject`, the default): refused, saying why.
    let (code, out, err) = p.team(&["prompt", "squad", "ada", "files: ada's"]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(format!("{out}{err}").contains("did not let you write notes/demo.md: bob changed it too"), "{out}{err}");
    assert!(!ada.join("notes/demo.md").exists());
    // Allowed: the card names both members and the file.
    let (code, out, err) = p.team(&["prompt", "squad", "ada", "--allow", "once", "files: ada's"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("ada · squad wants to write notes/demo.md, which bob changed too"), "{out}{err}");
    assert_eq!(std::fs::read_to_string(ada.join("notes/demo.md")).unwrap(), "# Notes\n\nada's\n");
}

#[test]
fn without_the_recipe_s_word_a_member_writes_what_another_changed() {
    let (p, ada) = squad(None);
    let (code, out, err) = p.team(&["prompt", "squad", "ada", "--allow", "once", "files: ada's"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(ada.join("notes/demo.md").is_file());
}
