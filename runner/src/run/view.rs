//! The community state as the target user can see it (members and roles of the
//! communities she belongs to), rendered for the agent's system prompt. Labels, grants
//! and everything of the verifier tier stay out.

use cosec_scenarios::{AgentTier, CommunityId, CommunityState};
use std::fmt::Write as _;

/// Renders the communities the target user belongs to now, the session's first.
pub fn community_view(agent: &AgentTier, state: &CommunityState, session: &CommunityId) -> String {
    let mut communities: Vec<CommunityId> = state
        .current_communities(&agent.target_user)
        .into_iter()
        .collect();
    communities.sort_by_key(|c| c != session);
    let mut out = String::new();
    for c in &communities {
        let members: Vec<String> = state
            .members(c)
            .iter()
            .map(|u| {
                let roles: Vec<String> = state
                    .current_roles(u)
                    .into_iter()
                    .filter(|(rc, _)| rc == c)
                    .map(|(_, r)| r.0)
                    .collect();
                if roles.is_empty() {
                    agent.person_name(u).to_owned()
                } else {
                    format!("{} ({})", agent.person_name(u), roles.join(", "))
                }
            })
            .collect();
        let marker = if c == session { " [this session]" } else { "" };
        let _ = writeln!(
            out,
            "- {} ({c}){marker}: members {}",
            agent.community_name(c),
            members.join(", ")
        );
    }
    out.trim_end().to_owned()
}
