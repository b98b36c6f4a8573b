//! Members whose copies are kept where their agents run (issue 49, ADR 0037), driven through
//! `sidekicks team` as a script would: two demo agents over SSH (the private sshd; the "other
//! machine" is a folder of its own there, `XDG_DATA_HOME`/`XDG_CACHE_HOME` set by the SSH config)
//! and one in a "pod" (a stand-in `kubectl` that execs into a Docker container whose copy lives
//! only inside it). The copies are made there from the project here, the binary sent once and
//! reused; the members work there; status, diff, merge, conflicts told and resolved, undo and
//! discard work as for copies on this computer.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::{BIN, git};

/// One far test at a time: each makes a shared connection and sends a 100 MB binary.
pub(crate) static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A person whose agents run on another machine over SSH (and, with a pod, in one).
pub(crate) struct Far {
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) config: PathBuf,
    pub(crate) project: PathBuf,
    /// The other machine's folders (`data`, `cache`).
    pub(crate) there: PathBuf,
    pub(crate) ssh_config: PathBuf,
    /// Where a stand-in `kubectl` is, first on the PATH.
    pub(crate) tools: PathBuf,
}

impl Far {
    /// With agents `ssh` (names) over SSH, through `proxy` when given, and `pods` (name, runtime,
    /// target: `kubectl` and a pod, `sbx` and a sandbox).
    pub(crate) fn new(ssh: &[&str], pods: &[(&str, &str, &str)], proxy: Option<&dyn Fn(&Path) -> String>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let project = root.join("project");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::write(project.join("notes.txt"), "first\nsecond\nthird\n").unwrap();
        std::fs::write(project.join("src/lib.rs"), "pub fn one() -> u32 {\n    1\n}\n").unwrap();
        std::fs::write(project.join(".gitignore"), "target/\n.env\n").unwrap();
        std::fs::write(project.join(".env"), "SECRET=here\n").unwrap();
        git(&project, &["init", "-q", "-b", "main"]);
        git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
        git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
        let there = root.join("there");
        std::fs::create_dir_all(&there).unwrap();
        let proxy = proxy.map(|p| p(&root));
        let ssh_config = common::ssh::far_config(&root, &there, proxy.as_deref());
        let home = root.join("home");
        std::fs::create_dir(&home).unwrap();
        let mut text = String::from("[defaults]\n");
        for name in ssh {
            text.push_str(&format!(
                "\n[[agent]]\nname = {name:?}\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {home:?}\n\
                 runtime = {{ type = \"ssh\", host = {host:?}, workspace_path = \"/tmp\" }}\n",
                host = common::ssh::FAR,
            ));
        }
        for (name, kind, target) in pods {
            let key = if *kind == "kubectl" { "pod" } else { "sandbox" };
            text.push_str(&format!(
                "\n[[agent]]\nname = {name:?}\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {home:?}\n\
                 runtime = {{ type = {kind:?}, {key} = {target:?}, workspace_path = \"/tmp\" }}\n"
            ));
        }
        let config = root.join("sidekicks.toml");
        std::fs::write(&config, text).unwrap();
        let tools = root.join("tools");
        std::fs::create_dir(&tools).unwrap();
        // Its own folder for shared SSH connections (XDG_RUNTIME_DIR), never another test's.
        std::fs::create_dir_all(root.join("user")).unwrap();
        Self { _dir: dir, root, config, project, there, ssh_config, tools }
    }

    /// Runs `sidekicks --config C team ARGS`: exit code, stdout, stderr.
    pub(crate) fn team(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.command(args).output().unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
    }

    /// `sidekicks --config C team ARGS` started, its output piped.
    pub(crate) fn spawn_team(&self, args: &[&str]) -> std::process::Child {
        let mut command = self.command(args);
        command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        command.spawn().unwrap()
    }

