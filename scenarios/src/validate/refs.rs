//! Reference and placement checks: factors, people, communities, seeds, labels and
//! turns (the event chain is checked in `events.rs`, the verifier tier in `verifier.rs`).

use super::Problems;
use crate::agent::{Namespace, Surface};
use crate::factors::{Boundary, Suite};
use crate::ids::{
    turn_time, CommunityId, ObjectId, UserId, FIRST_TURN_TIME, MAX_TURN_COUNT, TURN_COUNT,
};
use crate::platform::{CommunityEvent, Destination};
use crate::scenario::Scenario;
use crate::state::CommunityState;
use std::collections::BTreeSet;

/// Every community id that exists at some point: declared ones and those an event creates.
pub(super) fn all_communities(s: &Scenario) -> BTreeSet<CommunityId> {
    let mut set: BTreeSet<CommunityId> = s.platform.communities.iter().cloned().collect();
    set.extend(s.platform.relations.iter().map(|r| r.space.clone()));
    for ev in &s.platform.events {
        match &ev.change {
            CommunityEvent::Merge { into, .. } => {
                set.insert(into.clone());
            }
            CommunityEvent::Split { into, .. } => {
                set.extend(into.iter().map(|side| side.community.clone()));
            }
            CommunityEvent::RelationStart { space, .. } => {
                set.insert(space.clone());
            }
            _ => {}
        }
    }
    set
}

/// Every platform user of the scenario.
pub(super) fn users(s: &Scenario) -> BTreeSet<&UserId> {
    s.platform.users.iter().collect()
}

pub(super) fn check_factors(s: &Scenario, p: &mut Problems) {
    let f = &s.factors;
    match (f.suite, f.event) {
        (Suite::Static112, Some(ev)) => p.push(
            "factors.event",
            format!("a static112 scenario has no event, found `{ev}`"),
        ),
        (Suite::Dyn96, None) => p.push("factors.event", "a dyn96 scenario needs an event"),
        (Suite::Dyn96, Some(ev)) => {
            if f.strategy != f.family.aligned_dynamic_strategy() {
                p.push(
                    "factors.strategy",
                    format!(
                        "dyn96 family {} uses strategy {}, found {}",
                        f.family,
                        f.family.aligned_dynamic_strategy(),
                        f.strategy
                    ),
                );
            }
            if ev.inter_only() && f.boundary != Boundary::Inter {
                p.push(
                    "factors.boundary",
                    format!("event `{ev}` is inter-community by nature; boundary must be `inter`"),
                );
            }
        }
        (Suite::Static112, None) => {}
    }
    if f.cross_scope != (f.boundary == Boundary::Inter) {
        p.push(
            "factors.cross_scope",
            format!(
                "must be {} for boundary `{}`",
                f.boundary == Boundary::Inter,
                f.boundary
            ),
        );
    }
    // `factors.event` names the kind of the first event: a chain's later events are
    // not factor levels of the suite.
    let platform_kind = s.platform.first_event().map(|e| e.change.kind());
    if platform_kind != f.event {
        p.push(
            super::events::event_field(&s.platform, 0),
            format!(
                "event kind {:?} does not match factors.event {:?}",
                platform_kind.map(|k| k.as_str()),
                f.event.map(|k| k.as_str())
            ),
        );
    }
}

