//! Builds one scenario from a variant, its world and the resolved selection, after
//! checking that every person, community, object and turn it names exists.

use super::format::{VariantFile, WorldFile};
use super::locate::{Located, SourceFile};
use super::resolve::{known, Selection};
use crate::agent::{AgentTier, EventNotice, Seed, Turn};
use crate::factors::{Boundary, Factors};
use crate::ids::{CommunityId, UserId};
use crate::platform::{
    CommunityEvent, Grant, Membership, ObjectLabel, PlatformTier, Relation, RoleAssignment,
    ScheduledEvent, WorkflowRoute,
};
use crate::scenario::{Scenario, SCHEMA_VERSION};
use crate::verifier::{AttackerSpan, PlanStep, ReferencePlan, SpanLocation, VerifierTier};
use std::collections::BTreeSet;

/// Checks the variant's references against its selection; the scenario when all hold.
pub(super) fn build(
    file: &SourceFile,
    world: &WorldFile,
    variant: &VariantFile,
    selection: Selection,
    problems: &mut Vec<Located>,
) -> Option<Scenario> {
    let before = problems.len();
    let people: BTreeSet<&str> = selection.people.iter().map(|p| p.id.as_str()).collect();
    let communities: BTreeSet<&str> = selection
        .communities
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    let person = |field: String, id: &UserId, problems: &mut Vec<Located>| {
        if !people.contains(id.as_str()) {
            problems.push(file.problem(
                &field,
                format!(
                    "unknown person `{id}`: the variant's people are {}",
                    known(people.iter().copied())
                ),
            ));
        }
    };
    let community = |field: String, id: &CommunityId, problems: &mut Vec<Located>| {
        if !communities.contains(id.as_str()) {
            problems.push(file.problem(
                &field,
                format!(
                    "unknown community `{id}`: the variant's communities are {}",
                    known(communities.iter().copied())
                ),
            ));
        }
    };
    person("target_user".into(), &variant.target_user, problems);
    let turn_count = variant.turns.len();
    if turn_count == 0 || u8::try_from(turn_count).is_err() {
        problems.push(file.problem(
            "turns",
            format!("has {turn_count} turns; a variant needs between 1 and 255"),
        ));
    }
    for (i, turn) in variant.turns.iter().enumerate() {
        person(format!("turns[{i}].speaker"), &turn.speaker, problems);
        community(format!("turns[{i}].community"), &turn.community, problems);
    }
    let turn_exists = |turn: u8| usize::from(turn) >= 1 && usize::from(turn) <= turn_count;
    for (i, event) in variant.events.iter().enumerate() {
        if !turn_exists(event.after_turn) || usize::from(event.after_turn) == turn_count {
            problems.push(file.problem(
                &format!("events[{i}].after_turn"),
                format!(
                    "is {}, but the variant has {turn_count} turns: an event comes after \
                     one turn and before the next, so use 1..={}",
                    event.after_turn,
                    turn_count.saturating_sub(1)
                ),
            ));
        }
        for (field, user) in event_users(&event.change) {
            person(format!("events[{i}].change.{field}"), user, problems);
        }
        if let Some(notice) = &event.notice {
            community(
                format!("events[{i}].notice.community"),
                &notice.community,
                problems,
            );
        }
    }
    if !turn_exists(variant.scored_turn) {
        problems.push(file.problem(
            "scored_turn",
            format!(
                "is {}, but the variant has {turn_count} turns",
                variant.scored_turn
            ),
        ));
    }
    for (i, step) in variant.plan.iter().enumerate() {
        if !turn_exists(step.turn) {
            problems.push(file.problem(
                &format!("plan[{i}].turn"),
                format!("is {}, but the variant has {turn_count} turns", step.turn),
            ));
        }
    }
    let objects: BTreeSet<&str> = selection.objects.iter().map(|o| o.id.as_str()).collect();
    for (i, protected) in variant.protected.iter().enumerate() {
        if !objects.contains(protected.object.as_str()) {
            problems.push(file.problem(
                &format!("protected[{i}].object"),
                format!(
                    "`{}` is not among the variant's objects ({})",
                    protected.object,
                    known(objects.iter().copied())
                ),
            ));
        }
    }
    if problems.len() > before {
        return None;
    }
    Some(assemble(world, variant, selection))
}

/// People named by an event, with the field that names them.
fn event_users(change: &CommunityEvent) -> Vec<(String, &UserId)> {
    match change {
        CommunityEvent::MemberJoin { user, .. }
        | CommunityEvent::MemberRemove { user, .. }
        | CommunityEvent::RoleUp { user, .. }
        | CommunityEvent::RoleDown { user, .. } => vec![("user".to_owned(), user)],
        CommunityEvent::Split { into, .. } => into
            .iter()
            .enumerate()
            .flat_map(|(side, s)| {
                s.members
                    .iter()
                    .enumerate()
                    .map(move |(j, u)| (format!("into[{side}].members[{j}]"), u))
            })
            .collect(),
        CommunityEvent::Merge { .. }
        | CommunityEvent::RelationStart { .. }
        | CommunityEvent::RelationEnd { .. } => Vec::new(),
    }
}

/// Communities that exist only through an event or as a partnership space: the agent
/// knows their names, the platform does not list them as communities.
fn not_platform_communities(events: &[ScheduledEvent], relations: &[Relation]) -> Vec<CommunityId> {
    let mut out: Vec<CommunityId> = relations.iter().map(|r| r.space.clone()).collect();
    for e in events {
        match &e.change {
            CommunityEvent::Merge { into, .. } => out.push(into.clone()),
            CommunityEvent::Split { into, .. } => {
                out.extend(into.iter().map(|s| s.community.clone()));
            }
            CommunityEvent::RelationStart { space, .. } | CommunityEvent::RelationEnd { space } => {
                out.push(space.clone());
            }
            _ => {}
        }
    }
    out
}

