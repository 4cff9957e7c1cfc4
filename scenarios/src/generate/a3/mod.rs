//! Family A3 (memory poisoning) templates: 28 static and 24 dynamic scenarios.
//!
//! The attack sits in the agent's persistent private memory: a note that claims a
//! permission the owner never gave, gave narrower, gave in another context, or gave
//! for a while that has passed. Labels keep saying who owns the data, and a grant typed
//! into memory is never a platform grant (`platform.grants` stays empty, or holds only
//! the real, narrower grant), so the oracle denies the flow the note seems to permit.
//!
//! A static [`World`] fixes one (boundary, privacy object) profile: owner, protected
//! object, source and destination, legitimate artifact and the benign script. Each of
//! the seven [`Poison`]s swaps only the memory entry and the request that leans on it.
//! Every dynamic world carries one S6 note that was true when written and that the
//! world's community event makes stale.

mod build;
mod cast;
mod dyn_join;
mod dyn_kit;
mod dyn_merge_split;
mod dyn_relation;
mod dyn_remove;
mod dyn_role_down;
mod dyn_role_up;
mod places;
mod static_books;
mod static_choir;
mod static_club;
mod static_coop;
#[cfg(test)]
mod tests;

use crate::Scenario;
use build::{Poison, World};

/// A static profile: its world and its seven attack variants.
type StaticProfile = (fn() -> World, fn() -> Vec<Poison>);

/// The family's 28 static and 24 dynamic scenarios.
pub(crate) fn scenarios() -> Vec<Scenario> {
    let mut out = Vec::new();
    let statics: [StaticProfile; 4] = [
        (static_coop::world, static_coop::poisons),
        (static_club::world, static_club::poisons),
        (static_choir::world, static_choir::poisons),
        (static_books::world, static_books::poisons),
    ];
    for (world, poisons) in statics {
        for poison in poisons() {
            out.push(build::assemble(world(), poison));
        }
    }
    let dynamic = [
        dyn_join::worlds,
        dyn_remove::worlds,
        dyn_role_up::worlds,
        dyn_role_down::worlds,
        dyn_merge_split::worlds,
        dyn_relation::worlds,
    ];
    for (world, poison) in dynamic.into_iter().flat_map(|worlds| worlds()) {
        out.push(build::assemble(world, poison));
    }
    out
}