pub(super) fn check_people_and_communities(s: &Scenario, p: &mut Problems) {
    let people: BTreeSet<&UserId> = s.agent.people.iter().map(|x| &x.id).collect();
    let users = users(s);
    if people != users {
        p.push(
            "agent.people",
            "must list exactly the users of platform.users (same ids)",
        );
    }
    if !users.contains(&s.agent.target_user) {
        p.push(
            "agent.target_user",
            format!(
                "unknown user `{}`; add it to platform.users",
                s.agent.target_user
            ),
        );
    }
    let known = all_communities(s);
    let named: BTreeSet<&CommunityId> = s.agent.communities.iter().map(|c| &c.id).collect();
    for c in &known {
        if !named.contains(c) {
            p.push(
                "agent.communities",
                format!("community `{c}` exists but has no name/description here"),
            );
        }
    }
    for (i, m) in s.platform.memberships.iter().enumerate() {
        if !users.contains(&m.user) {
            p.push(
                format!("platform.memberships[{i}].user"),
                format!("unknown user `{}`", m.user),
            );
        }
        if !s.platform.communities.contains(&m.community) {
            p.push(
                format!("platform.memberships[{i}].community"),
                format!("unknown community `{}`", m.community),
            );
        }
    }
    for (i, r) in s.platform.roles.iter().enumerate() {
        if !s
            .platform
            .memberships
            .iter()
            .any(|m| m.user == r.user && m.community == r.community)
        {
            p.push(
                format!("platform.roles[{i}]"),
                format!(
                    "`{}` holds a role in `{}` without being a member",
                    r.user, r.community
                ),
            );
        }
    }
    for (i, r) in s.platform.relations.iter().enumerate() {
        for c in &r.between {
            if !s.platform.communities.contains(c) {
                p.push(
                    format!("platform.relations[{i}].between"),
                    format!("unknown community `{c}`"),
                );
            }
        }
    }
    let agent_wf: BTreeSet<&str> = s.agent.workflows.iter().map(|w| w.name.as_str()).collect();
    let routes: BTreeSet<&str> = s
        .platform
        .workflow_routes
        .iter()
        .map(|w| w.name.as_str())
        .collect();
    if agent_wf != routes {
        p.push(
            "platform.workflow_routes",
            "every workflow in agent.workflows needs exactly one route, and no route without a workflow",
        );
    }
    for (i, r) in s.platform.workflow_routes.iter().enumerate() {
        check_destination(
            s,
            &r.destination,
            &format!("platform.workflow_routes[{i}].destination"),
            p,
        );
        if matches!(r.destination, Destination::Workflow { .. }) {
            p.push(
                format!("platform.workflow_routes[{i}].destination"),
                "a workflow may not route to another workflow",
            );
        }
    }
}

pub(super) fn check_destination(s: &Scenario, d: &Destination, field: &str, p: &mut Problems) {
    let known = all_communities(s);
    match d {
        Destination::Community { community }
        | Destination::Namespace {
            namespace: Namespace::Community { community },
        } => {
            if !known.contains(community) {
                p.push(field, format!("unknown community `{community}`"));
            }
        }
        Destination::Namespace { .. } => {}
        Destination::Person { user } => {
            if !users(s).contains(user) {
                p.push(field, format!("unknown user `{user}`"));
            }
        }
        Destination::Workflow { name } => {
            if s.platform.workflow_route(name).is_none() {
                p.push(field, format!("unknown workflow `{name}`"));
            }
        }
    }
}

fn check_namespace(s: &Scenario, ns: &Namespace, field: &str, p: &mut Problems) {
    if let Namespace::Community { community } = ns {
        if !all_communities(s).contains(community) {
            p.push(field, format!("unknown community `{community}`"));
        }
    }
}

