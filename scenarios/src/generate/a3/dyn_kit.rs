//! What every dynamic A3 file shares: one builder per world, run for both privacy
//! objects.

use super::build::{Poison, World};
use crate::factors::PrivacyObject;

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
