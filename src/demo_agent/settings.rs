//! The demo agent's session settings, so the client's pickers can be tried offline: config options
//! (mode ask/code, model demo-fast/demo-smart in two groups, thinking low/high, verbose on/off), or
//! with `--modes-only` the older session modes (ask/code) and nothing else. The word `settings`
//! makes it say its current ones; `switch` makes it switch itself to "ask" and tell the client.

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigOptionValue, SessionConfigSelectGroup,
    SessionConfigSelectOption, SessionMode, SessionModeState,
};

/// The commands it offers (`available_commands_update`).
pub fn commands_update() -> agent_client_protocol::v1::schema::SessionUpdate {
    use agent_client_protocol::v1::schema::{
        AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, SessionUpdate, UnstructuredCommandInput,
    };
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(vec![
        AvailableCommand::new("help", "Say what I can do"),
        AvailableCommand::new("settings", "Say my settings"),
        AvailableCommand::new("plan", "Make a plan")
            .input(AvailableCommandInput::Unstructured(UnstructuredCommandInput::new("what to plan"))),
    ]))
}

/// One session's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// ask or code.
    pub mode: String,
    /// demo-fast or demo-smart.
    pub model: String,
    /// low or high.
    pub thinking: String,
    /// On or off.
    pub verbose: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self { mode: "code".into(), model: "demo-fast".into(), thinking: "low".into(), verbose: false }
    }
}

impl Settings {
    /// The config options as the client sees them.
    pub fn options(&self) -> Vec<SessionConfigOption> {
        let choice = |v: &str, n: &str| SessionConfigSelectOption::new(v.to_string(), n.to_string());
        vec![
            SessionConfigOption::select(
                "mode",
                "Mode",
                self.mode.clone(),
                vec![choice("ask", "Ask"), choice("code", "Code")],
            )
            .category(SessionConfigOptionCategory::Mode),
            SessionConfigOption::select(
                "model",
                "Model",
                self.model.clone(),
                vec![
                    SessionConfigSelectGroup::new("quick", "Quick", vec![choice("demo-fast", "Demo Fast")]),
                    SessionConfigSelectGroup::new("careful", "Careful", vec![choice("demo-smart", "Demo Smart")]),
                ],
            )
            .category(SessionConfigOptionCategory::Model)
            .description("Which demo model answers".to_string()),
            SessionConfigOption::select(
                "thinking",
                "Effort",
                self.thinking.clone(),
                vec![choice("low", "Low"), choice("high", "High")],
            )
            .category(SessionConfigOptionCategory::ThoughtLevel),
            SessionConfigOption::boolean("verbose", "Verbose", self.verbose),
        ]
    }

    /// The older modes as the client sees them.
    pub fn modes(&self) -> SessionModeState {
        SessionModeState::new(self.mode.clone(), vec![SessionMode::new("ask", "Ask"), SessionMode::new("code", "Code")])
    }

    /// Sets option `id`; false when it has no such option or value.
    pub fn set(&mut self, id: &str, value: &SessionConfigOptionValue) -> bool {
        let choice = match value {
            SessionConfigOptionValue::ValueId { value } => Some(value.0.to_string()),
            _ => None,
        };
        match (id, choice, value) {
            ("mode", Some(v), _) if ["ask", "code"].contains(&v.as_str()) => self.mode = v,
            ("model", Some(v), _) if ["demo-fast", "demo-smart"].contains(&v.as_str()) => self.model = v,
            ("thinking", Some(v), _) if ["low", "high"].contains(&v.as_str()) => self.thinking = v,
            ("verbose", None, SessionConfigOptionValue::Boolean { value }) => self.verbose = *value,
            _ => return false,
        }
        true
    }

    /// What the word `settings` answers.
    pub fn describe(&self) -> String {
        format!(
            "Settings: mode={}, model={}, thinking={}, verbose={}",
            self.mode,
            self.model,
            self.thinking,
            if self.verbose { "on" } else { "off" }
        )
    }
}
