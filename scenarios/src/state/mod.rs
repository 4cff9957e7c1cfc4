//! The community state `E_t` and the questions asked of it; its deterministic
//! transitions are in `transitions.rs`, who a destination reaches in `reach.rs`.
//!
//! The state keeps full history (start and end of every membership, role and
//! partnership) so that questions about an earlier time, such as "who was a member
//! when this object was created", have exact answers at every later `t`.

mod reach;
mod transitions;

pub use reach::Reach;

use crate::ids::{CommunityId, ObjectId, RoleName, Time, UserId};
use crate::platform::{Audience, ObjectLabel, PlatformTier};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Why an event or a question cannot be applied to the state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// The event names a community that does not exist (or no longer exists).
    #[error("community `{0}` does not exist or is closed at this time")]
    UnknownCommunity(CommunityId),
    /// The event names a community id that is already taken.
    #[error("community `{0}` already exists")]
    CommunityExists(CommunityId),
    /// The event needs a membership that is not in force.
    #[error("`{user}` is not a member of `{community}`")]
    NotMember {
        /// The user.
        user: UserId,
        /// The community.
        community: CommunityId,
    },
    /// The event adds a membership that is already in force.
    #[error("`{user}` is already a member of `{community}`")]
    AlreadyMember {
        /// The user.
        user: UserId,
        /// The community.
        community: CommunityId,
    },
    /// A role-down names a role the user does not hold.
    #[error("`{user}` does not hold role `{role}` in `{community}`")]
    RoleNotHeld {
        /// The user.
        user: UserId,
        /// The community.
        community: CommunityId,
        /// The role.
        role: RoleName,
    },
    /// A role-up names a role the user already holds.
    #[error("`{user}` already holds role `{role}` in `{community}`")]
    RoleAlreadyHeld {
        /// The user.
        user: UserId,
        /// The community.
        community: CommunityId,
        /// The role.
        role: RoleName,
    },
    /// A relation-end names a partnership that is not active.
    #[error("no active partnership with space `{0}`")]
    NoRelation(CommunityId),
    /// A split side lists someone who was not a member of the original community.
    #[error("split of `{community}` assigns `{user}`, who is not a member")]
    SplitStranger {
        /// The user.
        user: UserId,
        /// The community split.
        community: CommunityId,
    },
    /// A destination names a workflow without a route.
    #[error("workflow `{0}` has no declared route")]
    UnknownWorkflow(String),
    /// Time went backwards.
    #[error("event at {at} is before the state's time {now}")]
    TimeWentBack {
        /// The event time.
        at: Time,
        /// The state's time.
        now: Time,
    },
}

/// A half-open interval `[since, until)` of validity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// Start, inclusive.
    pub since: Time,
    /// End, exclusive; `None` while still in force.
    pub until: Option<Time>,
}

impl Span {
    /// Whether the span covers `t`.
    pub fn covers(&self, t: Time) -> bool {
        self.since <= t && self.until.is_none_or(|u| t < u)
    }

    fn open(since: Time) -> Self {
        Span { since, until: None }
    }
}

/// A membership with its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MembershipRecord {
    /// The member.
    pub user: UserId,
    /// The community.
    pub community: CommunityId,
    /// When it held.
    pub span: Span,
}

/// A role with its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleRecord {
    /// The holder.
    pub user: UserId,
    /// The community.
    pub community: CommunityId,
    /// The role.
    pub role: RoleName,
    /// When it held.
    pub span: Span,
}

/// A community-like scope with its lifetime.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommunityRecord {
    /// The scope.
    pub id: CommunityId,
    /// When it existed.
    pub span: Span,
    /// For a partnership space, the two partners.
    pub partners: Option<[CommunityId; 2]>,
}

/// `E_t`: communities, memberships, roles and partnerships with their history, at `time`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommunityState {
    /// The state's current time.
    pub time: Time,
    /// Every scope that ever existed.
    pub communities: Vec<CommunityRecord>,
    /// Every membership that ever held.
    pub memberships: Vec<MembershipRecord>,
    /// Every role that ever held.
    pub roles: Vec<RoleRecord>,
}

impl CommunityState {
    /// The state at the start of a scenario (before any turn), from its platform tier.
    pub fn initial(platform: &PlatformTier) -> Self {
        let mut communities: Vec<CommunityRecord> = platform
            .communities
            .iter()
            .map(|c| CommunityRecord {
                id: c.clone(),
                span: Span::open(Time(0)),
                partners: None,
            })
            .collect();
        let mut memberships: Vec<MembershipRecord> = platform
            .memberships
            .iter()
            .map(|m| MembershipRecord {
                user: m.user.clone(),
                community: m.community.clone(),
                span: Span::open(m.since),
            })
            .collect();
        for rel in &platform.relations {
            communities.push(CommunityRecord {
                id: rel.space.clone(),
                span: Span::open(rel.since),
                partners: Some(rel.between.clone()),
            });
            for m in &platform.memberships {
                if rel.between.contains(&m.community) {
                    memberships.push(MembershipRecord {
                        user: m.user.clone(),
                        community: rel.space.clone(),
                        span: Span::open(m.since.max(rel.since)),
                    });
                }
            }
        }
        let roles = platform
            .roles
            .iter()
            .map(|r| RoleRecord {
                user: r.user.clone(),
                community: r.community.clone(),
                role: r.role.clone(),
                span: Span::open(r.since),
            })
            .collect();
        CommunityState {
            time: Time(0),
            communities,
            memberships,
            roles,
        }
    }

