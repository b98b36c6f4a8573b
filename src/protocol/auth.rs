//! Logging in to an agent: the ways an agent offers (ACP `authMethods`), as plain data.

/// A way to log in that an agent offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthMethod {
    /// Its id (what `authenticate` names).
    pub id: String,
    /// Its name, as the agent words it.
    pub name: String,
    /// What it does, as the agent words it.
    pub description: Option<String>,
    /// How it works.
    pub kind: AuthKind,
}

/// How a way to log in works.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthKind {
    /// The agent logs in by itself when asked (`authenticate`; it may open a browser).
    Agent,
    /// The agent reads these variables of its environment (an API key): once they are set,
    /// `authenticate` with the method's id.
    EnvVar {
        /// The variables.
        vars: Vec<AuthVar>,
    },
    /// The person logs in in a terminal running the agent's program with these extra arguments and
    /// variables; a zero exit means logged in.
    Terminal {
        /// Arguments added to the agent's command line.
        args: Vec<String>,
        /// Variables added to its environment.
        env: Vec<(String, String)>,
    },
}

/// A variable an `EnvVar` method reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthVar {
    /// Its name (`OPENAI_API_KEY`).
    pub name: String,
    /// What to call it in a form, if the agent says.
    pub label: Option<String>,
    /// A secret (shown as dots while typed); true unless the agent says otherwise.
    pub secret: bool,
    /// It may be left empty.
    pub optional: bool,
}

impl AuthMethod {
    /// For an `EnvVar` method: true when every variable it needs is among `set`.
    pub fn satisfied_by(&self, set: &dyn Fn(&str) -> bool) -> bool {
        match &self.kind {
            AuthKind::EnvVar { vars } => vars.iter().all(|v| v.optional || set(&v.name)),
            _ => false,
        }
    }
}
