//! An agent's request for structured input (ACP `elicitation/create`): a form of typed fields or a
//! URL to open, and the person's answer, checked against the fields before it goes back.

use std::collections::BTreeMap;

/// A request for input, as the window shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Elicitation {
    /// Sidekicks' id for it (answers name it).
    pub id: u64,
    /// What the agent says it needs.
    pub message: String,
    /// A form or a URL.
    pub kind: ElicitKind,
}

/// What is asked.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitKind {
    /// Fields to fill in.
    Form {
        /// The form's title, if any.
        title: Option<String>,
        /// The fields, by name (the SDK keeps a schema's properties sorted).
        fields: Vec<Field>,
    },
    /// A page to open (a login, a payment): the agent is told when it is done.
    Url {
        /// The address.
        url: String,
        /// The agent's id for it (`elicitation/complete` names it).
        elicitation_id: String,
    },
}

/// One field of a form.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Its key in the answer.
    pub name: String,
    /// Its label (the title, else the name).
    pub title: String,
    /// A longer explanation.
    pub description: Option<String>,
    /// It must be filled.
    pub required: bool,
    /// Its type and limits.
    pub kind: FieldKind,
}

/// A field's type and limits.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldKind {
    /// Free text.
    Text {
        /// Prefilled.
        default: Option<String>,
        /// Shortest.
        min_len: Option<u32>,
        /// Longest.
        max_len: Option<u32>,
        /// `email`, `uri`, `date`, `date-time` (a hint; checked loosely).
        format: Option<String>,
    },
    /// One of several values: (value, label).
    Choice {
        /// The options.
        options: Vec<(String, String)>,
        /// Preselected.
        default: Option<String>,
    },
    /// A number.
    Number {
        /// Whole numbers only.
        integer: bool,
        /// Smallest.
        min: Option<f64>,
        /// Largest.
        max: Option<f64>,
        /// Prefilled.
        default: Option<f64>,
    },
    /// Yes or no.
    Bool {
        /// Preset.
        default: Option<bool>,
    },
    /// Several of a list: (value, label).
    Many {
        /// The options.
        options: Vec<(String, String)>,
        /// Fewest.
        min: Option<u64>,
        /// Most.
        max: Option<u64>,
    },
    /// A kind Sidekicks does not know: shown, never sent.
    Unknown,
}

/// What the person typed or picked in a field.
#[derive(Clone, Debug, PartialEq)]
pub enum Raw {
    /// Text typed (also numbers, parsed on submit).
    Text(String),
    /// A tick.
    Bool(bool),
    /// Options picked.
    Many(Vec<String>),
}

/// A checked value, as it goes back to the agent.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Text or a choice.
    Text(String),
    /// A whole number.
    Integer(i64),
    /// A number.
    Number(f64),
    /// Yes or no.
    Bool(bool),
    /// Several options.
    Many(Vec<String>),
}

/// The person's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitAnswer {
    /// Filled in (a form) or opened (a URL: no values).
    Accept(BTreeMap<String, Value>),
    /// Said no.
    Decline,
    /// Dismissed (or the turn was stopped).
    Cancel,
}

/// Why a field's value is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldProblem {
    /// Required and empty.
    Missing,
    /// Not a number (or not a whole one).
    NotANumber,
    /// Outside its limits (said in the field's words: `min`, `max`).
    OutOfRange {
        /// Smallest allowed, if any.
        min: Option<String>,
        /// Largest allowed, if any.
        max: Option<String>,
    },
    /// Not one of the options.
    NotAnOption,
}

/// The starting values of the fields (their defaults).
pub fn initial(fields: &[Field]) -> BTreeMap<String, Raw> {
    fields
        .iter()
        .map(|f| {
            let raw =
                match &f.kind {
                    FieldKind::Text { default, .. } => Raw::Text(default.clone().unwrap_or_default()),
                    FieldKind::Choice { default, .. } => Raw::Text(default.clone().unwrap_or_default()),
                    FieldKind::Number { default, integer, .. } => {
                        Raw::Text(default.map_or_else(String::new, |d| {
                            if *integer { format!("{}", d as i64) } else { d.to_string() }
                        }))
                    }
                    FieldKind::Bool { default } => Raw::Bool(default.unwrap_or(false)),
                    FieldKind::Many { .. } => Raw::Many(Vec::new()),
                    FieldKind::Unknown => Raw::Text(String::new()),
                };
            (f.name.clone(), raw)
        })
        .collect()
}

