//! The one way the shim and the guard read the names a model writes: communities,
//! people and workflows by id or display name, whatever decoration the model puts
//! around them.

use cosec_scenarios::{AgentTier, CommunityId, UserId};

/// Lower-cases and strips the decorations models put around names (`@`, `#`, quotes).
pub fn clean_name(s: &str) -> String {
    s.trim()
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '`')
        .trim_start_matches(['@', '#'])
        .trim()
        .to_lowercase()
}

/// The community `wanted` names (its id or display name, case-insensitively).
pub fn community_named(agent: &AgentTier, wanted: &str) -> Option<CommunityId> {
    let w = clean_name(wanted);
    agent
        .communities
        .iter()
        .find(|c| c.id.as_str().to_lowercase() == w || c.name.to_lowercase() == w)
        .map(|c| c.id.clone())
}

/// The person `wanted` names (their id or display name, case-insensitively).
pub fn person_named(agent: &AgentTier, wanted: &str) -> Option<UserId> {
    let w = clean_name(wanted);
    agent
        .people
        .iter()
        .find(|p| p.id.as_str().to_lowercase() == w || p.name.to_lowercase() == w)
        .map(|p| p.id.clone())
}

/// The declared workflow `wanted` names (exactly, else case-insensitively).
pub fn workflow_named(agent: &AgentTier, wanted: &str) -> Option<String> {
    let w = wanted.trim();
    let list = &agent.workflows;
    list.iter()
        .find(|x| x.name == w)
        .or_else(|| list.iter().find(|x| x.name.eq_ignore_ascii_case(w)))
        .map(|x| x.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorations_and_case_do_not_matter() {
        assert_eq!(clean_name("  @Hollin-Allot "), "hollin-allot");
        assert_eq!(clean_name("`#Work Hub`"), "work hub");
        assert_eq!(clean_name("'Declan'"), "declan");
    }
}
