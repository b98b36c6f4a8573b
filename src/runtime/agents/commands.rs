//! What the doors ask of the manager (`ManagerCommand`): an agent's commands, checkpoints, a config
//! loaded or another opened, the team members set, shutdown.

use super::*;

impl Manager {
    pub(super) async fn command(&mut self, cmd: ManagerCommand) {
        match cmd {
            ManagerCommand::Agent(agent, command) => self.agent_command(agent, command).await,
            ManagerCommand::Checkpoint(command) => self.checkpoint_command(command).await,
            ManagerCommand::ConfigLoaded { path, result } => self.config_loaded(path, result).await,
            ManagerCommand::OpenConfig { path, result } => {
                // Every agent of the current file stops first; the loop opens the new one after.
                self.opening = Some((path, result));
                let names: Vec<String> = self.slots.iter().map(|s| s.config.name.clone()).collect();
                for name in names {
                    self.drop_queue(&name).await;
                    if let Some(slot) = self.slot(&name) {
                        slot.no_restart();
                    }
                    self.stop(&name).await;
                }
            }
            ManagerCommand::SetMember { name, member } => {
                match member {
                    Some(member) => self.members.insert(name, member),
                    None => self.members.remove(&name),
                };
                if let Some(config) = self.loaded.clone() {
                    self.apply(config).await;
                }
            }
            ManagerCommand::SetLeadTools { servers } => self.set_lead_tools(servers).await,
            ManagerCommand::SetLeases { leases } => self.leases = Some(leases),
            ManagerCommand::Shutdown => self.begin_shutdown().await,
        }
    }

    /// The team leads' tools changed: a lead whose server changed gets it at its next start (an
    /// idle one is stopped now and starts again with its next message; a busy one after its turn).
    async fn set_lead_tools(&mut self, servers: std::collections::BTreeMap<String, crate::model::config::McpConfig>) {
        let changed: Vec<String> = servers
            .keys()
            .chain(self.lead_tools.keys())
            .filter(|name| servers.get(*name) != self.lead_tools.get(*name))
            .cloned()
            .collect();
        self.lead_tools = servers;
        for name in changed {
            let Some(slot) = self.slot(&name) else { continue };
            match slot.state {
                AgentState::Idle => self.stop(&name).await,
                AgentState::Busy | AgentState::Starting => slot.then(Then::Renew),
                _ => {}
            }
        }
    }

    /// A command for one agent: its turns, answers, attachments, threads and rules.
    async fn agent_command(&mut self, agent: String, command: AgentCommand) {
        match command {
            command @ (AgentCommand::Start
            | AgentCommand::Stop
            | AgentCommand::Kill
            | AgentCommand::Restart
            | AgentCommand::Login { .. }
            | AgentCommand::Logout) => self.lifecycle_command(agent, command).await,
            AgentCommand::Prompt { text, context, with_transcript, id, attachments } => {
                let context = match with_transcript {
                    true => self.shown_before(&agent, None).await.map(|t| t + context.as_deref().unwrap_or_default()),
                    false => context,
                };
                self.prompt(agent, text, context, id, attachments).await;
            }
            AgentCommand::Retry { question } => self.retry(agent, question).await,
            AgentCommand::Edit { message, text } => self.edit(agent, message, text).await,
            AgentCommand::ShowVersion { message, version } => self.show_version(agent, message, version).await,
            AgentCommand::SendAgain { message } => self.send_again(agent, message).await,
            AgentCommand::Cancel => self.cancel(&agent).await,
            AgentCommand::Unqueue { id } => {
                let Some(slot) = self.slot(&agent) else { return };
                let before = slot.queue.len();
                slot.queue.retain(|(queued, ..)| *queued != id);
                if slot.queue.len() != before {
                    self.events.send(Event::Agent(agent.into(), AgentEvent::Unqueued { id })).await;
                }
            }
            AgentCommand::AnswerElicitation { id, answer } => {
                let answered = self
                    .slot(&agent)
                    .and_then(|s| s.running.as_ref())
                    .is_some_and(|r| r.conn.answer_elicitation(id, &answer));
                if answered {
                    self.events.send(Event::Agent(agent.into(), AgentEvent::ElicitationResolved { id, answer })).await;
                }
            }
            AgentCommand::Attach { source } => {
                let Some(slot) = self.slot(&agent) else { return };
                let (workspace, events) = (slot.config.workspace.clone(), self.events.clone());
                tokio::spawn(async move {
                    // No desktop dialog: the window's own picker, in the workspace.
                    if matches!(source, crate::protocol::attachments::AttachSource::Pick)
                        && !crate::runtime::dialog::desktop_dialog()
                    {
                        let purpose = crate::protocol::picker::PickFor::Attach { agent };
                        let start = crate::protocol::picker::PickerStart { purpose, folder: workspace };
                        return events.send(Event::PickInWindow(start)).await;
                    }
                    let results = crate::runtime::attach::read(source, workspace).await;
                    events.send(Event::Agent(agent.into(), AgentEvent::Attached { results })).await;
                });
            }
            AgentCommand::Thread { op } => self.thread(&agent, op).await,
            AgentCommand::SetOption { key, value } => self.set_option(&agent, key, value),
            AgentCommand::AskPerson { request } => {
                let id = request.id;
                let unattended =
                    self.settings.unattended.and_then(|u| crate::runtime::acp::client::unattended_answer(&request, u));
                let asked = Event::Agent(agent.clone().into(), AgentEvent::PermissionRequested { request: *request });
                self.events.send(asked).await;
                match unattended {
                    // No person at this door: its `--allow` answers.
                    Some(answer) => {
                        let resolved = AgentEvent::PermissionResolved { id, answer };
                        self.events.send(Event::Agent(agent.into(), resolved)).await;
                    }
                    None => {
                        self.asked.insert((agent, id));
                    }
                }
            }
            AgentCommand::AnswerPermission { id, answer } if self.asked.remove(&(agent.clone(), id)) => {
                self.events.send(Event::Agent(agent.into(), AgentEvent::PermissionResolved { id, answer })).await;
            }
            AgentCommand::AnswerPermission { id, answer } => {
                let answered =
                    self.slot(&agent).and_then(|s| s.running.as_ref()).is_some_and(|r| r.conn.answer(id, &answer));
                if answered {
                    let remembered =
                        matches!(&answer, PermissionAnswer::Selected { kind, .. } if kind.remembered().is_some());
                    self.events
                        .send(Event::Agent(agent.clone().into(), AgentEvent::PermissionResolved { id, answer }))
                        .await;
                    if remembered {
                        self.send_rules(&agent).await;
                    }
                }
            }
            AgentCommand::ForgetRule { key } => {
                if let Some(config) = self.slot(&agent).map(|s| s.config.clone()) {
                    self.rules_for(&config).forget(&key);
                    self.send_rules(&agent).await;
                }
            }
        }
    }

