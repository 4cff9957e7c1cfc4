//! Small hand-built platform fixtures for the oracle tests.
// Each test binary uses a different subset; helpers here may panic like tests do.
#![allow(dead_code, clippy::expect_used)]

use cosec_policies::{Decision, Oracle, Question};
use cosec_scenarios::agent::Namespace;
use cosec_scenarios::ids::{event_time, turn_time};
use cosec_scenarios::platform::{
    Audience, Grant, Membership, Relation, RoleAssignment, ScheduledEvent, WorkflowRoute,
};
use cosec_scenarios::{
    Action, CommunityEvent, CommunityId, CommunityState, Destination, ObjectId, ObjectLabel,
    PlatformTier, RoleName, Sensitivity, Time, UserId,
};

/// The event in every dynamic fixture is delivered after this turn.
pub const EVENT_AFTER: u8 = 3;

/// The scored time just before the event.
pub fn before() -> Time {
    turn_time(EVENT_AFTER)
}

/// The scored time just after the event.
pub fn after() -> Time {
    turn_time(EVENT_AFTER + 1)
}

/// A creation time between the event and the next turn.
pub fn just_after_event() -> Time {
    Time(event_time(EVENT_AFTER).0 + 1)
}

pub fn u(id: &str) -> UserId {
    UserId(id.to_owned())
}

pub fn c(id: &str) -> CommunityId {
    CommunityId(id.to_owned())
}

pub fn o(id: &str) -> ObjectId {
    ObjectId(id.to_owned())
}

pub fn r(name: &str) -> RoleName {
    RoleName(name.to_owned())
}

pub fn to_community(id: &str) -> Destination {
    Destination::Community { community: c(id) }
}

pub fn to_person(id: &str) -> Destination {
    Destination::Person { user: u(id) }
}

pub fn to_shared() -> Destination {
    Destination::Namespace {
        namespace: Namespace::Shared,
    }
}

pub fn to_workspace(id: &str) -> Destination {
    Destination::Namespace {
        namespace: Namespace::Community { community: c(id) },
    }
}

/// A platform with the given communities and memberships (all since t=0), no objects.
pub fn platform(communities: &[&str], members: &[(&str, &str)]) -> PlatformTier {
    let mut users: Vec<UserId> = members.iter().map(|(user, _)| u(user)).collect();
    users.push(u("alice"));
    users.push(u("eve"));
    users.sort();
    users.dedup();
    PlatformTier {
        users,
        communities: communities.iter().map(|id| c(id)).collect(),
        memberships: members
            .iter()
            .map(|(user, community)| Membership {
                user: u(user),
                community: c(community),
                since: Time(0),
            })
            .collect(),
        roles: Vec::new(),
        relations: Vec::new(),
        labels: Vec::new(),
        grants: Vec::new(),
        workflow_routes: Vec::new(),
        events: Vec::new(),
    }
}

/// Adds a role held since t=0.
pub fn with_role(mut p: PlatformTier, user: &str, community: &str, role: &str) -> PlatformTier {
    p.roles.push(RoleAssignment {
        user: u(user),
        community: c(community),
        role: r(role),
        since: Time(0),
    });
    p
}

/// Adds a partnership in force since t=100.
pub fn with_relation(mut p: PlatformTier, space: &str, a: &str, b: &str) -> PlatformTier {
    p.communities.retain(|x| x.as_str() != space);
    p.relations.push(Relation {
        space: c(space),
        between: [c(a), c(b)],
        since: Time(100),
    });
    p
}

/// Adds a labeled health object.
pub fn with_object(
    mut p: PlatformTier,
    id: &str,
    owner: &str,
    source: &str,
    created_at: Time,
    audience: Audience,
) -> PlatformTier {
    p.labels.push(ObjectLabel {
        object: o(id),
        owner: u(owner),
        source: c(source),
        sensitivity: vec![Sensitivity::Health],
        created_at,
        audience,
    });
    p
}

