//! Team members as agents: each is a new instance of an agent definition of the config (same
//! command, arguments, environment and runtime) with a name of its own, working in its copy.
//! The person's agent it was made from is not touched: its process, session, threads and
//! workspace stay its own.

use std::collections::BTreeMap;

use crate::model::config::{AgentConfig, Config, RuntimeKind};
use crate::protocol::teams::MemberAgent;

/// The agents the members are, from the definitions of `config`. A member whose definition left
/// the config, whose name the config now uses, or whose copy is out of its runtime's reach is
/// left out (said in the log).
pub fn agents(config: &Config, members: &BTreeMap<String, MemberAgent>) -> Vec<AgentConfig> {
    members.iter().filter_map(|(name, member)| agent(config, name, member)).collect()
}

fn agent(config: &Config, name: &str, member: &MemberAgent) -> Option<AgentConfig> {
    if config.agent(name).is_some() {
        tracing::warn!("the member {name} is not started: an agent of the config has its name");
        return None;
    }
    let Some(definition) = config.agent(&member.from) else {
        tracing::warn!("the member {name} is not started: its agent {} is not in the config", member.from);
        return None;
    };
    let mut agent = definition.clone();
    match (&member.container, agent.runtime.kind) {
        (None, RuntimeKind::Local) if !member.far => {}
        // Its copy is kept where it runs: its machine, sandbox or pod.
        (None, RuntimeKind::Ssh | RuntimeKind::Sbx | RuntimeKind::Kubectl) if member.far => {
            agent.runtime.workspace_path = Some(member.workspace.clone());
        }
        // Its own container, where the copy is bound at the definition's workspace path.
        (Some(container), RuntimeKind::Container | RuntimeKind::Podman) => {
            agent.runtime.workspace_path = Some(definition.workspace_path());
            agent.runtime.container = Some(container.clone());
        }
        // A copy on this computer is out of reach of an agent in a container without its own
        // (and a container is not for an agent on this computer).
        _ => {
            tracing::warn!("the member {name} is not started: its copy is not where its agent runs");
            return None;
        }
    }
    agent.name = name.to_string();
    agent.workspace = member.workspace.clone();
    agent.env.extend(member.env.clone());
    // The config's channels are the person's agents'; a member speaks in its team's channel.
    agent.channels.clear();
    Some(agent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(name: &str) -> AgentConfig {
        AgentConfig {
            name: name.into(),
            command: "demo".into(),
            args: vec!["--fast".into()],
            env: [("KEY".to_string(), "secret".to_string())].into(),
            workspace: "/home/me/project".into(),
            runtime: Default::default(),
            channels: vec!["general".into()],
            policy: Default::default(),
            registry: None,
        }
    }

    fn member(from: &str) -> MemberAgent {
        MemberAgent {
            from: from.into(),
            team: "t1".into(),
            workspace: "/data/teams/t1/Demo".into(),
            env: [("PORT".to_string(), "3001".to_string())].into(),
            container: None,
            far: false,
        }
    }

    #[test]
    fn a_member_is_its_definition_in_its_copy_under_its_own_name() {
        let config = Config { agents: vec![definition("Demo")], ..Default::default() };
        let members = [("Demo · squad".to_string(), member("Demo"))].into();
        let agents = agents(&config, &members);
        assert_eq!(agents.len(), 1);
        let a = &agents[0];
        assert_eq!(a.name, "Demo · squad");
        assert_eq!((a.command.as_str(), a.args.clone()), ("demo", vec!["--fast".to_string()]));
        assert_eq!(a.workspace, std::path::PathBuf::from("/data/teams/t1/Demo"));
        assert_eq!(a.env.get("KEY").map(String::as_str), Some("secret"));
        assert_eq!(a.env.get("PORT").map(String::as_str), Some("3001"));
        assert!(a.channels.is_empty());
        assert_eq!(config.agents[0], definition("Demo"), "the definition is untouched");
    }

    #[test]
    fn a_member_without_its_definition_or_with_a_taken_name_is_left_out() {
        let config = Config { agents: vec![definition("Demo"), definition("Demo · squad")], ..Default::default() };
        let members = [("Demo · squad".to_string(), member("Demo")), ("Beta · squad".to_string(), member("Beta"))];
        assert!(agents(&config, &members.into()).is_empty());
    }

    #[test]
    fn a_member_of_an_agent_in_a_container_runs_in_its_own() {
        let mut def = definition("Demo");
        def.runtime.kind = RuntimeKind::Container;
        def.runtime.container = Some("theirs".into());
        let config = Config { agents: vec![def], ..Default::default() };
        let mut m = member("Demo");
        assert!(agents(&config, &[("Demo · squad".to_string(), m.clone())].into()).is_empty(), "none of its own");
        m.container = Some("member-1".into());
        let a = agents(&config, &[("Demo · squad".to_string(), m)].into()).pop().unwrap();
        assert_eq!(a.runtime.container.as_deref(), Some("member-1"));
        assert_eq!(a.runtime.workspace_path.as_deref(), Some(std::path::Path::new("/home/me/project")));
    }

    #[test]
    fn a_member_of_an_agent_elsewhere_runs_there_in_its_copy_there() {
        let mut def = definition("Demo");
        def.runtime.kind = RuntimeKind::Ssh;
        def.runtime.host = Some("build-1".into());
        let config = Config { agents: vec![def], ..Default::default() };
        let mut m = member("Demo");
        assert!(agents(&config, &[("Demo · squad".to_string(), m.clone())].into()).is_empty(), "a copy here");
        m.far = true;
        m.workspace = "/home/ci/.local/share/sidekicks/far-teams/t1/Demo".into();
        let a = agents(&config, &[("Demo · squad".to_string(), m.clone())].into()).pop().unwrap();
        assert_eq!(a.runtime.host.as_deref(), Some("build-1"));
        assert_eq!(a.workspace, m.workspace);
        assert_eq!(a.workspace_path(), m.workspace, "there, not in the definition's folder");
        // A far copy is not for an agent on this computer.
        let config = Config { agents: vec![definition("Demo")], ..Default::default() };
        assert!(agents(&config, &[("Demo · squad".to_string(), m)].into()).is_empty());
    }
}
