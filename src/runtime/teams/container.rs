//! A team member's own container, for an agent that runs in a Docker or Podman container (ADR
//! 0025): the member's copy stays on this computer, made by its provider like any other, and is
//! bound into a container made from the agent's — same image, environment, user, network and
//! mounts, except the one at the agent's workspace path, where the copy goes. Changes, merge,
//! review, undo and discard then work on the host copy as for any member; only the agent (and its
//! files and terminals, through `exec`) moves. The container is labelled with its team, so what a
//! discarded or vanished team leaves is found and removed.
//!
//! A link to a host folder leads nowhere inside the container, so the copy's linked dependency
//! folders become empty folders with the project's bound over them, and a git worktree's `.git`
//! file is replaced, in the container only, by one naming the project's `.git` where it is bound.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{MemberCopy, ProviderKind, TeamError};
use crate::model::config::{AgentConfig, RuntimeConfig, RuntimeKind};
use crate::protocol::teams::{ContainerEngine, MemberContainer};

/// The label naming a member container's team.
pub const TEAM_LABEL: &str = "sidekicks.team";
/// The label naming the teams folder it belongs to: another Sidekicks (another user, another
/// data folder) on the same engine has its own, and leaves these alone.
pub const TEAMS_LABEL: &str = "sidekicks.teams";
/// Where the project's `.git` is bound in a git-worktree member's container.
const GIT_INSIDE: &str = "/.sidekicks-project-git";
/// The label naming the agent's own container a member container was made from.
const FROM_LABEL: &str = "sidekicks.from";
/// What a member container runs until the agent is started in it with `exec`.
const WAIT: &str = "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done";

/// Where a member of an agent with `runtime` works: `Ok(None)` on this computer, `Ok(Some)` in a
/// container of its own made with that engine; an error for runtimes where Sidekicks cannot make
/// one (a sandbox, a pod).
pub fn engine_for(agent: &str, runtime: &RuntimeConfig) -> Result<Option<ContainerEngine>, TeamError> {
    match runtime.kind {
        RuntimeKind::Container => Ok(Some(ContainerEngine::Docker)),
        RuntimeKind::Podman => Ok(Some(ContainerEngine::Podman)),
        // Their copies are kept where they run, by the copy service (`far.rs`).
        RuntimeKind::Local | RuntimeKind::Sbx | RuntimeKind::Kubectl | RuntimeKind::Ssh => {
            let _ = agent;
            Ok(None)
        }
    }
}

/// A mount of the agent's container.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Mount {
    Bind { source: String, target: String, read_only: bool },
    Volume { name: String, target: String, read_only: bool },
    Tmpfs { target: String },
}

impl Mount {
    fn target(&self) -> &str {
        match self {
            Mount::Bind { target, .. } | Mount::Volume { target, .. } | Mount::Tmpfs { target } => target,
        }
    }

    /// The engine's `--mount` value (CSV: a field holding a comma or a quote is quoted).
    fn arg(&self) -> String {
        let field = |f: String| if f.contains([',', '"']) { format!("\"{}\"", f.replace('"', "\"\"")) } else { f };
        let ro = |r: bool| if r { ",readonly" } else { "" };
        match self {
            Mount::Bind { source, target, read_only } => format!(
                "type=bind,{},{}{}",
                field(format!("source={source}")),
                field(format!("target={target}")),
                ro(*read_only)
            ),
            Mount::Volume { name, target, read_only } => format!(
                "type=volume,{},{}{}",
                field(format!("source={name}")),
                field(format!("target={target}")),
                ro(*read_only)
            ),
            Mount::Tmpfs { target } => format!("type=tmpfs,{}", field(format!("target={target}"))),
        }
    }
}

/// What the member's container takes from the agent's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Inspected {
    /// The container's name.
    name: String,
    /// The agent's own container, when this one is a member's.
    made_from: Option<String>,
    image: String,
    env: Vec<String>,
    user: String,
    network: String,
    mounts: Vec<Mount>,
}

