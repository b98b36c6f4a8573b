//! What the manager's own tasks report back (`Internal`): an agent started, a turn ended, a
//! process exited or stopped, an option set, a thread switched or listed, a cancel's grace over.

use super::*;

impl Manager {
    pub(super) async fn internal(&mut self, msg: Internal) {
        match msg {
            Internal::Started { agent, generation, result } => self.started(&agent, generation, result).await,
            Internal::TurnDone { agent, turn, end } => self.turn_done(agent, turn, end).await,
            Internal::Exited { agent, generation, status, stopped_talking } => {
                self.exited(agent, generation, status, stopped_talking).await;
            }
            Internal::OptionSet { agent, generation, setting, result } => {
                if self.slot(&agent).is_none_or(|s| s.generation != generation) {
                    return;
                }
                let event = match result {
                    Ok(update) => Event::Agent(agent.into(), AgentEvent::Update { update }),
                    Err(message) => Event::Agent(
                        agent.into(),
                        AgentEvent::Notice { notice: Notice::SettingRefused { setting, message } },
                    ),
                };
                self.events.send(event).await;
            }
            Internal::LoggedOut { agent, generation } => {
                if self.slot(&agent).is_some_and(|s| s.generation == generation) {
                    self.drop_queue(&agent).await;
                    self.stop(&agent).await;
                }
            }
            Internal::Switched { agent, generation, thread, had_messages, result } => {
                self.switched(&agent, generation, thread, had_messages, result).await;
            }
            Internal::Listed { agent, result } => self.listed(&agent, result).await,
            Internal::CancelDeadline { agent, turn } => {
                if self.slot(&agent).is_some_and(|s| s.turn == Some(turn)) {
                    self.events
                        .send(Event::Agent(agent.clone().into(), AgentEvent::Notice { notice: Notice::Unresponsive }))
                        .await;
                    self.stop(&agent).await;
                }
            }
            Internal::Stopped { agent, generation } => self.stopped(agent, generation).await,
        }
    }

    /// A turn ended: what waited on it is answered "cancelled", the branch and an open review are
    /// told again, and the next queued message goes (or the agent stops, when it must).
    async fn turn_done(&mut self, agent: String, turn: u64, end: TurnEnd) {
        let Some(slot) = self.slot(&agent) else { return };
        if slot.turn != Some(turn) {
            return;
        }
        slot.turn = None;
        slot.last_used = Instant::now();
        slot.memory.turns_in_session += 1;
        let stale = slot.then == Then::Renew;
        let queued = !slot.queue.is_empty();
        let login = match (&end, &slot.running) {
            (TurnEnd::AuthRequired { message }, Some(running)) => {
                Some((message.clone(), running.conn.auth_methods.clone()))
            }
            _ => None,
        };
        // Requests of the ended turn that wait still are moot: answered "cancelled".
        let moot = slot.running.as_ref().map(|r| r.conn.answer_waiting_cancelled()).unwrap_or_default();
        self.report_cancelled(&agent, (moot, Vec::new())).await;
        self.events.send(Event::Agent(agent.clone().into(), AgentEvent::TurnEnded { end })).await;
        self.send_threads_when_saved(&agent);
        // The agent may have switched branches during the turn, and written files an
        // open review shows.
        self.tell_branch(&agent);
        self.review_again(&agent);
        self.set_state(&agent, AgentState::Idle).await;
        if let Some((message, methods)) = login {
            // Logged out meanwhile: the person logs in again, then the agent starts anew.
            self.events.send(Event::Agent(agent.clone().into(), AgentEvent::LoginNeeded { message, methods })).await;
            self.stop(&agent).await;
        } else if stale || self.shutting_down {
            self.stop(&agent).await;
        } else if queued {
            self.dispatch(&agent).await;
        }
    }

    /// The agent's process exited: what it left ends, its turn and queue are told lost, and why
    /// it ended is said.
    async fn exited(
        &mut self,
        agent: String,
        generation: u64,
        status: Option<std::process::ExitStatus>,
        stopped_talking: bool,
    ) {
        let Some(slot) = self.slot(&agent) else { return };
        if slot.generation != generation {
            return;
        }
        let running = slot.running.take();
        slot.memory.forgot |= slot.memory.turns_in_session > 0 || slot.turn.is_some();
        slot.memory.turns_in_session = 0;
        let tail = running.as_ref().map(|r| r.process.stderr().tail(CRASH_TAIL)).unwrap_or_default();
        let turn = slot.turn.take();
        let dropped = !slot.queue.is_empty();
        slot.queue.clear();
        if let Some(running) = running {
            let pid = running.process.pid();
            if stopped_talking {
                // It would not end by itself: ended before it is reported.
                crate::runtime::process::end_group(pid).await;
            } else {
                tokio::spawn(crate::runtime::process::end_group(pid));
            }
            // What it started where it ran (over SSH) ends too, now or at the next connection.
            if let Some(teardown) = running.process.teardown() {
                tokio::spawn(async move { teardown.sweep().await });
            }
        }
        let reason = match (stopped_talking, exit_reason(status)) {
            (true, _) => CrashReason::StoppedTalking,
            // ssh ends with 255 when its connection is lost.
            (false, CrashReason::Exited { code: 255 }) if slot.config.runtime.kind == RuntimeKind::Ssh => {
                CrashReason::Disconnected { host: slot.config.runtime.host.clone().unwrap_or_default() }
            }
            (false, reason) => reason,
        };
        if turn.is_some() {
            self.events
                .send(Event::Agent(agent.clone().into(), AgentEvent::TurnEnded { end: TurnEnd::AgentExited }))
                .await;
        }
        if dropped {
            self.events.send(Event::Agent(agent.clone().into(), AgentEvent::QueueDropped)).await;
        }
        self.set_state(&agent, AgentState::Crashed(CrashReport { reason, stderr_tail: tail, stdout_tail: Vec::new() }))
            .await;
    }

    /// The agent's process was stopped: it starts again, or is forgotten, as was asked.
    async fn stopped(&mut self, agent: String, generation: u64) {
        let Some(slot) = self.slot(&agent) else { return };
        if slot.generation != generation {
            return;
        }
        let then = std::mem::replace(&mut slot.then, Then::Carry);
        slot.stopping_pid = None;
        let (restart, removed) = (then == Then::Restart, then == Then::Forget);
        self.set_state(&agent, AgentState::Stopped).await;
        if removed {
            self.slots.retain(|s| s.config.name != agent);
        } else if restart || !self.slot(&agent).is_some_and(|s| s.queue.is_empty()) {
            self.start(&agent).await;
        }
    }
}
