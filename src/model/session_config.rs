//! An agent session's settings the person can change (ACP config options: mode, model, model
//! settings, thinking level; select or on/off), and the older session modes, as plain data; the
//! choices remembered per agent and how they apply to a new session's options.

/// What an option is about (for placing it; unknown ones are shown too).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Category {
    /// The session's mode (ask, code, …).
    Mode,
    /// The model.
    Model,
    /// A setting of the model.
    ModelConfig,
    /// How much the model thinks.
    ThoughtLevel,
    /// Anything else (its name as the agent gave it).
    Other(String),
}

impl Category {
    /// The category a command line names (`mode`, `model`, `model_config`, `thought_level`).
    pub fn parse(name: &str) -> Self {
        match name {
            "mode" => Category::Mode,
            "model" => Category::Model,
            "model_config" => Category::ModelConfig,
            "thought_level" => Category::ThoughtLevel,
            other => Category::Other(other.to_string()),
        }
    }
}

/// One value a select option can take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Its id (what is sent).
    pub value: String,
    /// Its name.
    pub name: String,
    /// What it means, if the agent says.
    pub description: Option<String>,
    /// The group it is listed under, if any.
    pub group: Option<String>,
}

/// The value of an option.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OptionValue {
    /// One of a select's choices (its id).
    Choice(String),
    /// On or off.
    Bool(bool),
}

/// What kind of option it is, and its current value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// One value among choices.
    Select {
        /// The current choice's id.
        current: String,
        /// The choices.
        choices: Vec<Choice>,
    },
    /// On or off.
    Boolean {
        /// The current value.
        current: bool,
    },
}

/// An option of the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigOption {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it does, if the agent says.
    pub description: Option<String>,
    /// What it is about, if the agent says.
    pub category: Option<Category>,
    /// Its kind and value.
    pub kind: OptionKind,
}

impl ConfigOption {
    /// Its current value.
    pub fn value(&self) -> OptionValue {
        match &self.kind {
            OptionKind::Select { current, .. } => OptionValue::Choice(current.clone()),
            OptionKind::Boolean { current } => OptionValue::Bool(*current),
        }
    }

    /// Whether `value` is one it can take.
    pub fn accepts(&self, value: &OptionValue) -> bool {
        match (&self.kind, value) {
            (OptionKind::Select { choices, .. }, OptionValue::Choice(v)) => choices.iter().any(|c| c.value == *v),
            (OptionKind::Boolean { .. }, OptionValue::Bool(_)) => true,
            _ => false,
        }
    }
}

/// The older session modes (`session/set_mode`), for agents without config options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Modes {
    /// The current mode's id.
    pub current: String,
    /// Every mode: id, name, description.
    pub available: Vec<Choice>,
}

/// A command the agent offers (typed `/name` in the composer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlashCommand {
    /// Its name, without the `/`.
    pub name: String,
    /// What it does.
    pub description: String,
    /// What to type after it, if it takes something.
    pub hint: Option<String>,
}

/// The most slash commands kept of what an agent offers (the rest are dropped, ADR 0030).
pub const MAX_COMMANDS: usize = 1000;

/// The most completions the `/` menu lists at once (the person types more to narrow them).
pub const MAX_COMPLETIONS: usize = 50;

/// The commands of `offered` that complete what is typed: the text starts with `/` and the name
/// being typed (no space yet) is a prefix of theirs, ignoring case; at most
/// [`MAX_COMPLETIONS`]. Empty otherwise.
pub fn completions<'a>(typed: &str, offered: &'a [SlashCommand]) -> Vec<&'a SlashCommand> {
    let Some(name) = typed.strip_prefix('/') else { return Vec::new() };
    if name.chars().any(char::is_whitespace) {
        return Vec::new();
    }
    let name = name.to_lowercase();
    offered.iter().filter(|c| c.name.to_lowercase().starts_with(&name)).take(MAX_COMPLETIONS).collect()
}

/// Which option a remembered choice is for: by id, or by category (`--model` on the command line).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OptionKey {
    /// The option with this id.
    Id(String),
    /// The first option of this category (for `Mode`, the modes when there is no such option).
    Category(Category),
}

/// A remembered choice.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chosen {
    /// The option.
    pub key: OptionKey,
    /// Its value.
    pub value: OptionValue,
}

/// How a remembered choice applies to a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Apply {
    /// `session/set_config_option` with this option id and value.
    Option(String, OptionValue),
    /// `session/set_mode` with this mode id.
    Mode(String),
}