impl Inspected {
    /// Reads `docker|podman inspect`'s answer for one container.
    fn parse(json: &[u8]) -> Result<Self, String> {
        let all: serde_json::Value = serde_json::from_slice(json).map_err(|e| e.to_string())?;
        let c = all.get(0).unwrap_or(&all);
        let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        let image = text(&c["Config"]["Image"]);
        if image.is_empty() {
            return Err("its image is not known".into());
        }
        // Podman lists the container's own HOSTNAME (its id) there: the member's has its own.
        let env = c["Config"]["Env"]
            .as_array()
            .into_iter()
            .flatten()
            .map(text)
            .filter(|var| !var.starts_with("HOSTNAME="))
            .collect();
        let mounts = c["Mounts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| {
                let target = text(&m["Destination"]);
                let read_only = m["RW"].as_bool() == Some(false);
                match m["Type"].as_str()? {
                    "bind" => Some(Mount::Bind { source: text(&m["Source"]), target, read_only }),
                    "volume" => Some(Mount::Volume { name: text(&m["Name"]), target, read_only }),
                    "tmpfs" => Some(Mount::Tmpfs { target }),
                    _ => None,
                }
            })
            .collect();
        let made_from = c["Config"]["Labels"][FROM_LABEL].as_str().map(String::from);
        Ok(Self {
            name: text(&c["Name"]).trim_start_matches('/').to_string(),
            made_from,
            image,
            env,
            user: text(&c["Config"]["User"]),
            network: text(&c["HostConfig"]["NetworkMode"]),
            mounts,
        })
    }
}

/// A member container's name: ASCII letters, digits, `_.-`.
fn container_name(member: &MemberCopy) -> String {
    let id: String =
        member.id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
    format!("sidekicks-{id}")
}