    /// Starting, stopping, killing, restarting an agent, logging it in and out.
    async fn lifecycle_command(&mut self, agent: String, command: AgentCommand) {
        match command {
            AgentCommand::Start => self.start(&agent).await,
            AgentCommand::Stop => {
                self.drop_queue(&agent).await;
                self.return_waiting(&agent).await;
                if let Some(slot) = self.slot(&agent) {
                    slot.no_restart();
                }
                self.stop(&agent).await;
            }
            AgentCommand::Kill => {
                self.drop_queue(&agent).await;
                self.return_waiting(&agent).await;
                if let Some(slot) = self.slot(&agent) {
                    slot.no_restart();
                }
                if let Some(pid) = self.slot(&agent).and_then(|s| s.stopping_pid) {
                    crate::runtime::process::signal_group(pid, libc::SIGKILL);
                }
                self.stop_within(&agent, StopTimeouts { after_eof: Duration::ZERO, after_term: Duration::ZERO }).await;
            }
            AgentCommand::Restart => {
                let running = self.slot(&agent).is_some_and(|s| s.is_running() || s.state == AgentState::Stopping);
                if running {
                    if let Some(slot) = self.slot(&agent) {
                        slot.then(Then::Restart);
                    }
                    self.stop(&agent).await;
                } else {
                    self.start(&agent).await;
                }
            }
            AgentCommand::Login { method, values } => {
                let Some(slot) = self.slot(&agent) else { return };
                slot.login.env.extend(values);
                slot.login.method = method;
                match slot.state {
                    AgentState::Idle | AgentState::Busy | AgentState::Starting => {
                        slot.then(Then::Restart);
                        self.stop(&agent).await;
                    }
                    AgentState::Stopping => slot.then(Then::Restart),
                    AgentState::Stopped | AgentState::Crashed(_) => self.start(&agent).await,
                }
            }
            AgentCommand::Logout => {
                let Some(slot) = self.slot(&agent) else { return };
                slot.login.env.clear();
                slot.login.method = None;
                let generation = slot.generation;
                let Some(conn) = slot.running.as_ref().map(|r| r.conn.clone()) else { return };
                let internal = self.internal_tx.clone();
                // The manager never waits on an agent: the answer comes back as a report.
                tokio::spawn(async move {
                    if let Err(e) = conn.log_out().await {
                        tracing::warn!(agent, "logout: {e}");
                    }
                    let _ = internal.send(Internal::LoggedOut { agent, generation }).await;
                });
            }
            _ => {}
        }
    }
}
