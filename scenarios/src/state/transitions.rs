//! The state's deterministic transitions: one event applied at a time, with the
//! checks that make an impossible event an error rather than a silent no-op.

use super::{CommunityRecord, CommunityState, MembershipRecord, RoleRecord, Span, StateError};
use crate::ids::{CommunityId, Time, UserId};
use crate::platform::CommunityEvent;
use std::collections::BTreeSet;

impl CommunityState {
    /// Applies one event at time `at`, returning the new state; `self` is unchanged.
    pub fn apply(&self, event: &CommunityEvent, at: Time) -> Result<Self, StateError> {
        if at < self.time {
            return Err(StateError::TimeWentBack { at, now: self.time });
        }
        let mut next = self.clone();
        next.time = at;
        match event {
            CommunityEvent::MemberJoin { user, community } => {
                next.require_active(community)?;
                if next.is_member(user, community) {
                    return Err(StateError::AlreadyMember {
                        user: user.clone(),
                        community: community.clone(),
                    });
                }
                next.memberships.push(MembershipRecord {
                    user: user.clone(),
                    community: community.clone(),
                    span: Span::open(at),
                });
                for space in next.partnership_spaces_of(community) {
                    if !next.is_member(user, &space) {
                        next.memberships.push(MembershipRecord {
                            user: user.clone(),
                            community: space,
                            span: Span::open(at),
                        });
                    }
                }
            }
            CommunityEvent::MemberRemove { user, community } => {
                next.require_active(community)?;
                if !next.is_member(user, community) {
                    return Err(StateError::NotMember {
                        user: user.clone(),
                        community: community.clone(),
                    });
                }
                next.end_membership(user, community, at);
            }
            CommunityEvent::RoleUp {
                user,
                community,
                role,
            } => {
                next.require_active(community)?;
                next.require_member(user, community)?;
                if next.held_role(user, community, role, at) {
                    return Err(StateError::RoleAlreadyHeld {
                        user: user.clone(),
                        community: community.clone(),
                        role: role.clone(),
                    });
                }
                next.roles.push(RoleRecord {
                    user: user.clone(),
                    community: community.clone(),
                    role: role.clone(),
                    span: Span::open(at),
                });
            }
            CommunityEvent::RoleDown {
                user,
                community,
                role,
            } => {
                next.require_active(community)?;
                let mut found = false;
                for r in next.roles.iter_mut() {
                    if &r.user == user
                        && &r.community == community
                        && &r.role == role
                        && r.span.covers(at)
                    {
                        r.span.until = Some(at);
                        found = true;
                    }
                }
                if !found {
                    return Err(StateError::RoleNotHeld {
                        user: user.clone(),
                        community: community.clone(),
                        role: role.clone(),
                    });
                }
            }
            CommunityEvent::Merge { from, into } => {
                next.open_from_members(into, from, None, at)?;
            }
            CommunityEvent::Split { from, into } => {
                next.require_active(from)?;
                let before = next.members_at(from, at);
                for side in into {
                    next.require_new(&side.community)?;
                    for user in &side.members {
                        if !before.contains(user) {
                            return Err(StateError::SplitStranger {
                                user: user.clone(),
                                community: from.clone(),
                            });
                        }
                    }
                }
                for user in &before {
                    next.end_membership(user, from, at);
                }
                next.close(from, at);
                for side in into {
                    next.communities.push(CommunityRecord {
                        id: side.community.clone(),
                        span: Span::open(at),
                        partners: None,
                    });
                    for user in &side.members {
                        next.memberships.push(MembershipRecord {
                            user: user.clone(),
                            community: side.community.clone(),
                            span: Span::open(at),
                        });
                    }
                }
            }
            CommunityEvent::RelationStart { space, between } => {
                next.open_from_members(space, between, Some(between.clone()), at)?;
            }
            CommunityEvent::RelationEnd { space } => {
                let is_partnership = next
                    .community_record(space)
                    .is_some_and(|c| c.partners.is_some() && c.span.covers(at));
                if !is_partnership {
                    return Err(StateError::NoRelation(space.clone()));
                }
                for user in next.members_at(space, at) {
                    next.end_membership(&user, space, at);
                }
                next.close(space, at);
            }
        }
        Ok(next)
    }

    /// Opens the new scope `id` at `at` (a merge's result, or a relation's shared space)
    /// whose members are everyone in the active `sources` at that time.
    fn open_from_members(
        &mut self,
        id: &CommunityId,
        sources: &[CommunityId],
        partners: Option<[CommunityId; 2]>,
        at: Time,
    ) -> Result<(), StateError> {
        for c in sources {
            self.require_active(c)?;
        }
        self.require_new(id)?;
        self.communities.push(CommunityRecord {
            id: id.clone(),
            span: Span::open(at),
            partners,
        });
        let members: BTreeSet<UserId> = sources
            .iter()
            .flat_map(|c| self.members_at(c, at))
            .collect();
        for user in members {
            self.memberships.push(MembershipRecord {
                user,
                community: id.clone(),
                span: Span::open(at),
            });
        }
        Ok(())
    }

    fn require_active(&self, community: &CommunityId) -> Result<(), StateError> {
        if self.is_active(community) {
            Ok(())
        } else {
            Err(StateError::UnknownCommunity(community.clone()))
        }
    }

    fn require_new(&self, community: &CommunityId) -> Result<(), StateError> {
        if self.community_record(community).is_some() {
            Err(StateError::CommunityExists(community.clone()))
        } else {
            Ok(())
        }
    }

    fn require_member(&self, user: &UserId, community: &CommunityId) -> Result<(), StateError> {
        if self.is_member(user, community) {
            Ok(())
        } else {
            Err(StateError::NotMember {
                user: user.clone(),
                community: community.clone(),
            })
        }
    }

    fn partnership_spaces_of(&self, community: &CommunityId) -> Vec<CommunityId> {
        self.communities
            .iter()
            .filter(|c| c.span.covers(self.time))
            .filter(|c| c.partners.as_ref().is_some_and(|p| p.contains(community)))
            .map(|c| c.id.clone())
            .collect()
    }

    /// Ends a membership and every role in that community; a removal from a partner
    /// community also ends the membership of its partnership spaces unless the user is
    /// still in the other partner.
    fn end_membership(&mut self, user: &UserId, community: &CommunityId, at: Time) {
        for m in self.memberships.iter_mut() {
            if &m.user == user && &m.community == community && m.span.covers(at) {
                m.span.until = Some(at);
            }
        }
        for r in self.roles.iter_mut() {
            if &r.user == user && &r.community == community && r.span.covers(at) {
                r.span.until = Some(at);
            }
        }
        let spaces: Vec<(CommunityId, [CommunityId; 2])> = self
            .communities
            .iter()
            .filter(|c| c.span.covers(at))
            .filter_map(|c| c.partners.clone().map(|p| (c.id.clone(), p)))
            .filter(|(_, p)| p.contains(community))
            .collect();
        for (space, partners) in spaces {
            let still_in_other = partners
                .iter()
                .any(|p| p != community && self.was_member(user, p, at));
            if !still_in_other {
                for m in self.memberships.iter_mut() {
                    if &m.user == user && m.community == space && m.span.covers(at) {
                        m.span.until = Some(at);
                    }
                }
            }
        }
    }

    fn close(&mut self, community: &CommunityId, at: Time) {
        for c in self.communities.iter_mut() {
            if &c.id == community && c.span.covers(at) {
                c.span.until = Some(at);
            }
        }
    }
}