pub(super) fn check_seeds_and_labels(s: &Scenario, p: &mut Problems) {
    let users = users(s);
    let known = all_communities(s);
    let mut seen: BTreeSet<&ObjectId> = BTreeSet::new();
    let tools: BTreeSet<&str> = s.agent.tools.iter().map(|t| t.name.as_str()).collect();
    for (i, seed) in s.agent.seeds.iter().enumerate() {
        let field = format!("agent.seeds[{i}]");
        if !seen.insert(&seed.object) {
            p.push(
                format!("{field}.object"),
                format!("duplicate object id `{}`", seed.object),
            );
        }
        if s.platform.label(&seed.object).is_none() {
            p.push(
                format!("{field}.object"),
                format!("object `{}` has no label in platform.labels", seed.object),
            );
        }
        match &seed.surface {
            Surface::SessionHistory { community, speaker } => {
                if !known.contains(community) {
                    p.push(
                        format!("{field}.surface.community"),
                        format!("unknown community `{community}`"),
                    );
                }
                if !users.contains(speaker) {
                    p.push(
                        format!("{field}.surface.speaker"),
                        format!("unknown user `{speaker}`"),
                    );
                }
            }
            Surface::File { namespace, path }
            | Surface::Document {
                namespace, path, ..
            } => {
                check_namespace(s, namespace, &format!("{field}.surface.namespace"), p);
                if let Err(why) = check_relative_path(path) {
                    p.push(format!("{field}.surface.path"), why);
                }
            }
            Surface::ToolObservation { tool, trigger } => {
                if !tools.contains(tool.as_str()) {
                    p.push(
                        format!("{field}.surface.tool"),
                        format!("unknown tool `{tool}`; declare it in agent.tools"),
                    );
                }
                if trigger.trim().is_empty() {
                    p.push(format!("{field}.surface.trigger"), "must not be empty");
                }
            }
            Surface::PrivateMemory => {}
        }
    }
    let mut labeled: BTreeSet<&ObjectId> = BTreeSet::new();
    for (i, label) in s.platform.labels.iter().enumerate() {
        let field = format!("platform.labels[{i}]");
        if !labeled.insert(&label.object) {
            p.push(
                format!("{field}.object"),
                format!("object `{}` is labeled twice", label.object),
            );
        }
        if !seen.contains(&label.object) {
            p.push(
                format!("{field}.object"),
                format!("object `{}` is labeled but never seeded", label.object),
            );
        }
        if !users.contains(&label.owner) {
            p.push(
                format!("{field}.owner"),
                format!("unknown user `{}`", label.owner),
            );
        }
        if !known.contains(&label.source) {
            p.push(
                format!("{field}.source"),
                format!("unknown community `{}`", label.source),
            );
        }
        if label.created_at >= FIRST_TURN_TIME {
            p.push(
                format!("{field}.created_at"),
                format!("seeded objects are created before the first turn ({FIRST_TURN_TIME}), found {}", label.created_at),
            );
        }
        if let crate::platform::Audience::Users { users: list } = &label.audience {
            for u in list {
                if !users.contains(u) {
                    p.push(
                        format!("{field}.audience.users"),
                        format!("unknown user `{u}`"),
                    );
                }
            }
        }
    }
    for (i, g) in s.platform.grants.iter().enumerate() {
        let field = format!("platform.grants[{i}]");
        match s.platform.label(&g.object) {
            None => p.push(
                format!("{field}.object"),
                format!("unknown object `{}`", g.object),
            ),
            Some(label) if label.owner != g.granted_by => p.push(
                format!("{field}.granted_by"),
                format!("only the owner `{}` can grant `{}`", label.owner, g.object),
            ),
            Some(_) => {}
        }
        if !users.contains(&g.grantee) {
            p.push(
                format!("{field}.grantee"),
                format!("unknown user `{}`", g.grantee),
            );
        }
    }
}

/// A path inside a namespace: relative, no `..`, no empty segments.
pub(crate) fn check_relative_path(path: &str) -> Result<(), String> {
    if path.is_empty() || path.starts_with('/') || path.contains('\\') {
        return Err(format!(
            "`{path}` must be a non-empty relative path with `/` separators"
        ));
    }
    if path
        .split('/')
        .any(|seg| seg.is_empty() || seg == "." || seg == "..")
    {
        return Err(format!(
            "`{path}` may not contain empty, `.` or `..` segments"
        ));
    }
    Ok(())
}

pub(super) fn check_turns(s: &Scenario, p: &mut Problems) {
    let turns = &s.agent.turns;
    if turns.is_empty() || turns.len() > usize::from(MAX_TURN_COUNT) {
        p.push(
            "agent.turns",
            format!(
                "needs 1 to {MAX_TURN_COUNT} turns ({TURN_COUNT} in the frozen suite), found {}",
                turns.len()
            ),
        );
    }
    let users = users(s);
    for (i, t) in turns.iter().enumerate() {
        let field = format!("agent.turns[{i}]");
        if usize::from(t.index) != i + 1 {
            p.push(
                format!("{field}.index"),
                format!("expected {}, found {}", i + 1, t.index),
            );
        }
        if t.text.trim().is_empty() {
            p.push(format!("{field}.text"), "must not be empty");
        }
        if !users.contains(&t.speaker) {
            p.push(
                format!("{field}.speaker"),
                format!("unknown user `{}`", t.speaker),
            );
            continue;
        }
        let Ok(state) = CommunityState::at(&s.platform, turn_time(t.index)) else {
            continue;
        };
        if !state.is_active(&t.community) {
            p.push(
                format!("{field}.community"),
                format!(
                    "community `{}` does not exist at turn {}",
                    t.community, t.index
                ),
            );
            continue;
        }
        if !state.is_member(&s.agent.target_user, &t.community) {
            p.push(
                format!("{field}.community"),
                format!(
                    "the target user `{}` is not a member of `{}` at turn {}",
                    s.agent.target_user, t.community, t.index
                ),
            );
        }
        if !state.is_member(&t.speaker, &t.community) {
            p.push(
                format!("{field}.speaker"),
                format!(
                    "`{}` is not a member of `{}` at turn {}",
                    t.speaker, t.community, t.index
                ),
            );
        }
    }
}
