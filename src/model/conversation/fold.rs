//! How updates extend a conversation: the person's messages, the agent's chunks joined, tool calls
//! announced then patched, plans replaced, turns ended, notices added.

use super::*;

impl Conversation {
    /// A conversation restored from history.
    pub fn restored(messages: Vec<Message>) -> Self {
        Self { messages, ..Default::default() }
    }

    pub(super) fn touch(&mut self, index: usize) {
        self.dirty_from = Some(self.dirty_from.map_or(index, |d| d.min(index)));
    }

    /// Marks messages `from..` changed again (a save of them failed: they are saved next time).
    pub fn mark_dirty(&mut self, from: usize) {
        self.touch(from);
    }

    /// The index of the first message changed since the last call, if any.
    pub fn take_dirty(&mut self) -> Option<usize> {
        self.dirty_from.take()
    }

    /// Adds what the person sent, queued or sent.
    pub fn push_user(&mut self, text: impl Into<String>, delivery: Delivery, id: Option<MessageId>) {
        self.push_user_with(text, Vec::new(), delivery, id);
    }

    /// Adds a message of the person with what it carries besides text (images, resources).
    pub fn push_user_with(
        &mut self,
        text: impl Into<String>,
        attached: Vec<Part>,
        delivery: Delivery,
        id: Option<MessageId>,
    ) {
        let mut message = Message::new(Role::User, text);
        message.parts.extend(attached);
        message.delivery = delivery;
        message.id = id;
        message.at = Some(crate::model::when::now());
        self.messages.push(message);
        self.touch(self.messages.len() - 1);
    }

    /// Adds a notice from Sidekicks.
    pub fn push_notice(&mut self, notice: Notice) {
        self.messages.push(Message {
            id: None,
            role: Role::System,
            parts: vec![Part::Notice(notice)],
            end: None,
            delivery: Delivery::Sent,
            at: Some(crate::model::when::now()),
            checkpoint: None,
            earlier: Vec::new(),
            changed: None,
            versions: Vec::new(),
            version_at: 0,
        });
        self.touch(self.messages.len() - 1);
    }

    /// The first queued message of the person becomes sent (the turn it starts has begun).
    pub fn mark_first_queued_sent(&mut self) {
        if let Some(i) = self.messages.iter().position(|m| m.role == Role::User && m.delivery == Delivery::Queued) {
            self.messages[i].delivery = Delivery::Sent;
            self.touch(i);
        }
    }

    /// The person took back queued message `id`: it becomes "not sent".
    pub fn unqueue(&mut self, id: &MessageId) {
        let found = self.messages.iter().position(|m| m.delivery == Delivery::Queued && m.id.as_ref() == Some(id));
        if let Some(i) = found {
            self.messages[i].delivery = Delivery::NotSent;
            self.touch(i);
        }
    }

    /// The person's message `id` gets the checkpoint recorded before its turn.
    pub fn checkpointed(&mut self, id: &MessageId, checkpoint: &str) {
        if let Some(i) = self.messages.iter().rposition(|m| m.id.as_ref() == Some(id)) {
            self.messages[i].checkpoint = Some(checkpoint.to_string());
            self.touch(i);
        }
    }

    /// The turn after `checkpoint` ended having changed `files` files of the workspace.
    pub fn turn_changed(&mut self, checkpoint: &str, files: u32) {
        if let Some(i) = self.messages.iter().rposition(|m| m.checkpoint.as_deref() == Some(checkpoint)) {
            self.messages[i].changed = Some(files);
            self.touch(i);
        }
    }

    /// Every queued message of the person becomes "not sent".
    pub fn drop_queue(&mut self) {
        for i in 0..self.messages.len() {
            let m = &mut self.messages[i];
            if m.role == Role::User && m.delivery == Delivery::Queued {
                m.delivery = Delivery::NotSent;
                self.touch(i);
            }
        }
    }

