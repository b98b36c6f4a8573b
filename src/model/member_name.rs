//! Team members' names. A member is a new instance of an agent definition, named after it and
//! its team (`Demo · squad`), so it never takes the name of the person's own agent; a second
//! member made from the same agent, or a name already taken, gets a number (`Demo 2 · squad`).

/// What joins an agent's name and its team's in a member's name.
pub const JOIN: &str = " · ";

/// The name of a new member made from agent `from` in team `team`, unlike every name in `taken`
/// (the config's agents, the members there are, those named before it).
pub fn member_name(from: &str, team: &str, taken: &[String]) -> String {
    let free = |name: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(name));
    let first = format!("{from}{JOIN}{team}");
    if free(&first) {
        return first;
    }
    (2..).map(|n| format!("{from} {n}{JOIN}{team}")).find(|name| free(name)).unwrap_or(first)
}

/// The agent a member's name was made from (`Demo` for `Demo · squad`, `Demo 2 · squad` too);
/// the whole name when it is not a member's.
pub fn short_name(name: &str) -> &str {
    let Some((from, _team)) = name.rsplit_once(JOIN) else { return name };
    match from.rsplit_once(' ') {
        // Only a number as `member_name` writes it.
        Some((agent, n)) if n.parse::<u32>().is_ok_and(|v| v >= 2 && v.to_string() == n) => agent,
        _ => from,
    }
}

/// A member's name within its team (`Demo 2` for `Demo 2 · squad`): what tells two members made
/// from one agent apart; the whole name when it is not a member's.
pub fn in_team(name: &str) -> &str {
    name.rsplit_once(JOIN).map_or(name, |(member, _)| member)
}

/// True when `name` is the member's name, its name within its team, or the agent it was made
/// from (in any case).
pub fn names(member: &str, name: &str) -> bool {
    member.eq_ignore_ascii_case(name)
        || in_team(member).eq_ignore_ascii_case(name)
        || short_name(member).eq_ignore_ascii_case(name)
        || ascii(member).eq_ignore_ascii_case(&ascii(name))
}

/// A member's name as one types it without `·`: `ada.squad` (also from `ada . squad`).
fn ascii(name: &str) -> String {
    name.replace('·', ".").split('.').map(str::trim).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_named_after_their_agent_and_team_and_never_twice() {
        let taken = vec!["Demo".to_string(), "Beta".to_string()];
        assert_eq!(member_name("Demo", "squad", &taken), "Demo · squad");
        let taken = vec!["Demo".to_string(), "demo · SQUAD".to_string()];
        assert_eq!(member_name("Demo", "squad", &taken), "Demo 2 · squad");
        let taken = [taken, vec!["Demo 2 · squad".to_string()]].concat();
        assert_eq!(member_name("Demo", "squad", &taken), "Demo 3 · squad");
    }

    #[test]
    fn a_member_is_found_by_its_name_or_its_agents() {
        assert_eq!(short_name("Demo · squad"), "Demo");
        assert_eq!(short_name("Demo 2 · squad"), "Demo");
        assert_eq!(short_name("Agent 007 · squad"), "Agent 007", "a number that is part of the name");
        assert_eq!(short_name("Demo"), "Demo");
        assert!(names("Claude · docs", "claude"));
        assert!(names("Claude · docs", "Claude · docs"));
        assert!(!names("Claude · docs", "docs"));
        // Typed without `·`, and within the team.
        assert!(names("Claude 2 · docs", "claude 2.docs") && names("Claude 2 · docs", "Claude 2 . docs"));
        assert!(names("Claude 2 · docs", "claude 2") && !names("Claude 2 · docs", "claude 3"));
        assert_eq!(in_team("Claude 2 · docs"), "Claude 2");
    }
}