    /// The state in force at time `t`: the initial state with every scheduled event that
    /// happened at or before `t` applied in order.
    pub fn at(platform: &PlatformTier, t: Time) -> Result<Self, StateError> {
        let mut state = Self::initial(platform);
        for ev in &platform.events {
            let at = crate::ids::event_time(ev.after_turn);
            if at > t {
                break;
            }
            state = state.apply(&ev.change, at)?;
        }
        state.time = t;
        Ok(state)
    }

    /// Whether `community` exists at the state's time.
    pub fn is_active(&self, community: &CommunityId) -> bool {
        self.community_record(community)
            .is_some_and(|c| c.span.covers(self.time))
    }

    fn community_record(&self, community: &CommunityId) -> Option<&CommunityRecord> {
        self.communities.iter().rev().find(|c| &c.id == community)
    }

    /// Whether `user` was a member of `community` at time `t`.
    pub fn was_member(&self, user: &UserId, community: &CommunityId, t: Time) -> bool {
        self.memberships
            .iter()
            .any(|m| &m.user == user && &m.community == community && m.span.covers(t))
    }

    /// Whether `user` is a member of `community` now.
    pub fn is_member(&self, user: &UserId, community: &CommunityId) -> bool {
        self.was_member(user, community, self.time)
    }

    /// Members of `community` at time `t`.
    pub fn members_at(&self, community: &CommunityId, t: Time) -> BTreeSet<UserId> {
        self.memberships
            .iter()
            .filter(|m| &m.community == community && m.span.covers(t))
            .map(|m| m.user.clone())
            .collect()
    }

    /// Current members of `community`.
    pub fn members(&self, community: &CommunityId) -> BTreeSet<UserId> {
        self.members_at(community, self.time)
    }

    /// Whether `user` held `role` in `community` at time `t`.
    pub fn held_role(
        &self,
        user: &UserId,
        community: &CommunityId,
        role: &RoleName,
        t: Time,
    ) -> bool {
        self.roles.iter().any(|r| {
            &r.user == user && &r.community == community && &r.role == role && r.span.covers(t)
        })
    }

    /// Roles `(community, role)` that `user` holds now.
    pub fn current_roles(&self, user: &UserId) -> BTreeSet<(CommunityId, RoleName)> {
        self.roles
            .iter()
            .filter(|r| &r.user == user && r.span.covers(self.time))
            .map(|r| (r.community.clone(), r.role.clone()))
            .collect()
    }

    /// Communities `user` is a member of now.
    pub fn current_communities(&self, user: &UserId) -> BTreeSet<CommunityId> {
        self.memberships
            .iter()
            .filter(|m| &m.user == user && m.span.covers(self.time))
            .map(|m| m.community.clone())
            .collect()
    }

    /// The people an object was meant for when it was created (its label's audience,
    /// resolved against the memberships and roles in force at creation).
    pub fn intended_audience(&self, label: &ObjectLabel) -> BTreeSet<UserId> {
        let t = label.created_at;
        let mut set: BTreeSet<UserId> = match &label.audience {
            Audience::Owner | Audience::Public => BTreeSet::new(),
            Audience::Community => self.members_at(&label.source, t),
            Audience::Role { role } => self
                .members_at(&label.source, t)
                .into_iter()
                .filter(|u| self.held_role(u, &label.source, role, t))
                .collect(),
            Audience::Users { users } => users.iter().cloned().collect(),
        };
        set.insert(label.owner.clone());
        set
    }

    /// Whether `user` may hold the object labeled `label` now, in the community model's
    /// reading: its owner; anyone for a public object; a grantee of a real grant in
    /// force; or someone in its intended audience at creation who is still a member of
    /// its source community (and still holds the role a role-gated object was meant
    /// for). The Cedar oracle is authoritative; the verifier uses this to classify
    /// failures, the suite checks use it to confirm allowed recipients, and a test
    /// checks that it agrees with the oracle.
    pub fn may_hold(&self, platform: &PlatformTier, label: &ObjectLabel, user: &UserId) -> bool {
        if &label.owner == user || matches!(label.audience, Audience::Public) {
            return true;
        }
        if grants_in_force(platform, &label.object, self.time).any(|g| g == user) {
            return true;
        }
        let role_ok = match &label.audience {
            Audience::Role { role } => self.held_role(user, &label.source, role, self.time),
            _ => true,
        };
        role_ok
            && self.is_member(user, &label.source)
            && self.intended_audience(label).contains(user)
    }
}

/// The object ids of labels whose grants are in force at `t`, per grantee.
pub fn grants_in_force<'a>(
    platform: &'a PlatformTier,
    object: &'a ObjectId,
    t: Time,
) -> impl Iterator<Item = &'a UserId> + 'a {
    platform
        .grants
        .iter()
        .filter(move |g| &g.object == object && g.from <= t && g.until.is_none_or(|u| t < u))
        .map(|g| &g.grantee)
}