    /// The agent message being streamed, created after the last message if none is open.
    fn open_agent_message(&mut self) -> &mut Message {
        if self.open_index().is_none() {
            self.messages.push(Message { at: Some(crate::model::when::now()), ..Message::new(Role::Agent, "") });
        }
        let i = self.open_index().expect("just pushed");
        self.touch(i);
        &mut self.messages[i]
    }

    /// The agent message updates go to: the last agent message if nothing but queued messages
    /// of the person or notices follow it, and it is still open or was cancelled (late updates
    /// of a cancelled turn are still accepted).
    fn open_index(&self) -> Option<usize> {
        for (i, m) in self.messages.iter().enumerate().rev() {
            match m.role {
                Role::Agent if matches!(m.end, None | Some(TurnEnd::Cancelled)) => return Some(i),
                Role::Agent => return None,
                Role::User if m.delivery != Delivery::Sent => continue,
                Role::System => continue,
                Role::User => return None,
            }
        }
        None
    }

    /// The place (message, part) of the latest tool call with `id`, if any.
    fn tool_at(&mut self, id: &str) -> Option<(usize, usize)> {
        for _ in 0..2 {
            let (m0, p0) = self.tools.upto;
            let len = self.messages.len();
            let shrank = m0 > len || (m0 < len && p0 > self.messages[m0].parts.len()) || (m0 == len && p0 > 0);
            if shrank {
                self.tools = ToolIndex::default();
            }
            let (mut m, mut p) = self.tools.upto;
            while m < len {
                let parts = &self.messages[m].parts;
                while p < parts.len() {
                    if let Part::Tool(t) = &parts[p] {
                        self.tools.at.insert(t.id.clone(), (m, p));
                    }
                    p += 1;
                }
                if m + 1 == len {
                    break;
                }
                m += 1;
                p = 0;
            }
            self.tools.upto = (m, p);
            let at = *self.tools.at.get(id)?;
            let here = self.messages.get(at.0).and_then(|m| m.parts.get(at.1));
            if matches!(here, Some(Part::Tool(t)) if t.id == id) {
                return Some(at);
            }
            // Moved by a change made elsewhere: read again from the start.
            self.tools = ToolIndex::default();
        }
        None
    }

    /// Applies one update of the agent. A tool call that fails for the third time in a row in a
    /// turn puts the loop notice in the agent's message right after it (returned too).
    pub fn apply(&mut self, update: Update) -> Option<Notice> {
        match update {
            Update::Text(text) => append(self.open_agent_message(), text, Part::Text),
            Update::Thought(text) => append(self.open_agent_message(), text, Part::Thought),
            Update::ToolCall(call) => {
                let status = call.status;
                self.open_agent_message();
                let open = self.open_index().expect("just opened");
                // The same call again in this answer: the agent's new version of it.
                match self.tool_at(&call.id).filter(|(m, _)| *m == open) {
                    Some((m, p)) => {
                        if let Part::Tool(existing) = &mut self.messages[m].parts[p] {
                            // What Sidekicks recorded stays.
                            let (answered, ran) = (existing.answered.take(), std::mem::take(&mut existing.ran));
                            *existing = ToolCall { answered, ran, ..call };
                        }
                    }
                    None => self.messages[open].parts.push(Part::Tool(call)),
                }
                return self.count_tool_status(Some(status));
            }
            Update::ToolCallPatch(patch) => {
                let status = patch.status;
                match self.tool_at(&patch.id) {
                    Some((m, p)) => {
                        self.touch(m);
                        if let Part::Tool(call) = &mut self.messages[m].parts[p] {
                            call.patch(patch);
                        }
                    }
                    None => self.open_agent_message().parts.push(Part::Tool(ToolCall::from_patch(patch))),
                }
                return self.count_tool_status(status);
            }
            Update::Plan(items) => {
                let message = self.open_agent_message();
                match message.parts.iter_mut().find(|p| matches!(p, Part::Plan(_))) {
                    Some(plan) => *plan = Part::Plan(items),
                    None => message.parts.push(Part::Plan(items)),
                }
            }
            Update::Image(image) => self.open_agent_message().parts.push(Part::Image(image)),
            Update::Resource(resource) => self.open_agent_message().parts.push(Part::Resource(resource)),
            Update::Usage { used, size, cost } => {
                self.usage = Some((used, size));
                if cost.is_some() {
                    self.cost = cost;
                }
            }
            // The session's settings: the agent's view keeps them, not the conversation.
            Update::Options(_) | Update::Mode(_) | Update::Commands(_) | Update::Title(_) => {}
        }
        None
    }

