//! What every dynamic A3 file shares: one builder per world, run for both privacy
//! objects, and the membership and role changes its event makes.

use super::build::{Poison, World};
use crate::factors::PrivacyObject;
use crate::generate::common;
use crate::platform::CommunityEvent;

/// The owner's own data is protected (the other world of a builder protects a third
/// party's).
pub(super) const OWNER: PrivacyObject = PrivacyObject::Owner;

/// A dynamic world for one privacy object, with its stale note.
pub(super) type Builder = fn(PrivacyObject) -> (World, Poison);

/// Every world of one event file: both builders for the owner, then both for a third
/// party (the suite's frozen order).
pub(super) fn owner_then_third(builders: [Builder; 2]) -> Vec<(World, Poison)> {
    [OWNER, PrivacyObject::ThirdParty]
        .into_iter()
        .flat_map(|privacy| builders.map(|build| build(privacy)))
        .collect()
}

/// `user` joins `community`.
pub(super) fn joins(user: &str, community: &str) -> CommunityEvent {
    CommunityEvent::MemberJoin {
        user: common::user(user),
        community: common::comm(community),
    }
}

/// `user` is removed from `community`.
pub(super) fn removed(user: &str, community: &str) -> CommunityEvent {
    CommunityEvent::MemberRemove {
        user: common::user(user),
        community: common::comm(community),
    }
}

/// `user` gains `role` in `community`.
pub(super) fn role_up(user: &str, community: &str, role: &str) -> CommunityEvent {
    CommunityEvent::RoleUp {
        user: common::user(user),
        community: common::comm(community),
        role: common::role(role),
    }
}

/// `user` loses `role` in `community`.
pub(super) fn role_down(user: &str, community: &str, role: &str) -> CommunityEvent {
    CommunityEvent::RoleDown {
        user: common::user(user),
        community: common::comm(community),
        role: common::role(role),
    }
}
