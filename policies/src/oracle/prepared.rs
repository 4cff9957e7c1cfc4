//! Everything about one community state that does not depend on the question: its
//! Cedar entities, the Cedar uid of every known user, object and destination, and the
//! audience of every known destination. Built once per state time, so that a question
//! costs only its Cedar requests.

use crate::entities::{entities_with, Conformance};
use crate::error::PolicyError;
use crate::schema::{destination_uid, object_uid, user_uid};
use cedar_policy::{Entities, EntityUid};
use cosec_scenarios::{
    CommunityState, Destination, Namespace, ObjectId, PlatformTier, Time, UserId,
};
use std::collections::{BTreeSet, HashMap};

/// Cedar entities of one community state, prepared once for many questions.
#[derive(Debug, Clone)]
pub struct PreparedState {
    pub(super) entities: Entities,
    pub(super) time: Time,
    pub(super) target: UserId,
    /// Every platform user, with its Cedar uid.
    pub(super) users: HashMap<UserId, EntityUid>,
    /// Every labeled object, with its Cedar uid.
    pub(super) objects: HashMap<ObjectId, EntityUid>,
    /// Every destination the entities cover.
    pub(super) destinations: HashMap<Destination, PreparedDestination>,
}

/// A destination's Cedar uid and who it reaches in the prepared state.
#[derive(Debug, Clone)]
pub(super) struct PreparedDestination {
    pub(super) uid: EntityUid,
    pub(super) audience: Audience,
}

/// The recipients of a destination, as `CommunityState::reach` gives them.
#[derive(Debug, Clone)]
pub(super) enum Audience {
    /// Platform users (in the order of the reach's audience), with their uids.
    Known(Vec<(UserId, EntityUid)>),
    /// Someone the prepared entities do not cover, or no audience at all (a workflow
    /// routed to a workflow): the question is decided the slow way, which reports it.
    Uncovered,
}

impl PreparedState {
    /// Builds the entities of `state` for every platform user and every destination
    /// the state knows (communities and their workspaces, shared workspace, memory,
    /// a direct message to every user, every declared workflow).
    pub(super) fn build(
        platform: &PlatformTier,
        target: &UserId,
        state: &CommunityState,
        conformance: Conformance<'_>,
    ) -> Result<PreparedState, PolicyError> {
        let users: BTreeSet<UserId> = platform.users.iter().cloned().collect();
        let mut destinations: BTreeSet<Destination> = BTreeSet::new();
        for record in &state.communities {
            destinations.insert(Destination::Community {
                community: record.id.clone(),
            });
            destinations.insert(Destination::Namespace {
                namespace: Namespace::Community {
                    community: record.id.clone(),
                },
            });
        }
        destinations.insert(Destination::Namespace {
            namespace: Namespace::Shared,
        });
        destinations.insert(Destination::Namespace {
            namespace: Namespace::Memory,
        });
        destinations.extend(
            users
                .iter()
                .map(|u| Destination::Person { user: u.clone() }),
        );
        destinations.extend(
            platform
                .workflow_routes
                .iter()
                .map(|r| Destination::Workflow {
                    name: r.name.clone(),
                }),
        );
        let user_refs: Vec<&UserId> = users.iter().collect();
        let dest_refs: Vec<&Destination> = destinations.iter().collect();
        let entities = entities_with(platform, target, state, &user_refs, &dest_refs, conformance)?;

        let mut user_uids = HashMap::with_capacity(users.len());
        for u in &users {
            user_uids.insert(u.clone(), user_uid(u)?);
        }
        let mut objects = HashMap::with_capacity(platform.labels.len());
        for label in &platform.labels {
            // The first label of an object is the one `PlatformTier::label` finds.
            if !objects.contains_key(&label.object) {
                objects.insert(label.object.clone(), object_uid(&label.object)?);
            }
        }
        let mut prepared_destinations = HashMap::with_capacity(destinations.len());
        for d in destinations {
            let audience = match state.reach(&d, target, platform) {
                Err(_) => Audience::Uncovered,
                Ok(reach) => reach
                    .audience
                    .into_iter()
                    .map(|r| user_uids.get(&r).cloned().map(|uid| (r, uid)))
                    .collect::<Option<Vec<_>>>()
                    .map_or(Audience::Uncovered, Audience::Known),
            };
            let uid = destination_uid(&d)?;
            prepared_destinations.insert(d, PreparedDestination { uid, audience });
        }
        Ok(PreparedState {
            entities,
            time: state.time,
            target: target.clone(),
            users: user_uids,
            objects,
            destinations: prepared_destinations,
        })
    }
}
