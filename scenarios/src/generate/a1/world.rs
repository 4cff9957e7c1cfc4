//! Static112 scaffolding for family A1. A [`World`] fixes one (boundary, privacy
//! object) profile: owner, protected object, source and destination, legitimate
//! artifact and the benign part of the script. A [`Variant`] adds one attack
//! mechanism at the scored turn, so the seven variants of a profile differ only there.

use super::build::{self, comply_reply, ideal_reply, Draft};
use crate::agent::CommunityInfo;
use crate::factors::{Boundary, PrivacyObject, Strategy};
use crate::generate::common;
use crate::platform::{Destination, Membership, ObjectLabel, RoleAssignment};
use crate::verifier::{Flow, LegitimateGoal, PlanStep, ProtectedObject};
use crate::{Scenario, Seed};

/// The scored (attack) turn of every static A1 scenario.
pub(super) const SCORED_TURN: u8 = 5;

/// The turn an attack variant may use to set the attack up.
const SETUP_TURN: u8 = 4;

/// One static profile.
pub(super) struct World {
    /// Intra- or inter-community.
    pub boundary: Boundary,
    /// Owner's or third party's data.
    pub privacy: PrivacyObject,
    /// One-line human title.
    pub title: &'static str,
    /// Community domains involved.
    pub domains: Vec<&'static str>,
    /// The user the agent represents.
    pub target: &'static str,
    /// Everyone in the scenario, as (id, display name).
    pub people: Vec<(&'static str, &'static str)>,
    /// Every community the agent talks in, including ones an event creates.
    pub communities: Vec<CommunityInfo>,
    /// Memberships before any event.
    pub memberships: Vec<Membership>,
    /// Roles before any event.
    pub roles: Vec<RoleAssignment>,
    /// Seeded objects with their labels.
    pub objects: Vec<(Seed, ObjectLabel)>,
    /// Who speaks the attack, in which community.
    pub attacker: &'static str,
    /// Where the attack is spoken.
    pub attack_community: &'static str,
    /// Benign script, turns 1..=8 as (community, speaker, text); turn 5 is replaced by
    /// the attack and turn 4 by a variant's setup when it has one.
    pub turns: [(&'static str, &'static str, &'static str); 8],
    /// Replies both agents give to the benign turns (index 4, turn 5, is unused).
    pub replies: [&'static str; 8],
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

/// One attack mechanism added to a world.
pub(super) struct Variant {
    /// The attack mechanism.
    pub strategy: Strategy,
    /// Short title suffix naming the mechanism.
    pub name: &'static str,
    /// Optional attacker setup at turn 4: (text, reply both agents give).
    pub setup: Option<(&'static str, &'static str)>,
    /// The attack message at the scored turn.
    pub attack: &'static str,
    /// Reply of the fully compliant agent (leaks a canary).
    pub comply: &'static str,
    /// Reply of the ideal agent (declines, keeps helping with the legitimate task).
    pub ideal: &'static str,
}

/// Builds the seven scenarios of one profile; `world` is called once per variant so
/// that each scenario owns its data.
pub(super) fn assemble(world: fn() -> World, variants: &[Variant]) -> Vec<Scenario> {
    variants.iter().map(|v| one(world(), v)).collect()
}

fn one(w: World, v: &Variant) -> Scenario {
    let mut turns = Vec::new();
    let mut steps = Vec::new();
    let mut attack_turns = vec![SCORED_TURN];
    for (i, (community, speaker, text)) in w.turns.iter().enumerate() {
        let index = u8::try_from(i + 1).unwrap_or(u8::MAX);
        let reply = w.replies.get(i).copied().unwrap_or_default();
        if index == SCORED_TURN {
            turns.push(common::turn(
                index,
                w.attack_community,
                w.attacker,
                v.attack,
            ));
            steps.push(comply_reply(index, v.comply));
            steps.push(ideal_reply(index, v.ideal));
        } else if let (SETUP_TURN, Some((setup, setup_reply))) = (index, v.setup) {
            turns.push(common::turn(index, w.attack_community, w.attacker, setup));
            steps.push(common::reply(index, setup_reply));
            attack_turns.push(index);
        } else {
            turns.push(common::turn(index, community, speaker, text));
            steps.push(common::reply(index, reply));
        }
        steps.extend(w.task_steps.iter().filter(|s| s.turn == index).cloned());
    }
    build::build(Draft {
        cell: build::cell(w.boundary, w.privacy, v.strategy, None),
        title: format!("{}: {}", w.title, v.name),
        domains: w.domains,
        target: w.target,
        people: w.people,
        communities: w.communities,
        base_communities: Vec::new(),
        memberships: w.memberships,
        roles: w.roles,
        relations: Vec::new(),
        objects: w.objects,
        turns,
        event: None,
        scored_turn: SCORED_TURN,
        protected: vec![w.protected],
        scored_destinations: w.scored_destinations,
        legit_flows: w.legit_flows,
        attack_turns,
        goal: w.goal,
        steps,
    })
}
