//! Dyn96 scaffolding for family A1 (strategy S2 throughout): an approval is claimed
//! before the event and cashed in after it, when the event has made the flow
//! unauthorized. The people, communities and objects the templates share are in
//! [`super::cast`].

use super::build::{self, comply_reply, ideal_reply, Draft, EventSpec};
use crate::agent::CommunityInfo;
use crate::factors::{Boundary, PrivacyObject, Strategy};
use crate::generate::common;
use crate::platform::{Destination, Membership, ObjectLabel, Relation, RoleAssignment};
use crate::verifier::{Flow, LegitimateGoal, PlanStep, ProtectedObject};
use crate::{Scenario, Seed, Time};

/// One dynamic scenario, flat.
pub(super) struct Dyn {
    /// Intra- or inter-community.
    pub boundary: Boundary,
    /// Owner's or third party's data.
    pub privacy: PrivacyObject,
    /// One-line human title.
    pub title: &'static str,
    /// Community domains involved.
    pub domains: &'static [&'static str],
    /// The user the agent represents.
    pub target: &'static str,
    /// Everyone in the scenario, as (id, display name).
    pub people: &'static [(&'static str, &'static str)],
    /// Every community the agent talks in, including ones an event creates.
    pub communities: Vec<CommunityInfo>,
    /// Communities existing before the event; empty means all of `communities`.
    pub base_communities: Vec<&'static str>,
    /// Memberships before any event.
    pub memberships: Vec<Membership>,
    /// Roles before any event.
    pub roles: Vec<RoleAssignment>,
    /// Partnerships in force from the start.
    pub relations: Vec<Relation>,
    /// Seeded objects with their labels.
    pub objects: Vec<(Seed, ObjectLabel)>,
    /// The scheduled event and its notice.
    pub event: EventSpec,
    /// Turns 1..=8 as (community, speaker, text).
    pub turns: [(&'static str, &'static str, &'static str); 8],
    /// Replies both agents give; the scored turn's entry is unused.
    pub replies: [&'static str; 8],
    /// Turns whose whole text the attacker wrote.
    pub attack_turns: &'static [u8],
    /// The turn of the scored (attack) action.
    pub scored_turn: u8,
    /// Reply of the fully compliant agent at the scored turn (leaks a canary).
    pub comply: &'static str,
    /// Extra attack-induced steps of the compliant agent (e.g. a write).
    pub comply_steps: Vec<PlanStep>,
    /// Reply of the ideal agent at the scored turn (declines, keeps helping).
    pub ideal: &'static str,
    /// Reads and writes of the legitimate task.
    pub task_steps: Vec<PlanStep>,
    /// The protected object with its canaries and facts.
    pub protected: ProtectedObject,
    /// Where protected content counts as a violation.
    pub scored_destinations: Vec<Destination>,
    /// Flows of the legitimate artifact.
    pub legit_flows: Vec<Flow>,
    /// The legitimate goal and its checks.
    pub goal: LegitimateGoal,
}

/// Assembles a dynamic scenario.
pub(super) fn finish(d: Dyn) -> Scenario {
    let mut turns = Vec::new();
    let mut steps = Vec::new();
    for (i, (community_id, speaker, text)) in d.turns.iter().enumerate() {
        let index = u8::try_from(i + 1).unwrap_or(u8::MAX);
        turns.push(common::turn(index, community_id, speaker, text));
        if index == d.scored_turn {
            steps.push(comply_reply(index, d.comply));
            steps.push(ideal_reply(index, d.ideal));
            steps.extend(d.comply_steps.iter().cloned());
        } else {
            steps.push(common::reply(
                index,
                d.replies.get(i).copied().unwrap_or_default(),
            ));
        }
        steps.extend(d.task_steps.iter().filter(|s| s.turn == index).cloned());
    }
    let kind = d.event.change.kind();
    build::build(Draft {
        cell: build::cell(d.boundary, d.privacy, Strategy::S2, Some(kind)),
        title: format!("{} ({})", d.title, kind),
        domains: d.domains.to_vec(),
        target: d.target,
        people: d.people.to_vec(),
        communities: d.communities,
        base_communities: d.base_communities,
        memberships: d.memberships,
        roles: d.roles,
        relations: d.relations,
        objects: d.objects,
        turns,
        event: Some(d.event),
        scored_turn: d.scored_turn,
        protected: vec![d.protected],
        scored_destinations: d.scored_destinations,
        legit_flows: d.legit_flows,
        attack_turns: d.attack_turns.to_vec(),
        goal: d.goal,
        steps,
    })
}

/// A partnership in force since before any seed.
pub(super) fn relation(space: &str, a: &str, b: &str) -> Relation {
    Relation {
        space: common::comm(space),
        between: [common::comm(a), common::comm(b)],
        since: Time(200),
    }
}
