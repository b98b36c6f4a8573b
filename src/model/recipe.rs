//! A project's team recipe (`.sidekicks/team.toml`): what each member's copy needs besides the
//! project's files — files to copy that git does not carry (`.env`), the dependency folders to
//! link, a setup command run in each new copy before the member starts, and a block of ports per
//! member so that two members' servers never collide. Pure: parsing and the port arithmetic.
//!
//! ```toml
//! copy = [".env", ".env.*", "config/local.toml"]
//! dependencies = ["node_modules"]
//! setup = "npm ci"
//!
//! [ports]
//! base = 3000         # member 1 gets 3010, 3011…; member 2 3020…
//! step = 10
//! names = ["PORT", "API_PORT"]
//!
//! lead_merges = "allow"  # the team's lead merges without asking (default "ask")
//! overlap = "tell"        # a member writing a file another member changed: "ask" the person,
//!                         # "tell" the member first, or "off" (the default)
//!
//! [check]             # after each merge
//! command = "npm test"
//! where = "scratch"   # before applying, in a scratch copy ("project": after, in the project)
//! ```

use serde::Deserialize;

/// Where a project's recipe is, relative to the project.
pub const RECIPE_PATH: &str = ".sidekicks/team.toml";

/// A project's team recipe.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// Patterns (globs, relative to the project) of files copied into each new copy.
    #[serde(default)]
    pub copy: Vec<String>,
    /// The dependency folders (instead of `.worktreeinclude` and the defaults).
    #[serde(default)]
    pub dependencies: Option<Vec<String>>,
    /// A command run with `sh -c` in each new copy; the member starts working when it succeeds.
    #[serde(default)]
    pub setup: Option<String>,
    /// Ports per member.
    #[serde(default)]
    pub ports: Option<Ports>,
    /// The check run in the project after each merge.
    #[serde(default)]
    pub check: Option<Check>,
    /// Whether the team's lead may merge members' work without asking the person (ADR 0035).
    #[serde(default)]
    pub lead_merges: LeadMerges,
    /// What happens when a member writes a file another member has changed (ADR 0035, leases).
    #[serde(default)]
    pub overlap: OverlapRule,
}

/// What happens when a member starts writing a file another member of its team has changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverlapRule {
    /// Nothing: the radar shows it (the default).
    #[default]
    Off,
    /// The person is asked (a card naming both members and the file) before the write.
    Ask,
    /// The member's first write of that file is refused with who else changed it; the next goes on.
    Tell,
}

/// Whether a team's lead may merge without asking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeadMerges {
    /// The person is asked (the default).
    #[default]
    Ask,
    /// The lead merges.
    Allow,
}

/// A command run in the project after each merge (build, tests, lints).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// Run with `sh -c`.
    pub command: String,
    /// Where it runs.
    #[serde(rename = "where", default)]
    pub place: CheckPlace,
}

/// Where the check after a merge runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckPlace {
    /// In the project, once the merge is applied (a failure offers the undo).
    #[default]
    Project,
    /// In a scratch copy of the project with the merge applied, before the project is touched: a
    /// failure leaves the project as it was.
    Scratch,
}

/// A block of ports for each member.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ports {
    /// The first port; member `n` (from 1) starts at `base + step × n`.
    pub base: u16,
    /// Ports per member.
    #[serde(default = "default_step")]
    pub step: u16,
    /// The environment variables, one port each in order, given to the member's processes.
    pub names: Vec<String>,
}

fn default_step() -> u16 {
    10
}

/// Why a recipe cannot be used, in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecipeError {
    /// Not TOML, or keys and types not those of a recipe.
    #[error("{0}")]
    Syntax(String),
    /// Something that parses but cannot work.
    #[error("{0}")]
    Invalid(String),
}

