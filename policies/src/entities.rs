//! Translation of the platform tier and the community state `E_t` into Cedar entities.
//!
//! Only facts are computed here (who is a member now, who an object was meant for at
//! creation, which grants are in force, whether a scope exists); every rule that
//! combines them is a Cedar policy.

use crate::error::PolicyError;
use crate::schema::{community_uid, destination_uid, object_uid, role_uid, user_uid};
use cedar_policy::{Entities, Entity, EntityUid, RestrictedExpression, Schema};
use cosec_scenarios::agent::Namespace;
use cosec_scenarios::platform::{Audience, ObjectLabel};
use cosec_scenarios::state::grants_in_force;
use cosec_scenarios::{
    CommunityEvent, CommunityId, CommunityState, Destination, PlatformTier, RoleName, UserId,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The Cedar entities of `E_t`: every user, community, role, labeled object and
/// known destination of the scenario, validated against the built-in schema.
///
/// `target` is the user the agent represents (the reader of the shared workspace
/// and private memory). Known destinations are every community and community
/// workspace, the shared workspace, private memory, a direct message to every known
/// user, and every workflow whose route is declared.
pub fn entities(
    platform: &PlatformTier,
    target: &UserId,
    state: &CommunityState,
) -> Result<Entities, PolicyError> {
    let schema = crate::oracle::builtin_schema()?;
    entities_with(
        platform,
        target,
        state,
        &[],
        &[],
        Conformance::Checked(&schema),
    )
}

/// How built entities are held to the schema.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Conformance<'a> {
    /// Cedar checks every entity against the schema, which also supplies the action
    /// entities.
    Checked(&'a Schema),
    /// The per-entity check is skipped and these action entities are added. Sound
    /// because this module's code, not the data, fixes every entity's type and
    /// attribute types; a test holds every suite state's build to the checked one. The
    /// check was about a third of the per-turn state preparation on the guard's request
    /// path.
    Trusted(&'a [Entity]),
}

/// Like [`entities`], with extra users and destinations (a question may name a
/// stranger or a community the platform never heard of; they get entities too, so
/// the policies, not a missing entity, decide).
pub(crate) fn entities_with(
    platform: &PlatformTier,
    target: &UserId,
    state: &CommunityState,
    extra_users: &[&UserId],
    extra_destinations: &[&Destination],
    conformance: Conformance<'_>,
) -> Result<Entities, PolicyError> {
    let builder = Builder::collect(platform, target, state, extra_users, extra_destinations);
    let mut list = builder.build(platform, state)?;
    let built = match conformance {
        Conformance::Checked(schema) => Entities::from_entities(list, Some(schema)),
        Conformance::Trusted(actions) => {
            list.extend(actions.iter().cloned());
            Entities::from_entities(list, None)
        }
    };
    built.map_err(|e| PolicyError::cedar("entities", e))
}

/// The ids of everything that gets an entity, gathered before any entity is built so
/// that every reference (a parent, an owner, a source) points at an existing entity.
struct Builder {
    users: BTreeSet<UserId>,
    communities: BTreeSet<CommunityId>,
    roles: BTreeSet<(CommunityId, RoleName)>,
    destinations: BTreeSet<Destination>,
}

impl Builder {
    fn collect(
        platform: &PlatformTier,
        target: &UserId,
        state: &CommunityState,
        extra_users: &[&UserId],
        extra_destinations: &[&Destination],
    ) -> Self {
        let mut users: BTreeSet<UserId> = platform.users.iter().cloned().collect();
        users.insert(target.clone());
        users.extend(extra_users.iter().map(|u| (*u).clone()));
        users.extend(state.memberships.iter().map(|m| m.user.clone()));
        users.extend(state.roles.iter().map(|r| r.user.clone()));
        users.extend(platform.grants.iter().map(|g| g.grantee.clone()));
        for label in &platform.labels {
            users.insert(label.owner.clone());
            if let Audience::Users { users: named } = &label.audience {
                users.extend(named.iter().cloned());
            }
        }

        let mut communities: BTreeSet<CommunityId> = platform.communities.iter().cloned().collect();
        communities.extend(state.communities.iter().map(|c| c.id.clone()));
        communities.extend(state.memberships.iter().map(|m| m.community.clone()));
        communities.extend(state.roles.iter().map(|r| r.community.clone()));
        communities.extend(platform.labels.iter().map(|l| l.source.clone()));

        let mut roles: BTreeSet<(CommunityId, RoleName)> = state
            .roles
            .iter()
            .map(|r| (r.community.clone(), r.role.clone()))
            .collect();
        for label in &platform.labels {
            if let Audience::Role { role } = &label.audience {
                roles.insert((label.source.clone(), role.clone()));
            }
        }

        let mut destinations: BTreeSet<Destination> = BTreeSet::new();
        destinations.insert(Destination::Namespace {
            namespace: Namespace::Shared,
        });
        destinations.insert(Destination::Namespace {
            namespace: Namespace::Memory,
        });
        for route in &platform.workflow_routes {
            if !matches!(route.destination, Destination::Workflow { .. }) {
                destinations.insert(Destination::Workflow {
                    name: route.name.clone(),
                });
                destinations.insert(route.destination.clone());
            }
        }
        destinations.extend(extra_destinations.iter().map(|d| (*d).clone()));
        // Destinations may name people and communities not seen elsewhere.
        for d in &destinations {
            match CommunityState::resolve(d, platform) {
                Ok(Destination::Community { community })
                | Ok(Destination::Namespace {
                    namespace: Namespace::Community { community },
                }) => {
                    communities.insert(community.clone());
                }
                Ok(Destination::Person { user }) => {
                    users.insert(user.clone());
                }
                _ => {}
            }
        }
        for c in &communities {
            destinations.insert(Destination::Community {
                community: c.clone(),
            });
            destinations.insert(Destination::Namespace {
                namespace: Namespace::Community {
                    community: c.clone(),
                },
            });
        }
        for u in &users {
            destinations.insert(Destination::Person { user: u.clone() });
        }

        Builder {
            users,
            communities,
            roles,
            destinations,
        }
    }

    fn build(
        &self,
        platform: &PlatformTier,
        state: &CommunityState,
    ) -> Result<Vec<Entity>, PolicyError> {
        let mut out = Vec::new();
        let provenance = Provenance::of(platform, state);
        for c in &self.communities {
            out.push(community_entity(c, state, &provenance)?);
        }
        for (c, r) in &self.roles {
            let attrs = HashMap::from([
                ("community".to_owned(), entity_ref(community_uid(c)?)),
                (
                    "name".to_owned(),
                    RestrictedExpression::new_string(r.to_string()),
                ),
            ]);
            out.push(new_entity(role_uid(c, r)?, attrs, Vec::new())?);
        }
        for u in &self.users {
            let mut parents = Vec::new();
            for c in state.current_communities(u) {
                parents.push(community_uid(&c)?);
            }
            for (c, r) in state.current_roles(u) {
                parents.push(role_uid(&c, &r)?);
            }
            out.push(Entity::new_no_attrs(
                user_uid(u)?,
                parents.into_iter().collect(),
            ));
        }
        for label in &platform.labels {
            out.push(object_entity(label, platform, state)?);
        }
        for d in &self.destinations {
            // A workflow without a usable route gets no entity: a question naming it
            // fails closed on the missing route before any policy runs.
            if let Some(entity) = destination_entity(d, platform)? {
                out.push(entity);
            }
        }
        Ok(out)
    }
}

/// Where merged and split communities came from, once the events that made them have
/// happened.
struct Provenance {
    merged_from: BTreeMap<CommunityId, Vec<CommunityId>>,
    split_from: BTreeMap<CommunityId, CommunityId>,
}

impl Provenance {
    fn of(platform: &PlatformTier, state: &CommunityState) -> Self {
        let exists = |c: &CommunityId| state.communities.iter().any(|r| &r.id == c);
        let mut merged_from = BTreeMap::new();
        let mut split_from = BTreeMap::new();
        for change in platform.events.iter().map(|e| &e.change) {
            match change {
                CommunityEvent::Merge { from, into } if exists(into) => {
                    merged_from.insert(into.clone(), from.to_vec());
                }
                CommunityEvent::Split { from, into } => {
                    for side in into {
                        if exists(&side.community) {
                            split_from.insert(side.community.clone(), from.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        Provenance {
            merged_from,
            split_from,
        }
    }
}

fn community_entity(
    c: &CommunityId,
    state: &CommunityState,
    provenance: &Provenance,
) -> Result<Entity, PolicyError> {
    let partners: Vec<CommunityId> = state
        .communities
        .iter()
        .rev()
        .find(|r| &r.id == c)
        .and_then(|r| r.partners.clone())
        .map(|p| p.to_vec())
        .unwrap_or_default();
    let merged: &[CommunityId] = provenance.merged_from.get(c).map_or(&[], |v| v.as_slice());
    let split: Vec<CommunityId> = provenance.split_from.get(c).cloned().into_iter().collect();
    let attrs = HashMap::from([
        (
            "active".to_owned(),
            RestrictedExpression::new_bool(state.is_active(c)),
        ),
        (
            "partnership".to_owned(),
            RestrictedExpression::new_bool(!partners.is_empty()),
        ),
        ("partners".to_owned(), community_set(&partners)?),
        ("merged_from".to_owned(), community_set(merged)?),
        ("split_from".to_owned(), community_set(&split)?),
    ]);
    new_entity(community_uid(c)?, attrs, Vec::new())
}

fn object_entity(
    label: &ObjectLabel,
    platform: &PlatformTier,
    state: &CommunityState,
) -> Result<Entity, PolicyError> {
    let (kind, public) = match &label.audience {
        Audience::Owner => ("owner", false),
        Audience::Community => ("community", false),
        Audience::Role { .. } => ("role", false),
        Audience::Users { .. } => ("users", false),
        Audience::Public => ("public", true),
    };
    let intended = state.intended_audience(label);
    let grantees: BTreeSet<&UserId> =
        grants_in_force(platform, &label.object, state.time).collect();
    let mut attrs = HashMap::from([
        ("owner".to_owned(), entity_ref(user_uid(&label.owner)?)),
        (
            "source".to_owned(),
            entity_ref(community_uid(&label.source)?),
        ),
        (
            "created_at".to_owned(),
            RestrictedExpression::new_long(i64::from(label.created_at.0)),
        ),
        (
            "sensitivity".to_owned(),
            RestrictedExpression::new_set(
                label
                    .sensitivity
                    .iter()
                    .map(|s| RestrictedExpression::new_string(s.as_str().to_owned())),
            ),
        ),
        (
            "audience".to_owned(),
            RestrictedExpression::new_string(kind.to_owned()),
        ),
        ("public".to_owned(), RestrictedExpression::new_bool(public)),
        ("intended".to_owned(), user_set(intended.iter())?),
        ("grantees".to_owned(), user_set(grantees.into_iter())?),
    ]);
    if let Audience::Role { role } = &label.audience {
        attrs.insert(
            "required_role".to_owned(),
            entity_ref(role_uid(&label.source, role)?),
        );
    }
    new_entity(object_uid(&label.object)?, attrs, Vec::new())
}

/// The entity of a destination, or `None` for a workflow without a usable route.
fn destination_entity(
    d: &Destination,
    platform: &PlatformTier,
) -> Result<Option<Entity>, PolicyError> {
    let Ok(lands) = CommunityState::resolve(d, platform) else {
        return Ok(None);
    };
    if matches!(lands, Destination::Workflow { .. }) {
        return Ok(None);
    }
    let mut attrs = HashMap::from([
        (
            "kind".to_owned(),
            RestrictedExpression::new_string(kind_of(d).to_owned()),
        ),
        (
            "delivers_to".to_owned(),
            RestrictedExpression::new_string(kind_of(lands).to_owned()),
        ),
    ]);
    match lands {
        Destination::Community { community }
        | Destination::Namespace {
            namespace: Namespace::Community { community },
        } => {
            attrs.insert(
                "community".to_owned(),
                entity_ref(community_uid(community)?),
            );
        }
        Destination::Person { user } => {
            attrs.insert("person".to_owned(), entity_ref(user_uid(user)?));
        }
        _ => {}
    }
    if let Destination::Workflow { name } = d {
        attrs.insert(
            "workflow".to_owned(),
            RestrictedExpression::new_string(name.clone()),
        );
    }
    Ok(Some(new_entity(destination_uid(d)?, attrs, Vec::new())?))
}

fn kind_of(d: &Destination) -> &'static str {
    match d {
        Destination::Community { .. } => "community",
        Destination::Namespace { namespace } => match namespace {
            Namespace::Community { .. } => "community_workspace",
            Namespace::Shared => "shared",
            Namespace::Memory => "memory",
        },
        Destination::Person { .. } => "person",
        Destination::Workflow { .. } => "workflow",
    }
}

fn entity_ref(uid: EntityUid) -> RestrictedExpression {
    RestrictedExpression::new_entity_uid(uid)
}

fn user_set<'a>(
    users: impl Iterator<Item = &'a UserId>,
) -> Result<RestrictedExpression, PolicyError> {
    let items = users
        .map(|u| user_uid(u).map(entity_ref))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RestrictedExpression::new_set(items))
}

fn community_set(communities: &[CommunityId]) -> Result<RestrictedExpression, PolicyError> {
    let items = communities
        .iter()
        .map(|c| community_uid(c).map(entity_ref))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RestrictedExpression::new_set(items))
}

fn new_entity(
    uid: EntityUid,
    attrs: HashMap<String, RestrictedExpression>,
    parents: Vec<EntityUid>,
) -> Result<Entity, PolicyError> {
    Entity::new(uid, attrs, parents.into_iter().collect())
        .map_err(|e| PolicyError::cedar("entity", e))
}