/// Checks what was filled in: the values to send, or each field's problem.
pub fn check(
    fields: &[Field],
    raw: &BTreeMap<String, Raw>,
) -> Result<BTreeMap<String, Value>, Vec<(String, FieldProblem)>> {
    let mut values = BTreeMap::new();
    let mut problems = Vec::new();
    for f in fields {
        let given = raw.get(&f.name);
        let text = match given {
            Some(Raw::Text(t)) => t.trim().to_string(),
            _ => String::new(),
        };
        let value = match &f.kind {
            FieldKind::Unknown => continue,
            FieldKind::Bool { .. } => Some(Value::Bool(matches!(given, Some(Raw::Bool(true))))),
            FieldKind::Many { options, min, max } => {
                let picked = match given {
                    Some(Raw::Many(p)) => p.clone(),
                    _ => Vec::new(),
                };
                let count = picked.len() as u64;
                if picked.iter().any(|p| !options.iter().any(|(v, _)| v == p)) {
                    problems.push((f.name.clone(), FieldProblem::NotAnOption));
                    continue;
                }
                if min.is_some_and(|m| count < m) || max.is_some_and(|m| count > m) {
                    let (min, max) = (min.map(|m| m.to_string()), max.map(|m| m.to_string()));
                    problems.push((f.name.clone(), FieldProblem::OutOfRange { min, max }));
                    continue;
                }
                if picked.is_empty() && !f.required { None } else { Some(Value::Many(picked)) }
            }
            _ if text.is_empty() => {
                if f.required {
                    problems.push((f.name.clone(), FieldProblem::Missing));
                }
                continue;
            }
            FieldKind::Text { min_len, max_len, .. } => {
                let len = text.chars().count() as u32;
                if min_len.is_some_and(|m| len < m) || max_len.is_some_and(|m| len > m) {
                    let (min, max) = (min_len.map(|m| m.to_string()), max_len.map(|m| m.to_string()));
                    problems.push((f.name.clone(), FieldProblem::OutOfRange { min, max }));
                    continue;
                }
                Some(Value::Text(text))
            }
            FieldKind::Choice { options, .. } => {
                if !options.iter().any(|(v, _)| *v == text) {
                    problems.push((f.name.clone(), FieldProblem::NotAnOption));
                    continue;
                }
                Some(Value::Text(text))
            }
            FieldKind::Number { integer, min, max, .. } => {
                let number = text.replace(',', ".").parse::<f64>().ok().filter(|n| n.is_finite());
                let Some(n) = number.filter(|n| !*integer || n.fract() == 0.0) else {
                    problems.push((f.name.clone(), FieldProblem::NotANumber));
                    continue;
                };
                if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                    let show = |x: f64| if *integer { format!("{}", x as i64) } else { x.to_string() };
                    problems
                        .push((f.name.clone(), FieldProblem::OutOfRange { min: min.map(show), max: max.map(show) }));
                    continue;
                }
                Some(if *integer { Value::Integer(n as i64) } else { Value::Number(n) })
            }
        };
        if let Some(v) = value {
            values.insert(f.name.clone(), v);
        }
    }
    if problems.is_empty() { Ok(values) } else { Err(problems) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str, required: bool, kind: FieldKind) -> Field {
        Field { name: name.into(), title: name.into(), description: None, required, kind }
    }

    fn form() -> Vec<Field> {
        vec![
            field("name", true, FieldKind::Text { default: None, min_len: Some(2), max_len: Some(10), format: None }),
            field(
                "tier",
                true,
                FieldKind::Choice {
                    options: vec![("free".into(), "Free".into()), ("pro".into(), "Pro".into())],
                    default: Some("free".into()),
                },
            ),
            field(
                "count",
                false,
                FieldKind::Number { integer: true, min: Some(1.0), max: Some(10.0), default: Some(3.0) },
            ),
            field("notify", false, FieldKind::Bool { default: Some(true) }),
        ]
    }

    #[test]
    fn defaults_fill_the_form_and_a_good_answer_passes() {
        let mut raw = initial(&form());
        assert_eq!(raw["count"], Raw::Text("3".into()));
        assert_eq!(raw["notify"], Raw::Bool(true));
        raw.insert("name".into(), Raw::Text(" Ada ".into()));
        let values = check(&form(), &raw).unwrap();
        assert_eq!(values["name"], Value::Text("Ada".into()));
        assert_eq!(values["tier"], Value::Text("free".into()));
        assert_eq!(values["count"], Value::Integer(3));
        assert_eq!(values["notify"], Value::Bool(true));
    }

    #[test]
    fn each_bad_field_says_why() {
        let mut raw = initial(&form());
        raw.insert("count".into(), Raw::Text("2.5".into()));
        raw.insert("tier".into(), Raw::Text("gold".into()));
        let problems = check(&form(), &raw).unwrap_err();
        assert_eq!(
            problems,
            [
                ("name".to_string(), FieldProblem::Missing),
                ("tier".to_string(), FieldProblem::NotAnOption),
                ("count".to_string(), FieldProblem::NotANumber),
            ]
        );
        raw.insert("name".into(), Raw::Text("A".into()));
        raw.insert("tier".into(), Raw::Text("pro".into()));
        raw.insert("count".into(), Raw::Text("11".into()));
        let problems = check(&form(), &raw).unwrap_err();
        assert_eq!(
            problems[0],
            ("name".into(), FieldProblem::OutOfRange { min: Some("2".into()), max: Some("10".into()) })
        );
        assert_eq!(
            problems[1],
            ("count".into(), FieldProblem::OutOfRange { min: Some("1".into()), max: Some("10".into()) })
        );
        raw.insert("count".into(), Raw::Text(String::new()));
        raw.insert("name".into(), Raw::Text("Ada".into()));
        assert!(!check(&form(), &raw).unwrap().contains_key("count"), "an empty optional field is left out");
    }
}