/// The team a member belongs to (its state is `<teams>/<team>/.state/<member>`).
fn team_of(member: &MemberCopy) -> String {
    member
        .state
        .ancestors()
        .nth(2)
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The teams folder a member's team is in.
fn teams_dir_of(member: &MemberCopy) -> PathBuf {
    member.state.ancestors().nth(3).map(Path::to_path_buf).unwrap_or_default()
}

/// True when `path` is `dir` or inside it.
fn within(path: &str, dir: &Path) -> bool {
    Path::new(path).starts_with(dir)
}

/// The engine's `run` arguments for `member`'s container `name`, made from `from`, with the
/// copy bound at `inside`. `git_file` is the `.git` file the container sees instead of the copy's.
fn run_args(member: &MemberCopy, from: &Inspected, name: &str, inside: &Path, git_file: Option<&Path>) -> Vec<String> {
    let mut args: Vec<String> = vec!["run".into(), "-d".into(), "--name".into(), name.into()];
    args.extend(["--label".into(), format!("{TEAM_LABEL}={}", team_of(member))]);
    args.extend(["--label".into(), format!("{TEAMS_LABEL}={}", teams_dir_of(member).display())]);
    args.extend(["--label".into(), format!("sidekicks.member={}", member.name)]);
    args.extend(["--label".into(), format!("{FROM_LABEL}={}", from.name)]);
    if !from.user.is_empty() {
        args.extend(["--user".into(), from.user.clone()]);
    }
    let own_network = matches!(from.network.as_str(), "" | "default" | "bridge");
    if !own_network {
        args.extend(["--network".into(), from.network.clone()]);
    }
    for var in &from.env {
        args.extend(["--env".into(), var.clone()]);
    }
    for (key, value) in &member.env {
        args.extend(["--env".into(), format!("{key}={value}")]);
        // The member's ports reach this computer as a local member's would (not with the host's
        // network, which has them already).
        if own_network && let Ok(port) = value.parse::<u16>() {
            args.extend(["--publish".into(), format!("127.0.0.1:{port}:{port}")]);
        }
    }
    let bind = |source: &Path, target: &Path| Mount::Bind {
        source: source.display().to_string(),
        target: target.display().to_string(),
        read_only: false,
    };
    // The copy at the workspace, the project's dependency folders over the copy's, git's file.
    let mut ours = vec![bind(&member.copy, inside)];
    for folder in &member.dependencies {
        if std::fs::symlink_metadata(member.copy.join(folder)).is_ok_and(|m| m.is_dir()) {
            ours.push(bind(&member.project.join(folder), &inside.join(folder)));
        }
    }
    if let Some(file) = git_file {
        ours.push(bind(&member.project.join(".git"), Path::new(GIT_INSIDE)));
        ours.push(bind(file, &inside.join(".git")));
        // What makes git run commands (settings, hooks) and what names the folders stays the
        // person's: read-only in the member's container (its index, HEAD and objects it writes).
        for (source, target) in git_read_only(member) {
            ours.push(Mount::Bind { source: source.display().to_string(), target, read_only: true });
        }
    }
    // The agent's mounts, but not its workspace nor the project's folders inside it (the copy
    // has them), nor one where ours go; others inside it (a volume, tools) stay.
    let project = from.mounts.iter().find_map(|m| match m {
        Mount::Bind { source, target, .. } if Path::new(target) == inside => Some(source.clone()),
        _ => None,
    });
    let keep = |m: &Mount| {
        let from_project = matches!(m, Mount::Bind { source, .. }
            if project.as_ref().is_some_and(|p| Path::new(source).starts_with(p)) && within(m.target(), inside));
        !from_project && !ours.iter().any(|o| Path::new(o.target()) == Path::new(m.target()))
    };
    let mounts: Vec<Mount> = from.mounts.iter().filter(|m| keep(m)).cloned().chain(ours.iter().cloned()).collect();
    for mount in mounts {
        args.extend(["--mount".into(), mount.arg()]);
    }
    args.extend(["--workdir".into(), inside.display().to_string()]);
    args.extend(["--entrypoint".into(), "sh".into(), from.image.clone(), "-c".into(), WAIT.into()]);
    args
}

/// Runs the engine; its stdout, or what it said.
fn engine(engine: ContainerEngine, args: &[String]) -> Result<String, String> {
    let out = Command::new(engine.program())
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", engine.program()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// Makes the container of `member`, whose agent runs in container `from` with its workspace at
/// `inside`, and records it in the member (saved). The copy's linked dependency folders become
/// folders the project's are bound over.
pub fn make(member: &mut MemberCopy, kind: ContainerEngine, from: &str, inside: &Path) -> Result<(), TeamError> {
    let failed = |message: String| TeamError::Container { agent: member.name.clone(), message };
    let inspect = |name: &str| {
        engine(kind, &["inspect".into(), "--type".into(), "container".into(), name.into()])
            .and_then(|json| Inspected::parse(json.as_bytes()))
            .map_err(|e| failed(format!("cannot read the agent's container {name}: {e}")))
    };
    let mut inspected = inspect(from)?;
    // An agent working in another team's member container: made from the agent's own.
    if let Some(own) = inspected.made_from.clone() {
        inspected = inspect(&own)?;
    }
    let from = inspected.name.clone();
    for folder in &member.dependencies {
        let path = member.copy.join(folder);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            std::fs::remove_file(&path).map_err(|e| TeamError::io(&path, e))?;
            std::fs::create_dir_all(&path).map_err(|e| TeamError::io(&path, e))?;
        }
    }
    let git_file = git_file(member)?;
    let name = container_name(member);
    // One left by an earlier attempt (or a team made again) goes first.
    let _ = engine(kind, &rm_args(kind, &name));
    engine(kind, &run_args(member, &inspected, &name, inside, git_file.as_deref())).map_err(failed)?;
    member.container = Some(MemberContainer { engine: kind, name, from, workspace_path: inside.to_path_buf() });
    member.save()
}

/// Gives each of `members` whose agent (in `agents`) runs in a container one of its own; when one
/// cannot be made, those made are removed and the error says why.
pub fn place(members: &mut [MemberCopy], agents: &[AgentConfig]) -> Result<(), TeamError> {
    let mut made: Vec<usize> = Vec::new();
    for i in 0..members.len() {
        // Each member is an instance of its agent (older copies: named as it).
        let Some(agent) = agents.iter().find(|a| a.name == members[i].agent || a.name == members[i].name) else {
            continue;
        };
        let kind = match engine_for(&agent.name, &agent.runtime) {
            Ok(Some(kind)) if members[i].container.is_none() => kind,
            Ok(_) => continue,
            Err(e) => Err(e).inspect_err(|_| made.iter().for_each(|&j| remove(&members[j])))?,
        };
        let from = agent.runtime.container.clone().unwrap_or_default();
        if let Err(e) = make(&mut members[i], kind, &from, &agent.workspace_path()) {
            made.iter().for_each(|&j| remove(&members[j]));
            return Err(e);
        }
        made.push(i);
    }
    Ok(())
}

/// For a git worktree: a `.git` file naming the worktree's folder where the project's `.git` is
/// bound in the container (kept in the member's state).
fn git_file(member: &MemberCopy) -> Result<Option<PathBuf>, TeamError> {
    if member.provider != ProviderKind::GitWorktree {
        return Ok(None);
    }
    // Found from the project, not from the copy's `.git` file (the member's to change).
    let Some((gitdir, _)) = crate::runtime::git::index::member_git_dirs(&member.project, &member.copy) else {
        return Ok(None);
    };
    let Ok(rest) = gitdir.strip_prefix(member.project.join(".git")) else { return Ok(None) };
    let file = member.state.join("container-git");
    let inside = Path::new(GIT_INSIDE).join(rest);
    std::fs::write(&file, format!("gitdir: {}\n", inside.display())).map_err(|e| TeamError::io(&file, e))?;
    Ok(Some(file))
}

/// The files and folders of the project's git folder bound read-only over the writable one in a
/// member's container: the repository's settings and hooks, and the member's worktree's settings
/// and `commondir` (made empty when missing, so that a member cannot make one).
fn git_read_only(member: &MemberCopy) -> Vec<(PathBuf, String)> {
    let Some((dir, common)) = crate::runtime::git::index::member_git_dirs(&member.project, &member.copy) else {
        return vec![];
    };
    let worktree_settings = dir.join("config.worktree");
    if std::fs::symlink_metadata(&worktree_settings).is_err() {
        let _ = std::fs::write(&worktree_settings, "");
    }
    let inside = |path: &Path| {
        path.strip_prefix(&common).ok().map(|rest| Path::new(GIT_INSIDE).join(rest).display().to_string())
    };
    [common.join("config"), common.join("hooks"), common.join("info"), worktree_settings, dir.join("commondir")]
        .into_iter()
        .filter(|p| p.exists())
        .filter_map(|p| inside(&p).map(|target| (p, target)))
        .collect()
}

/// Makes sure the member's container runs (after a restart of this computer it is stopped; if it
/// was removed, it is made again from the agent's container).
pub fn ensure(member: &mut MemberCopy) -> Result<(), TeamError> {
    let Some(c) = member.container.clone() else { return Ok(()) };
    let running = engine(c.engine, &["inspect".into(), "--format".into(), "{{.State.Running}}".into(), c.name.clone()]);
    match running.as_deref().map(str::trim) {
        Ok("true") => Ok(()),
        Ok(_) => engine(c.engine, &["start".into(), c.name.clone()])
            .map(drop)
            .map_err(|message| TeamError::Container { agent: member.name.clone(), message }),
        Err(_) => make(member, c.engine, &c.from, &c.workspace_path),
    }
}

/// Removes the member's container, first giving the files its processes made in the copy back
/// to the copy's owner (a container running as root leaves root's files, which this computer's
/// user could not remove).
pub fn remove(member: &MemberCopy) {
    let Some(c) = &member.container else { return };
    if let Ok(meta) = std::fs::metadata(&member.copy) {
        use std::os::unix::fs::MetadataExt;
        let owner = format!("{}:{}", meta.uid(), meta.gid());
        let inside = c.workspace_path.display().to_string();
        let args = ["exec", "--user", "0", &c.name, "chown", "-R", &owner, &inside].map(String::from);
        let _ = engine(c.engine, &args);
    }
    remove_named(c.engine, &c.name);
}

/// `rm -f name`: killed at once, as Docker does (Podman would first wait 10 s for the process
/// to end on SIGTERM).
fn rm_args(kind: ContainerEngine, name: &str) -> Vec<String> {
    let now: &[&str] = if kind == ContainerEngine::Podman { &["--time", "0"] } else { &[] };
    ["rm", "-f"].iter().chain(now).chain([&name]).map(|a| a.to_string()).collect()
}

/// Removes container `name` (gone already is fine).
pub fn remove_named(kind: ContainerEngine, name: &str) {
    if let Err(e) = engine(kind, &rm_args(kind, name))
        && !e.to_ascii_lowercase().contains("no such container")
    {
        tracing::info!("removing the container {name}: {e}");
    }
}

/// The member containers of teams in `teams_dir` the engines here have: (engine, name, team). An
/// engine that is not installed or does not answer has none.
pub fn labelled(teams_dir: &Path) -> Vec<(ContainerEngine, String, String)> {
    let mut out = Vec::new();
    for kind in [ContainerEngine::Docker, ContainerEngine::Podman] {
        let format = match kind {
            ContainerEngine::Docker => format!("{{{{.Names}}}}\t{{{{.Label \"{TEAM_LABEL}\"}}}}"),
            ContainerEngine::Podman => format!("{{{{.Names}}}}\t{{{{index .Labels \"{TEAM_LABEL}\"}}}}"),
        };
        let mine = format!("label={TEAMS_LABEL}={}", teams_dir.display());
        let args = ["ps", "-a", "--filter", &format!("label={TEAM_LABEL}"), "--filter", &mine, "--format", &format]
            .map(String::from);
        let Ok(listed) = engine(kind, &args) else { continue };
        for line in listed.lines() {
            if let Some((name, team)) = line.split_once('\t') {
                out.push((kind, name.trim().to_string(), team.trim().to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(dir: &Path) -> MemberCopy {
        MemberCopy {
            id: "17-ada".into(),
            name: "ada".into(),
            agent: "ada".into(),
            project: dir.join("project"),
            copy: dir.join("teams/17/ada"),
            state: dir.join("teams/17/.state/ada"),
            provider: ProviderKind::Copy,
            base: String::new(),
            dependencies: vec!["node_modules".into()],
            number: 1,
            env: [("PORT".to_string(), "3010".to_string()), ("MODE".to_string(), "dev".to_string())].into(),
            ready: true,
            container: None,
            far: None,
        }
    }

    const INSPECT: &str = r#"[{"Name":"/agent-box","Config":{"Image":"node:22","Env":["PATH=/usr/bin","A=b,c"],"User":"1000"},
        "HostConfig":{"NetworkMode":"default"},
        "Mounts":[{"Type":"bind","Source":"/home/me/p","Destination":"/work","RW":true},
                  {"Type":"bind","Source":"/home/me/p/node_modules","Destination":"/work/node_modules","RW":true},
                  {"Type":"bind","Source":"/home/me/.claude","Destination":"/root/.claude","RW":false},
                  {"Type":"bind","Source":"/opt/tools","Destination":"/work/.tools","RW":false},
                  {"Type":"volume","Name":"0a1b","Destination":"/work/node_modules","RW":true},
                  {"Type":"volume","Name":"cache","Source":"/var/lib/docker/volumes/cache","Destination":"/cache","RW":true},
                  {"Type":"tmpfs","Destination":"/tmp"}]}]"#;

    fn pairs(args: &[String], flag: &str) -> Vec<String> {
        args.windows(2).filter(|w| w[0] == flag).map(|w| w[1].clone()).collect()
    }

    #[test]
    fn the_member_container_keeps_the_agents_mounts_but_its_workspace_and_binds_the_copy_there() {
        let dir = tempfile::tempdir().unwrap();
        let m = member(dir.path());
        std::fs::create_dir_all(m.copy.join("node_modules")).unwrap();
        let from = Inspected::parse(INSPECT.as_bytes()).unwrap();
        assert_eq!(from.image, "node:22");
        let args = run_args(&m, &from, "sidekicks-17-ada", Path::new("/work"), None);
        let copy = m.copy.display();
        let modules = m.project.join("node_modules");
        assert_eq!(
            pairs(&args, "--mount"),
            [
                "type=bind,source=/home/me/.claude,target=/root/.claude,readonly".to_string(),
                "type=bind,source=/opt/tools,target=/work/.tools,readonly".into(),
                "type=volume,source=cache,target=/cache".into(),
                "type=tmpfs,target=/tmp".into(),
                format!("type=bind,source={copy},target=/work"),
                format!("type=bind,source={},target=/work/node_modules", modules.display()),
            ]
        );
        let teams = format!("sidekicks.teams={}", dir.path().join("teams").display());
        let labels = pairs(&args, "--label");
        assert_eq!(
            labels,
            ["sidekicks.team=17".to_string(), teams, "sidekicks.member=ada".into(), "sidekicks.from=agent-box".into()]
        );
        assert_eq!(pairs(&args, "--user"), ["1000"]);
        assert_eq!(pairs(&args, "--env"), ["PATH=/usr/bin", "A=b,c", "MODE=dev", "PORT=3010"]);
        assert_eq!(pairs(&args, "--publish"), ["127.0.0.1:3010:3010"]);
        assert_eq!(args[args.len() - 5..], ["--entrypoint", "sh", "node:22", "-c", WAIT]);
        assert_eq!(pairs(&args, "--workdir"), ["/work"]);
    }

    #[test]
    fn a_network_of_the_agents_is_shared_and_its_ports_are_not_published_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut from = Inspected::parse(INSPECT.as_bytes()).unwrap();
        from.network = "host".into();
        let args = run_args(&member(dir.path()), &from, "n", Path::new("/work"), None);
        assert_eq!(pairs(&args, "--network"), ["host"]);
        assert!(pairs(&args, "--publish").is_empty());
    }

    #[test]
    fn paths_with_commas_are_quoted_for_the_engine() {
        let m = Mount::Bind { source: "/a,b".into(), target: "/x\"y".into(), read_only: false };
        assert_eq!(m.arg(), "type=bind,\"source=/a,b\",\"target=/x\"\"y\"");
    }

    #[test]
    fn only_docker_and_podman_members_get_containers_of_their_own() {
        // Sandboxes, pods and other machines keep their members' copies there (ADR 0037).
        for kind in [RuntimeKind::Local, RuntimeKind::Sbx, RuntimeKind::Kubectl, RuntimeKind::Ssh] {
            let runtime = RuntimeConfig { kind, ..Default::default() };
            assert_eq!(engine_for("ada", &runtime).unwrap(), None, "{kind:?}");
        }
        let docker = RuntimeConfig { kind: RuntimeKind::Container, ..Default::default() };
        assert_eq!(engine_for("ada", &docker).unwrap(), Some(ContainerEngine::Docker));
    }

    #[test]
    fn an_answer_without_an_image_is_an_error() {
        assert!(Inspected::parse(b"[{}]").is_err());
        assert!(Inspected::parse(b"not json").is_err());
    }
}