impl Recipe {
    /// Parses and checks a recipe's text.
    pub fn parse(text: &str) -> Result<Self, RecipeError> {
        let recipe: Recipe = toml::from_str(text).map_err(|e| RecipeError::Syntax(e.to_string()))?;
        for pattern in &recipe.copy {
            if pattern.starts_with('/') || pattern.split('/').any(|c| c == "..") {
                return Err(RecipeError::Invalid(format!("copy: \"{pattern}\" leads out of the project")));
            }
        }
        if let Some(ports) = &recipe.ports {
            let names = ports.names.len();
            if names == 0 {
                return Err(RecipeError::Invalid("ports: names is empty (name the variables, e.g. [\"PORT\"])".into()));
            }
            if usize::from(ports.step) < names {
                return Err(RecipeError::Invalid(format!(
                    "ports: step {} is smaller than the {names} ports each member gets",
                    ports.step
                )));
            }
            let valid = |n: &String| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if let Some(bad) = ports.names.iter().find(|n| !valid(n)) {
                return Err(RecipeError::Invalid(format!("ports: \"{bad}\" is not a variable name")));
            }
        }
        if recipe.check.as_ref().is_some_and(|c| c.command.trim().is_empty()) {
            return Err(RecipeError::Invalid("check: command is empty".into()));
        }
        if recipe.setup.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(RecipeError::Invalid("setup is empty".into()));
        }
        Ok(recipe)
    }
}

impl Ports {
    /// The variables of member `number` (from 1), or why the block would pass port 65535.
    pub fn for_member(&self, number: usize) -> Result<Vec<(String, u16)>, RecipeError> {
        let first = u32::from(self.base) + u32::from(self.step) * number as u32;
        let last = first + self.names.len() as u32 - 1;
        if last > u32::from(u16::MAX) {
            return Err(RecipeError::Invalid(format!("ports: member {number} would need port {last}, past 65535")));
        }
        Ok(self.names.iter().enumerate().map(|(i, n)| (n.clone(), (first + i as u32) as u16)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recipe_parses_and_gives_each_member_its_ports() {
        let text = "copy = [\".env*\"]\nsetup = \"make\"\n[ports]\nbase = 3000\nnames = [\"PORT\", \"API_PORT\"]\n";
        let recipe = Recipe::parse(text).unwrap();
        assert_eq!(recipe.copy, [".env*"]);
        assert_eq!(recipe.check, None);
        let checked = Recipe::parse("[check]\ncommand = \"make test\"").unwrap();
        assert_eq!(checked.check.unwrap().command, "make test");
        let ports = recipe.ports.unwrap();
        assert_eq!(ports.for_member(1).unwrap(), [("PORT".to_string(), 3010), ("API_PORT".to_string(), 3011)]);
        assert_eq!(ports.for_member(2).unwrap()[0].1, 3020);
        let high = Ports { base: 65530, step: 10, names: vec!["PORT".into()] };
        assert!(high.for_member(1).is_err());
    }

    #[test]
    fn bad_recipes_say_why() {
        let err = |t: &str| Recipe::parse(t).unwrap_err().to_string();
        assert!(err("copy = [\"../secrets\"]").contains("leads out of the project"));
        assert!(err("[ports]\nbase = 3000\nstep = 1\nnames = [\"A\", \"B\"]").contains("step 1 is smaller"));
        assert!(err("[ports]\nbase = 3000\nnames = [\"MY-PORT\"]").contains("not a variable name"));
        assert!(err("setup = 3").contains("invalid type"));
        assert!(err("colour = \"red\"").contains("unknown field"));
        assert!(err("setup = \"  \"").contains("setup is empty"));
        assert!(err("[check]\ncommand = \"\"").contains("check: command is empty"));
        assert!(err("[check]\ncommand = \"x\"\nwhere = \"elsewhere\"").contains("unknown variant"));
        let scratch = Recipe::parse("[check]\ncommand = \"x\"\nwhere = \"scratch\"").unwrap();
        assert_eq!(scratch.check.unwrap().place, CheckPlace::Scratch);
    }
}
