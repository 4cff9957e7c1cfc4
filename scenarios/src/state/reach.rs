//! Where a delivery to a destination lands and who it reaches at a given time: the one
//! answer the oracle (and so the runtime guard, which decides through the same engine)
//! and the verifier share.
//!
//! A post or reply to a community reaches its members at that time; a file in a
//! community's workspace whoever may read that workspace (its members); a file in the
//! shared workspace or the private memory only the user the agent represents; a direct
//! message its recipient; a workflow whatever its platform route delivers to.

use super::{CommunityState, StateError};
use crate::agent::Namespace;
use crate::ids::{CommunityId, Time, UserId};
use crate::platform::{Destination, PlatformTier};
use std::collections::BTreeSet;

/// Who and where a delivery to one destination reaches at one state's time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    /// Where it lands: the destination itself, or the destination of a workflow's route.
    pub lands: Destination,
    /// The community scope it lands in (a community or its workspace), if any.
    pub scope: Option<CommunityId>,
    /// Whether that scope exists at the state's time (always true without a scope).
    pub live: bool,
    /// Everyone who would see it at the state's time.
    pub audience: BTreeSet<UserId>,
}

/// The community scope of a destination that has landed (no workflow), if any.
fn scope_of_landed(lands: &Destination) -> Option<&CommunityId> {
    match lands {
        Destination::Community { community }
        | Destination::Namespace {
            namespace: Namespace::Community { community },
        } => Some(community),
        _ => None,
    }
}

impl CommunityState {
    /// Who a delivery to `destination` reaches now. `target` is the user the agent
    /// represents (the only reader of the shared workspace and private memory). A
    /// workflow without a route, or routed to another workflow, reaches no one known:
    /// an error, so that every question about it fails closed.
    pub fn reach(
        &self,
        destination: &Destination,
        target: &UserId,
        platform: &PlatformTier,
    ) -> Result<Reach, StateError> {
        let lands = Self::resolve(destination, platform)?;
        let audience = match lands {
            Destination::Community { community }
            | Destination::Namespace {
                namespace: Namespace::Community { community },
            } => self.members(community),
            Destination::Namespace {
                namespace: Namespace::Shared | Namespace::Memory,
            } => BTreeSet::from([target.clone()]),
            Destination::Person { user } => BTreeSet::from([user.clone()]),
            Destination::Workflow { .. } => {
                let name = match destination {
                    Destination::Workflow { name } => name.clone(),
                    other => other.to_string(),
                };
                return Err(StateError::UnknownWorkflow(name));
            }
        };
        let scope = scope_of_landed(lands).cloned();
        Ok(Reach {
            live: scope.as_ref().is_none_or(|c| self.is_active(c)),
            lands: lands.clone(),
            scope,
            audience,
        })
    }

    /// [`CommunityState::reach`] in the state in force at time `t`.
    pub fn reach_at(
        platform: &PlatformTier,
        destination: &Destination,
        target: &UserId,
        t: Time,
    ) -> Result<Reach, StateError> {
        Self::at(platform, t)?.reach(destination, target, platform)
    }