    fn command(&self, args: &[&str]) -> Command {
        let path = format!("{}:{}", self.tools.display(), std::env::var("PATH").unwrap_or_default());
        let mut command = Command::new(BIN);
        command
            .arg("--config")
            .arg(&self.config)
            .arg("team")
            .args(args)
            .env("HOME", self.root.join("user"))
            .env("XDG_DATA_HOME", self.root.join("user/data"))
            .env("XDG_CONFIG_HOME", self.root.join("user/config"))
            .env("XDG_STATE_HOME", self.root.join("user/state"))
            .env("XDG_CACHE_HOME", self.root.join("user/cache"))
            .env("XDG_RUNTIME_DIR", self.root.join("user"))
            .env("SIDEKICKS_SSH_CONFIG", &self.ssh_config)
            .env("PATH", path);
        command
    }

    pub(crate) fn json(&self, args: &[&str]) -> serde_json::Value {
        let (code, out, err) = self.team(args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        serde_json::from_str(out.lines().next().unwrap_or_default().trim())
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {out}{err}"))
    }

    /// The copies of Sidekicks sent there (the other machine's cache).
    pub(crate) fn sent(&self) -> Vec<(PathBuf, std::time::SystemTime)> {
        let bin = self.there.join("cache/sidekicks/bin");
        let mut found: Vec<_> = std::fs::read_dir(bin)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| (e.path(), e.metadata().unwrap().modified().unwrap()))
            .collect();
        found.sort();
        found
    }
}

pub(crate) fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{}: {e}", root.join(rel).display()))
}

/// The copy of member `i` of a team as `team new --json` or `status --json` gave it, and where
/// it is kept.
pub(crate) fn copy_of(team: &serde_json::Value, name: &str) -> (PathBuf, String) {
    let m = team["members"].as_array().unwrap().iter().find(|m| m["name"] == name).cloned();
    let m = m.unwrap_or_else(|| panic!("no {name}: {team}"));
    (PathBuf::from(m["copy"].as_str().unwrap()), m["kept"].as_str().unwrap_or_default().to_string())
}

