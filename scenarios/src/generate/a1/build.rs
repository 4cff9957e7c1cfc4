//! Shared assembly for family A1. Templates fill a flat [`Draft`]; [`build`] turns it
//! into a [`Scenario`] and derives the parts that must agree with the oracle rule
//! (allowed recipients, scored flows, failure class) from the platform state itself,
//! so that a template cannot state them inconsistently.

use crate::agent::{AgentTier, CommunityInfo, EventNotice, Seed, Turn};
use crate::factors::{Boundary, EventKind, Family, PrivacyObject, Strategy};
use crate::generate::common::{self, Cell};
use crate::ids::{Time, UserId};
use crate::platform::{
    CommunityEvent, Destination, Membership, ObjectLabel, PlatformTier, Relation, RoleAssignment,
    ScheduledEvent,
};
use crate::state::CommunityState;
use crate::verifier::{
    Action, ArtifactCheck, AttackerSpan, Flow, LegitimateGoal, PlanStep, ProtectedObject,
    ReferencePlan, SpanLocation, VerifierTier,
};
use crate::Scenario;

// The family's templates import their constructors from here; the ones every family
// shares live in `common`.
pub(super) use crate::generate::common::{
    comply_reply, file_check, flow, ideal_reply, label, named, protect, read, role_audience, write,
};

/// A scheduled event together with the trusted notice the agent receives about it.
pub(super) struct EventSpec {
    /// The event happens after this turn.
    pub after_turn: u8,
    /// The state change.
    pub change: CommunityEvent,
    /// Session that receives the notice.
    pub notice_community: &'static str,
    /// Notice text.
    pub notice: &'static str,
}

/// Everything one A1 scenario consists of, before derivation.
pub(super) struct Draft {
    /// Where the scenario sits in the factor design.
    pub cell: Cell,
    /// One-line human title.
    pub title: String,
    /// Community domains involved.
    pub domains: Vec<&'static str>,
    /// The user the agent represents.
    pub target: &'static str,
    /// Everyone in the scenario, as (id, display name).
    pub people: Vec<(&'static str, &'static str)>,
    /// Every community the agent talks in, including ones an event creates.
    pub communities: Vec<CommunityInfo>,
    /// Communities that exist before any event; empty means every listed community.
    pub base_communities: Vec<&'static str>,
    /// Memberships before any event.
    pub memberships: Vec<Membership>,
    /// Roles before any event.
    pub roles: Vec<RoleAssignment>,
    /// Partnerships in force from the start.
    pub relations: Vec<Relation>,
    /// Seeded objects with their labels.
    pub objects: Vec<(Seed, ObjectLabel)>,
    /// The eight scripted turns.
    pub turns: Vec<Turn>,
    /// The scheduled event and its notice.
    pub event: Option<EventSpec>,
    /// The turn of the scored (attack) action.
    pub scored_turn: u8,
    /// The protected object with its canaries and facts.
    pub protected: Vec<ProtectedObject>,
    /// Where protected content counts as a violation.
    pub scored_destinations: Vec<Destination>,
    /// Flows of the legitimate artifact.
    pub legit_flows: Vec<Flow>,
    /// Turns whose whole text the attacker wrote.
    pub attack_turns: Vec<u8>,
    /// The legitimate goal and its checks.
    pub goal: LegitimateGoal,
    /// The reference plan.
    pub steps: Vec<PlanStep>,
}

/// The cell of an A1 scenario.
pub(super) fn cell(
    boundary: Boundary,
    privacy_object: PrivacyObject,
    strategy: Strategy,
    event: Option<EventKind>,
) -> Cell {
    Cell {
        boundary,
        privacy_object,
        family: Family::A1,
        strategy,
        event,
    }
}

/// A legitimate goal with its checks.
pub(super) fn goal(description: &str, checks: Vec<ArtifactCheck>) -> LegitimateGoal {
    LegitimateGoal {
        description: description.to_owned(),
        checks,
    }
}

/// The action a delivery to `destination` amounts to.
pub(super) fn action_for(destination: &Destination) -> Action {
    match destination {
        Destination::Community { .. } => Action::Disclose,
        Destination::Namespace { .. } => Action::Write,
        Destination::Person { .. } | Destination::Workflow { .. } => Action::Send,
    }
}

/// People who may hold every protected object at time `t`.
fn allowed_recipients(
    platform: &PlatformTier,
    protected: &[ProtectedObject],
    t: Time,
) -> Vec<UserId> {
    let Ok(state) = CommunityState::at(platform, t) else {
        return Vec::new();
    };
    let labels: Vec<&ObjectLabel> = protected
        .iter()
        .filter_map(|p| platform.label(&p.object))
        .collect();
    platform
        .users
        .iter()
        .filter(|u| labels.iter().all(|l| state.may_hold(platform, l, u)))
        .cloned()
        .collect()
}

/// Assembles the scenario.
pub(super) fn build(d: Draft) -> Scenario {
    let requester = d
        .turns
        .iter()
        .find(|t| t.index == d.scored_turn)
        .map(|t| t.speaker.clone())
        .unwrap_or_else(|| common::user(d.target));
    let scored_flows: Vec<Flow> = d
        .protected
        .iter()
        .flat_map(|p| {
            d.scored_destinations.iter().map(|dest| Flow {
                requester: requester.clone(),
                action: action_for(dest),
                object: p.object.clone(),
                destination: dest.clone(),
            })
        })
        .collect();
    let attacker_spans: Vec<AttackerSpan> = d
        .turns
        .iter()
        .filter(|t| d.attack_turns.contains(&t.index))
        .map(|t| AttackerSpan {
            location: SpanLocation::Turn { index: t.index },
            text: t.text.clone(),
        })
        .collect();
    let (seeds, labels): (Vec<Seed>, Vec<ObjectLabel>) = d.objects.into_iter().unzip();
    let kind = d.event.as_ref().map(|e| e.change.kind());
    let event_notice = d.event.as_ref().map(|e| EventNotice {
        after_turn: e.after_turn,
        community: common::comm(e.notice_community),
        text: e.notice.to_owned(),
    });
    let platform = PlatformTier {
        users: d.people.iter().map(|(id, _)| common::user(id)).collect(),
        communities: if d.base_communities.is_empty() {
            d.communities.iter().map(|c| c.id.clone()).collect()
        } else {
            d.base_communities.iter().map(|c| common::comm(c)).collect()
        },
        memberships: d.memberships,
        roles: d.roles,
        relations: d.relations,
        labels,
        grants: Vec::new(),
        workflow_routes: Vec::new(),
        event: d.event.map(|e| ScheduledEvent {
            after_turn: e.after_turn,
            change: e.change,
        }),
    };
    let allowed = allowed_recipients(
        &platform,
        &d.protected,
        crate::ids::turn_time(d.scored_turn),
    );
    let agent = AgentTier {
        target_user: common::user(d.target),
        people: d
            .people
            .iter()
            .map(|(id, name)| common::person(id, name))
            .collect(),
        communities: d.communities,
        seeds,
        tools: Vec::new(),
        workflows: Vec::new(),
        turns: d.turns,
        event_notice,
    };
    let verifier = VerifierTier {
        scored_turn: d.scored_turn,
        protected: d.protected,
        scored_destinations: d.scored_destinations,
        scored_flows,
        legit_flows: d.legit_flows,
        allowed_recipients: allowed,
        attacker_spans,
        failure_class: kind.map(EventKind::base_failure_class),
        goal: d.goal,
        reference_plan: ReferencePlan { steps: d.steps },
    };
    common::finish(d.cell, &d.title, &d.domains, agent, platform, verifier)
}
