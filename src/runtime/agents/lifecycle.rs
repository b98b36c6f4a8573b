//! The manager's side of an agent's process: starting it (making room under `max_running`),
//! taking the connection once it is up, stopping it (with a grace, then harder), and stopping
//! agents idle for too long.

use super::*;
use crate::protocol::AgentEvent;

impl Manager {
    pub(super) async fn start(&mut self, name: &str) {
        if self.shutting_down {
            return;
        }
        let Some(slot) = self.slot(name) else { return };
        if slot.is_running() || slot.state == AgentState::Stopping {
            return;
        }
        slot.generation += 1;
        let generation = slot.generation;
        let mut config = slot.config.clone();
        // What the person gave to log in goes to the agent's environment (and to the redactor).
        config.env.extend(slot.login.env.clone());
        let login = slot.login.method.clone();
        let chosen = slot.memory.chosen.clone();
        let resume = slot.memory.resume.take();
        let mut mcp = self.loaded.as_ref().map(|c| c.mcp_for(name)).unwrap_or_default();
        // A lead's team tools: its stdio program is this binary, reached on this computer only.
        match self.lead_tools.get(name) {
            Some(tools) if config.runtime.kind == crate::model::config::RuntimeKind::Local => mcp.push(tools.clone()),
            Some(_) => tracing::warn!("{name} leads a team but does not run on this computer: no team tools"),
            None => {}
        }
        let rules = self.rules_for(&config);
        let leases = self.leases.clone();
        self.make_room(name).await;
        self.set_state(name, AgentState::Starting).await;
        let events = self.events.clone();
        let internal = self.internal_tx.clone();
        let settings = self.settings;
        tokio::spawn(async move {
            let plan = SessionPlan { resume, login, chosen, mcp, leases };
            let result = launch(&config, events, rules, settings, plan).await;
            let _ = internal.send(Internal::Started { agent: config.name.clone(), generation, result }).await;
        });
    }

    /// Stops the least recently used idle agent while starting `name` would exceed `max_running`.
    pub(super) async fn make_room(&mut self, name: &str) {
        let max = self.defaults.max_running as usize;
        let running = self.slots.iter().filter(|s| s.is_running() && s.config.name != name).count();
        if running < max {
            return;
        }
        let victim = self
            .slots
            .iter()
            .filter(|s| s.state == AgentState::Idle && s.config.name != name)
            .min_by_key(|s| s.last_used)
            .map(|s| s.config.name.clone());
        match victim {
            Some(victim) => {
                tracing::info!(%victim, "stopping to make room for {name}");
                self.stop(&victim).await;
            }
            None => tracing::warn!("max_running reached and every agent is busy; starting {name} anyway"),
        }
    }

    pub(super) async fn stop(&mut self, name: &str) {
        self.stop_within(name, self.settings.stop).await;
    }

    /// Stops `name`, giving each step of the stop sequence `timeouts`.
    pub(super) async fn stop_within(&mut self, name: &str, timeouts: StopTimeouts) {
        let Some(slot) = self.slot(name) else { return };
        let was_starting = slot.state == AgentState::Starting;
        if slot.running.is_none() && !was_starting {
            // Nothing to stop, or a stop already under way (whose end must still be recognised:
            // no new generation here).
            let quiet = slot.state == AgentState::Stopping || matches!(slot.state, AgentState::Crashed(_));
            if !quiet {
                self.set_state(name, AgentState::Stopped).await;
            }
            return;
        }
        let turn = slot.turn.take();
        slot.generation += 1;
        let generation = slot.generation;
        slot.memory.forgot |= slot.memory.turns_in_session > 0 || turn.is_some();
        slot.memory.turns_in_session = 0;
        let running = slot.running.take();
        if let Some(running) = &running {
            slot.stopping_pid = Some(running.process.pid());
        }
        if let Some(running) = &running {
            let ids = (running.conn.cancel(), running.conn.cancel_elicitations());
            self.report_cancelled(name, ids).await;
        }
        if turn.is_some() {
            self.events.send(Event::Agent(name.into(), AgentEvent::TurnEnded { end: TurnEnd::Cancelled })).await;
        }
        self.set_state(name, AgentState::Stopping).await;
        let internal = self.internal_tx.clone();
        let agent = name.to_string();
        tokio::spawn(async move {
            if let Some(running) = running {
                let Running { conn, process } = *running;
                if let Ok(conn) = Arc::try_unwrap(conn) {
                    conn.close().await;
                }
                process.stop(timeouts).await;
            }
            let _ = internal.send(Internal::Stopped { agent, generation }).await;
        });
    }