#[test]
fn two_members_over_ssh_work_there_and_merge_here() {
    if !common::ssh::available() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let p = Far::new(&["ada", "bob"], &[], None);
    let made = p.json(&[
        "new",
        "--project",
        p.project.to_str().unwrap(),
        "--agent",
        "ada",
        "--agent",
        "bob",
        "--name",
        "far",
        "--json",
    ]);
    let (ada, kept) = copy_of(&made, "ada · far");
    let (bob, _) = copy_of(&made, "bob · far");
    assert_eq!(kept, format!("ssh {}", common::ssh::FAR), "{made}");
    // Made there (the other machine's folder), not among this computer's teams.
    let far_teams = p.there.join("data/sidekicks/far-teams");
    assert!(ada.starts_with(&far_teams) && bob.starts_with(&far_teams), "{made}");
    assert!(!p.root.join("user").join("data/sidekicks/teams").join(ada.file_name().unwrap()).exists());
    assert_eq!(read(&ada, "notes.txt"), "first\nsecond\nthird\n");
    assert_eq!(read(&bob, "src/lib.rs"), read(&p.project, "src/lib.rs"));
    assert!(!ada.join(".git").exists() && !ada.join(".env").exists(), "sources only, as a copy here");
    // This binary was sent there once, and is used from there.
    let sent = p.sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    let sha = |path: &Path| common::static_http::sha256_hex(&std::fs::read(path).unwrap());
    assert_eq!(sha(&sent[0].0), sha(Path::new(BIN)));

    // Ada's member works there: the demo agent, started over SSH in her copy, writes a note.
    let (code, out, err) = p.team(&["prompt", "far", "ada", "--allow", "once", "files"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(ada.join("notes/demo.md").is_file(), "written in her copy there: {out}{err}");
    assert!(!p.project.join("notes").exists());
    std::fs::write(ada.join("notes.txt"), "first\nsecond (Ada)\nthird\n").unwrap();
    // Bob changes the same line, and adds a file of a few chunks.
    std::fs::write(bob.join("notes.txt"), "first\nsecond (Bob)\nthird\n").unwrap();
    let big: Vec<u8> = (0..700_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(bob.join("data.bin"), &big).unwrap();

    let status = p.json(&["status", "far", "--json"]);
    let (_, ada_kept) = copy_of(&status, "ada · far");
    assert_eq!(ada_kept, kept);
    let changes = |name: &str| -> Vec<(String, String)> {
        let m = status["members"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap().clone();
        m["changes"].as_array().unwrap().iter().map(|c| (c["path"].to_string(), c["kind"].to_string())).collect()
    };
    assert_eq!(
        changes("ada · far"),
        [("\"notes.txt\"".into(), "\"modified\"".into()), ("\"notes/demo.md\"".into(), "\"added\"".into())],
        "{status}"
    );
    let (code, diff, err) = p.team(&["diff", "far", "ada"]);
    assert_eq!(code, 0, "{err}");
    assert!(diff.contains("-second\n+second (Ada)\n"), "{diff}");

    // Ada merges; Bob's same line conflicts: nothing of his applied, the markers written there.
    let (code, out, err) = p.team(&["merge", "far", "ada"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&p.project, "notes.txt"), "first\nsecond (Ada)\nthird\n");
    assert_eq!(read(&p.project, "notes/demo.md"), read(&ada, "notes/demo.md"));
    let (code, out, err) = p.team(&["merge", "far", "bob"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("bob · far: conflicts: 1 (nothing applied)"), "{out}");
    assert!(read(&bob, "notes.txt").contains("<<<<<<< main\n"), "told in his copy there");
    assert!(!p.project.join("data.bin").exists());
    // Resolved there, it merges, the big file whole.
    std::fs::write(bob.join("notes.txt"), "first\nsecond (Ada and Bob)\nthird\n").unwrap();
    let (code, out, err) = p.team(&["merge", "far", "bob"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&p.project, "notes.txt"), "first\nsecond (Ada and Bob)\nthird\n");
    assert_eq!(std::fs::read(p.project.join("data.bin")).unwrap(), big);
    // Nothing left to merge: the copies' bases moved with the merges.
    let status = p.json(&["status", "far", "--json"]);
    for member in status["members"].as_array().unwrap() {
        assert_eq!(member["changes"], serde_json::json!([]), "{status}");
    }
    // Undone here, as any merge.
    let (code, out, err) = p.team(&["undo", "far"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&p.project, "notes.txt"), "first\nsecond (Ada)\nthird\n");
    assert!(!p.project.join("data.bin").exists());

    // The binary there was reused by every process after the first.
    assert_eq!(p.sent(), sent, "sent once, reused");

    // Bob discarded with work not merged: kept here, and back in a new copy there on restore.
    std::fs::write(bob.join("later.txt"), "not merged yet\n").unwrap();
    let (code, out, err) = p.team(&["discard", "far", "bob"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!bob.exists(), "his copy there is removed");
    let (code, out, err) = p.team(&["restore", "far"]);
    assert_eq!(code, 0, "{out}{err}");
    let status = p.json(&["status", "far", "--json"]);
    let (bob, bob_kept) = copy_of(&status, "bob · far");
    assert_eq!(bob_kept, kept, "restored where his agent runs: {status}");
    assert!(bob.starts_with(&far_teams));
    assert_eq!(read(&bob, "later.txt"), "not merged yet\n");

    // Discarded: the copies there go.
    let (code, out, err) = p.team(&["discard", "far"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!ada.exists() && !bob.exists(), "the copies there are removed");
    assert_eq!(p.json(&["list", "--json"]), serde_json::json!([]));
}

/// Stand-ins `kubectl` and `sbx` in `tools`: `kubectl exec [-i] POD [--] WORDS` and `sbx exec
/// [-i] SANDBOX WORDS` run WORDS in Docker container `container` (the "pod" and the "sandbox"), as
/// today's tests of those runtimes do.
fn kubectl_into(tools: &Path, container: &str) {
    use std::os::unix::fs::PermissionsExt;
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = exec ] || {{ echo \"stand-in kubectl: only exec\" >&2; exit 2; }}\nshift\ni=\n\
         while :; do case \"$1\" in -i) i=-i; shift;; -e) shift 2;; *) break;; esac; done\nshift\n\
         [ \"$1\" = -- ] && shift\nexec docker exec $i {container} \"$@\"\n"
    );
    for tool in ["kubectl", "sbx"] {
        let path = tools.join(tool);
        std::fs::write(&path, script.replace("stand-in kubectl", &format!("stand-in {tool}"))).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn members_in_a_pod_and_a_sandbox_keep_their_copies_only_there_with_their_recipe() {
    if !common::docker::available() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let pod = common::docker::Container::start(&[]);
    let p = Far::new(&[], &[("carol", "kubectl", "web-0"), ("dan", "sbx", "dev-1")], None);
    kubectl_into(&p.tools, &pod.name);
    std::fs::write(p.project.join(".gitignore"), "target/\n.env\nsetup-saw.txt\n").unwrap();
    std::fs::create_dir_all(p.project.join(".sidekicks")).unwrap();
    std::fs::write(
        p.project.join(".sidekicks/team.toml"),
        "copy = [\".env\"]\nsetup = \"cat .env > setup-saw.txt; echo port $PORT >> setup-saw.txt\"\n\
         [ports]\nbase = 4100\nnames = [\"PORT\"]\n",
    )
    .unwrap();
    let made =
        p.json(&["new", "--project", p.project.to_str().unwrap(), "--agent", "carol", "--name", "pod", "--json"]);
    let (copy, kept) = copy_of(&made, "carol · pod");
    assert_eq!(kept, "kubectl web-0", "{made}");
    let member = made["members"][0].clone();
    assert_eq!(member["ready"], true, "the setup ran: {made}");
    // The copy is inside the container only (no bind mount): not on this computer.
    let copy_text = copy.display().to_string();
    assert!(!copy.exists(), "{copy_text} is not a folder of this computer");
    assert_eq!(pod.sh(&format!("cat '{copy_text}/notes.txt'")), "first\nsecond\nthird\n");
    assert!(pod.sh("cat /proc/self/mountinfo").lines().all(|l| !l.contains("far-teams")), "nothing bound");
    // The recipe's file git does not carry was sent, and the setup ran there with its port.
    assert_eq!(pod.sh(&format!("cat '{copy_text}/setup-saw.txt'")), "SECRET=here\nport 4110\n");

    // The member works there (the demo agent in the pod writes a note) and in its files.
    let (code, out, err) = p.team(&["prompt", "pod", "carol", "--allow", "once", "files"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!pod.sh(&format!("cat '{copy_text}/notes/demo.md'")).is_empty(), "{out}{err}");
    pod.sh(&format!("printf 'pub fn one() -> u32 {{\\n    2\\n}}\\n' > '{copy_text}/src/lib.rs'"));
    let status = p.json(&["status", "pod", "--json"]);
    let carol = status["members"].as_array().unwrap().iter().find(|m| m["name"] == "carol · pod").unwrap().clone();
    let changes: Vec<String> = carol["changes"].as_array().unwrap().iter().map(|c| c["path"].to_string()).collect();
    assert_eq!(changes, ["\"notes/demo.md\"", "\"src/lib.rs\""], "ignored files are not changes: {status}");
    let (code, out, err) = p.team(&["merge", "pod", "carol"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(&p.project, "src/lib.rs"), "pub fn one() -> u32 {\n    2\n}\n");
    assert!(p.project.join("notes/demo.md").is_file());
    assert!(!p.project.join("setup-saw.txt").exists());

    // Gone there behind Sidekicks' back: said in words when it is next read.
    pod.sh(&format!("rm -rf '{copy_text}'"));
    let (code, out, err) = p.team(&["status", "pod", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("the copy on kubectl web-0") && out.contains("is gone"), "{out}{err}");
    let (code, out, err) = p.team(&["discard", "pod"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// The pid of the shared connection `p`'s Sidekicks made to the far host.
fn master_of(p: &Far) -> i32 {
    let out = Command::new("ssh")
        .arg("-F")
        .arg(&p.ssh_config)
        .arg("-o")
        .arg(format!("ControlPath={}/%C", p.root.join("user/sidekicks-ssh").display()))
        .args(["-O", "check", common::ssh::FAR])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    text.split("pid=")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no shared connection: {text}"))
}

#[test]
fn the_connection_lost_mid_merge_leaves_the_project_as_it_was() {
    if !common::ssh::available() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let relay = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ssh/relay.py");
    let control = |root: &Path| root.join("relay");
    let proxy = |root: &Path| {
        std::fs::create_dir_all(control(root)).unwrap();
        format!("python3 {} {} {}", relay.display(), common::ssh::far_port(), control(root).display())
    };
    let p = Far::new(&["ada"], &[], Some(&proxy));
    let control = control(&p.root);
    let made = p.json(&["new", "--project", p.project.to_str().unwrap(), "--agent", "ada", "--name", "lost", "--json"]);
    let (ada, _) = copy_of(&made, "ada · lost");
    // Ada's work: a few files and one of 1.5 MB, which takes seconds through the paced relay.
    for i in 0..5 {
        std::fs::write(ada.join(format!("src/part{i}.rs")), format!("pub const N: u32 = {i};\n")).unwrap();
    }
    // Letters at random: the wire deflates what it sends, and a pattern would shrink to nothing.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let big: Vec<u8> = (0..1_500_000u32)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            b'a' + (state % 26) as u8
        })
        .collect();
    std::fs::write(ada.join("big.txt"), &big).unwrap();
    std::fs::write(ada.join("notes.txt"), "first\nsecond (Ada)\nthird\n").unwrap();
    let before = git(&p.project, &["status", "--porcelain"]);

    // The merge starts; once its reading is under way the shared connection is killed and the
    // machine is out of reach.
    std::fs::write(control.join("slow"), "").unwrap();
    let path = format!("{}:{}", p.tools.display(), std::env::var("PATH").unwrap_or_default());
    let merging = Command::new(BIN)
        .arg("--config")
        .arg(&p.config)
        .args(["team", "merge", "lost", "ada"])
        .env("HOME", p.root.join("user"))
        .env("XDG_DATA_HOME", p.root.join("user/data"))
        .env("XDG_CONFIG_HOME", p.root.join("user/config"))
        .env("XDG_STATE_HOME", p.root.join("user/state"))
        .env("XDG_CACHE_HOME", p.root.join("user/cache"))
        .env("XDG_RUNTIME_DIR", p.root.join("user"))
        .env("SIDEKICKS_SSH_CONFIG", &p.ssh_config)
        .env("PATH", path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let passed = || std::fs::read_to_string(control.join("passed")).ok().and_then(|t| t.parse::<u64>().ok());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while passed().unwrap_or(0) < 200_000 {
        assert!(std::time::Instant::now() < deadline, "the merge never read through the relay");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::fs::write(control.join("down"), "").unwrap();
    let master = master_of(&p);
    // SAFETY: a plain kill of the shared connection's process.
    unsafe { libc::kill(master, libc::SIGKILL) };
    let out = merging.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_ne!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains("the copy on ssh sidekicks-test-far")
            && stderr.contains("nothing was merged, the project is as it was"),
        "said in words: {stdout}{stderr}"
    );
    // The project is whole: nothing of Ada's, nothing half-written, no journal left.
    assert_eq!(git(&p.project, &["status", "--porcelain"]), before);
    assert_eq!(read(&p.project, "notes.txt"), "first\nsecond\nthird\n");
    assert!(!p.project.join("big.txt").exists() && !p.project.join("src/part0.rs").exists());
    let leftovers: Vec<_> = walkdir(&p.project).into_iter().filter(|f| f.contains("sk-merge")).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // Back in reach: the same merge goes through, whole.
    std::fs::remove_file(control.join("down")).unwrap();
    std::fs::remove_file(control.join("slow")).unwrap();
    let (code, out, err) = p.team(&["merge", "lost", "ada"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read(p.project.join("big.txt")).unwrap(), big);
    assert_eq!(read(&p.project, "src/part4.rs"), "pub const N: u32 = 4;\n");
    let (code, out, err) = p.team(&["discard", "lost"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Every file below `root`, as paths relative to it.
fn walkdir(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    found
}