    fn count_tool_status(&mut self, status: Option<ToolStatus>) -> Option<Notice> {
        match status {
            Some(ToolStatus::Failed) => {
                self.failures_in_a_row += 1;
                if self.failures_in_a_row != LOOP_THRESHOLD {
                    return None;
                }
                let notice = Notice::Loop { failures: self.failures_in_a_row };
                self.open_agent_message().parts.push(Part::Notice(notice.clone()));
                Some(notice)
            }
            Some(ToolStatus::Completed) => {
                self.failures_in_a_row = 0;
                None
            }
            _ => None,
        }
    }

    /// Closes the turn: the open agent message (created if the agent said nothing) gets `end`;
    /// its unfinished tool calls are marked cancelled when the turn did not end normally.
    pub fn end_turn(&mut self, end: TurnEnd) {
        // Failures are counted per turn: the next turn's third failure warns again.
        self.failures_in_a_row = 0;
        // A cancelled message that got late updates is not the turn ending now.
        if self.open_index().is_some_and(|i| self.messages[i].end.is_some()) {
            self.messages.push(Message { at: Some(crate::model::when::now()), ..Message::new(Role::Agent, "") });
        }
        let message = self.open_agent_message();
        if end != TurnEnd::EndTurn {
            for part in &mut message.parts {
                if let Part::Tool(call) = part
                    && matches!(call.status, ToolStatus::Pending | ToolStatus::InProgress)
                {
                    call.status = ToolStatus::Cancelled;
                }
            }
        }
        message.end = Some(end);
    }

    /// Records how the request to run tool call `tool` was answered (in the latest message holding
    /// it).
    pub fn record_answer(&mut self, tool: &str, answered: crate::model::permission::Answered) {
        if let Some(i) = self.message_with(|t| t.id == tool) {
            self.touch(i);
            if let Some(call) = self.messages[i].tool_mut(tool) {
                call.answered = Some(answered);
            }
        }
    }

    /// Records how a command a tool call ran through the client ended (`ran.terminal` names it).
    pub fn record_run(&mut self, ran: crate::model::tool::Ran) {
        let holds = |t: &ToolCall| t.terminals.contains(&ran.terminal);
        let Some(i) = self.message_with(holds) else { return };
        self.touch(i);
        for part in &mut self.messages[i].parts {
            if let Part::Tool(call) = part
                && holds(call)
            {
                call.ran.retain(|r| r.terminal != ran.terminal);
                call.ran.push(ran);
                return;
            }
        }
    }

    /// The latest message holding a tool call that `test` picks.
    fn message_with(&self, test: impl Fn(&ToolCall) -> bool) -> Option<usize> {
        self.messages.iter().rposition(|m| m.parts.iter().any(|p| matches!(p, Part::Tool(t) if test(t))))
    }

    /// True while an agent message is open.
    pub fn is_streaming(&self) -> bool {
        self.open_index().is_some_and(|i| self.messages[i].end.is_none())
    }
}

/// Appends a fragment to the last part if it is of the same kind, else starts a new part.
fn append(message: &mut Message, text: String, make: fn(String) -> Part) {
    match (message.parts.last_mut(), make(text)) {
        (Some(Part::Text(last)), Part::Text(new)) | (Some(Part::Thought(last)), Part::Thought(new)) => {
            last.push_str(&new)
        }
        (_, part) => message.parts.push(part),
    }
}