    /// Resolves a workflow destination to where its payload lands; other destinations
    /// are returned unchanged.
    pub fn resolve<'a>(
        destination: &'a Destination,
        platform: &'a PlatformTier,
    ) -> Result<&'a Destination, StateError> {
        match destination {
            Destination::Workflow { name } => platform
                .workflow_route(name)
                .map(|r| &r.destination)
                .ok_or_else(|| StateError::UnknownWorkflow(name.clone())),
            other => Ok(other),
        }
    }

    /// The community scope a destination belongs to, if any (used for cross-scope
    /// checks); the same at every time, unlike [`CommunityState::reach`]'s audience.
    pub fn scope_of(
        destination: &Destination,
        platform: &PlatformTier,
    ) -> Result<Option<CommunityId>, StateError> {
        Ok(scope_of_landed(Self::resolve(destination, platform)?).cloned())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::*;
    use crate::ids::turn_time;
    use crate::platform::{ScheduledEvent, SplitSide};
    use crate::CommunityEvent;
    use proptest::prelude::*;

    fn u(id: &str) -> UserId {
        UserId::from(id)
    }

    fn c(id: &str) -> CommunityId {
        CommunityId::from(id)
    }

    /// Two communities `a` (ann, bob) and `b` (ann, cat), a workflow routed to `b`'s
    /// workspace, one to a person and one to another workflow; `event` after turn 3.
    fn platform(event: Option<CommunityEvent>) -> PlatformTier {
        let json = serde_json::json!({
            "users": ["ann", "bob", "cat", "dan"],
            "communities": ["a", "b"],
            "memberships": [
                {"user": "ann", "community": "a", "since": 100},
                {"user": "bob", "community": "a", "since": 100},
                {"user": "ann", "community": "b", "since": 100},
                {"user": "cat", "community": "b", "since": 100}
            ],
            "roles": [], "relations": [], "grants": [], "labels": [],
            "workflow_routes": [
                {"name": "to_b", "destination": {"kind": "namespace", "namespace": {"kind": "community", "community": "b"}}},
                {"name": "to_dan", "destination": {"kind": "person", "user": "dan"}},
                {"name": "loop", "destination": {"kind": "workflow", "name": "to_b"}}
            ],
            "event": null
        });
        let mut p: PlatformTier = serde_json::from_value(json).expect("platform");
        p.events = event
            .map(|change| {
                vec![ScheduledEvent {
                    after_turn: 3,
                    change,
                }]
            })
            .unwrap_or_default();
        p
    }

    fn community(id: &str) -> Destination {
        Destination::Community { community: c(id) }
    }

    fn workspace(id: &str) -> Destination {
        Destination::Namespace {
            namespace: Namespace::Community { community: c(id) },
        }
    }

    fn set(users: &[&str]) -> BTreeSet<UserId> {
        users.iter().map(|x| u(x)).collect()
    }

    #[test]
    fn each_kind_of_destination_reaches_its_readers() {
        let p = platform(None);
        let now = CommunityState::at(&p, turn_time(1)).unwrap();
        let ann = u("ann");
        let reach = |d: &Destination| now.reach(d, &ann, &p).unwrap();
        assert_eq!(reach(&community("a")).audience, set(&["ann", "bob"]));
        assert_eq!(reach(&workspace("b")).audience, set(&["ann", "cat"]));
        let shared = Destination::Namespace {
            namespace: Namespace::Shared,
        };
        assert_eq!(reach(&shared).audience, set(&["ann"]));
        assert_eq!(reach(&shared).scope, None);
        let dm = Destination::Person { user: u("dan") };
        assert_eq!(reach(&dm).audience, set(&["dan"]));
        let routed = reach(&Destination::Workflow {
            name: "to_b".into(),
        });
        assert_eq!(routed.lands, workspace("b"));
        assert_eq!(routed.scope, Some(c("b")));
        assert_eq!(routed.audience, set(&["ann", "cat"]));
        assert!(routed.live);
    }

    #[test]
    fn a_workflow_without_a_usable_route_reaches_no_one() {
        let p = platform(None);
        let now = CommunityState::initial(&p);
        for name in ["nowhere", "loop"] {
            let d = Destination::Workflow { name: name.into() };
            assert!(matches!(
                now.reach(&d, &u("ann"), &p),
                Err(StateError::UnknownWorkflow(_))
            ));
        }
    }

    #[test]
    fn the_audience_follows_the_events_of_its_time() {
        let joined = platform(Some(CommunityEvent::MemberJoin {
            user: u("dan"),
            community: c("a"),
        }));
        let ann = u("ann");
        let before = CommunityState::reach_at(&joined, &community("a"), &ann, turn_time(3));
        let after = CommunityState::reach_at(&joined, &community("a"), &ann, turn_time(4));
        assert_eq!(before.unwrap().audience, set(&["ann", "bob"]));
        assert_eq!(after.unwrap().audience, set(&["ann", "bob", "dan"]));
        let merged = platform(Some(CommunityEvent::Merge {
            from: [c("a"), c("b")],
            into: c("m"),
        }));
        let m = CommunityState::reach_at(&merged, &community("m"), &ann, turn_time(4)).unwrap();
        assert_eq!(m.audience, set(&["ann", "bob", "cat"]));
        assert!(m.live);
        let split = platform(Some(CommunityEvent::Split {
            from: c("a"),
            into: [
                SplitSide {
                    community: c("a1"),
                    members: vec![u("ann")],
                },
                SplitSide {
                    community: c("a2"),
                    members: vec![u("bob")],
                },
            ],
        }));
        let old = CommunityState::reach_at(&split, &workspace("a"), &ann, turn_time(4)).unwrap();
        assert!(!old.live, "a split community's workspace is closed");
        assert!(old.audience.is_empty(), "its memberships ended");
        let side = CommunityState::reach_at(&split, &community("a2"), &ann, turn_time(4));
        assert_eq!(side.unwrap().audience, set(&["bob"]));
    }

    fn destinations() -> impl Strategy<Value = Destination> {
        prop_oneof![
            prop::sample::select(vec!["a", "b"]).prop_map(community),
            prop::sample::select(vec!["a", "b"]).prop_map(workspace),
            prop::sample::select(vec!["ann", "bob", "cat", "dan"])
                .prop_map(|x| Destination::Person { user: u(x) }),
            prop::sample::select(vec!["to_b", "to_dan"])
                .prop_map(|x| Destination::Workflow { name: x.to_owned() }),
            Just(Destination::Namespace {
                namespace: Namespace::Memory
            }),
        ]
    }

    proptest! {
        /// A workflow reaches exactly what its route's destination reaches, at any time
        /// and whoever the agent represents; the scope is the same at every time.
        #[test]
        fn a_workflow_reaches_what_its_route_reaches(
            d in destinations(),
            turn in 1u8..=8,
            target in prop::sample::select(vec!["ann", "bob"]),
        ) {
            let p = platform(Some(CommunityEvent::MemberRemove { user: u("bob"), community: c("a") }));
            let state = CommunityState::at(&p, turn_time(turn)).unwrap();
            let target = u(target);
            let reach = state.reach(&d, &target, &p).unwrap();
            let landed = state.reach(&reach.lands, &target, &p).unwrap();
            prop_assert_eq!(&reach, &landed);
            prop_assert_eq!(reach.scope, CommunityState::scope_of(&d, &p).unwrap());
        }
    }
}