/// What to send so a session with `options` and `modes` has the `chosen` values: only the ones
/// that differ and that the session can take (a model it no longer offers is left alone).
pub fn to_apply(chosen: &[Chosen], options: &[ConfigOption], modes: Option<&Modes>) -> Vec<Apply> {
    let mut out = Vec::new();
    for c in chosen {
        let option = match &c.key {
            OptionKey::Id(id) => options.iter().find(|o| o.id == *id),
            OptionKey::Category(cat) => options.iter().find(|o| o.category.as_ref() == Some(cat)),
        };
        match (option, &c.key, &c.value) {
            (Some(o), _, v) if o.accepts(v) && o.value() != *v => out.push(Apply::Option(o.id.clone(), v.clone())),
            (None, OptionKey::Category(Category::Mode), OptionValue::Choice(mode)) => {
                if let Some(m) = modes.filter(|m| m.current != *mode && m.available.iter().any(|a| a.value == *mode)) {
                    let _ = m;
                    out.push(Apply::Mode(mode.clone()));
                }
            }
            _ => {}
        }
    }
    out
}

/// When the session cannot take `chosen` (no such option, or a value it does not offer): what
/// it offers instead (empty when it has no such option at all). `None` when it is taken.
pub fn not_taken(chosen: &Chosen, options: &[ConfigOption], modes: Option<&Modes>) -> Option<Vec<String>> {
    let option = match &chosen.key {
        OptionKey::Id(id) => options.iter().find(|o| o.id == *id),
        OptionKey::Category(cat) => options.iter().find(|o| o.category.as_ref() == Some(cat)),
    };
    match (option, &chosen.key) {
        (Some(o), _) if o.value() == chosen.value => None,
        (Some(o), _) => Some(match &o.kind {
            OptionKind::Select { choices, .. } => choices.iter().map(|c| c.value.clone()).collect(),
            OptionKind::Boolean { .. } => vec!["true".into(), "false".into()],
        }),
        (None, OptionKey::Category(Category::Mode)) => match (modes, &chosen.value) {
            (Some(m), OptionValue::Choice(v)) if m.current == *v => None,
            (Some(m), _) => Some(m.available.iter().map(|c| c.value.clone()).collect()),
            (None, _) => Some(Vec::new()),
        },
        (None, _) => Some(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_menu_lists_at_most_its_bound() {
        let offered: Vec<SlashCommand> = (0..100_000)
            .map(|i| SlashCommand { name: format!("cmd{i}"), description: String::new(), hint: None })
            .collect();
        assert_eq!(completions("/", &offered).len(), MAX_COMPLETIONS);
        assert_eq!(completions("/cmd99999", &offered).len(), 1);
    }

    #[test]
    fn slash_commands_complete_while_their_name_is_typed() {
        let cmd = |n: &str| SlashCommand { name: n.into(), description: String::new(), hint: None };
        let offered = [cmd("help"), cmd("hello"), cmd("plan")];
        let names = |typed| completions(typed, &offered).iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        assert_eq!(names("/"), ["help", "hello", "plan"]);
        assert_eq!(names("/HEL"), ["help", "hello"]);
        assert_eq!(names("/plan now"), Vec::<String>::new(), "a space ends the name");
        assert_eq!(names("hello"), Vec::<String>::new());
        assert_eq!(names("/x"), Vec::<String>::new());
    }

    fn model(current: &str) -> ConfigOption {
        let choice = |v: &str| Choice { value: v.into(), name: v.into(), description: None, group: None };
        ConfigOption {
            id: "model".into(),
            name: "Model".into(),
            description: None,
            category: Some(Category::Model),
            kind: OptionKind::Select { current: current.into(), choices: vec![choice("fast"), choice("smart")] },
        }
    }

    #[test]
    fn only_what_differs_and_is_offered_is_sent() {
        let chosen = |key, v: &str| Chosen { key, value: OptionValue::Choice(v.into()) };
        let by_category = chosen(OptionKey::Category(Category::Model), "smart");
        assert_eq!(
            to_apply(std::slice::from_ref(&by_category), &[model("fast")], None),
            [Apply::Option("model".into(), OptionValue::Choice("smart".into()))]
        );
        assert_eq!(to_apply(&[by_category], &[model("smart")], None), []);
        assert_eq!(to_apply(&[chosen(OptionKey::Id("model".into()), "gone")], &[model("fast")], None), []);
        let modes = Modes {
            current: "ask".into(),
            available: ["ask", "code"]
                .map(|m| Choice { value: m.into(), name: m.into(), description: None, group: None })
                .to_vec(),
        };
        let mode = chosen(OptionKey::Category(Category::Mode), "code");
        assert_eq!(to_apply(std::slice::from_ref(&mode), &[], Some(&modes)), [Apply::Mode("code".into())]);
        assert_eq!(to_apply(&[chosen(OptionKey::Category(Category::Mode), "nope")], &[], Some(&modes)), []);
    }
}
