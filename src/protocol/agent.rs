//! The agent service's protocol: what a door asks of one agent — its process, its turns, its
//! sessions and threads, its permissions and logins — served by the agent manager
//! (`runtime/agents.rs`). The agent is named beside it: `Command::Agent(name, AgentCommand)`.

use crate::model::conversation::MessageId;
use crate::model::permission::PermissionAnswer;

/// What a door asks of one agent.
#[derive(Clone, Debug)]
pub enum AgentCommand {
    /// Start an agent (no-op if running).
    Start,
    /// Stop an agent.
    Stop,
    /// Stop an agent at once: no grace for it to end its turn or exit (a second Ctrl+C).
    Kill,
    /// Stop then start an agent.
    Restart,
    /// Send a user message to an agent (starting it if needed). `context` (a transcript of an
    /// earlier conversation) goes to the agent before the text but is not shown as said.
    /// `id` names the message (a channel or a merge links its answer by it); `None`: the runtime
    /// gives it one.
    Prompt {
        /// The text.
        text: String,
        /// Said before the text (a transcript), not shown as said.
        context: Option<String>,
        /// Its id.
        id: Option<MessageId>,
        /// Images and files sent with it.
        attachments: Vec<super::attachments::Attachment>,
    },
    /// Send again the person's message `id`, which Stop dropped: it is marked so (`Resent`) and
    /// its text and attachments go as a new message.
    SendAgain {
        /// The dropped message's id.
        id: MessageId,
        /// Its text.
        text: String,
        /// Its images.
        attachments: Vec<super::attachments::Attachment>,
    },
    /// Ask the person's message `question` again (Retry): its answer is replaced by the new one
    /// and stays reachable; no new message of the person.
    Retry {
        /// The question's text.
        text: String,
        /// The question's id.
        question: MessageId,
    },
    /// Answer an elicitation of the agent.
    AnswerElicitation {
        /// Its id.
        id: u64,
        /// The answer.
        answer: crate::model::elicitation::ElicitAnswer,
    },
    /// Read images or files to send with the next message (→ `Event::Attached`).
    Attach {
        /// Where from.
        source: super::attachments::AttachSource,
    },
    /// Take back one message still waiting for the agent (→ `Event::Unqueued` if it was waiting).
    Unqueue {
        /// The message.
        id: crate::model::conversation::MessageId,
    },
    /// Cancel the agent's current turn: session/cancel, pending permission requests answered
    /// "cancelled", queued messages dropped.
    Cancel,
    /// Answer a permission request of the agent.
    AnswerPermission {
        /// Its id.
        id: u64,
        /// The answer.
        answer: PermissionAnswer,
    },
    /// Forget a remembered always/never answer of an agent.
    ForgetRule {
        /// The key it is about.
        key: String,
    },
    /// Choose a setting of the agent's sessions (model, mode, …): applied now if it runs, and
    /// remembered for its next sessions.
    SetOption {
        /// Which option (by id, or by category: `--model`).
        key: crate::model::session_config::OptionKey,
        /// Its value.
        value: crate::model::session_config::OptionValue,
    },
    /// Log the agent in: `values` go to its environment (for this run, hidden in logs), and the
    /// agent (re)starts, calling `authenticate` with `method` first when given.
    Login {
        /// The way to log in the person chose (`None`: done already, in a terminal).
        method: Option<String>,
        /// Variables for an `env_var` way (name, value).
        values: Vec<(String, String)>,
    },
    /// Do something with an agent's threads.
    Thread {
        /// What.
        op: super::threads::ThreadOp,
    },
    /// Log the agent out (where it can), forget what was given to log in, and stop it.
    Logout,
}