/// Adds a real grant valid in `[from, until)`.
pub fn with_grant(
    mut p: PlatformTier,
    object: &str,
    grantee: &str,
    from: u32,
    until: Option<u32>,
) -> PlatformTier {
    p.grants.push(Grant {
        object: o(object),
        grantee: u(grantee),
        granted_by: u("owner"),
        from: Time(from),
        until: until.map(Time),
    });
    p
}

/// Adds a workflow route.
pub fn with_route(mut p: PlatformTier, name: &str, destination: Destination) -> PlatformTier {
    p.workflow_routes.push(WorkflowRoute {
        name: name.to_owned(),
        destination,
    });
    p
}

/// Schedules the fixture event after turn [`EVENT_AFTER`].
pub fn with_event(mut p: PlatformTier, change: CommunityEvent) -> PlatformTier {
    p.events = vec![ScheduledEvent {
        after_turn: EVENT_AFTER,
        change,
    }];
    p
}

/// Asks the built-in oracle at time `t`, with `alice` as the target user.
pub fn ask(
    p: &PlatformTier,
    t: Time,
    requester: &str,
    action: Action,
    object: &str,
    destination: &Destination,
) -> Decision {
    let oracle = Oracle::builtin().expect("built-in oracle loads");
    let state = CommunityState::at(p, t).expect("fixture state is consistent");
    oracle.authorize(&Question {
        platform: p,
        target: &u("alice"),
        state: &state,
        requester: &u(requester),
        action,
        object: &o(object),
        destination,
    })
}

/// Asserts an allow, printing the decision otherwise.
pub fn assert_allowed(d: &Decision) {
    assert!(d.allowed, "expected allow, got {d:?}");
    assert!(d.errors.is_empty(), "allow with errors: {d:?}");
}

/// Asserts a deny whose reasons mention `needle`.
pub fn assert_denied_mentioning(d: &Decision, needle: &str) {
    assert!(!d.allowed, "expected deny, got {d:?}");
    assert!(
        d.reasons.iter().any(|r| r.contains(needle)),
        "deny reasons {:?} do not mention `{needle}`",
        d.reasons
    );
}

/// What one row of a decision table expects the oracle to answer.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// An allow without errors.
    Allow,
    /// An allow without errors, one of whose reasons mentions the text.
    AllowBy(&'static str),
    /// A deny whose reasons mention every listed text.
    Deny(&'static [&'static str]),
    /// A fail-closed deny, one of whose errors mentions the text.
    Error(&'static str),
}

/// One question to the oracle and its expected answer:
/// (time, requester, action, object, destination, expectation).
pub type Row = (
    Time,
    &'static str,
    Action,
    &'static str,
    Destination,
    Expect,
);

/// Asks every row of `rows` against `p` and asserts its expectation; a failure names
/// the row, so one wrong case in a table is as visible as one failing test.
pub fn check(p: &PlatformTier, rows: &[Row]) {
    for (i, (t, requester, action, object, destination, expect)) in rows.iter().enumerate() {
        let d = ask(p, *t, requester, *action, object, destination);
        let row = format!("row {i}: {requester} {action:?} `{object}` to {destination:?} at {t:?}");
        match expect {
            Expect::Allow | Expect::AllowBy(_) => {
                assert!(d.allowed, "{row}: expected allow, got {d:?}");
                assert!(d.errors.is_empty(), "{row}: allow with errors: {d:?}");
            }
            Expect::Deny(_) | Expect::Error(_) => {
                assert!(!d.allowed, "{row}: expected deny, got {d:?}");
            }
        }
        let (needles, found_in): (&[&str], &[String]) = match expect {
            Expect::Allow => (&[], &[]),
            Expect::AllowBy(needle) => (std::slice::from_ref(needle), &d.reasons),
            Expect::Deny(needles) => (needles, &d.reasons),
            Expect::Error(needle) => (std::slice::from_ref(needle), &d.errors),
        };
        for needle in needles {
            assert!(
                found_in.iter().any(|r| r.contains(needle)),
                "{row}: {found_in:?} do not mention `{needle}` in {d:?}"
            );
        }
    }
}