    pub(super) async fn started(&mut self, name: &str, generation: u64, result: Result<Box<Running>, CrashReport>) {
        let current = self.slot(name).is_some_and(|s| s.generation == generation);
        if !current {
            // Stopped (or restarted) while starting: end what was started.
            if let Ok(running) = result {
                let timeouts = self.settings.stop;
                tokio::spawn(async move {
                    let Running { conn, process } = *running;
                    if let Ok(conn) = Arc::try_unwrap(conn) {
                        conn.close().await;
                    }
                    process.stop(timeouts).await;
                });
            }
            return;
        }
        if let Some(slot) = self.slot(name) {
            slot.login.method = None;
        }
        match result {
            // It asks to log in: not a crash. What the person sent waits for the login.
            Err(CrashReport {
                reason: CrashReason::Handshake(HandshakeFailure::AuthRequired { message, methods }),
                ..
            }) => {
                self.set_state(name, AgentState::Stopped).await;
                self.events.send(Event::Agent(name.into(), AgentEvent::LoginNeeded { message, methods })).await;
            }
            Err(report) => {
                // What was sent for it is not sent: said so (not left queued).
                self.drop_queue(name).await;
                self.set_state(name, AgentState::Crashed(report)).await;
            }
            Ok(running) => {
                self.watch_exit(name, generation, &running);
                self.took(name, running).await;
            }
        }
    }

    /// Reports when the agent's process exits, or stops talking (closes its output and keeps
    /// running past a grace).
    fn watch_exit(&self, name: &str, generation: u64, running: &Running) {
        let mut exit = running.process.exit_watch();
        let mut hung_up = running.conn.hung_up();
        let internal = self.internal_tx.clone();
        let agent = name.to_string();
        let grace = self.settings.hangup_grace;
        tokio::spawn(async move {
            // An agent that closes its output is done talking: it ends, or it is ended
            // after a grace (the turn would wait for it forever).
            let talking = async {
                let _ = hung_up.wait_for(|h| *h).await;
                tokio::time::sleep(grace).await;
            };
            let (status, stopped_talking) = tokio::select! {
                status = exit.wait_for(Option::is_some) => (status.ok().and_then(|s| *s), false),
                () = talking => (None, true),
            };
            if stopped_talking {
                tracing::warn!(agent, "closed its output but kept running: stopping it");
            }
            let _ = internal.send(Internal::Exited { agent, generation, status, stopped_talking }).await;
        });
    }

    /// The agent is up: its settings and what it can do are told, its session remembered, a
    /// transcript offered where it forgot, and what waited is sent.
    async fn took(&mut self, name: &str, running: Box<Running>) {
        let (resumed, abilities) = (running.conn.resumed, running.conn.abilities);
        let settings = Event::Agent(
            name.into(),
            AgentEvent::SessionSettings { options: running.conn.options(), modes: running.conn.modes() },
        );
        self.events.send(settings).await;
        let info = Event::Agent(
            name.into(),
            AgentEvent::Info {
                auth_methods: running.conn.auth_methods.clone(),
                can_logout: running.conn.can_logout,
                sessions: abilities,
                prompts: running.conn.prompts,
                mcp: running.conn.mcp().1,
                implementation: running.conn.implementation.clone(),
            },
        );
        self.events.send(info).await;
        let session_id = running.conn.session_id();
        let Some(slot) = self.slot(name) else { return };
        slot.memory.abilities = Some(abilities);
        slot.running = Some(running);
        slot.last_used = Instant::now();
        let queued = !slot.queue.is_empty();
        let stale = slot.then == Then::Renew;
        let forgot = std::mem::take(&mut slot.memory.forgot);
        let restored = std::mem::take(&mut slot.memory.restored);
        let conversation_id = slot.conversation_id;
        if let (Some(store), Some(id)) = (&self.store, conversation_id)
            && let Err(e) = store.set_session(id, Some(&session_id))
        {
            tracing::warn!("{e}");
        }
        if let Some((store, path)) = self.home(name)
            && let Err(e) = store.save_abilities(&path, name, &abilities)
        {
            tracing::warn!("{e}");
        }
        // A thread restored from history that the agent could not reopen gets the offer
        // of a transcript (withdrawn if it did reopen it); within a run, the person is
        // told the agent forgot.
        if restored {
            self.events.send(Event::Agent(name.into(), AgentEvent::TranscriptOffer { offered: !resumed })).await;
        } else if forgot && !resumed {
            self.events.send(Event::Agent(name.into(), AgentEvent::Notice { notice: Notice::NewSession })).await;
        }
        self.set_state(name, AgentState::Idle).await;
        if stale {
            // Its config changed while it started: start again with the new entry.
            if let Some(slot) = self.slot(name)
                && queued
            {
                slot.then(Then::Restart);
            }
            self.stop(name).await;
        } else if queued {
            self.dispatch(name).await;
        }
    }

    pub(super) async fn stop_idle(&mut self) {
        let idle_stop = self.defaults.idle_stop;
        if idle_stop == 0 {
            return;
        }
        let limit = Duration::from_secs(idle_stop);
        let expired: Vec<String> = self
            .slots
            .iter()
            .filter(|s| s.state == AgentState::Idle && s.last_used.elapsed() >= limit)
            .map(|s| s.config.name.clone())
            .collect();
        for name in expired {
            tracing::info!(agent = %name, "stopping after {idle_stop} s idle");
            self.stop(&name).await;
        }
    }
}