fn assemble(world: &WorldFile, variant: &VariantFile, selection: Selection) -> Scenario {
    let people: BTreeSet<UserId> = selection.people.iter().map(|p| p.id.clone()).collect();
    let communities: BTreeSet<CommunityId> =
        selection.communities.iter().map(|c| c.id.clone()).collect();
    let in_cast = |u: &UserId| people.contains(u);
    let in_places = |c: &CommunityId| communities.contains(c);
    let memberships = variant.memberships.clone().unwrap_or_else(|| {
        keep(&world.memberships, |m: &Membership| {
            in_cast(&m.user) && in_places(&m.community)
        })
    });
    let roles = variant.roles.clone().unwrap_or_else(|| {
        keep(&world.roles, |r: &RoleAssignment| {
            in_cast(&r.user) && in_places(&r.community)
        })
    });
    let relations = variant.relations.clone().unwrap_or_else(|| {
        keep(&world.relations, |r: &Relation| {
            in_places(&r.space) && r.between.iter().all(in_places)
        })
    });
    let objects: BTreeSet<&str> = selection.objects.iter().map(|o| o.id.as_str()).collect();
    let grants = variant.grants.clone().unwrap_or_else(|| {
        keep(&world.grants, |g: &Grant| {
            in_cast(&g.grantee) && in_cast(&g.granted_by) && objects.contains(g.object.as_str())
        })
    });
    let workflows: BTreeSet<&str> = selection
        .workflows
        .iter()
        .map(|w| w.name.as_str())
        .collect();
    let workflow_routes = variant.workflow_routes.clone().unwrap_or_else(|| {
        keep(&world.workflow_routes, |r: &WorkflowRoute| {
            workflows.contains(r.name.as_str())
        })
    });
    let events: Vec<ScheduledEvent> = variant
        .events
        .iter()
        .map(|e| ScheduledEvent {
            after_turn: e.after_turn,
            change: e.change.clone(),
        })
        .collect();
    let notices: Vec<EventNotice> = variant
        .events
        .iter()
        .filter_map(|e| {
            e.notice.as_ref().map(|n| EventNotice {
                after_turn: e.after_turn,
                community: n.community.clone(),
                text: n.text.clone(),
            })
        })
        .collect();
    let hidden = not_platform_communities(&events, &relations);
    let turns: Vec<Turn> = variant
        .turns
        .iter()
        .zip(1u8..)
        .map(|(t, index)| Turn {
            index,
            community: t.community.clone(),
            speaker: t.speaker.clone(),
            text: t.text.clone(),
        })
        .collect();
    let mut attacker_spans = variant.attacker_spans.clone();
    attacker_spans.extend(
        variant
            .turns
            .iter()
            .zip(1u8..)
            .filter(|(t, _)| t.attack)
            .map(|(t, index)| AttackerSpan {
                location: SpanLocation::Turn { index },
                text: t.text.clone(),
            }),
    );
    let domains = variant
        .factors
        .domains
        .clone()
        .unwrap_or_else(|| world.domains.clone());
    let f = &variant.factors;
    Scenario {
        schema_version: SCHEMA_VERSION,
        id: variant.id.clone(),
        title: variant.title.clone(),
        factors: Factors {
            suite: f.suite,
            boundary: f.boundary,
            privacy_object: f.privacy_object,
            family: f.family,
            strategy: f.strategy,
            event: events.first().map(|e| e.change.kind()),
            cross_scope: f.boundary == Boundary::Inter,
            domains,
        },
        agent: AgentTier {
            target_user: variant.target_user.clone(),
            people: selection.people.clone(),
            communities: selection.communities.clone(),
            seeds: selection
                .objects
                .iter()
                .map(|o| Seed {
                    object: o.id.clone(),
                    surface: o.surface.clone(),
                    content: o.content.clone(),
                })
                .collect(),
            tools: selection.tools,
            workflows: selection.workflows,
            turns,
            event_notices: notices,
        },
        platform: PlatformTier {
            users: selection.people.iter().map(|p| p.id.clone()).collect(),
            communities: selection
                .communities
                .iter()
                .map(|c| c.id.clone())
                .filter(|c| !hidden.contains(c))
                .collect(),
            memberships,
            roles,
            relations,
            labels: selection
                .objects
                .iter()
                .map(|o| ObjectLabel {
                    object: o.id.clone(),
                    owner: o.owner.clone(),
                    source: o.source.clone(),
                    sensitivity: o.sensitivity.clone(),
                    created_at: o.created_at,
                    audience: o.audience.clone(),
                })
                .collect(),
            grants,
            workflow_routes,
            events,
        },
        verifier: VerifierTier {
            scored_turn: variant.scored_turn,
            protected: variant.protected.clone(),
            scored_destinations: variant.scored_destinations.clone(),
            scored_flows: variant.scored_flows.clone(),
            legit_flows: variant.legit_flows.clone(),
            allowed_recipients: variant.allowed_recipients.clone(),
            attacker_spans,
            failure_class: variant.failure_class,
            goal: variant.goal.clone(),
            reference_plan: ReferencePlan {
                steps: variant
                    .plan
                    .iter()
                    .map(|s| PlanStep {
                        turn: s.turn,
                        taker: s.taker,
                        action: s.action.clone(),
                    })
                    .collect(),
            },
        },
    }
}

fn keep<T: Clone>(items: &[T], wanted: impl Fn(&T) -> bool) -> Vec<T> {
    items.iter().filter(|i| wanted(i)).cloned().collect()
}
